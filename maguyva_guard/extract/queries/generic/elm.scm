; Elm (generic tier).
(value_declaration (function_declaration_left . (lower_case_identifier) @name) body: (_) @body) @definition.function
(type_declaration name: (upper_case_identifier) @name) @definition.type
(type_alias_declaration name: (upper_case_identifier) @name) @definition.type
(function_call_expr target: (value_expr name: (value_qid (lower_case_identifier) @name .))) @reference.call
