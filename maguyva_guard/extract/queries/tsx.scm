; inherits: typescript, _jsx
; TSX: TypeScript with JSX.
