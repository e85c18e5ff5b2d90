; PureScript (generic tier).
(function name: (variable) @name) @definition.function
(data name: (type) @name) @definition.type
(newtype name: (type) @name) @definition.type
(type_alias name: (type) @name) @definition.type
(class_declaration (class_head (class_name (type) @name))) @definition.interface
(exp_apply . (exp_name (variable) @name)) @reference.call
(exp_apply . (exp_name (qualified_variable (variable) @name))) @reference.call
