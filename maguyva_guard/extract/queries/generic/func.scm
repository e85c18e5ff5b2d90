; FunC (generic tier).
(function_definition name: (function_name) @name body: (_)? @body) @definition.function
(function_application function: (identifier) @name) @reference.call
