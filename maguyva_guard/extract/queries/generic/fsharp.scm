; F# (generic tier).
(function_or_value_defn (function_declaration_left . (identifier) @name) body: (_) @body) @definition.function
(function_or_value_defn (value_declaration_left (identifier_pattern (long_identifier_or_op (identifier) @name))) body: (_) @body) @definition.constant
(type_definition (_ (type_name type_name: (identifier) @name))) @definition.type
(member_defn (method_or_prop_defn name: (property_or_ident (identifier) @name .))) @definition.function
(application_expression . (long_identifier_or_op (identifier) @name)) @reference.call
(application_expression . (long_identifier_or_op (long_identifier (identifier) @name .))) @reference.call
