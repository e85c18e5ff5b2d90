; Erlang (generic tier): each function's clauses are one definition.
(fun_decl (function_clause name: (atom) @name body: (_) @body)) @definition.function
(record_decl name: (atom) @name) @definition.type
(type_alias name: (_) @name) @definition.type
(call expr: (atom) @name) @reference.call
(call expr: (remote fun: (atom) @name)) @reference.call
