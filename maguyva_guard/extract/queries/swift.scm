; Swift symbols and references. Capture vocabulary: see python.scm.
; `extension Foo { func bar() }` is a scope named Foo: bar is `Foo.bar`, a member of Foo
; wherever Foo is declared (the resolver joins them). The files of a module see each other.

; ---- definitions -----------------------------------------------------------------------
((class_declaration declaration_kind: "extension" name: (user_type (type_identifier) @name .)
  body: (_)) @scope.impl)
((class_declaration declaration_kind: "struct" name: (type_identifier) @name body: (_) @body)
  @definition.type)
((class_declaration declaration_kind: "enum" name: (type_identifier) @name body: (_) @body)
  @definition.type)
(class_declaration name: (type_identifier) @name body: (_) @body) @definition.class
(protocol_declaration name: (type_identifier) @name body: (_) @body) @definition.interface
(typealias_declaration name: (type_identifier) @name) @definition.type
(function_declaration name: (simple_identifier) @name body: (_) @body) @definition.function
(protocol_function_declaration name: (simple_identifier) @name) @definition.function
(init_declaration name: "init" @name body: (_)? @body) @definition.function
(class_body (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)
  value: (_)? @body) @definition.function)
(class_body (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)
  computed_value: (_) @body) @definition.function)
; A closure bound to a local (`let twice = { (x: Int) -> Int in ... }`): a function nested
; in the one around it, called by that name (issue 24).
(statements (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)
  value: (lambda_literal) @body) @definition.function)
(source_file (property_declaration (value_binding_pattern mutability: "let")
  name: (pattern bound_identifier: (simple_identifier) @name) value: (_)? @body)
  @definition.constant)

; ---- calls: `f()`, `obj.m()`, `Type()` (an initializer) ---------------------------------------
(call_expression . (simple_identifier) @name) @reference.call
(call_expression . (navigation_expression target: (_) @receiver
  suffix: (navigation_suffix suffix: (simple_identifier) @name))) @reference.call

; ---- imports: `import Module`, `import struct Module.Type` ----------------------------------
(import_declaration) @reference.import

; ---- bases -------------------------------------------------------------------------------
(inheritance_specifier inherits_from: (user_type (type_identifier) @name .) @reference.inherit)

; ---- attributes (@objc, @MainActor) -----------------------------------------------------------
(attribute (user_type (type_identifier) @name .) @reference.decorator)

; ---- type names ----------------------------------------------------------------------------
(user_type (type_identifier) @name @reference.annotation)
(type_parameter (type_identifier) @skip)

; ---- other uses: a name passed, stored or returned as a value -------------------------------
(value_argument value: (simple_identifier) @name @reference.use)
(value_argument value: (navigation_expression target: (_) @receiver
  suffix: (navigation_suffix suffix: (simple_identifier) @name)) @reference.use)
(property_declaration value: (simple_identifier) @name @reference.use)
(assignment result: (simple_identifier) @name @reference.use)
(control_transfer_statement result: (simple_identifier) @name @reference.use)
