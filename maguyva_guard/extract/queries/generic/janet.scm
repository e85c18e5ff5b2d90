; Janet (generic tier).
(extra_defs name: (symbol) @name body: (_)? @body) @definition.function
(def name: (symbol) @name) @definition.constant
(tuple . item: (symbol) @name) @reference.call
