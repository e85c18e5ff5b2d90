; D (generic tier).
(class_declaration (identifier) @name (aggregate_body) @body) @definition.class
(struct_declaration (identifier) @name (aggregate_body) @body) @definition.type
(interface_declaration (identifier) @name (aggregate_body) @body) @definition.interface
(enum_declaration (identifier) @name) @definition.type
(function_declaration (identifier) @name (function_body)? @body) @definition.function
(call_expression . (identifier) @name) @reference.call
(call_expression (type (identifier) @name .)) @reference.call
