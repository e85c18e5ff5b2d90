; inherits: _ecma
; TypeScript: the shared ECMAScript patterns, classes and fields as this grammar spells them,
; interfaces, type aliases, enums, namespaces and type annotations.

; ---- definitions -----------------------------------------------------------------------
(class_declaration name: (type_identifier) @name body: (_) @body) @definition.class
(abstract_class_declaration name: (type_identifier) @name body: (_) @body) @definition.class
(interface_declaration name: (type_identifier) @name body: (_) @body) @definition.interface
(type_alias_declaration name: (type_identifier) @name value: (_) @body) @definition.type
(enum_declaration name: (identifier) @name body: (_) @body) @definition.type
(method_signature name: (property_identifier) @name) @definition.function
(abstract_method_signature name: (property_identifier) @name) @definition.function
(function_signature name: (identifier) @name) @definition.function
(public_field_definition name: (property_identifier) @name
  value: (arrow_function body: (_) @body)) @definition.function
(public_field_definition name: (property_identifier) @name
  value: (function_expression body: (_) @body)) @definition.function
(internal_module name: (_) @name body: (_) @body) @scope.module

; ---- bases -----------------------------------------------------------------------------
(extends_clause value: (identifier) @name @reference.inherit)
(extends_clause value: (member_expression object: (_) @receiver
  property: (property_identifier) @name) @reference.inherit)
[(implements_clause (type_identifier) @name @reference.inherit)
 (extends_type_clause type: (type_identifier) @name @reference.inherit)]
[(implements_clause
   (nested_type_identifier module: (_) @receiver name: (type_identifier) @name) @reference.inherit)
 (extends_type_clause
   type: (nested_type_identifier module: (_) @receiver name: (type_identifier) @name)
   @reference.inherit)]
[(implements_clause (generic_type name: (type_identifier) @name) @reference.inherit)
 (extends_type_clause type: (generic_type name: (type_identifier) @name) @reference.inherit)]
[(implements_clause (generic_type
   name: (nested_type_identifier module: (_) @receiver name: (type_identifier) @name))
   @reference.inherit)
 (extends_type_clause type: (generic_type
   name: (nested_type_identifier module: (_) @receiver name: (type_identifier) @name))
   @reference.inherit)]

; ---- type annotations: every type name (primitive types are predefined_type nodes) --------
((type_identifier) @name @reference.annotation)
(nested_type_identifier module: (_) @receiver name: (type_identifier) @name) @reference.annotation
(type_parameter name: (type_identifier) @skip)
