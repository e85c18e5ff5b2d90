; ActionScript (generic tier).
(package_declaration name: (_) @name) @scope.module
(class_declaration name: (identifier) @name body: (_) @body) @definition.class
(interface_declaration name: (identifier) @name body: (_) @body) @definition.interface
(function_declaration name: (identifier) @name body: (_)? @body) @definition.function
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (member_expression property: (identifier) @name)) @reference.call
