; Fortran (generic tier): modules qualify; functions, subroutines, programs, types.
(module (module_statement (name) @name)) @scope.module
(function (function_statement name: (name) @name)) @definition.function
(subroutine (subroutine_statement name: (name) @name)) @definition.function
(program (program_statement (name) @name)) @definition.function
(derived_type_definition (derived_type_statement (type_name) @name)) @definition.type
(subroutine_call subroutine: (identifier) @name) @reference.call
(call_expression . (identifier) @name) @reference.call
