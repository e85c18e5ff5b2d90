; Vim script (generic tier).
(function_definition (function_declaration name: [(identifier) @name (scoped_identifier (identifier) @name)])
  (body)? @body) @definition.function
(command_statement name: (command_name) @name) @definition.function
(call_expression function: [(identifier) @name (scoped_identifier (identifier) @name)]) @reference.call
