; Python symbols and references for maguyva_guard/symbols.py.
;
; Capture vocabulary (shared by every language's query file):
;   @definition.<kind>  the node of a definition (kind: function class constant interface type
;                       method); with @name, optional @body (the signature ends where it
;                       starts) and optional @qualifier (Go receivers: "Type.Method").
;   @scope.impl / @scope.module  a block that qualifies the definitions inside it but is not
;                       a definition itself (Rust impl / mod); with @name.
;   @reference.<kind>   a reference (kind: call import inherit decorator annotation string use);
;                       with @name (the identifier referred to) and optional @receiver (the
;                       object before the final "." / "::"). Imports need no @name: the
;                       whole statement is read by symbol_imports.py.
;   @local              a parameter or assigned local: a plain `use` of that name in the
;                       same scope is dropped (only where the registry row says package_scope;
;                       elsewhere a plain use is kept only if the file binds the name).
;   @skip               an identifier that must not be reported as a reference.
; When two definition patterns capture the same @name node, the earlier pattern wins.
; An (ERROR) pattern is appended by the loader to count parse errors.

; ---- definitions -----------------------------------------------------------------------
(function_definition name: (identifier) @name body: (_) @body) @definition.function
(class_definition name: (identifier) @name body: (_) @body) @definition.class
(module
  (assignment left: (identifier) @name right: (_) @body) @definition.constant
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))
(module
  (assignment left: (identifier) @name type: (_) !right) @definition.constant
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

; ---- calls -----------------------------------------------------------------------------
(call function: (identifier) @name) @reference.call
(call function: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call

; ---- imports (read whole by symbol_imports.py) -------------------------------------------
(import_statement) @reference.import
(import_from_statement) @reference.import

; ---- bases, decorators -----------------------------------------------------------------
(class_definition superclasses: (argument_list (identifier) @name @reference.inherit))
(class_definition superclasses: (argument_list
  (attribute object: (_) @receiver attribute: (identifier) @name) @reference.inherit))
(class_definition superclasses: (argument_list
  (subscript value: (identifier) @name) @reference.inherit))
(class_definition superclasses: (argument_list
  (subscript value: (attribute object: (_) @receiver attribute: (identifier) @name))
  @reference.inherit))
(decorator (identifier) @name) @reference.decorator
(decorator (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.decorator
(decorator (call function: (identifier) @name)) @reference.decorator
(decorator (call function: (attribute object: (_) @receiver attribute: (identifier) @name)))
  @reference.decorator

; ---- annotations: every (type) node, nested ones included (List[Task] holds a type) ------
((type (identifier) @name) @reference.annotation
  (#not-match? @name "^(int|str|float|bool|bytes|complex|object|dict|list|tuple|set|frozenset|type)$"))
(type (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.annotation
((type (generic_type (identifier) @name)) @reference.annotation
  (#not-match? @name "^(dict|list|tuple|set|frozenset|type)$"))
(type (binary_operator left: (identifier) @name)) @reference.annotation
(type (binary_operator right: (identifier) @name)) @reference.annotation
(type (binary_operator right: (attribute object: (_) @receiver attribute: (identifier) @name)))
  @reference.annotation
; A string annotation ("Task", "Optional[Task]"): symbols.py reads identifiers out of it.
(type (string (string_content) @name)) @reference.annotation

; ---- strings naming a dotted path: mock.patch("pkg.mod.func") -----------------------------
((string (string_start) . (string_content) @name . (string_end)) @reference.string
  (#match? @name "^[A-Za-z_][A-Za-z0-9_]*([.][A-Za-z_][A-Za-z0-9_]*)+$"))

; ---- other uses: a name passed, stored, returned, raised or caught as a value -------------
(argument_list (identifier) @name @reference.use)
(argument_list (attribute object: (_) @receiver attribute: (identifier) @name) @reference.use)
(keyword_argument value: (identifier) @name @reference.use)
(keyword_argument value: (attribute object: (_) @receiver attribute: (identifier) @name)
  @reference.use)
[(list (identifier) @name @reference.use)
 (tuple (identifier) @name @reference.use)
 (set (identifier) @name @reference.use)]
[(list (attribute object: (_) @receiver attribute: (identifier) @name) @reference.use)
 (tuple (attribute object: (_) @receiver attribute: (identifier) @name) @reference.use)
 (set (attribute object: (_) @receiver attribute: (identifier) @name) @reference.use)]
(pair value: (identifier) @name @reference.use)
(pair value: (attribute object: (_) @receiver attribute: (identifier) @name) @reference.use)
(assignment right: (identifier) @name @reference.use)
(assignment right: (attribute object: (_) @receiver attribute: (identifier) @name) @reference.use)
(return_statement (identifier) @name @reference.use)
(return_statement (attribute object: (_) @receiver attribute: (identifier) @name) @reference.use)
(raise_statement (identifier) @name @reference.use)
(raise_statement (attribute object: (_) @receiver attribute: (identifier) @name) @reference.use)
(except_clause (identifier) @name @reference.use)
(except_clause (attribute object: (_) @receiver attribute: (identifier) @name) @reference.use)
(except_clause (as_pattern (identifier) @name @reference.use))
(except_clause (as_pattern
  (attribute object: (_) @receiver attribute: (identifier) @name) @reference.use))
(class_definition superclasses: (argument_list
  (keyword_argument value: (identifier) @name @reference.use)))
