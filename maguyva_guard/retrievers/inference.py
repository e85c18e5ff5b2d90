"""Types guessed from code: local variables, attributes, globals, return values, receivers."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Final

from maguyva_guard.extract.languages import language_for as language_of
from maguyva_guard.records import (
    FUNCTION,
    METHOD,
    Definition,
)
from maguyva_guard.retrievers import (
    ecmacontext,
    ecmashapes,
    ecmatypes,
    jvm,
    luamods,
    pyunpack,
    rustchains,
    rusttypes,
    scripting,
    shadowing,
    unions,
)
from maguyva_guard.retrievers.edgecache import FILE
from maguyva_guard.retrievers.resolution_base import (
    CLASS_KINDS,
    GO_RECEIVER,
    IDENT,
    MAX_HOPS,
    NAMESPACE_LANGUAGES,
    SELF_NAMES,
    Entity,
    ResolverAPI,
    is_self,
    reused,
    tracked,
)

_RUST_MOD = re.compile(r"\s*(?:pub(?:\([\w:]+\))?\s+)?mod\s+(\w+)\s*;")

class Inference:
    """Types guessed from code: local variables, attributes, globals, return values, receivers."""

    def typed_global(self: ResolverAPI, path: str, name: str, hops: int = 0) -> Entity | None:
        """A module-level variable whose type shows: `request: Request = LocalProxy(...)`
        or `app = Flask(__name__)`; importers of it get an instance of that class."""
        key = (path, name)
        if key not in self._globals:
            self._globals[key] = None  # guards against a cycle through the lookup below
            with tracked(self, ("globals", *key)):
                mentioned = [line for line in self.top_lines(path) if line.startswith(name)]
                typed = self._typed_by(path, "", name, mentioned, hops) if mentioned else None
            self._globals[key] = typed
        else:
            reused(self, ("globals", *key))
        return self._globals[key]

    def receiver_variable(self: ResolverAPI, path: str, scope: str) -> str:
        """The name that plays `self` beside `self`/`cls`/`this`. Go: the receiver in
        `func (s *Server) Start()`. Python: a method's first parameter whatever its name
        (click's `def forward(__self, __cmd, ...)`), seen from closures inside it too;
        not in a `@staticmethod`."""
        language = language_of(path)
        if language == "go":
            fn = self.scope(path).enclosing_function(scope)
            m = GO_RECEIVER.match(fn.signature) if fn is not None else None
            return m.group(1) if m else ""
        if language != "python":
            return ""
        fs = self.scope(path)
        d = fs.by_qualified.get(scope)
        while d is not None and d.kind not in CLASS_KINDS:
            owner = fs.by_qualified.get(d.parent) if d.parent else None
            if owner is not None and owner.kind in CLASS_KINDS:
                if "@staticmethod" in d.signature:
                    return ""
                m = _FIRST_PARAMETER.search(d.signature)
                return m.group(1) if m and m.group(1) not in SELF_NAMES else ""
            d = owner
        return ""

    def cls_is_receiver(self: ResolverAPI, path: str, scope: str) -> bool:
        """Whether `cls` in `scope` is the class: anywhere but in a Python method whose
        first parameter is not `cls` (there `cls = self.storage_class` makes it a local)."""
        if language_of(path) != "python":
            return True
        fs = self.scope(path)
        d = fs.by_qualified.get(scope)
        while d is not None and d.kind not in CLASS_KINDS:
            owner = fs.by_qualified.get(d.parent) if d.parent else None
            if owner is not None and owner.kind in CLASS_KINDS:
                m = _FIRST_PARAMETER.search(d.signature)
                return m is None or m.group(1) == "cls"
            d = owner
        return True

    def resolve_expression(self: ResolverAPI, path: str, scope: str, expr: str, hops: int = 0
    ) -> Entity | None:
        """A receiver or qualifier as written ("self.client", "mod.Cls()", "obj") to an entity."""
        expr = expr.strip()
        if not expr or hops > MAX_HOPS:
            return None
        if language_of(path) == "rust" and "(" in expr:  # `a.f()?.g()`: step by step
            return rustchains.chain_type(self, path, scope, expr, hops)
        if expr.endswith(")"):
            callee = expr[: expr.find("(")].strip()
            if callee.startswith("new ") and language_of(path) in _NEW_INSTANCE:
                return _instance(self.resolve_expression(  # `new B()`, `new B<>()`: a B
                    path, scope, _NEW_TYPE.sub("", callee[4:]).strip(), hops + 1), sure=True)
            if callee.startswith("new ") and language_of(path) in _ECMA:
                callee = callee[len("new "):].strip()  # `new B(1).run()`: an instance of B
            return self.called(self.callee(path, scope, callee, hops + 1), hops)
        if language_of(path) == "rust":
            module = self.rust_module(path, expr)
            if module is not None:
                return module
        expr = expr.replace("::", ".")
        if language_of(path) == "scala" and expr.endswith("]"):
            # `Traverse[F].traverse(...)`: a type class summoned, an instance of it
            summoned = _SUMMONED.fullmatch(expr)
            return _instance(self.resolve_expression(path, scope, summoned.group(1), hops + 1)
                             ) if summoned else None
        if not re.fullmatch(r"[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*", expr):
            return None
        head, *rest = expr.split(".")
        entity: Entity | None
        managed = language_of(path) in NAMESPACE_LANGUAGES
        receiver = is_self(head, language_of(path)) or head == self.receiver_variable(path,
                                                                                     scope)
        if head == "cls" and receiver and not self.cls_is_receiver(path, scope):
            receiver = False  # `cls = self.storage_class` in an ordinary method: a local
        if receiver:
            cls = self.enclosing_class(path, scope)
            if cls is None:  # `def fget(self: Response)` nested in a function: annotated
                entity = self.local_type(path, scope, head, hops + 1)
                return self.attribute_chain(entity, rest, hops) if entity is not None else None
            entity = Entity("instance", path=path, definition=cls)
            if rest:
                found = self.attribute_type(cls, rest[0], hops + 1)
                if found is None:  # `self.prop`: a property's return type, else unknown
                    prop = self.member(entity, rest[0], hops + 1)
                    typed = _property_type(self, prop, hops + 1)
                    found = typed if typed is not prop else None
                entity = found
                rest = rest[1:]
        else:
            entity = self.lookup_name(path, scope, head, hops + 1)
            if entity is not None and shadowing.shadows(self, path, scope, head, entity):
                entity = None  # `reaction = Reaction()` beside a module's `def reaction`
            if managed and entity is not None and _is_property(entity):
                # `store.close()` with `var store: Store`: its declared type, else as a local
                entity = self.declared_type(entity, hops + 1)
            if entity is None:
                entity = self.local_type(path, scope, head, hops + 1)
            if entity is None and (managed or language_of(path) == "java"):
                cls = self.enclosing_class(path, scope)  # a field, read without `this.`
                entity = self.attribute_type(cls, head, hops + 1) if cls is not None else None
        entity = self.attribute_chain(entity, rest, hops) if entity is not None else None
        if managed and entity is not None and _is_property(entity):
            return self.declared_type(entity, hops + 1)  # `client.dispatcher`: its type
        return entity

    def attribute_chain(self: ResolverAPI, entity: Entity, rest: list[str],
                        hops: int) -> Entity | None:
        """`entity.a.b`: each segment a member (a property read as what it returns), else,
        on a Python instance, an attribute its class types (`headers: Headers` in the class
        body, `self.headers = Headers()` in a method: `event.headers` of `event: File`)."""
        current: Entity | None = entity
        for seg in rest:
            if current is None:
                return None
            member = self.member(current, seg, hops + 1)
            if member is None and current.kind == "instance" and current.definition is not None \
                    and language_of(current.definition.path) in _TYPED_ATTRIBUTES:
                # Python, and a Java/Kotlin/Scala/C#/Swift field or constructor property
                # (`class C(val x: X)`): the type the class gives it
                current = self.attribute_type(current.definition, seg, hops + 1)
                continue
            current = _property_type(self, member, hops + 1)
        return current

    def rust_module(self: ResolverAPI, path: str, expr: str) -> Entity | None:
        """Rust: a qualifier that names a whole module of the crate: `crate::a::b`,
        `self::a`, `super::a`, or `a` where this file declares `mod a;`."""
        head = expr.split("::")[0]
        if head in ("crate", "self", "super"):
            if "::" not in expr and head == "self":
                return None  # `self.method()`: the value, not the module
            target = expr
        elif re.fullmatch(r"\w+", expr) and expr in self.rust_child_modules(path):
            target = "self::" + expr
        else:
            return None
        found = self.imports.resolve("rust", path, target)
        if found is None or found.members:
            return None  # not a module of this crate (another crate, or an item in one)
        return Entity("module", path=found.location)

    def rust_child_modules(self: ResolverAPI, path: str) -> frozenset[str]:
        """The modules `path` declares with `mod a;` (memoised: asked for every receiver)."""
        memo: dict[str, frozenset[str]] = self.__dict__.setdefault("_rust_child_modules", {})
        if self.tracker is not None:
            self.tracker.ask((FILE, path))
        found = memo.get(path)
        if found is None:
            found = memo[path] = frozenset(
                m.group(1) for line in self.lines(path)
                if (m := _RUST_MOD.match(line)) is not None)
        return found

    def local_type(self: ResolverAPI, path: str, scope: str, var: str,
                   hops: int = 0) -> Entity | None:
        """`obj = ClassName(...)`, `obj: ClassName` or a parameter annotated with a class:
        obj is an instance of that class (probable). Looked for in the enclosing function,
        then the functions around it (closures see their variables), then at module level
        (`app = Flask(__name__)` used by `@app.route` below it).

        A variable asked again while its own answer is being worked out (`c` in `lambda c:
        c == ','` on lines that also bind `c`) gets no answer there: the question recurring
        inside itself adds nothing, and each recurrence multiplied the lines read (a test
        module of more-itertools: 275,000 questions and 27 s of CPU for one check)."""
        key = (path, scope, var, rusttypes.resolving_line(self, path))
        open_questions: set[tuple[str, str, str, int]] = self.__dict__.setdefault(
            "_local_types_open", set())
        if key in open_questions:
            return None
        open_questions.add(key)
        try:
            return Inference._local_type(self, path, scope, var, hops)
        finally:
            open_questions.discard(key)

    def _local_type(self: ResolverAPI, path: str, scope: str, var: str,
                    hops: int) -> Entity | None:
        """local_type's search, once per open question."""
        fs = self.scope(path)
        d = fs.by_qualified.get(scope)
        while d is not None:
            if d.kind not in CLASS_KINDS:
                lines = [d.signature, *self.lines(path)[d.line_start - 1 : d.line_end]]
                if language_of(path) in _ECMA:  # its own parameters, then its body
                    lines = [ecmatypes.own_parameters(d.signature),
                             *ecmatypes.body_lines(lines[1:])]
                # (Rust reads `let x = a.f()` through a's type: the function's own scope;
                # `let` shadows, so the nearest binding above the line being resolved wins.
                # Kotlin, Scala: the function's own scope, where its parameters show
                # (`for (a <- items)` with `items: List[A]`: the element type).)
                # Python: the function's own scope too, so that a local typed by another
                # local reads it (click: `runner = CliRunner(); result = runner.invoke()`).
                rust = language_of(path) == "rust"
                own = rust or language_of(path) in _FOR_IN or language_of(path) == "python"
                where = d.qualified_name if own else d.parent
                at = rusttypes.resolving_line(self, path) if own else 0
                if rust and d.line_start <= at <= d.line_end:
                    lines = [*reversed(self.lines(path)[d.line_start - 1 : at]), d.signature]
                elif language_of(path) == "python" and d.line_start < at <= d.line_end:
                    # A comprehension on the use's lines binds its variable there, whatever
                    # the function bound to that name before (attrs: `a = attrib()`, then
                    # `[a.evolve(...) for a in own_attrs]`): its items' type or unknown.
                    bound = _comprehension(self.lines(path), at, var)
                    if bound:
                        return self._typed_by(path, where, var, bound, hops,
                                              items_in=d.qualified_name)
                found = self.csharp_loop_item(path, d.qualified_name, var, lines[1:], hops) \
                    if language_of(path) == "csharp" else None
                found = found or self._typed_by(path, where, var, lines, hops,
                                                items_in=d.qualified_name)
                if found is not None:
                    return found
            d = fs.by_qualified.get(d.parent) if d.parent else None
        return self.typed_global(path, var, hops)

    def attribute_type(self: ResolverAPI, cls: Definition, attr: str,
                       hops: int = 0) -> Entity | None:
        """`self.attr = ClassName(...)` or `attr: ClassName` in the class, else in its base
        classes (flask: `self.json: JSONProvider` in App, read as `current_app.json` of a
        Flask): attr's type."""
        found = self.own_attribute_type(cls, attr, hops)
        if found is not None or language_of(cls.path) != "python":
            return found
        seen, todo = {(cls.path, cls.qualified_name)}, list(self.bases(cls, hops + 1))
        while todo and len(seen) <= MAX_BASES and hops <= MAX_HOPS:
            base = todo.pop(0)
            if (base.path, base.qualified_name) in seen:
                continue
            seen.add((base.path, base.qualified_name))
            found = self.own_attribute_type(base, attr, hops + 1)
            if found is not None:
                return found
            todo.extend(self.bases(base, hops + 1))
        return None

    def own_attribute_type(self: ResolverAPI, cls: Definition, attr: str,
                           hops: int = 0) -> Entity | None:
        """As attribute_type, in `cls`'s own body. Java, C#, Kotlin, Scala, Swift declare
        fields outside methods: a method's parameter or local of that name (`def
        total(a: P)`) is no field of the class."""
        body = self.lines(cls.path)[cls.line_start - 1 : cls.line_end]
        if language_of(cls.path) in _FIELDS_OUTSIDE_METHODS:
            inside = {n for d in self.scope(cls.path).definitions
                      if d.parent == cls.qualified_name and _has_parameters(d)
                      for n in range(d.line_start, d.line_end + 1)}
            body = [line for n, line in enumerate(body, start=cls.line_start)
                    if n not in inside]
        # There a class's own nested types are in scope for its fields' declarations.
        scope = cls.qualified_name if language_of(cls.path) in _FIELDS_OUTSIDE_METHODS \
            else cls.parent
        return self._typed_by(cls.path, scope, rf"(?:self\.)?{re.escape(attr)}", body,
                              hops, raw=True, needle=attr)

    def _typed_by(self: ResolverAPI, path: str, scope: str, var: str, lines: Iterable[str],
                  hops: int, raw: bool = False,
        needle: str | None = None, items_in: str | None = None,
    ) -> Entity | None:
        """The class `var` is bound to in `lines`. Only lines that contain `needle` (the
        variable's own text) can bind it: the patterns run on those alone (a popular
        method's callers ask this of thousands of lines: 2.4M searches, 2.8 s on Django).
        A loop's sequence is looked for from `items_in` (the function whose lines these
        are: `attrs = [...]; for a in attrs` binds `attrs` there), else from `scope`."""
        needle = needle if needle is not None else var
        lines = [line for line in lines if needle in line]
        if not lines:
            return None
        name = var if raw else re.escape(var)
        csharp = language_of(path) in DECLARING
        if language_of(path) == "php":
            written = scripting.php_declared_type(lines, needle)
            e = self.resolve_expression(path, scope, written, hops + 1) if written else None
            return _instance(e)
        if language_of(path) == "lua" and not raw:  # `local o = setmetatable({}, M)`
            for line in lines:
                e = luamods.metatable_instance(self, path, scope, line, var, hops)
                if e is not None:
                    return e
        go = language_of(path) == "go"
        rust = language_of(path) == "rust"
        python = language_of(path) == "python" and not raw
        if language_of(path) in _ECMA and not raw:  # `const { x } = this`: this.x's type
            copied = ecmatypes.destructured(lines, var)
            if copied is not None:
                e = _class_or_instance(self.resolve_expression(path, items_in or scope, copied,
                                                               hops + 1))
                if e is not None:
                    return e
            # `operate((source, subscriber) => ...)`: the type the callee declares for it
            e = ecmacontext.contextual_type(self, path, items_in or scope, lines, var, hops)
            if e is not None:
                return e
        if language_of(path) == "java" and not raw and "forEach" in "".join(lines):
            e = jvm.for_each_item(self, path, items_in or scope, lines, var, hops)
            if e is not None:  # `items.forEach(x -> x.m())`: an item of `items`
                return e
        loop = _LOOPS.get(language_of(path) or "", LOOP)
        for line in lines:
            m = _pattern(loop, name).search(line) if "for" in line else None
            if m is None and "for" in line and language_of(path) in _FOR_IN:
                m = _pattern(LOOP_JVM, name).search(line)
            if m is not None:  # `for var in items` / `[... for var in items]`
                element = self.element_type(path, items_in or scope, m.group(1),
                                            bool(m.group(2)), hops)
                if element is not None:
                    return element
            if language_of(path) in _FOR_IN and ("val" in line or "var" in line):
                e = self._value_type(path, scope, name, line, hops)
                if e is not None:
                    return e
            eq = line.find("=") if python else -1
            if eq > 0 and "," in line[:eq] and \
                    line[:eq].split(",", 1)[0].strip().lstrip("([").isidentifier():
                # `a, b = C(), D()`: the type of the value paired with var
                value = pyunpack.unpacked_value(line, var)
                e = _value_of(self, path, scope, value, hops) if value is not None else None
                if e is not None:
                    return e
            kinds = _possible(line, needle)
            if csharp:  # `Store s = ...`, `Store s;`, a parameter `(Store s)`, `for (Store s :`
                kinds = tuple(k for k in kinds if k == ASSIGN) + (DECLARED,)
            elif language_of(path) != "python":
                kinds = tuple(k for k in kinds if k not in PYTHON_ONLY)
            if go and (raw or line.lstrip().startswith("func") or "var " in line):
                # a parameter of the function itself `func F(s *Store)` (not of a closure
                # inside it: `f.Visit(func(f *Flag) {..})` rebinds f there), `var s Store`,
                # a struct field `items Store`
                kinds = (*kinds, GO_DECLARED)
            elif rust and "let" in line:  # `let x = a.f()?.g()`, `if let Some(x) = f()`
                kinds = (rusttypes.UNWRAPPED, *kinds)
            for kind in kinds:
                m = _pattern(kind, name).search(line)
                if m is None:
                    continue
                if kind in (ALIAS, CLASS_OF):
                    found = _class_or_instance(
                        self.resolve_expression(path, scope, m.group(1), hops + 1))
                    if found is not None:
                        return found
                    continue
                if kind == ANNOTATED and not raw and language_of(path) == "python" and \
                        unions.annotated_union(line, var):
                    continue  # `p: A | B`: either (unions.py), not the first
                if kind in (ANNOTATED, DECLARED, GO_DECLARED):
                    e = self.resolve_expression(path, scope, m.group(1), hops + 1)
                elif kind == rusttypes.UNWRAPPED:
                    e = rustchains.chain_type(self, path, scope, m.group(1) or m.group(2),
                                             hops + 1, unwrap=m.group(1) is None)
                elif csharp and _chained(line[m.start(1):]):
                    continue  # `x = C.builder().get();`: not what `builder()` returns
                else:  # `var = f(...)`, `with f(...) as var`
                    e = self.called(self.callee(path, scope, m.group(1), hops + 1), hops)
                if e is not None and e.definition is not None and e.definition.kind in CLASS_KINDS:
                    return Entity("instance", path=e.path, definition=e.definition, sure=False)
        return None

    def _value_type(self: ResolverAPI, path: str, scope: str, name: str, line: str,
                    hops: int) -> Entity | None:
        """Kotlin, Scala: `val v = chain as T` / `x.asInstanceOf[T]` (a T), `val v =
        a.b.c!!` (the type of the chain: properties by their declared types)."""
        m = _pattern(VALUE_JVM, name).search(line)
        if m is None:
            return None
        value = m.group(1).strip().removesuffix("!!")
        cast = _CAST.search(value)
        if cast is not None:
            return _instance(self.resolve_expression(path, scope, cast.group(1), hops + 1))
        if not re.fullmatch(r"[A-Za-z_][\w.]*", value) or "." not in value:
            return None
        return _instance(self.resolve_expression(path, scope, value, hops + 1))

    def callee(self: ResolverAPI, path: str, scope: str, expr: str, hops: int = 0) -> Entity | None:
        """What `expr(...)` calls: as resolve_expression, and `self.m` / `cls.m` as the
        method `m` of the enclosing class (a receiver `self.m` is an attribute instead)."""
        if not expr or hops > MAX_HOPS:
            return None
        e = self.resolve_expression(path, scope, expr, hops)
        head, _, name = expr.partition(".")
        if e is None and is_self(head, language_of(path)) and name and "." not in name:
            cls = self.enclosing_class(path, scope)
            method = self.class_member(cls, name, hops + 1) if cls is not None else None
            if method is not None:
                e = Entity("definition", path=method.path, definition=method)
        return e

    def element_type(self: ResolverAPI, path: str, scope: str, expr: str, called: bool,
                     hops: int = 0) -> Entity | None:
        """The class of the items of `expr` (probable), where the code shows it: a call of a
        function annotated `-> list[C]` (or Iterable, Iterator, Sequence, set, tuple,
        Generator; `t.List[...]` too), or a variable built as `[C(...), ...]` or annotated
        `list[C]` in the enclosing functions or at module level, or such an attribute of the
        enclosing class (`self.params: list[Parameter]`)."""
        if hops > MAX_HOPS:
            return None
        if called and language_of(path) == "rust" and expr.endswith(_RUST_ITERS):
            expr, called = expr.rsplit(".", 1)[0], False  # `v.iter()`: v's items
        if called:
            fn = self.callee(path, scope, expr, hops + 1)
            d = fn.definition if fn is not None else None
            m = _CONTAINER_RETURN.search(d.signature) if d is not None else None
            if d is None or m is None:
                return None
            return _instance(self.resolve_expression(d.path, d.qualified_name, m.group(1),
                                                     hops + 1))
        if language_of(path) in _ECMA and IDENT.fullmatch(expr):
            expr = self._destructured(path, scope, expr) or expr  # `const { items } = this`
        name = re.escape(expr)
        patterns = (  # `items = [C(...), ...]`, `items: list[C]`
            re.compile(rf"(?<![\w.]){name}\s*(?::[^=]+)?=\s*[\[({{]\s*([A-Za-z_][\w.]*)\s*\("),
            re.compile(rf"(?<![\w.]){name}\s*:\s*{_CONTAINER}\[\s*['\"]?([A-Za-z_][\w.]*)"),
            *(re.compile(p.replace("{name}", name))
              for p in _ITEMS.get(language_of(path) or "", ())),
        )
        if language_of(path) in _FOR_IN:  # `items: List<C>`, `items: Seq[C]`
            patterns = (patterns[0], re.compile(
                rf"(?<![\w.]){name}\s*:\s*{_JVM_CONTAINER}\s*[\[<]\s*(?:out\s+)?([A-Za-z_][\w.]*)"))
        fs = self.scope(path)
        head, _, attr = expr.partition(".")
        if is_self(head, language_of(path)) and attr and "." not in attr:
            cls = self.enclosing_class(path, scope)  # `self.items`: set anywhere in the class
            if cls is None:
                return None
            body = self.lines(cls.path)[cls.line_start - 1 : cls.line_end]
            if language_of(path) in ("rust", "go", *_ECMA):  # a field: `stack: Vec<Frame>`
                fields = tuple(re.compile(p.replace("{name}", re.escape(attr)))
                               for p in _ITEMS.get(language_of(path) or "", ()))
                return self._item_type(cls.path, cls.parent, attr, body, fields, hops)
            return self._item_type(path, cls.qualified_name, expr, body, patterns, hops)
        d = fs.by_qualified.get(scope)
        while d is not None and d.kind in CLASS_KINDS:
            d = fs.by_qualified.get(d.parent) if d.parent else None
        while d is not None:  # the enclosing functions, innermost first, then the module
            body = [d.signature, *self.lines(path)[d.line_start - 1 : d.line_end]]
            found = self._item_type(path, d.qualified_name, expr, body, patterns, hops)
            if found is not None:
                return found
            d = fs.by_qualified.get(d.parent) if d.parent else None
            while d is not None and d.kind in CLASS_KINDS:
                d = fs.by_qualified.get(d.parent) if d.parent else None
        top = [line for line in self.lines(path) if line[:1].isalpha()]
        return self._item_type(path, "", expr, top, patterns, hops)

    def _destructured(self: ResolverAPI, path: str, scope: str, var: str) -> str | None:
        """JS/TS: the property chain a local destructures (`this.items` for `const {
        items } = this`), in the enclosing functions, innermost first."""
        fs = self.scope(path)
        d = fs.by_qualified.get(scope)
        while d is not None:
            if d.kind not in CLASS_KINDS:
                found = ecmatypes.destructured(
                    self.lines(path)[d.line_start - 1 : d.line_end], var)
                if found is not None:
                    return found
            d = fs.by_qualified.get(d.parent) if d.parent else None
        return None

    def _item_type(self: ResolverAPI, path: str, scope: str, expr: str, lines: list[str],
                   patterns: tuple[re.Pattern[str], ...], hops: int) -> Entity | None:
        """The class the first of `patterns` to match a line holding `expr` names. A
        literal opened at the end of its line is read with the next line (`items = [` then
        `C.build(...) for ...`); an item built by a function or a classmethod has the type
        it returns (attrs: `[Attribute.from_counting_attr(...) for ...]`)."""
        for at, line in enumerate(lines):
            if expr not in line:
                continue
            if line.rstrip().endswith(("[", "(", "{")) and at + 1 < len(lines):
                line = line.rstrip() + lines[at + 1].strip()
            for pattern in patterns:
                m = pattern.search(line)
                if m is None:
                    continue
                e = self.resolve_expression(path, scope, m.group(1), hops + 1)
                found = _instance(e)
                if found is None and e is not None and e.definition is not None and \
                        e.definition.kind in (FUNCTION, METHOD) and \
                        line[m.end(1):].lstrip().startswith("("):
                    found = self.called(e, hops + 1)
                if found is not None:
                    return found
        return None

    def called(self: ResolverAPI, e: Entity | None, hops: int) -> Entity | None:
        """What calling `e` gives: an instance of a class, or of the class a function
        returns (see return_type)."""
        if e is None or e.definition is None:
            return None
        if e.definition.kind in CLASS_KINDS:
            return Entity("instance", path=e.path, definition=e.definition, sure=e.sure)
        if e.definition.kind in (FUNCTION, METHOD):
            return self.return_type(e.definition, hops + 1)
        return None

    def return_type(self: ResolverAPI, fn: Definition, hops: int = 0) -> Entity | None:
        """An instance of the class a Python function returns (probable): the one its
        return annotation names (`-> Session`), else the one every `return` with a value
        agrees on: `return Session()`, `return cls(...)`, `return self`, `return other()`
        (that function's type), `return resp` (the local's type). `s = requests.session();
        s.get()` then reaches Session.get. Memoised; a cycle returns None."""
        key = (fn.path, fn.qualified_name)
        if key in self._returns:
            reused(self, ("returns", *key))
            return self._returns[key]
        self._returns[key] = None  # while it is worked out: recursion ends here
        with tracked(self, ("returns", *key)):
            found = self._return_type(fn, hops)
        self._returns[key] = found
        return found

    def _return_type(self: ResolverAPI, fn: Definition, hops: int) -> Entity | None:
        found = None
        if language_of(fn.path) in DECLARING_RETURNS and hops <= MAX_HOPS:
            found = self.declared_return(fn, hops)
        elif language_of(fn.path) == "rust":
            found = rusttypes.declared_return(self, fn, hops)
        elif language_of(fn.path) in _TYPED_ECMA and hops <= MAX_HOPS:
            found = ecmashapes.declared_instance(self, fn, hops)
        elif language_of(fn.path) == "lua" and hops <= MAX_HOPS:
            found = self._returned(fn, hops)
        elif language_of(fn.path) == "python" and hops <= MAX_HOPS:
            m = _RETURN_ANNOTATION.search(fn.signature)
            if m is not None and m.group(1).split(".")[-1] == "Self":  # `-> te.Self`
                cls = self.enclosing_class(fn.path, fn.qualified_name)
                found = _instance(Entity("definition", path=cls.path, definition=cls)
                                  if cls is not None else None)
            elif m is not None:
                found = _instance(self.resolve_expression(fn.path, fn.qualified_name,
                                                          m.group(1), hops + 1))
            else:
                found = self._returned(fn, hops)
        return found

    def _returned(self: ResolverAPI, fn: Definition, hops: int) -> Entity | None:
        body = self.lines(fn.path)[fn.line_start : fn.line_end]  # after the def line
        classes: dict[tuple[str, str], Definition] = {}
        for line in body:
            m = _RETURN_VALUE.match(line)
            if m is None:
                continue
            value = m.group(1).strip()
            if value in ("", "None", "nil"):  # a bare `return` or `return None` says nothing
                continue
            callee = _whole_call(value)
            if language_of(fn.path) == "lua" and callee == "setmetatable":
                e = luamods.metatable_instance(self, fn.path, fn.qualified_name, line, None,
                                               hops)
            elif callee is not None:
                e = self.called(self.callee(fn.path, fn.qualified_name, callee, hops + 1),
                                 hops + 1)
            elif value in SELF_NAMES:
                cls = self.enclosing_class(fn.path, fn.qualified_name)
                e = Entity("instance", path=cls.path, definition=cls) if cls else None
            elif IDENT.fullmatch(value):
                e = self.local_type(fn.path, fn.qualified_name, value, hops + 1)
            else:
                return None
            if e is None or e.definition is None:
                return None  # one value of unknown type: the function's type is unknown
            classes[(e.definition.path, e.definition.qualified_name)] = e.definition
            if len(classes) > 1:
                return None
        if len(classes) != 1:
            return None
        (cls,) = classes.values()
        return Entity("instance", path=cls.path, definition=cls, sure=False)


ASSIGN, ANNOTATED, CONTEXT, LOOP, DECLARED = "assign", "annotated", "context", "loop", "declared"
ALIAS, CLASS_OF = "alias", "class_of"
# Python shapes: `storage_class = ds.Headers` (the class itself, or `h = other` an instance
# already typed) and `storage_class: type[Headers]` (the class itself).
PYTHON_ONLY = (ALIAS, CLASS_OF)
LOOP_JVM, VALUE_JVM = "loop-jvm", "value-jvm"
_CAST: Final = re.compile(r"(?:\bas\??\s+|\.asInstanceOf\[\s*)([A-Z][\w.]*)[^\w.]*$")
_FOR_IN: Final = frozenset({"kotlin", "scala"})
MAX_BASES: Final = 8  # base classes read for an attribute's type (a deep framework tree)
_SUMMONED: Final = re.compile(r"([A-Z]\w*)\[[\w\[\], ]*\]")
_FIELDS_OUTSIDE_METHODS: Final = NAMESPACE_LANGUAGES | {"java"}
_TYPED_ATTRIBUTES: Final = _FIELDS_OUTSIDE_METHODS | {"python"}
_BINDINGS: dict[str, str] = {
    ALIAS: r"(?<![\w.]){name}\s*(?::[^=]+)?=\s*([A-Za-z_][\w.]*)\s*(?:#.*)?$",
    CLASS_OF: r"(?<![\w.]){name}\s*:\s*(?:[A-Za-z_]\w*\.)?[Tt]ype\[\s*['\"]?([A-Za-z_][\w.]*)",
    # `v = C(...)`; `new C(...)` in JS/TS/Java, `C<T>(...)` too; Go's `v := &C{...}` and
    # Rust's `let v = C { .. }`: a composite literal of C
    # (Rust: `let v = Type::new(..)`, a path with `::`.)
    ASSIGN: r"(?<![\w.]){name}\s*(?::[^=]+)?:?=\s*(?:await\s+)?(?:new\s+|&)?"
            r"([A-Za-z_][\w.]*(?:::[A-Za-z_]\w*)*)\s*(?:<[^=;]*>)?\s*[({]",
    # `v: Type`; Rust's `v: &'a mut a::Type` too
    ANNOTATED: r"(?<![\w.]){name}\s*:\s*['\"]?(?:&\s*(?:'\w+\s*)?(?:mut\s+)?)?"
               r"([A-Za-z_][\w.]*(?:::[A-Za-z_]\w*)*)",
    CONTEXT: r"\bwith\s+([A-Za-z_][\w.]*)\s*\(.*\bas\s+{name}\b",
    LOOP: r"\bfor\s+{name}\s+in\s+&?(?:mut\s+)?([A-Za-z_][\w.]*)\s*(\()?",
    VALUE_JVM: r"\b(?:val|var)\s+{name}\s*=\s*(.+?)\s*$",
    # Kotlin `for (a in items)`, Scala `for (a <- items)` / `for { a <- items`
    LOOP_JVM: r"\bfor\s*[({]\s*{name}\s*(?::[^)]*?)?(?:\s+in\s+|\s*<-\s*)([A-Za-z_][\w.]*)\s*(\()?",
    # C#: `Store store;`, `Store s = ...`, a parameter `(Store s)`
    DECLARED: r"(?<![\w.])([A-Z]\w*(?:\.[A-Z]\w*)*)(?:<[^<>;=]*>)?\??\s+{name}\s*[;=,):]",
}
# Languages that declare a variable's type before its name (`Store s`), and whose `new B()`
# is an instance of B; with Kotlin, Scala and Swift, those whose methods declare a return type.
DECLARING: Final = frozenset({"csharp", "java"})
DECLARING_RETURNS: Final = NAMESPACE_LANGUAGES | DECLARING
_NEW_TYPE: Final = re.compile(r"<.*>$|\[.*\]$")  # `new B<>()`, Scala's `new B[A]()`
_NEW_INSTANCE: Final = DECLARING | {"scala"}


# Go declares a name before its type: a parameter `(s *Store, n int)`, `var s Store`.
GO_DECLARED = "go-declared"
_BINDINGS[GO_DECLARED] = r"(?<![\w.]){name}\s+\*?([A-Za-z_][\w.]*)\s*(?:\[[^\]]*\]\s*)?(?:[,)=]|$)"
_ECMA = frozenset({"javascript", "typescript", "tsx"})
_TYPED_ECMA = frozenset({"typescript", "tsx"})  # functions declare their return type
_BINDINGS[rusttypes.UNWRAPPED] = rusttypes.UNWRAPPED_PATTERN

# Loops whose variable takes the items of a sequence in other languages: JS/TS
# `for (const a of items)`, Go `for _, a := range items` (the second variable: the first is
# the index), Rust `for a in items` (and `in items.iter()`, `in &items`).
RANGE_LOOP, OF_LOOP = "range", "of"
_BINDINGS[OF_LOOP] = r"\bfor\s*\(\s*(?:const|let|var)\s+{name}\s+of\s+([A-Za-z_][\w.]*)\s*(\()?"
_BINDINGS[RANGE_LOOP] = (r"\bfor\s+\w+\s*,\s*{name}\s*:?=\s*range\s+&?([A-Za-z_][\w.]*)"
                         r"\s*(\()?")
_LOOPS: dict[str, str] = {"javascript": OF_LOOP, "typescript": OF_LOOP, "tsx": OF_LOOP,
                          "go": RANGE_LOOP}
_RUST_ITERS = (".iter", ".iter_mut", ".into_iter")
# How a sequence of items of type C is declared, per language ({name} the sequence):
_ITEMS: dict[str, tuple[str, ...]] = {
    "rust": (r"(?<![\w.]){name}\s*:\s*&?(?:'\w+\s*)?(?:mut\s+)?"  # `v: &[C]`, `v: Vec<C>`
             r"(?:\[\s*|(?:Vec|VecDeque|Box<\[)\s*<?\s*)&?([A-Za-z_][\w:]*)",),
    "go": (r"(?<![\w.]){name}\s+\[\]\*?([A-Za-z_][\w.]*)",  # a parameter `as []A`
           r"(?<![\w.]){name}\s*:?=\s*\[\]\*?([A-Za-z_][\w.]*)\s*\{"),
    "typescript": (r"(?<![\w.]){name}\??\s*:\s*(?:readonly\s+)?([A-Za-z_][\w.]*)\s*\[\]",
                   r"(?<![\w.]){name}\??\s*:\s*(?:Readonly)?Array<\s*([A-Za-z_][\w.]*)"),
}
_ITEMS["tsx"] = _ITEMS["typescript"]


def _comprehension(lines: list[str], at: int, var: str) -> list[str]:
    """The line among the use's (`at`, 1-based) and the three after it that binds `var` as
    a comprehension's variable (`[... for var in items]`), as a list of at most one."""
    binds = re.compile(rf"\bfor\s+{re.escape(var)}\s+in\b")
    for text in lines[at - 1 : at + 3]:
        if binds.search(text):
            return [text]
        if text.rstrip().endswith(":"):
            break  # a statement's header: the comprehension ended above
    return []


@functools.lru_cache(maxsize=8192)
def _pattern(kind: str, name: str) -> re.Pattern[str]:
    """The pattern of `kind` that binds `name` (a regular expression), compiled once, and
    only for a line it may match (`_possible`): compiling four patterns per variable cost
    a 50-symbol Django check a second (re's own cache holds 512)."""
    return re.compile(_BINDINGS[kind].replace("{name}", name))


def _possible(line: str, needle: str) -> tuple[str, ...]:
    """Which of assign, annotated and context may match `line` (in that order), from what
    each needs: the variable (which ends with `needle`) followed by `=` or `:`, a `(` or
    `{` for a call or a literal, `with` and `as`. A pattern left out here could not have matched."""
    after: set[str] = set()
    at = line.find(needle)
    while at >= 0:
        rest = line[at + len(needle):].lstrip()
        after.add(rest[:1])
        at = line.find(needle, at + 1)
    kinds: list[str] = []
    if ("=" in after or ":" in after) and ("(" in line or "{" in line):
        kinds.append(ASSIGN)
    if ("=" in after or ":" in after) and "(" not in line:
        kinds.append(ALIAS)
    if ":" in after and "ype[" in line:
        kinds.append(CLASS_OF)
    if ":" in after:
        kinds.append(ANNOTATED)
    if "with" in line and "as" in line:
        kinds.append(CONTEXT)
    return tuple(kinds)


_CONTAINER = (r"(?:[A-Za-z_]\w*\.)?"  # `typing.`, `t.`
              r"(?:[Ll]ist|[Ss]et|[Ff]rozen[Ss]et|[Tt]uple|Sequence|Iterable|Iterator"
              r"|Generator|Collection|AbstractSet|MutableSequence|deque)")
_JVM_CONTAINER = (r"(?:[A-Za-z_]\w*\.)*(?:Mutable)?(?:List|Set|Seq|IndexedSeq|Iterable|Iterator"
                  r"|Collection|Vector|Array|ArrayList|Sequence|NonEmptyList|Chain)")
_CONTAINER_RETURN = re.compile(rf"->\s*['\"]?{_CONTAINER}\[\s*['\"]?([A-Za-z_][\w.]*)")
# `-> Session`, `-> "Session"`, `-> MultiDict[str, str]` (the class; its type arguments
# say nothing about which methods run)
_RETURN_ANNOTATION = re.compile(
    r"->\s*['\"]?([A-Za-z_][\w.]*)(?:\[[^'\"]*\])?['\"]?\s*:?\s*$")



# `def name(first` (after any decorators): a method's receiver parameter.
_FIRST_PARAMETER = re.compile(r"\bdef\s+\w+\s*(?:\[[^\]]*\])?\s*\(\s*([A-Za-z_]\w*)")
_RETURN_VALUE = re.compile(r"\s*return\b(.*?)(?:#.*)?$")



_RETURNED_CALL = re.compile(r"(?:await\s+)?([A-Za-z_][\w.]*)\s*\(")



def _chained(value: str) -> bool:
    """Whether the call that starts `value` is followed by a member access or an index
    (`C.builder().get()`), so that the value is not what the call returns; what closes an
    enclosing bracket (`using (var d = new V()) {`) or ends the statement is no chain."""
    depth = 0
    for i, c in enumerate(value):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return value[i + 1:].lstrip().startswith((".", "[", "?.", "!."))
    return False


def _whole_call(value: str) -> str | None:
    """The callee when `value` is one call and nothing after it (`Name(...)`, `mod.f(a,`
    with its arguments running on): not `Name().attr`, `f(x) or y`, `f(x)[0]`."""
    m = _RETURNED_CALL.match(value)
    if m is None:
        return None
    depth = 0
    for i in range(m.end() - 1, len(value)):
        c = value[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return m.group(1) if not value[i + 1:].strip() else None
    return m.group(1)  # the arguments run on to the next lines



def _value_of(r: ResolverAPI, path: str, scope: str, value: str, hops: int) -> Entity | None:
    """Python: what a variable bound to the expression `value` holds: what a call returns
    (`C()`, `make()`), a class itself or an instance already typed."""
    callee = _whole_call(value)
    if callee is not None:
        return _instance(r.called(r.callee(path, scope, callee, hops + 1), hops))
    return _class_or_instance(r.resolve_expression(path, scope, value, hops + 1))


def _property_type(r: ResolverAPI, e: Entity | None, hops: int) -> Entity | None:
    """`obj.prop` read through a `@property` / `@cached_property` method: the instance it
    returns (see return_type), not the method itself; any other entity as it is."""
    d = e.definition if e is not None else None
    if d is None or d.kind != METHOD or not _PROPERTY.search(d.signature):
        return e
    return r.return_type(d, hops)


_PROPERTY = re.compile(r"@(?:[\w.]*\.)?(?:property|cached_property)\b")


def _class_or_instance(e: Entity | None) -> Entity | None:
    """What a name bound to `e` holds, when `e` is a class of the project (the class itself:
    calling it builds an instance) or an instance of one; anything else says nothing."""
    if e is None or e.definition is None or e.definition.kind not in CLASS_KINDS:
        return None
    if e.kind == "instance":
        return Entity("instance", path=e.path, definition=e.definition, sure=False)
    return Entity("definition", path=e.path, definition=e.definition, sure=False)


def _instance(e: Entity | None, sure: bool = False) -> Entity | None:
    if e is None or e.definition is None or e.definition.kind not in CLASS_KINDS:
        return None
    return Entity("instance", path=e.path, definition=e.definition, sure=sure and e.sure)


def _has_parameters(d: Definition) -> bool:
    """A method or function with a parameter list (`def f(`, not `val x = f(...)`)."""
    at = d.signature.find("(")
    return d.kind in (FUNCTION, METHOD) and at >= 0 and "=" not in d.signature[:at]


def _is_property(e: Entity) -> bool:
    """A property of a class (`val x: T`, `var x: T`, `let x`, C# `T X { get; }`)."""
    d = e.definition
    if d is None or not d.parent or d.kind in CLASS_KINDS:
        return False
    return _MANAGED_PROPERTY.search(d.signature) is not None or (
        language_of(d.path) == "csharp" and "(" not in d.signature)


_MANAGED_PROPERTY = re.compile(r"(?:^|\s)(?:val|var|let)\s")
