; Tcl (generic tier).
(procedure name: (_) @name body: (_) @body) @definition.function
(command name: (simple_word) @name) @reference.call
