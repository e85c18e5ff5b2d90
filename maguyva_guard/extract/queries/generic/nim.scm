; Nim (generic tier): routines and types.
(proc_declaration name: [(identifier) @name (exported_symbol (identifier) @name)] body: (_)? @body) @definition.function
(func_declaration name: [(identifier) @name (exported_symbol (identifier) @name)] body: (_)? @body) @definition.function
(method_declaration name: [(identifier) @name (exported_symbol (identifier) @name)] body: (_)? @body) @definition.function
(template_declaration name: [(identifier) @name (exported_symbol (identifier) @name)] body: (_)? @body) @definition.function
(macro_declaration name: [(identifier) @name (exported_symbol (identifier) @name)] body: (_)? @body) @definition.function
(iterator_declaration name: [(identifier) @name (exported_symbol (identifier) @name)] body: (_)? @body) @definition.function
(converter_declaration name: [(identifier) @name (exported_symbol (identifier) @name)] body: (_)? @body) @definition.function
(type_declaration (type_symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)])) @definition.type
(call function: (identifier) @name) @reference.call
(call function: (dot_expression right: (identifier) @name)) @reference.call
