; Magik (generic tier): methods of exemplars.
(method exemplarname: (identifier) @qualifier name: (identifier) @name) @definition.function
(procedure name: (identifier) @name) @definition.function
(call message: (identifier) @name) @reference.call
