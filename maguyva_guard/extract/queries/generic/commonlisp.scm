; Common Lisp (generic tier).
(defun (defun_header function_name: (_) @name)) @definition.function
((list_lit . (sym_lit) @_kw . (sym_lit) @name) @definition.constant
  (#match? @_kw "^([dD][eE][fF](var|parameter|constant|VAR|PARAMETER|CONSTANT))$"))
((list_lit . (sym_lit) @_kw . (sym_lit) @name) @definition.class
  (#match? @_kw "^(defclass|defstruct|define-condition|DEFCLASS|DEFSTRUCT)$"))
(list_lit . (sym_lit) @name) @reference.call
