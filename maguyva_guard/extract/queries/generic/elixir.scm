; Elixir (generic tier): defmodule qualifies; def/defp/defmacro/defguard define.
((call target: (identifier) @_kw (arguments . (alias) @name) (do_block) @body) @scope.module
  (#match? @_kw "^(defmodule|defprotocol|defimpl)$"))
((call target: (identifier) @_kw (arguments . [
  (call target: (identifier) @name)
  (binary_operator left: (call target: (identifier) @name))
  (identifier) @name])) @definition.function
  (#match? @_kw "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp)$"))
(call target: (identifier) @name) @reference.call
(call target: (dot right: (identifier) @name)) @reference.call
