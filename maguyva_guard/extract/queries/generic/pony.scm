; Pony (generic tier).
(actor_definition . (identifier) @name) @definition.class
(class_definition . (identifier) @name) @definition.class
(primitive_definition . (identifier) @name) @definition.class
(struct_definition . (identifier) @name) @definition.type
(trait_definition . (identifier) @name) @definition.interface
(interface_definition . (identifier) @name) @definition.interface
(method . (identifier) @name (block)? @body) @definition.function
(constructor . (identifier) @name (block)? @body) @definition.function
(behavior . (identifier) @name (block)? @body) @definition.function
(call_expression callee: (identifier) @name) @reference.call
(call_expression callee: (member_expression (identifier) @name .)) @reference.call
