; Squirrel (generic tier).
(class_declaration . (identifier) @name) @definition.class
(function_declaration . (identifier) @name (block)? @body) @definition.function
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (deref_expression (identifier) @name .)) @reference.call
