; Julia (generic tier).
(module_definition name: (identifier) @name) @scope.module
(function_definition (signature (call_expression . (identifier) @name)) (_)? @body) @definition.function
(function_definition (signature (call_expression . (field_expression (identifier) @name .)))) @definition.function
(assignment . (call_expression . (identifier) @name) (operator) . (_) @body) @definition.function
(macro_definition (signature (call_expression . (identifier) @name))) @definition.function
(struct_definition (type_head [(identifier) @name (parametrized_type_expression . (identifier) @name)
  (binary_expression . (identifier) @name)])) @definition.type
(abstract_definition (type_head [(identifier) @name (binary_expression . (identifier) @name)])) @definition.type
(call_expression . (identifier) @name) @reference.call
(call_expression . (field_expression (identifier) @name .)) @reference.call
