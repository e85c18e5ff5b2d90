; Cairo (generic tier).
(function_definition . (identifier) @name (block)? @body) @definition.function
(function_signature . (identifier) @name) @definition.function
(struct_item name: (_) @name) @definition.type
(trait_item name: (_) @name body: (_) @body) @definition.interface
(mod_item name: (_) @name) @scope.module
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (_ (identifier) @name .)) @reference.call
