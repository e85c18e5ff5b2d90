; Scala symbols and references. Capture vocabulary: see python.scm.
; A companion `object App` qualifies its members as `App.member`, as the class does, so
; `App.create()` finds them. An `extension (s: T)` method is qualified by T.

; ---- definitions -----------------------------------------------------------------------
(class_definition name: (identifier) @name body: (_)? @body) @definition.class
(object_definition name: (identifier) @name body: (_)? @body) @definition.class
(trait_definition name: (identifier) @name body: (_)? @body) @definition.interface
(enum_definition name: (identifier) @name body: (_)? @body) @definition.type
(type_definition name: (type_identifier) @name) @definition.type
(extension_definition
  parameters: (parameters . (parameter type: [(type_identifier) @qualifier
                                             (generic_type type: (type_identifier) @qualifier)]))
  body: (function_definition name: (identifier) @name body: (_) @body) @definition.function)
(extension_definition
  parameters: (parameters . (parameter type: [(type_identifier) @qualifier
                                             (generic_type type: (type_identifier) @qualifier)]))
  body: (template_body (function_definition name: (identifier) @name body: (_) @body)
  @definition.function))
(function_definition name: (identifier) @name body: (_) @body) @definition.function
(function_declaration name: (identifier) @name) @definition.function
; Operator methods (`def +(o: P)`, `def |+|`): their sites are found by jvmsyntax.py.
(function_definition name: (operator_identifier) @name body: (_) @body) @definition.function
(function_declaration name: (operator_identifier) @name) @definition.function
(template_body (val_definition pattern: (identifier) @name value: (_) @body)
  @definition.function)
(template_body (var_definition pattern: (identifier) @name value: (_) @body)
  @definition.function)
(template_body (val_declaration name: (identifier) @name) @definition.function)
(compilation_unit (val_definition pattern: (identifier) @name value: (_) @body)
  @definition.constant)

; ---- calls (a method without arguments is called without parentheses: `s.size`) -------------
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
(instance_expression [
  (type_identifier) @name
  (generic_type type: (type_identifier) @name)
  (stable_type_identifier (type_identifier) @name .)]) @reference.call
(field_expression value: (_) @receiver field: (identifier) @name) @reference.call
(infix_expression operator: (identifier) @name) @reference.call

; ---- imports: `import`, and the file's own package ----------------------------------------
(import_declaration) @reference.import
(package_clause) @reference.import

; ---- bases -------------------------------------------------------------------------------
(extends_clause [
  (type_identifier) @name @reference.inherit
  (generic_type type: (type_identifier) @name) @reference.inherit
  (stable_type_identifier (type_identifier) @name .) @reference.inherit])

; ---- annotations ---------------------------------------------------------------------------
(annotation name: (type_identifier) @name) @reference.decorator

; ---- type names ----------------------------------------------------------------------------
; A type parameter (`def f[A]`, `class C[F[_]]`) is bound by its definition: a type name of
; that name inside it is the parameter, no type elsewhere (registry: local_types). cats-core
; is mostly such names: 45,000 of its 68,000 type names were F, A, B, A0..A21.
((type_identifier) @name @reference.annotation)
(type_parameters (identifier) @local)

; ---- other uses: a name passed, stored or returned as a value -------------------------------
(arguments (identifier) @name @reference.use)
(val_definition value: (identifier) @name @reference.use)
(assignment_expression right: (identifier) @name @reference.use)
(return_expression (identifier) @name @reference.use)
