; Gleam (generic tier).
(function name: (identifier) @name body: (_) @body) @definition.function
(external_function name: (identifier) @name) @definition.function
(type_definition (type_name name: (type_identifier) @name)) @definition.type
(type_alias (type_name name: (type_identifier) @name)) @definition.type
(constant name: (identifier) @name) @definition.constant
(function_call function: (identifier) @name) @reference.call
(function_call function: (field_access field: (label) @name)) @reference.call
