; Haskell (generic tier): bindings and their signatures, data/class/type declarations.
(function name: (variable) @name match: (_) @body) @definition.function
(bind name: (variable) @name match: (_) @body) @definition.function
(data_type name: (name) @name) @definition.type
(newtype name: (name) @name) @definition.type
(type_synomym name: (name) @name) @definition.type
(class name: (name) @name declarations: (_)? @body) @definition.interface
(apply function: (variable) @name) @reference.call
(apply function: (qualified (variable) @name)) @reference.call
