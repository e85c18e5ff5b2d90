; Lua symbols and references. Capture vocabulary: see python.scm.
; A module is a file ("a/b.lua" is "a.b", "a/b/init.lua" too); a table built at its top
; level (`local M = {}`, `M = { f = function() end }`) is a class-like definition whose
; functions (`function M.f()`, `function M:m()`, `M.f = function() end`, the fields of its
; constructor) are its members: `local x = require "a.b"` binds the table the module
; returns (`return M`), and `self`/`M:m()` inside it are that table (retrievers/luamods.py).

; ---- definitions -----------------------------------------------------------------------
(function_declaration name: (identifier) @name body: (_)? @body) @definition.function
(function_declaration name: (dot_index_expression table: (_) @qualifier field: (identifier) @name)
  body: (_)? @body) @definition.function
(function_declaration
  name: (method_index_expression table: (_) @qualifier method: (identifier) @name)
  body: (_)? @body) @definition.method
; `M.f = function(a) ... end`, `local f = function(a) ... end`
(assignment_statement
  (variable_list . (dot_index_expression table: (_) @qualifier field: (identifier) @name) .)
  (expression_list . (function_definition (block)? @body) .)) @definition.function
(variable_declaration (assignment_statement
  (variable_list . (identifier) @name .)
  (expression_list . (function_definition (block)? @body) .))) @definition.function
(chunk (assignment_statement
  (variable_list . (identifier) @name .)
  (expression_list . (function_definition (block)? @body) .)) @definition.function)
; A top-level table: the module's table, or a class built with setmetatable.
(chunk (variable_declaration (assignment_statement
  (variable_list . (identifier) @name .)
  (expression_list . (table_constructor) @body .))) @definition.class)
(chunk (assignment_statement
  (variable_list . (identifier) @name .)
  (expression_list . (table_constructor) @body .)) @definition.class)
; A capitalised top-level name bound to a class built by a call (`local Date = class()`) or
; taken from another table (`local List = utils.stdmt.List`): the table its methods extend.
(chunk (variable_declaration (assignment_statement
  (variable_list . (identifier) @name .)
  (expression_list . (function_call name: (_) @_callee) @body .))) @definition.class
  (#match? @name "^[A-Z]") (#not-eq? @_callee "require"))
(chunk (variable_declaration (assignment_statement
  (variable_list . (identifier) @name .)
  (expression_list . (dot_index_expression) @body .))) @definition.class
  (#match? @name "^[A-Z]"))
; `{ f = function() end }`: a function field of a table
(table_constructor (field name: (identifier) @name
  value: (function_definition (block)? @body)) @definition.function)

; ---- imports: `require "a.b"`, `local x = require("a.b")` --------------------------------
(assignment_statement
  (variable_list . (identifier) .)
  (expression_list . (function_call name: (identifier) @_require
    arguments: [(arguments . (string) .) (string)]) .)
  (#eq? @_require "require")) @reference.import
(chunk (function_call name: (identifier) @_require
    arguments: [(arguments . (string) .) (string)]) @reference.import
  (#eq? @_require "require"))
(block (function_call name: (identifier) @_require
    arguments: [(arguments . (string) .) (string)]) @reference.import
  (#eq? @_require "require"))
((function_call name: (identifier) @skip) (#eq? @skip "setmetatable"))
; a name being assigned or a parameter is no use of it
(variable_list (identifier) @skip)
(parameters (identifier) @skip)

; ---- calls -----------------------------------------------------------------------------
(function_call name: (identifier) @name) @reference.call
(function_call name: (dot_index_expression table: (_) @receiver field: (identifier) @name))
  @reference.call
(function_call name: (method_index_expression table: (_) @receiver method: (identifier) @name))
  @reference.call

; ---- other uses: a function passed by name (`table.sort(t, compare)`), `M.f` read --------
(dot_index_expression table: (_) @receiver field: (identifier) @name) @reference.use
((identifier) @name @reference.use)
