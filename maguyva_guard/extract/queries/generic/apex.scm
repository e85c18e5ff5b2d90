; Apex (generic tier).
(class_declaration name: (identifier) @name body: (_) @body) @definition.class
(interface_declaration name: (identifier) @name body: (_) @body) @definition.interface
(enum_declaration name: (identifier) @name body: (_) @body) @definition.type
(method_declaration name: (identifier) @name body: (_)? @body) @definition.function
(constructor_declaration name: (identifier) @name body: (_) @body) @definition.function
(trigger_declaration name: (identifier) @name) @definition.function
(method_invocation name: (identifier) @name) @reference.call
(object_creation_expression type: (type_identifier) @name) @reference.call
