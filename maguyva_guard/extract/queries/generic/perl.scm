; Perl (generic tier): packages qualify the subs after them only when braced; subs by name.
(subroutine_declaration_statement name: (bareword) @name body: (_) @body) @definition.function
(function_call_expression function: (function) @name) @reference.call
(ambiguous_function_call_expression function: (function) @name) @reference.call
(method_call_expression method: (method) @name) @reference.call
