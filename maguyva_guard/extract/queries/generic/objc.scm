; Objective-C (generic tier): @interface/@implementation, methods, C functions.
(class_interface . (identifier) @name) @definition.interface
(class_implementation . (identifier) @name) @definition.class
(protocol_declaration . (identifier) @name) @definition.interface
(method_declaration (identifier) @name) @definition.function
(method_definition (identifier) @name (compound_statement) @body) @definition.function
(function_definition declarator: (function_declarator declarator: (identifier) @name) body: (_) @body) @definition.function
(struct_specifier name: (type_identifier) @name body: (_)) @definition.type
(message_expression method: (identifier) @name) @reference.call
(call_expression function: (identifier) @name) @reference.call
