; GDScript (generic tier).
(class_definition name: (name) @name body: (_) @body) @definition.class
(function_definition name: (name) @name body: (_) @body) @definition.function
(constructor_definition body: (_) @body) @definition.function
(const_statement name: (name) @name) @definition.constant
(signal_statement name: (name) @name) @definition.function
(enum_definition name: (name) @name) @definition.type
(call . (identifier) @name) @reference.call
(attribute_call . (identifier) @name) @reference.call
