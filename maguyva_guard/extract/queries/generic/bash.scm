; Bash (generic tier): functions, and commands that may call them.
(function_definition name: (word) @name body: (_) @body) @definition.function
(command name: (command_name (word) @name)) @reference.call
