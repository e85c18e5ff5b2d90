; Hare (generic tier).
(function_declaration name: (identifier) @name body: (_)? @body) @definition.function
(type_declaration . (identifier) @name) @definition.type
(call_expression callee: (identifier) @name) @reference.call
(call_expression callee: (_ (identifier) @name .)) @reference.call
