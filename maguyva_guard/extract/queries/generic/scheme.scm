; Scheme (generic tier): (define (name args) ...), (define name ...), define-syntax.
((list . (symbol) @_kw . (list . (symbol) @name)) @definition.function
  (#match? @_kw "^(define|define\\*|define-public|define-inline)$"))
((list . (symbol) @_kw . (symbol) @name) @definition.constant
  (#match? @_kw "^(define|define-public)$"))
((list . (symbol) @_kw . (symbol) @name) @definition.function
  (#match? @_kw "^(define-syntax|define-macro|define-record-type)$"))
(list . (symbol) @name) @reference.call
