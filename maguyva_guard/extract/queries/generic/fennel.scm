; Fennel (generic tier).
(fn name: (symbol) @name) @definition.function
(lambda name: (symbol) @name) @definition.function
((list . (symbol) @_kw . (symbol) @name) @definition.function (#eq? @_kw "macro"))
(list . (symbol) @name) @reference.call
