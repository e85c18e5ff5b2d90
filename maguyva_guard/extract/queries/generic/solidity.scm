; Solidity (generic tier).
(contract_declaration name: (identifier) @name body: (_) @body) @definition.class
(interface_declaration name: (identifier) @name body: (_) @body) @definition.interface
(library_declaration name: (identifier) @name body: (_) @body) @definition.class
(function_definition name: (identifier) @name body: (_)? @body) @definition.function
(modifier_definition name: (identifier) @name body: (_)? @body) @definition.function
(event_definition name: (identifier) @name) @definition.function
(struct_declaration name: (identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.type
(state_variable_declaration name: (identifier) @name) @definition.constant
(call_expression function: (expression (identifier) @name)) @reference.call
(call_expression function: (expression (member_expression property: (identifier) @name))) @reference.call
