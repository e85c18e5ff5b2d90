; Rust symbols and references. Capture vocabulary: see python.scm.
; `impl Type` and `mod m` blocks qualify the functions inside them ("Type.method",
; "m.func") without being definitions; `impl Trait for Type` qualifies by Type as well.

; ---- definitions -----------------------------------------------------------------------
(function_item name: (identifier) @name body: (block) @body) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name body: (_) @body) @definition.type
(struct_item name: (type_identifier) @name !body) @definition.type
(enum_item name: (type_identifier) @name body: (_) @body) @definition.type
(union_item name: (type_identifier) @name body: (_) @body) @definition.type
(type_item name: (type_identifier) @name type: (_) @body) @definition.type
(trait_item name: (type_identifier) @name body: (_) @body) @definition.interface
(const_item name: (identifier) @name value: (_)? @body) @definition.constant
(static_item name: (identifier) @name value: (_)? @body) @definition.constant
; A closure bound by `let` (`let helper = |x| x + 1;`) is a nested function of that name.
(let_declaration pattern: (identifier) @name value: (closure_expression body: (_) @body))
  @definition.function
(macro_definition name: (identifier) @name) @definition.function
(impl_item type: [
  (type_identifier) @name
  (generic_type type: (type_identifier) @name)
  (scoped_type_identifier name: (type_identifier) @name)
  (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
  (reference_type type: (type_identifier) @name)
  (reference_type type: (generic_type type: (type_identifier) @name))]
  body: (_)) @scope.impl
(mod_item name: (identifier) @name body: (_)) @scope.module

; ---- calls (macro invocations count: a macro is called like a function) -------------------
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (scoped_identifier path: (_) @receiver name: (identifier) @name))
  @reference.call
(call_expression function: (field_expression value: (_) @receiver field: (field_identifier) @name))
  @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
(call_expression function: (generic_function
  function: (scoped_identifier path: (_) @receiver name: (identifier) @name))) @reference.call
(call_expression function: (generic_function
  function: (field_expression value: (_) @receiver field: (field_identifier) @name)))
  @reference.call
(macro_invocation macro: (identifier) @name) @reference.call
; Calls inside a macro's arguments (`assert_eq!(t(""), Hir::empty())`, `vec![x.f()]`): the
; grammar leaves them as token trees, so the tokens `name (..)`, `Type :: name (..)` and
; `recv . name (..)` are read as calls (with a receiver, the same name's plain match loses).
(token_tree (identifier) @name . (token_tree)) @reference.call
(token_tree [(identifier) (self)] @receiver . "::" . (identifier) @name . (token_tree))
  @reference.call
(token_tree [(identifier) (self)] @receiver . "." . (identifier) @name . (token_tree))
  @reference.call
(macro_invocation macro: (scoped_identifier path: (_) @receiver name: (identifier) @name))
  @reference.call

; ---- imports ---------------------------------------------------------------------------
(use_declaration) @reference.import

; ---- traits implemented, supertraits -----------------------------------------------------
(impl_item trait: [
  (type_identifier) @name
  (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
  (generic_type type: (type_identifier) @name)
  (generic_type type: (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name))
  ] @reference.inherit)
(trait_item bounds: (trait_bounds [
  (type_identifier) @name
  (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
  (generic_type type: (type_identifier) @name)] @reference.inherit))

; ---- attributes: #[derive(..)], #[test], #[tokio::main] ----------------------------------
(attribute_item (attribute [
  (identifier) @name
  (scoped_identifier path: (_) @receiver name: (identifier) @name)])) @reference.decorator

; ---- type names (primitive types are primitive_type nodes) ----------------------------------
((type_identifier) @name @reference.annotation (#not-eq? @name "Self"))
(scoped_type_identifier path: (_) @receiver name: (type_identifier) @name) @reference.annotation
(type_parameter name: (type_identifier) @skip)

; ---- strings naming a dotted path ------------------------------------------------------
((string_literal . (string_content) @name .) @reference.string
  (#match? @name "^[A-Za-z_][A-Za-z0-9_]*([.][A-Za-z_][A-Za-z0-9_]*)+$"))

; ---- other uses: a name passed, stored or returned as a value ---------------------------
(arguments (identifier) @name @reference.use)
(arguments (scoped_identifier path: (_) @receiver name: (identifier) @name) @reference.use)
(let_declaration value: (identifier) @name @reference.use)
(let_declaration value: (scoped_identifier path: (_) @receiver name: (identifier) @name)
  @reference.use)
(array_expression (identifier) @name @reference.use)
(array_expression (scoped_identifier path: (_) @receiver name: (identifier) @name) @reference.use)
(field_initializer value: (identifier) @name @reference.use)
(field_initializer value: (scoped_identifier path: (_) @receiver name: (identifier) @name)
  @reference.use)
(return_expression (identifier) @name @reference.use)
(return_expression (scoped_identifier path: (_) @receiver name: (identifier) @name)
  @reference.use)
(assignment_expression right: (identifier) @name @reference.use)
(assignment_expression right: (scoped_identifier path: (_) @receiver name: (identifier) @name)
  @reference.use)
