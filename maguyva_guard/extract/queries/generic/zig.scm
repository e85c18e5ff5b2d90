; Zig (generic tier): fns; `const X = struct/enum/union {...}` are types.
(Decl (FnProto function: (IDENTIFIER) @name) (Block)? @body) @definition.function
(Decl (VarDecl variable_type_function: (IDENTIFIER) @name
  (ErrorUnionExpr (SuffixExpr (ContainerDecl) @body)))) @definition.type
(SuffixExpr variable_type_function: (IDENTIFIER) @name (FnCallArguments)) @reference.call
(SuffixExpr (FieldOrFnCall field_access: (IDENTIFIER) @name) . (FnCallArguments)) @reference.call
