; Odin (generic tier).
(procedure_declaration . (identifier) @name) @definition.function
(struct_declaration . (identifier) @name) @definition.type
(enum_declaration . (identifier) @name) @definition.type
(union_declaration . (identifier) @name) @definition.type
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (member_expression (identifier) @name .)) @reference.call
