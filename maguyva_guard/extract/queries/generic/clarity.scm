; Clarity (generic tier).
(function_definition (_ (function_signature . (identifier) @name))) @definition.function
(constant_definition . (identifier) @name) @definition.constant
(contract_function_call operator: (identifier) @name) @reference.call
