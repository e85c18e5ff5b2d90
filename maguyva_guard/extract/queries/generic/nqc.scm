; NQC (generic tier): tasks, subroutines, functions.
(task_definition . (identifier) @name body: (_) @body) @definition.function
(function_definition declarator: (function_declarator declarator: (identifier) @name) body: (_) @body) @definition.function
(call_expression function: (identifier) @name) @reference.call
