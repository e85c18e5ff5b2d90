; Verilog / SystemVerilog (generic tier): modules, functions, tasks.
(module_declaration (module_header (simple_identifier) @name)) @definition.class
(function_declaration (function_body_declaration (function_identifier (function_identifier (simple_identifier) @name)))) @definition.function
(task_declaration (task_body_declaration (task_identifier (task_identifier (simple_identifier) @name)))) @definition.function
(module_instantiation (simple_identifier) @name) @reference.call
