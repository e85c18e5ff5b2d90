; Emacs Lisp (generic tier).
(function_definition name: (symbol) @name) @definition.function
(macro_definition name: (symbol) @name) @definition.function
(special_form . (symbol) @name) @definition.constant
((list . (symbol) @_kw . (symbol) @name) @definition.constant
  (#match? @_kw "^(defcustom|defconst|defface|defgroup)$"))
(list . (symbol) @name) @reference.call
