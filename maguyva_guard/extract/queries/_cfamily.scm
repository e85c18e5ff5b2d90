; What C and C++ share (c.scm and cpp.scm inherit it). Capture vocabulary: see python.scm.
; C has one global namespace: the registry gives both languages no module prefix, so a
; function declared in a header and defined in a source file has one qualified name.

; ---- definitions -----------------------------------------------------------------------
; A function's name sits under its declarator, itself maybe under pointer declarators
; (`char **f(void)`); a prototype (`int f(int);`) is a definition without a body.
((function_definition declarator: (function_declarator declarator: (identifier) @name)
  body: (_) @body) @definition.function
  (#not-match? @name "^(TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)$"))
; A test macro's block, `TEST(Fixture, Name) {...}`, is the fixture's method Name (gtest
; and LevelDB's harness derive it from the fixture): distinct names, and `this` is the
; fixture's.
((function_definition declarator: (function_declarator declarator: (identifier) @_macro
  parameters: (parameter_list . (parameter_declaration type: (type_identifier) @qualifier)
    . (parameter_declaration type: (type_identifier) @name) .))
  body: (_) @body) @definition.function
  (#match? @_macro "^(TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)$"))
(function_definition declarator: (pointer_declarator declarator:
  (function_declarator declarator: (identifier) @name)) body: (_) @body) @definition.function
(function_definition declarator: (pointer_declarator declarator: (pointer_declarator
  declarator: (function_declarator declarator: (identifier) @name))) body: (_) @body)
  @definition.function
(declaration declarator: (function_declarator declarator: (identifier) @name))
  @definition.function
(declaration declarator: (pointer_declarator declarator:
  (function_declarator declarator: (identifier) @name))) @definition.function
(declaration declarator: (pointer_declarator declarator: (pointer_declarator
  declarator: (function_declarator declarator: (identifier) @name)))) @definition.function
(preproc_function_def name: (identifier) @name value: (_)? @body) @definition.function
(preproc_def name: (identifier) @name value: (_) @body) @definition.constant
; `typedef struct pt {...} Pt;` is one definition, Pt: the struct inside a typedef is not
; captured (its parent is the type_definition, none of the parents listed here).
[
  (translation_unit [(struct_specifier name: (type_identifier) @name body: (_) @body)
    (union_specifier name: (type_identifier) @name body: (_) @body)
    (enum_specifier name: (type_identifier) @name body: (_) @body)] @definition.type)
  (declaration_list [(struct_specifier name: (type_identifier) @name body: (_) @body)
    (union_specifier name: (type_identifier) @name body: (_) @body)
    (enum_specifier name: (type_identifier) @name body: (_) @body)] @definition.type)
  (declaration [(struct_specifier name: (type_identifier) @name body: (_) @body)
    (union_specifier name: (type_identifier) @name body: (_) @body)
    (enum_specifier name: (type_identifier) @name body: (_) @body)] @definition.type)
  (preproc_if [(struct_specifier name: (type_identifier) @name body: (_) @body)
    (union_specifier name: (type_identifier) @name body: (_) @body)
    (enum_specifier name: (type_identifier) @name body: (_) @body)] @definition.type)
  (preproc_ifdef [(struct_specifier name: (type_identifier) @name body: (_) @body)
    (union_specifier name: (type_identifier) @name body: (_) @body)
    (enum_specifier name: (type_identifier) @name body: (_) @body)] @definition.type)
  (preproc_else [(struct_specifier name: (type_identifier) @name body: (_) @body)
    (union_specifier name: (type_identifier) @name body: (_) @body)
    (enum_specifier name: (type_identifier) @name body: (_) @body)] @definition.type)
  (field_declaration [(struct_specifier name: (type_identifier) @name body: (_) @body)
    (union_specifier name: (type_identifier) @name body: (_) @body)
    (enum_specifier name: (type_identifier) @name body: (_) @body)] @definition.type)
]
(type_definition declarator: (type_identifier) @name) @definition.type
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name))
  @definition.type
(type_definition declarator: (function_declarator declarator: (parenthesized_declarator
  (pointer_declarator declarator: (type_identifier) @name)))) @definition.type

; ---- calls -----------------------------------------------------------------------------
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression argument: (_) @receiver
  field: (field_identifier) @name)) @reference.call
(call_expression function: (parenthesized_expression (identifier) @name)) @reference.call

; ---- imports: `#include "x.h"` (read whole by imports.py) --------------------------------
(preproc_include) @reference.import

; ---- type names ----------------------------------------------------------------------------
((type_identifier) @name @reference.annotation)

; ---- other uses: a function passed or stored as a value (callbacks) -----------------------
(argument_list (identifier) @name @reference.use)
(init_declarator value: (identifier) @name @reference.use)
(assignment_expression right: (identifier) @name @reference.use)
(initializer_list (identifier) @name @reference.use)
(initializer_pair value: (identifier) @name @reference.use)
(return_statement (identifier) @name @reference.use)
(pointer_expression argument: (identifier) @name @reference.use)

; `FN(Name)(args)`: a macro pastes Name into another function's name (`Name_H5`): the
; argument is not a use of Name itself.
(call_expression function: (call_expression arguments: (argument_list (identifier) @skip)))

; ---- locals: C names are global (registry: package_scope), so a plain use is kept unless
; a parameter or a local of that name is declared in its scope --------------------------------
(parameter_declaration declarator: (identifier) @local)
(parameter_declaration declarator: (pointer_declarator declarator: (identifier) @local))
(parameter_declaration declarator: (pointer_declarator declarator:
  (pointer_declarator declarator: (identifier) @local)))
(declaration declarator: (identifier) @local)
(declaration declarator: (init_declarator declarator: (identifier) @local))
(declaration declarator: (init_declarator declarator:
  (pointer_declarator declarator: (identifier) @local)))
(declaration declarator: (pointer_declarator declarator: (identifier) @local))
(declaration declarator: (array_declarator declarator: (identifier) @local))
(declaration declarator: (init_declarator declarator:
  (array_declarator declarator: (identifier) @local)))
