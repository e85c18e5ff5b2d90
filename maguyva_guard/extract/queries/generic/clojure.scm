; Clojure (generic tier): (defn name ...), (def name ...), (defmacro ...), protocols, records.
((list_lit . (sym_lit name: (sym_name) @_kw) . (sym_lit name: (sym_name) @name)) @definition.function
  (#match? @_kw "^(defn|defn-|defmacro|defmulti|definline)$"))
((list_lit . (sym_lit name: (sym_name) @_kw) . (sym_lit name: (sym_name) @name)) @definition.constant
  (#match? @_kw "^(def|defonce)$"))
((list_lit . (sym_lit name: (sym_name) @_kw) . (sym_lit name: (sym_name) @name)) @definition.interface
  (#match? @_kw "^(defprotocol|definterface)$"))
((list_lit . (sym_lit name: (sym_name) @_kw) . (sym_lit name: (sym_name) @name)) @definition.type
  (#match? @_kw "^(defrecord|deftype|defstruct)$"))
(list_lit . (sym_lit name: (sym_name) @name)) @reference.call
