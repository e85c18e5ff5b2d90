; Pascal / Delphi (generic tier).
(defProc header: (declProc name: (_) @name) body: (_) @body) @definition.function
(declType name: (_) @name type: (declClass) @body) @definition.class
(declType name: (_) @name) @definition.type
(declClass (declProc name: (_) @name) @definition.function)
(exprCall entity: (identifier) @name) @reference.call
(exprCall entity: (exprDot rhs: (identifier) @name)) @reference.call
