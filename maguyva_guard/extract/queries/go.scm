; Go symbols and references. Capture vocabulary: see python.scm.
; Go shares names across the files of a package without imports, so plain identifier uses
; are filtered by locals (@local) rather than by what the file binds (registry: package_scope).

; ---- definitions -----------------------------------------------------------------------
(function_declaration name: (identifier) @name body: (block) @body) @definition.function
(function_declaration name: (identifier) @name !body) @definition.function
; Methods are qualified by their receiver type, pointer or not: "Server.Start".
(method_declaration
  receiver: (parameter_list (parameter_declaration type: [
    (type_identifier) @qualifier
    (pointer_type (type_identifier) @qualifier)
    (generic_type type: (type_identifier) @qualifier)
    (pointer_type (generic_type type: (type_identifier) @qualifier))]))
  name: (field_identifier) @name body: (block)? @body) @definition.method
(type_spec name: (type_identifier) @name type: (interface_type) @body) @definition.interface
(type_spec name: (type_identifier) @name type: (_) @body) @definition.type
(type_alias name: (type_identifier) @name type: (_) @body) @definition.type
(method_elem name: (field_identifier) @name) @definition.method
; A function literal bound to a local name (`helper := func(x int) int {...}`) is a nested
; function of that name: its calls in the enclosing function are calls of it.
(short_var_declaration left: (expression_list . (identifier) @name .)
  right: (expression_list . (func_literal body: (block) @body) .)) @definition.function
(var_spec name: (identifier) @name
  value: (expression_list . (func_literal body: (block) @body) .)) @definition.function
(source_file (const_declaration (const_spec name: (identifier) @name value: (_)? @body)
  @definition.constant))

; ---- calls -----------------------------------------------------------------------------
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (selector_expression operand: (_) @receiver
  field: (field_identifier) @name)) @reference.call
(call_expression function: (index_expression operand: (identifier) @name)) @reference.call
(call_expression function: (index_expression operand: (selector_expression operand: (_) @receiver
  field: (field_identifier) @name))) @reference.call
; f[T](x) parses as a conversion to a generic type.
(type_conversion_expression type: (generic_type type: (type_identifier) @name)) @reference.call
(type_conversion_expression type: (generic_type type: (qualified_type package: (_) @receiver
  name: (type_identifier) @name))) @reference.call

; ---- imports ---------------------------------------------------------------------------
(import_spec) @reference.import

; ---- embedding: a struct's anonymous fields and an interface's embedded interfaces ------
(field_declaration_list (field_declaration !name type: [
  (type_identifier) @name @reference.inherit
  (pointer_type (type_identifier) @name @reference.inherit)
  (qualified_type package: (_) @receiver name: (type_identifier) @name) @reference.inherit
  (pointer_type
    (qualified_type package: (_) @receiver name: (type_identifier) @name) @reference.inherit)]))
(interface_type (type_elem [
  (type_identifier) @name
  (qualified_type package: (_) @receiver name: (type_identifier) @name)]) @reference.inherit)

; ---- type names in signatures and declarations (predeclared types skipped) ---------------
((type_identifier) @name @reference.annotation
  (#not-match? @name "^(bool|byte|complex64|complex128|error|float32|float64|int|int8|int16|int32|int64|rune|string|uint|uint8|uint16|uint32|uint64|uintptr|any|comparable)$"))
(qualified_type package: (_) @receiver name: (type_identifier) @name) @reference.annotation
(type_parameter_declaration name: (identifier) @skip)

; ---- strings naming a dotted path ------------------------------------------------------
((interpreted_string_literal . (interpreted_string_literal_content) @name .) @reference.string
  (#match? @name "^[A-Za-z_][A-Za-z0-9_]*([.][A-Za-z_][A-Za-z0-9_]*)+$"))

; ---- other uses: a name passed, stored or returned as a value ---------------------------
(argument_list (identifier) @name @reference.use)
(argument_list (selector_expression operand: (_) @receiver field: (field_identifier) @name)
  @reference.use)
(expression_list (identifier) @name @reference.use)
(expression_list (selector_expression operand: (_) @receiver field: (field_identifier) @name)
  @reference.use)
(keyed_element value: (literal_element (identifier) @name @reference.use))
(keyed_element value: (literal_element
  (selector_expression operand: (_) @receiver field: (field_identifier) @name) @reference.use))
(literal_value (literal_element (identifier) @name @reference.use))

; An assignment's target is written, not used: `flag.Changed = true` sets a field, and
; reading it as a use would make a caller of every method named `Changed`.
(assignment_statement left: (expression_list
  (selector_expression field: (field_identifier) @skip)))

; ---- locals: parameters and declared variables -------------------------------------------
(parameter_declaration name: (identifier) @local)
(variadic_parameter_declaration name: (identifier) @local)
(short_var_declaration left: (expression_list (identifier) @local))
(var_spec name: (identifier) @local)
(range_clause left: (expression_list (identifier) @local))
(assignment_statement left: (expression_list (identifier) @local))
