; Ada (generic tier): packages qualify; subprograms define.
(package_body name: (_) @name) @scope.module
(package_declaration name: (_) @name) @scope.module
(subprogram_body [(function_specification name: (_) @name) (procedure_specification name: (_) @name)]
  (handled_sequence_of_statements) @body) @definition.function
(subprogram_declaration [(function_specification name: (_) @name) (procedure_specification name: (_) @name)]) @definition.function
(full_type_declaration (identifier) @name) @definition.type
(function_call name: (identifier) @name) @reference.call
(procedure_call_statement name: (identifier) @name) @reference.call
