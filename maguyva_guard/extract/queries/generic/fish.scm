; fish (generic tier).
(function_definition name: (word) @name) @definition.function
(command name: (word) @name) @reference.call
