; C# symbols and references. Capture vocabulary: see python.scm.
; Namespaces do not qualify names (as Java packages do not): a file's names are qualified by
; its path, and the resolver reads `namespace`/`using` lines (an @reference.import each).

; ---- definitions -----------------------------------------------------------------------
(class_declaration name: (identifier) @name body: (_) @body) @definition.class
(interface_declaration name: (identifier) @name body: (_) @body) @definition.interface
(struct_declaration name: (identifier) @name body: (_) @body) @definition.type
(enum_declaration name: (identifier) @name body: (_) @body) @definition.type
(record_declaration name: (identifier) @name) @definition.type
(method_declaration name: (identifier) @name body: (_)? @body) @definition.function
(method_declaration name: (identifier) @name body: (arrow_expression_clause) @body)
  @definition.function
(constructor_declaration name: (identifier) @name body: (_)? @body) @definition.function
(property_declaration name: (identifier) @name accessors: (_)? @body) @definition.function
; Operators (`operator +`, named "operator+"), indexers (`this[int i]`, named "this") and
; finalizers (`~Store()`, named "~Store"): extract/symbols.py completes the names.
(operator_declaration operator: _ @name body: (_)? @body) @definition.function
(indexer_declaration "this" @name accessors: (_)? @body) @definition.function
(indexer_declaration "this" @name value: (_)? @body) @definition.function
(destructor_declaration name: (identifier) @name body: (_)? @body) @definition.function
; Local functions and lambdas bound to locals: functions nested in their method (issue 24).
(local_function_statement name: (identifier) @name body: (_)? @body) @definition.function
(local_declaration_statement (variable_declaration (variable_declarator name: (identifier) @name
  (lambda_expression body: (_) @body)))) @definition.function
(delegate_declaration name: (identifier) @name) @definition.type
((field_declaration (modifier) @_const
  (variable_declaration (variable_declarator name: (identifier) @name)))
  @definition.constant
  (#eq? @_const "const"))

; ---- calls: invocations and `new` --------------------------------------------------------
(invocation_expression function: (identifier) @name) @reference.call
(invocation_expression function: (generic_name (identifier) @name)) @reference.call
(invocation_expression
  function: (member_access_expression expression: _ @receiver name: (identifier) @name))
  @reference.call
(invocation_expression
  function: (member_access_expression expression: (_) @receiver
                                      name: (generic_name (identifier) @name)))
  @reference.call
(object_creation_expression type: [
  (identifier) @name
  (generic_name (identifier) @name)
  (qualified_name name: (identifier) @name)
  (qualified_name name: (generic_name (identifier) @name))]) @reference.call

; ---- imports: `using`, and the file's own namespaces ----------------------------------------
(using_directive) @reference.import
(namespace_declaration) @reference.import
(file_scoped_namespace_declaration) @reference.import

; ---- bases ---------------------------------------------------------------------------------
(base_list [
  (identifier) @name @reference.inherit
  (generic_name (identifier) @name) @reference.inherit
  (qualified_name name: (identifier) @name) @reference.inherit
  (qualified_name name: (generic_name (identifier) @name)) @reference.inherit])

; ---- attributes ([Test], [Obsolete("x")]) ----------------------------------------------------
(attribute name: (identifier) @name) @reference.decorator
(attribute name: (qualified_name qualifier: (_) @receiver name: (identifier) @name))
  @reference.decorator

; ---- type names ----------------------------------------------------------------------------
(parameter type: (identifier) @name @reference.annotation)
(parameter type: (generic_name (identifier) @name) @reference.annotation)
(variable_declaration type: (identifier) @name @reference.annotation)
(variable_declaration type: (generic_name (identifier) @name) @reference.annotation)
(method_declaration returns: (identifier) @name @reference.annotation)
(method_declaration returns: (generic_name (identifier) @name) @reference.annotation)
(property_declaration type: (identifier) @name @reference.annotation)
(type_argument_list (identifier) @name @reference.annotation)
(type_parameter (identifier) @skip)

; ---- other uses: a name passed, stored or returned as a value --------------------------------
(argument (identifier) @name @reference.use)
(argument (member_access_expression expression: (_) @receiver name: (identifier) @name)
  @reference.use)
(variable_declarator name: (identifier) (identifier) @name @reference.use)
(assignment_expression right: (identifier) @name @reference.use)
(assignment_expression
  right: (member_access_expression expression: (_) @receiver name: (identifier) @name)
  @reference.use)
(return_statement (identifier) @name @reference.use)
(return_statement (member_access_expression expression: (_) @receiver name: (identifier) @name)
  @reference.use)
