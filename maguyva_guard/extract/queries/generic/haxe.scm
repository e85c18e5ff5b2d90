; Haxe (generic tier).
(class_declaration name: (identifier) @name body: (_) @body) @definition.class
(interface_declaration name: (identifier) @name body: (_) @body) @definition.interface
(typedef_declaration name: (identifier) @name) @definition.type
(function_declaration name: (identifier) @name body: (_)? @body) @definition.function
(call_expression object: (identifier) @name) @reference.call
(call_expression object: (member_expression (identifier) @name .)) @reference.call
