; R (generic tier): `name <- function(...)`, `name = function(...)`.
(binary_operator lhs: (identifier) @name rhs: (function_definition body: (_) @body)) @definition.function
(binary_operator lhs: (string (string_content) @name) rhs: (function_definition body: (_) @body)) @definition.function
(call function: (identifier) @name) @reference.call
(call function: (namespace_operator rhs: (identifier) @name)) @reference.call
