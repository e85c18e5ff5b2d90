; Dart (generic tier). A function's body is a sibling of its signature in this grammar, so
; a definition spans its signature only.
(class_definition name: (identifier) @name body: (_) @body) @definition.class
(mixin_declaration (identifier) @name (class_body) @body) @definition.class
(extension_declaration name: (identifier) @name body: (_) @body) @definition.class
(enum_declaration name: (identifier) @name body: (_) @body) @definition.type
(function_signature name: (identifier) @name) @definition.function
(getter_signature name: (identifier) @name) @definition.function
(setter_signature name: (identifier) @name) @definition.function
(constructor_signature name: (identifier) @name . parameters: (formal_parameter_list)) @definition.function
((identifier) @name . (selector (argument_part)) @reference.call)
(unconditional_assignable_selector (identifier) @name) @reference.call
