; VHDL (generic tier): entities, architectures, packages, subprograms.
(entity_declaration name: (identifier) @name) @definition.class
(architecture_body name: (identifier) @name) @definition.class
(package_declaration name: (identifier) @name) @definition.class
