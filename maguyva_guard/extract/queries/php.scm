; PHP symbols and references. Capture vocabulary: see python.scm.
; Qualified names are the class nesting ("User.save"); the namespace is not part of them
; (registry: the module prefix of a PHP file is empty). Traits are "interface" definitions.

; ---- definitions -----------------------------------------------------------------------
(class_declaration name: (name) @name body: (_) @body) @definition.class
(interface_declaration name: (name) @name body: (_) @body) @definition.interface
(trait_declaration name: (name) @name body: (_) @body) @definition.interface
(enum_declaration name: (name) @name body: (_) @body) @definition.type
(function_definition name: (name) @name body: (_) @body) @definition.function
(method_declaration name: (name) @name body: (_)? @body) @definition.function
(const_declaration (const_element (name) @name (_) @body) @definition.constant)

; ---- imports: `use A\B\C [as D];`, grouped `use A\{B, C as D};` ----------------------------
(namespace_use_declaration) @reference.import

; ---- bases: extends / implements / `use Trait;` ---------------------------------------------
(base_clause [
  (name) @name @reference.inherit
  (qualified_name (name) @name .) @reference.inherit])
(class_interface_clause [
  (name) @name @reference.inherit
  (qualified_name (name) @name .) @reference.inherit])
(use_declaration [
  (name) @name @reference.inherit
  (qualified_name (name) @name .) @reference.inherit])

; ---- calls ---------------------------------------------------------------------------------
(function_call_expression function: (name) @name) @reference.call
(function_call_expression function: (qualified_name (name) @name .)) @reference.call
(member_call_expression object: (_) @receiver name: (name) @name) @reference.call
(nullsafe_member_call_expression object: (_) @receiver name: (name) @name) @reference.call
; `self::m()`, `static::m()`, `parent::m()`, `Foo::m()`
(scoped_call_expression scope: (_) @receiver name: (name) @name) @reference.call
((object_creation_expression (name) @name) @reference.call
  (#not-match? @name "^(static|self|parent)$"))
(object_creation_expression (qualified_name (name) @name .)) @reference.call

; ---- type names in signatures -------------------------------------------------------------
((named_type (name) @name @reference.annotation)
  (#not-match? @name "^(static|self|parent)$"))
(named_type (qualified_name (name) @name .) @reference.annotation)

; ---- strings naming a class (`'App\Models\User'`) ------------------------------------------
((string (string_content) @name) @reference.string
  (#match? @name "^[A-Z][A-Za-z0-9_]*([\\\\][A-Z][A-Za-z0-9_]*)+$"))

; ---- other uses: class constants, `Foo::class`, callables ------------------------------------
(class_constant_access_expression . [
  (name) @name
  (qualified_name (name) @name .)] @reference.use)
(argument (name) @name @reference.use)
