; Patterns shared by the JavaScript and TypeScript grammars (included by "; inherits: _ecma").
; Capture vocabulary: see python.scm.

; ---- definitions -----------------------------------------------------------------------
(function_declaration name: (identifier) @name body: (_) @body) @definition.function
(generator_function_declaration name: (identifier) @name body: (_) @body) @definition.function
(method_definition
  name: [(property_identifier) (private_property_identifier)] @name body: (_) @body)
  @definition.function
; `[Symbol.iterator]() {...}`: the method `for...of` and spreads call (named `@@iterator`,
; the specification's notation: extract/symbols.py)
((method_definition
  name: (computed_property_name (member_expression object: (identifier) @_symbol)) @name
  body: (_) @body) @definition.function
  (#eq? @_symbol "Symbol"))
; A function expression or arrow function assigned to a name is a function of that name;
; these come before the constant patterns so that they win for `const f = () => ...`.
(variable_declarator name: (identifier) @name value: (arrow_function body: (_) @body))
  @definition.function
(variable_declarator name: (identifier) @name value: (function_expression body: (_) @body))
  @definition.function
(variable_declarator name: (identifier) @name value: (generator_function body: (_) @body))
  @definition.function
; Top-level `const X = ...` (exported or not) that is neither a function nor a require().
((program (lexical_declaration kind: "const"
  (variable_declarator name: (identifier) @name value: (_) @body) @definition.constant))
  (#not-match? @body "^require[ ]*[(]"))
((program (export_statement declaration: (lexical_declaration kind: "const"
  (variable_declarator name: (identifier) @name value: (_) @body) @definition.constant)))
  (#not-match? @body "^require[ ]*[(]"))

; ---- calls -----------------------------------------------------------------------------
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (member_expression object: (_) @receiver
  property: [(property_identifier) (private_property_identifier)] @name)) @reference.call
(new_expression constructor: (identifier) @name @reference.call)
(new_expression constructor: (member_expression object: (_) @receiver
  property: (property_identifier) @name)) @reference.call

; ---- imports, re-exports, require() (read whole by symbol_imports.py) -----------------------
(import_statement) @reference.import
(export_statement source: (_)) @reference.import
((variable_declarator value: (call_expression function: (identifier) @_require
  arguments: (arguments . (string)))) @reference.import
  (#eq? @_require "require"))

; ---- decorators ------------------------------------------------------------------------
(decorator (identifier) @name) @reference.decorator
(decorator (member_expression object: (_) @receiver property: (property_identifier) @name))
  @reference.decorator
(decorator (call_expression function: (identifier) @name)) @reference.decorator
(decorator (call_expression function: (member_expression object: (_) @receiver
  property: (property_identifier) @name))) @reference.decorator

; ---- strings naming a dotted path ------------------------------------------------------
((string . (string_fragment) @name .) @reference.string
  (#match? @name "^[A-Za-z_$][A-Za-z0-9_$]*([.][A-Za-z_$][A-Za-z0-9_$]*)+$"))

; ---- other uses: a name passed, stored, returned or exported as a value -------------------
(arguments (identifier) @name @reference.use)
(arguments (member_expression object: (_) @receiver property: (property_identifier) @name)
  @reference.use)
(array (identifier) @name @reference.use)
(array (member_expression object: (_) @receiver property: (property_identifier) @name)
  @reference.use)
(pair value: (identifier) @name @reference.use)
(pair value: (member_expression object: (_) @receiver property: (property_identifier) @name)
  @reference.use)
(object (shorthand_property_identifier) @name @reference.use)
(variable_declarator value: (identifier) @name @reference.use)
(variable_declarator value: (member_expression object: (_) @receiver
  property: (property_identifier) @name) @reference.use)
(assignment_expression right: (identifier) @name @reference.use)
(assignment_expression right: (member_expression object: (_) @receiver
  property: (property_identifier) @name) @reference.use)
(return_statement (identifier) @name @reference.use)
(return_statement (member_expression object: (_) @receiver property: (property_identifier) @name)
  @reference.use)
(binary_expression operator: "instanceof" right: (identifier) @name @reference.use)
(binary_expression operator: "instanceof" right: (member_expression object: (_) @receiver
  property: (property_identifier) @name) @reference.use)
(export_statement value: (identifier) @name @reference.use)
(export_statement !source (export_clause (export_specifier name: (identifier) @name @reference.use)))
; `a || b`, `a ?? b`, `a && b` as values: `(delegate?.f || f)(...)` calls one of them
(binary_expression left: (identifier) @name @reference.use operator: ["||" "??" "&&"])
(binary_expression operator: ["||" "??" "&&"] right: (identifier) @name @reference.use)
; `const { f } = obj` reads obj.f (the receiver is the value destructured)
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @name)
  value: [(identifier) (member_expression)] @receiver) @reference.use
