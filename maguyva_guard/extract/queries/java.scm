; Java symbols and references. Capture vocabulary: see python.scm.

; ---- definitions -----------------------------------------------------------------------
(class_declaration name: (identifier) @name body: (_) @body) @definition.class
(interface_declaration name: (identifier) @name body: (_) @body) @definition.interface
(annotation_type_declaration name: (identifier) @name body: (_) @body) @definition.interface
(enum_declaration name: (identifier) @name body: (_) @body) @definition.type
(record_declaration name: (identifier) @name body: (_) @body) @definition.type
(method_declaration name: (identifier) @name body: (_)? @body) @definition.function
(constructor_declaration name: (identifier) @name body: (_) @body) @definition.function
(compact_constructor_declaration name: (identifier) @name body: (_) @body) @definition.function
; `static final` fields are the constants.
((field_declaration (modifiers) @_modifiers
  declarator: (variable_declarator name: (identifier) @name value: (_)? @body))
  @definition.constant
  (#match? @_modifiers "\\bstatic\\b")
  (#match? @_modifiers "\\bfinal\\b"))

; ---- calls: method invocations and `new` ---------------------------------------------------
(method_invocation object: (_) @receiver name: (identifier) @name) @reference.call
(method_invocation !object name: (identifier) @name) @reference.call
(object_creation_expression type: [
  (type_identifier) @name
  (generic_type (type_identifier) @name)
  (scoped_type_identifier (type_identifier) @name .)
  (generic_type (scoped_type_identifier (type_identifier) @name .))]) @reference.call

; ---- imports ---------------------------------------------------------------------------
(import_declaration) @reference.import

; ---- bases: extends / implements -------------------------------------------------------------
(superclass [
  (type_identifier) @name @reference.inherit
  (generic_type (type_identifier) @name) @reference.inherit
  (scoped_type_identifier (type_identifier) @name .) @reference.inherit
  (generic_type (scoped_type_identifier (type_identifier) @name .)) @reference.inherit])
(super_interfaces (type_list [
  (type_identifier) @name @reference.inherit
  (generic_type (type_identifier) @name) @reference.inherit
  (scoped_type_identifier (type_identifier) @name .) @reference.inherit
  (generic_type (scoped_type_identifier (type_identifier) @name .)) @reference.inherit]))
(extends_interfaces (type_list [
  (type_identifier) @name @reference.inherit
  (generic_type (type_identifier) @name) @reference.inherit
  (scoped_type_identifier (type_identifier) @name .) @reference.inherit
  (generic_type (scoped_type_identifier (type_identifier) @name .)) @reference.inherit]))

; ---- annotations (@Override, @org.junit.Test) ----------------------------------------------
(marker_annotation name: (identifier) @name) @reference.decorator
(marker_annotation name: (scoped_identifier scope: (_) @receiver name: (identifier) @name))
  @reference.decorator
(annotation name: (identifier) @name) @reference.decorator
(annotation name: (scoped_identifier scope: (_) @receiver name: (identifier) @name))
  @reference.decorator

; ---- type names (primitive types are their own node types) -----------------------------------
((type_identifier) @name @reference.annotation)
(scoped_type_identifier (type_identifier) @name .) @reference.annotation
(type_parameter (type_identifier) @skip)
; In a qualified type (java.util.List) only the last name is a type.
(scoped_type_identifier . (type_identifier) @skip)
(scoped_type_identifier . (scoped_type_identifier (type_identifier) @skip .))

; ---- strings naming a dotted path ------------------------------------------------------
((string_literal . (string_fragment) @name .) @reference.string
  (#match? @name "^[A-Za-z_$][A-Za-z0-9_$]*([.][A-Za-z_$][A-Za-z0-9_$]*)+$"))

; ---- other uses: a name passed, stored or returned as a value; method references ----------
(argument_list (identifier) @name @reference.use)
(argument_list (field_access object: (_) @receiver field: (identifier) @name) @reference.use)
(variable_declarator value: (identifier) @name @reference.use)
(variable_declarator value: (field_access object: (_) @receiver field: (identifier) @name)
  @reference.use)
(assignment_expression right: (identifier) @name @reference.use)
(assignment_expression right: (field_access object: (_) @receiver field: (identifier) @name)
  @reference.use)
(return_statement (identifier) @name @reference.use)
(return_statement (field_access object: (_) @receiver field: (identifier) @name) @reference.use)
(array_initializer (identifier) @name @reference.use)
(method_reference . (_) @receiver . (identifier) @name) @reference.use
