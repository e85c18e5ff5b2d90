; Ruby symbols and references. Capture vocabulary: see python.scm.
; Qualified names follow Ruby's constant nesting ("Shop.Cart.total"), not the file path
; (registry: the module prefix of a Ruby file is empty): a class reopened in another file is
; the same class. Modules are "interface" definitions (mixins, like traits).

; ---- definitions -----------------------------------------------------------------------
(class name: (constant) @name body: (_)? @body) @definition.class
(class name: (scope_resolution scope: (_) @qualifier name: (constant) @name) body: (_)? @body)
  @definition.class
(module name: (constant) @name body: (_)? @body) @definition.interface
(module name: (scope_resolution scope: (_) @qualifier name: (constant) @name) body: (_)? @body)
  @definition.interface
(method name: (_) @name body: (_)? @body) @definition.function
; `def self.build`: a class method, qualified like an instance method ("Cart.build").
(singleton_method name: (_) @name body: (_)? @body) @definition.function
(class body: (body_statement
  (assignment left: (constant) @name right: (_) @body) @definition.constant))
(module body: (body_statement
  (assignment left: (constant) @name right: (_) @body) @definition.constant))
(program (assignment left: (constant) @name right: (_) @body) @definition.constant)

; ---- imports: require / require_relative / load ----------------------------------------
((call !receiver method: (identifier) @_require
  arguments: (argument_list . (string (string_content)) .)) @reference.import
  (#match? @_require "^(require|require_relative|load)$"))

; ---- mixins and superclasses -------------------------------------------------------------
((call !receiver method: (identifier) @_mixin arguments: (argument_list [
  (constant) @name @reference.inherit
  (scope_resolution name: (constant) @name) @reference.inherit]))
  (#match? @_mixin "^(include|extend|prepend)$"))
(superclass [
  (constant) @name @reference.inherit
  (scope_resolution name: (constant) @name) @reference.inherit])

; ---- calls: `Foo.new` calls the class (a bare name: see the end of the file) ---------------
((call receiver: (constant) @name method: (identifier) @_new) @reference.call
  (#eq? @_new "new"))
((call receiver: (scope_resolution name: (constant) @name) method: (identifier) @_new)
  @reference.call (#eq? @_new "new"))
(call receiver: (_) @receiver method: (_) @name) @reference.call
(call !receiver method: (identifier) @name) @reference.call

; ---- strings naming a constant path -----------------------------------------------------
((string . (string_content) @name .) @reference.string
  (#match? @name "^[A-Z][A-Za-z0-9_]*(::[A-Z][A-Za-z0-9_]*)+$"))

; ---- other uses: constants and method references (`method(:name)`, `&:name`) -------------
(scope_resolution scope: (_) @receiver name: (constant) @name) @reference.use
((constant) @name @reference.use)

;  A method named by a symbol: `send(:name)`, `method(:name)`, `alias_method :new, :old`,
;  `obj.public_send(:name)`, `items.map(&:name)` (a call on each item), a constant's list of
;  names (a delegator list). Renaming the method breaks these lines; the name is the symbol
;  without its colon (symbols.py). Hash keys (`{name: 1}`) are another node: not captured.
((call !receiver method: (identifier) @_named arguments: (argument_list
  (simple_symbol) @name @reference.use))
  (#match? @_named "^(send|public_send|__send__|method|public_method|instance_method|alias_method|respond_to\\?|def_delegator|def_delegators|delegate|private_class_method|module_function|private|public|protected)$"))
((call receiver: (_) @receiver method: (identifier) @_named arguments: (argument_list .
  (simple_symbol) @name)) @reference.call
  (#match? @_named "^(send|public_send|__send__|try|method|public_method|respond_to\\?)$"))
(call receiver: (_) @receiver arguments: (argument_list (block_argument (simple_symbol) @name)))
  @reference.call
(assignment left: (constant) right: (array (simple_symbol) @name @reference.use))

; ---- keywords spelled as method calls: not references to anything in the repository ------
((call !receiver method: (identifier) @skip)
  (#match? @skip "^(require|require_relative|load|include|extend|prepend|private|protected|public|module_function|attr_reader|attr_writer|attr_accessor|raise|puts|p)$"))
((identifier) @skip
  (#match? @skip "^(private|protected|public|module_function)$"))

; ---- a bare name is a call on self unless a local of its method binds it ------------------
; (registry: package_scope, so plain uses are filtered by the @local captures below)
((identifier) @name @reference.use)
(method_parameters (identifier) @local)
(lambda_parameters (identifier) @local)
(block_parameters (identifier) @local)
(optional_parameter name: (identifier) @local)
(keyword_parameter name: (identifier) @local)
(splat_parameter name: (identifier) @local)
(hash_splat_parameter name: (identifier) @local)
(block_parameter name: (identifier) @local)
(destructured_parameter (identifier) @local)
(assignment left: (identifier) @local)
(operator_assignment left: (identifier) @local)
(left_assignment_list (identifier) @local)
(rest_assignment (identifier) @local)
(exception_variable (identifier) @local)
(for pattern: (identifier) @local)
