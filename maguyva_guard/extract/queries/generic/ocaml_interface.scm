; OCaml interfaces (generic tier): the signatures a .mli declares.
(module_binding (module_name) @name) @scope.module
(value_specification (value_name) @name) @definition.function
(type_binding name: (type_constructor) @name) @definition.type
