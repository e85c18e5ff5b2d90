; Starlark (generic tier).
(function_definition name: (identifier) @name body: (_) @body) @definition.function
(module (expression_statement (assignment left: (identifier) @name right: (_) @body)) @definition.constant
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))
(call function: (identifier) @name) @reference.call
(call function: (attribute attribute: (identifier) @name)) @reference.call
