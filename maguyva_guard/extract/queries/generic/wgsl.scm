; WGSL (generic tier).
(function_declaration name: (identifier) @name body: (_) @body) @definition.function
(struct_declaration name: (identifier) @name) @definition.type
(type_constructor_or_function_call_expression (type_declaration (identifier) @name)) @reference.call
