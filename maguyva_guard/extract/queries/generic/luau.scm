; Luau (generic tier).
(function_declaration name: (identifier) @name body: (_)? @body) @definition.function
(function_declaration name: (dot_index_expression table: (_) @qualifier field: (identifier) @name)
  body: (_)? @body) @definition.function
(function_declaration name: (method_index_expression table: (_) @qualifier method: (identifier) @name)
  body: (_)? @body) @definition.function
(type_definition name: (identifier) @name) @definition.type
(function_call name: (identifier) @name) @reference.call
(function_call name: (dot_index_expression field: (identifier) @name)) @reference.call
(function_call name: (method_index_expression method: (identifier) @name)) @reference.call
