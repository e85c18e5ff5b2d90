; OCaml (generic tier): let bindings, types, classes; modules qualify.
(module_binding (module_name) @name body: (_) @body) @scope.module
(let_binding pattern: (value_name) @name body: (_) @body) @definition.function
(type_binding name: (type_constructor) @name) @definition.type
(class_binding (class_name) @name body: (_) @body) @definition.class
(method_definition (method_name) @name body: (_) @body) @definition.function
(application_expression function: (value_path (value_name) @name .)) @reference.call
