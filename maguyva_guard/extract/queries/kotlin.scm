; Kotlin symbols and references. Capture vocabulary: see python.scm.
; A companion object qualifies nothing: `App.create()` calls `App.create`. An extension
; function `fun Foo.bar()` is qualified by its receiver type, as a Go method is.

; ---- definitions -----------------------------------------------------------------------
((class_declaration "interface" (type_identifier) @name (class_body)? @body)
  @definition.interface)
(class_declaration (type_identifier) @name [(class_body) (enum_class_body)]? @body)
  @definition.class
(object_declaration (type_identifier) @name (class_body)? @body) @definition.class
(function_declaration
  receiver: (receiver_type [(user_type . (type_identifier) @qualifier)
                            (nullable_type (user_type . (type_identifier) @qualifier))])
  (simple_identifier) @name (function_body)? @body) @definition.function
(function_declaration (simple_identifier) @name (function_body)? @body) @definition.function
(secondary_constructor "constructor" @name (statements)? @body) @definition.function
(type_alias (type_identifier) @name) @definition.type
; Properties: the header up to `=` is the signature (the value is the body).
((property_declaration (modifiers) @_const (variable_declaration (simple_identifier) @name)
  "=" . (_) @body) @definition.constant
  (#match? @_const "\\bconst\\b"))
(class_body (property_declaration (variable_declaration (simple_identifier) @name)
  "=" . (_) @body) @definition.function)
(class_body (property_declaration (variable_declaration (simple_identifier) @name))
  @definition.function)
(source_file (property_declaration (variable_declaration (simple_identifier) @name)
  "=" . (_) @body) @definition.constant)
(source_file (property_declaration (variable_declaration (simple_identifier) @name))
  @definition.constant)

; ---- calls -----------------------------------------------------------------------------
(call_expression . (simple_identifier) @name) @reference.call
(call_expression . (navigation_expression . (_) @receiver
  (navigation_suffix (simple_identifier) @name) .)) @reference.call
(constructor_invocation (user_type (type_identifier) @name .)) @reference.call

; ---- imports: `import`, and the file's own package --------------------------------------
(import_header) @reference.import
(package_header) @reference.import

; ---- bases -------------------------------------------------------------------------------
(delegation_specifier (user_type (type_identifier) @name .) @reference.inherit)
(delegation_specifier (constructor_invocation (user_type (type_identifier) @name .))
  @reference.inherit)

; ---- annotations ---------------------------------------------------------------------------
(annotation (user_type (type_identifier) @name .) @reference.decorator)
(annotation (constructor_invocation (user_type (type_identifier) @name .)) @reference.decorator)

; ---- type names ----------------------------------------------------------------------------
(user_type (type_identifier) @name @reference.annotation)
(type_parameter (type_identifier) @skip)

; ---- other uses: a name passed, stored or returned as a value; callable references ---------
(value_argument (simple_identifier) @name @reference.use)
(value_argument (navigation_expression . (_) @receiver
  (navigation_suffix (simple_identifier) @name) .) @reference.use)
(property_declaration (simple_identifier) @name @reference.use)
(assignment (simple_identifier) @name @reference.use .)
(jump_expression (simple_identifier) @name @reference.use)
(callable_reference (simple_identifier) @name @reference.use)
