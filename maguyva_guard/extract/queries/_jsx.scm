; JSX (javascript and tsx): rendering <Component/> calls the component. Lower-case names are
; HTML elements, not references.
((jsx_opening_element name: (identifier) @name @reference.call) (#match? @name "^[A-Z]"))
((jsx_self_closing_element name: (identifier) @name @reference.call) (#match? @name "^[A-Z]"))
(jsx_opening_element name: (member_expression object: (_) @receiver
  property: (property_identifier) @name) @reference.call)
(jsx_self_closing_element name: (member_expression object: (_) @receiver
  property: (property_identifier) @name) @reference.call)
(jsx_expression (identifier) @name @reference.use)
(jsx_expression (member_expression object: (_) @receiver property: (property_identifier) @name)
  @reference.use)
