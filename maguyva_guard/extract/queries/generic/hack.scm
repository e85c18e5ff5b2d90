; Hack (generic tier).
(class_declaration name: (identifier) @name body: (_) @body) @definition.class
(interface_declaration name: (identifier) @name body: (_) @body) @definition.interface
(trait_declaration name: (identifier) @name body: (_) @body) @definition.interface
(method_declaration name: (identifier) @name body: (_)? @body) @definition.function
(function_declaration name: (identifier) @name body: (_) @body) @definition.function
(call_expression function: (qualified_identifier (identifier) @name .)) @reference.call
(call_expression function: (selection_expression (_) (identifier) @name .)) @reference.call
