; C++ symbols and references, beyond what it shares with C (_cfamily.scm).
; Namespaces qualify the names inside them ("geo.Shape"); a method defined out of line
; (`int Shape::area() {}`) is qualified by its class through @qualifier, so the declaration
; in the class and the definition outside it have one qualified name.
; inherits: _cfamily

; ---- definitions -----------------------------------------------------------------------
(class_specifier name: (type_identifier) @name body: (_) @body) @definition.class
[
  (translation_unit (struct_specifier name: (type_identifier) @name body: (_) @body) @definition.class)
  (declaration_list (struct_specifier name: (type_identifier) @name body: (_) @body) @definition.class)
  (declaration (struct_specifier name: (type_identifier) @name body: (_) @body) @definition.class)
  (preproc_if (struct_specifier name: (type_identifier) @name body: (_) @body) @definition.class)
  (preproc_ifdef (struct_specifier name: (type_identifier) @name body: (_) @body) @definition.class)
  (preproc_else (struct_specifier name: (type_identifier) @name body: (_) @body) @definition.class)
  (field_declaration (struct_specifier name: (type_identifier) @name body: (_) @body) @definition.class)
  (template_declaration (struct_specifier name: (type_identifier) @name body: (_) @body) @definition.class)
]
(class_specifier name: (template_type name: (type_identifier) @name) body: (_) @body)
  @definition.class
; `class Version::LevelFileNumIterator : public Iterator {...}`: a nested class defined
; outside its class, qualified by it.
(class_specifier name: (qualified_identifier scope: (_) @qualifier name: (type_identifier) @name)
  body: (_) @body) @definition.class
(struct_specifier name: (template_type name: (type_identifier) @name) body: (_) @body)
  @definition.class
(namespace_definition name: (namespace_identifier) @name body: (_)) @scope.module
(namespace_definition name: (nested_namespace_specifier) @name body: (_)) @scope.module
; Methods declared or defined in the class body.
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name))
  @definition.function
(field_declaration declarator: (pointer_declarator declarator:
  (function_declarator declarator: (field_identifier) @name))) @definition.function
(field_declaration declarator: (reference_declarator
  (function_declarator declarator: (field_identifier) @name))) @definition.function
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)
  body: (_) @body) @definition.function
(function_definition declarator: (pointer_declarator declarator:
  (function_declarator declarator: (field_identifier) @name)) body: (_) @body)
  @definition.function
(function_definition declarator: (reference_declarator
  (function_declarator declarator: (field_identifier) @name)) body: (_) @body)
  @definition.function
(function_definition declarator: (reference_declarator
  (function_declarator declarator: (identifier) @name)) body: (_) @body) @definition.function
(function_definition declarator: (function_declarator declarator: (operator_name) @name)
  body: (_) @body) @definition.function
; Out of line: `int Shape::area() const {}`, `Shape::Shape(int) {}`, `ns::Shape::f()`.
(function_definition declarator: (function_declarator declarator:
  (qualified_identifier scope: (_) @qualifier name: (identifier) @name)) body: (_) @body)
  @definition.method
(function_definition declarator: (pointer_declarator declarator: (function_declarator
  declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)))
  body: (_) @body) @definition.method
(function_definition declarator: (reference_declarator (function_declarator
  declarator: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)))
  body: (_) @body) @definition.method
(function_definition declarator: (function_declarator declarator: (qualified_identifier
  scope: (_) @qualifier name: (qualified_identifier scope: (_) name: (identifier) @name)))
  body: (_) @body) @definition.method
; Destructors, in the class (`~File() {}`) and out of line (`File::~File() {}`): "~File".
(function_definition declarator: (function_declarator declarator: (destructor_name) @name)
  body: (_) @body) @definition.function
(field_declaration declarator: (function_declarator declarator: (destructor_name) @name))
  @definition.function
(declaration declarator: (function_declarator declarator: (destructor_name) @name))
  @definition.function
(function_definition declarator: (function_declarator declarator:
  (qualified_identifier scope: (_) @qualifier name: (destructor_name) @name)) body: (_) @body)
  @definition.method
; A lambda bound to a local (`auto twice = [](int x) {...};`): a function nested in the one
; around it, called by that name (issue 24).
(compound_statement (declaration declarator: (init_declarator declarator: (identifier) @name
  value: (lambda_expression body: (_) @body))) @definition.function)
(alias_declaration name: (type_identifier) @name type: (_) @body) @definition.type
(enum_specifier name: (type_identifier) @name body: (_) @body) @definition.type

; ---- calls: `ns::f()`, `Foo::bar()`, `f<T>()`, `new Foo`, `Foo f(args)`, `Foo{}` ----------
(call_expression function: (qualified_identifier scope: (_) @receiver name: (identifier) @name))
  @reference.call
(call_expression function: (qualified_identifier scope: (_) @receiver
  name: (template_function name: (identifier) @name))) @reference.call
; `geo::Shape::count()`: the whole qualified name is the reference, its receiver "geo::Shape".
(call_expression function: (qualified_identifier name: (qualified_identifier
  name: (identifier) @name)) @reference.call)
(call_expression function: (qualified_identifier name: (qualified_identifier
  name: (qualified_identifier name: (identifier) @name))) @reference.call)
(call_expression function: (template_function name: (identifier) @name)) @reference.call
(call_expression function: (field_expression argument: (_) @receiver
  field: (template_method name: (field_identifier) @name))) @reference.call
(new_expression type: (type_identifier) @name) @reference.call
; `B() : A(1)`: a base's constructor run by the derived one (a field's initializer resolves
; to nothing).
(field_initializer (field_identifier) @name) @reference.call
(new_expression type: (template_type name: (type_identifier) @name)) @reference.call
(new_expression type: (qualified_identifier scope: (_) @receiver name: (type_identifier) @name))
  @reference.call
(declaration type: (type_identifier) @name
  declarator: (init_declarator value: [(argument_list) (initializer_list)])) @reference.call
(call_expression function: (identifier) @name) @reference.call

; ---- bases ---------------------------------------------------------------------------------
(base_class_clause (type_identifier) @name @reference.inherit)
(base_class_clause (template_type name: (type_identifier) @name) @reference.inherit)
(base_class_clause (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)
  @reference.inherit)

; ---- `using namespace x;` (read whole by imports.py) ----------------------------------------
(using_declaration) @reference.import

; ---- qualified type names --------------------------------------------------------------------
(qualified_identifier scope: (_) @receiver name: (type_identifier) @name) @reference.annotation
