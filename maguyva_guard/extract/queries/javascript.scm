; inherits: _ecma, _jsx
; JavaScript: the shared ECMAScript patterns plus what only this grammar spells this way.

(class_declaration name: (identifier) @name body: (_) @body) @definition.class
(field_definition property: (property_identifier) @name value: (arrow_function body: (_) @body))
  @definition.function
(field_definition property: (property_identifier) @name
  value: (function_expression body: (_) @body)) @definition.function

(class_heritage (identifier) @name @reference.inherit)
(class_heritage (member_expression object: (_) @receiver property: (property_identifier) @name)
  @reference.inherit)
