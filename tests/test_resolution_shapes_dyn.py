"""The call shapes of issue 24 in JavaScript/TypeScript, Go and Rust, each on a real
repository through the real CLI: nested functions and closures, inherited methods
(classes, embedded structs, trait default methods), values passed and invoked,
conditional definitions, loop variables, operators and iterators."""

from __future__ import annotations

import pytest
from conftest import checked
from conftest import direct_confidences as direct

# Shapes not resolved yet (strict: the mark goes when the test passes).
TODO = pytest.mark.xfail(strict=True, reason="issue 24: this shape is not resolved yet")


# --- nested functions and closures -------------------------------------------------------

@pytest.mark.parametrize(("path", "source", "old", "new", "line"), [
    ("m.ts", "export function outer(): number {\n  const helper = (x: number) => x;\n"
             "  return helper(1);\n}\n",
     "const helper = (x: number) => x;", "const helper = (x: number, y: number) => x;", 3),
    ("m.js", "function outer() {\n  const helper = function (x) { return x; };\n"
             "  return helper(1);\n}\nmodule.exports = { outer };\n",
     "function (x) { return x; }", "function (x, y) { return x; }", 3),
    ("m.go", "package m\n\nfunc Outer() int {\n\thelper := func(x int) int { return x }\n"
             "\treturn helper(1)\n}\n",
     "helper := func(x int) int", "helper := func(x int, y int) int", 5),
    ("src/lib.rs", "pub fn outer() -> i32 {\n    let helper = |x: i32| x + 1;\n"
                   "    helper(1)\n}\n",
     "let helper = |x: i32| x + 1;", "let helper = |x: i32, y: i32| x + y;", 3),
])
def test_a_closure_bound_to_a_local_name_is_called_by_its_function(
        make_repo, path: str, source: str, old: str, new: str, line: int) -> None:
    report = checked(make_repo, {path: source}, path, old, new)
    assert report["changed_symbols"], report
    assert direct(report) == {(path, line): "exact"}


def test_a_rust_inner_fn_called_from_a_closure_is_reached(make_repo) -> None:
    source = ("pub fn outer() -> i32 {\n    fn helper(x: i32) -> i32 { x }\n"
              "    let f = |y: i32| helper(y);\n    f(2)\n}\n")
    report = checked(make_repo, {"src/lib.rs": source}, "src/lib.rs",
                     "fn helper(x: i32)", "fn helper(x: i32, z: i32)")
    assert direct(report) == {("src/lib.rs", 3): "exact"}


# --- inherited methods and constructors ---------------------------------------------------

TS_CLASSES = ("export class A {\n  constructor(x: number) {}\n"
              "  run(x: number): number {\n    return x;\n  }\n}\n"
              "export class Other {\n  run(x: number): number {\n    return x;\n  }\n}\n"
              "export class B extends A {\n  again(): number {\n    return super.run(2);\n  }\n}\n"
              "export function go(): number {\n  return new B(1).run(1);\n}\n")


def test_an_inherited_typescript_method_is_reached_through_new_and_super(make_repo) -> None:
    report = checked(make_repo, {"m.ts": TS_CLASSES}, "m.ts",
                     "  run(x: number): number {\n    return x;\n  }\n}\nexport class Other",
                     "  run(x: number, y: number): number {\n    return x;\n  }\n}\n"
                     "export class Other")
    assert direct(report) == {("m.ts", 14): "exact", ("m.ts", 18): "exact"}
    assert report["complete"] is True


def test_new_of_a_subclass_without_a_constructor_runs_the_base_one(make_repo) -> None:
    report = checked(make_repo, {"m.ts": TS_CLASSES}, "m.ts", "constructor(x: number) {}",
                     "constructor(x: number, y: number) {}")
    assert {(a["line"], a["symbol"]) for a in report["affected"] if a["depth"] == 1} >= {
        (18, "m.go")}


def test_a_promoted_method_of_an_embedded_go_struct_is_reached(make_repo) -> None:
    files = {"m.go": "package m\n\ntype A struct{}\n\nfunc (a *A) M(x int) int { return x }\n\n"
                     "type O struct{}\n\nfunc (o *O) M(x int) int { return x }\n\n"
                     "type B struct {\n\tA\n}\n\nfunc Use(b *B) int {\n\treturn b.M(1)\n}\n"}
    report = checked(make_repo, files, "m.go", "func (a *A) M(x int) int",
                     "func (a *A) M(x int, y int) int")
    assert direct(report) == {("m.go", 16): "probable"}
    assert report["complete"] is True


def test_a_rust_trait_default_method_is_reached_through_an_implementor(make_repo) -> None:
    files = {"src/lib.rs": "pub trait Tr {\n    fn m(&self, x: i32) -> i32 { x }\n}\n"
                           "pub struct S;\nimpl Tr for S {}\n"
                           "pub struct O;\nimpl O {\n    pub fn m(&self, x: i32) -> i32 { x }\n}\n"
                           "pub fn use_it(s: S) -> i32 {\n    s.m(1)\n}\n"}
    report = checked(make_repo, files, "src/lib.rs", "fn m(&self, x: i32) -> i32 { x }\n}",
                     "fn m(&self, x: i32, y: i32) -> i32 { x }\n}")
    assert direct(report) == {("src/lib.rs", 11): "probable"}
    assert report["complete"] is True


# --- values passed and invoked --------------------------------------------------------------

@pytest.mark.parametrize(("path", "source", "old", "new", "passed", "called"), [
    ("m.js", "function target(x) {\n  return x;\n}\n"
             "function apply(fn) {\n  return fn(1);\n}\n"
             "function main() {\n  return apply(target);\n}\nmodule.exports = { main };\n",
     "function target(x) {", "function target(x, y) {", 8, 5),
    ("m.go", "package m\n\nfunc target(x int) int { return x }\n\n"
             "func apply(fn func(int) int) int {\n\treturn fn(1)\n}\n\n"
             "func Main() int {\n\treturn apply(target)\n}\n",
     "func target(x int) int", "func target(x int, y int) int", 10, 6),
    ("src/lib.rs", "fn target(x: i32) -> i32 {\n    x\n}\n"
                   "fn apply(f: fn(i32) -> i32) -> i32 {\n    f(1)\n}\n"
                   "pub fn main_() -> i32 {\n    apply(target)\n}\n",
     "fn target(x: i32) -> i32", "fn target(x: i32, y: i32) -> i32", 8, 5),
])
def test_a_function_passed_as_a_value_breaks_where_it_is_invoked(
        make_repo, path: str, source: str, old: str, new: str, passed: int,
        called: int) -> None:
    report = checked(make_repo, {path: source}, path, old, new)
    found = {a["line"]: a for a in report["affected"] if a["depth"] == 1}
    assert found[passed]["confidence"] == "exact"
    assert found[called]["confidence"] == "probable"
    assert len(found[called]["via"]) == 2


# --- conditional definitions ----------------------------------------------------------------

def test_a_javascript_name_assigned_in_both_branches_reaches_both(make_repo) -> None:
    """A binding per platform: `f` is `a` or `b`; `f(1)` in main runs either."""
    source = ("function a(x) {\n  return x;\n}\nfunction b(x) {\n  return x;\n}\n"
              "let f;\nif (process.platform === 'win32') {\n  f = a;\n} else {\n  f = b;\n}\n"
              "function main() {\n  return f(1);\n}\nmodule.exports = { main };\n")
    for old, new in (("function a(x) {", "function a(x, y) {"),
                     ("function b(x) {", "function b(x, y) {")):
        report = checked(make_repo, {"m.js": source}, "m.js", old, new)
        found = {(a["line"], a["symbol"]): a for a in report["affected"] if a["depth"] == 1}
        assert found[(14, "m.main")]["confidence"] == "probable", old


def test_rust_cfg_twin_definitions_are_both_reached(make_repo) -> None:
    source = ('#[cfg(unix)]\nfn sep() -> char {\n    \'/\'\n}\n'
              '#[cfg(not(unix))]\nfn sep() -> char {\n    \'\\\\\'\n}\n'
              'pub fn join() -> char {\n    sep()\n}\n')
    for old, new in (("#[cfg(unix)]\nfn sep() -> char", "#[cfg(unix)]\nfn sep(x: u8) -> char"),
                     ("#[cfg(not(unix))]\nfn sep() -> char",
                      "#[cfg(not(unix))]\nfn sep(x: u8) -> char")):
        report = checked(make_repo, {"src/lib.rs": source}, "src/lib.rs", old, new)
        assert direct(report) == {("src/lib.rs", 10): "exact"}, old


# --- loop variables ---------------------------------------------------------------------------

@pytest.mark.parametrize(("path", "source", "old", "new", "line"), [
    ("m.ts", "export class A {\n  evolve(x: number): number {\n    return x;\n  }\n}\n"
             "export class O {\n  evolve(x: number): number {\n    return x;\n  }\n}\n"
             "export function all(items: A[]): void {\n  for (const a of items) {\n"
             "    a.evolve(1);\n  }\n}\n",
     "class A {\n  evolve(x: number)", "class A {\n  evolve(x: number, y: number)", 13),
    ("m.go", "package m\n\ntype A struct{}\n\nfunc (a *A) Evolve(x int) int { return x }\n\n"
             "type O struct{}\n\nfunc (o *O) Evolve(x int) int { return x }\n\n"
             "func All(as []A) {\n\tfor _, a := range as {\n\t\ta.Evolve(1)\n\t}\n}\n",
     "func (a *A) Evolve(x int) int", "func (a *A) Evolve(x int, y int) int", 13),
    ("src/lib.rs", "pub struct A;\nimpl A {\n    pub fn evolve(&self, x: i32) -> i32 { x }\n}\n"
                   "pub struct O;\nimpl O {\n    pub fn evolve(&self, x: i32) -> i32 { x }\n}\n"
                   "pub fn all(v: Vec<A>) {\n    for a in v.iter() {\n        a.evolve(1);\n"
                   "    }\n}\n",
     "impl A {\n    pub fn evolve(&self, x: i32)",
     "impl A {\n    pub fn evolve(&self, x: i32, y: i32)", 11),
])
def test_a_loop_variable_over_typed_items_is_typed(
        make_repo, path: str, source: str, old: str, new: str, line: int) -> None:
    report = checked(make_repo, {path: source}, path, old, new)
    assert direct(report) == {(path, line): "probable"}
    assert report["complete"] is True


# --- operators and iterators (Rust) -------------------------------------------------------------

RUST_OPS = ("use std::fmt;\nuse std::ops::Add;\n"
            "#[derive(Clone, Copy)]\npub struct P { x: i32 }\n"
            "impl Add for P {\n    type Output = P;\n"
            "    fn add(self, o: P) -> P { P { x: self.x + o.x } }\n}\n"
            "impl fmt::Display for P {\n"
            "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n"
            "        write!(f, \"{}\", self.x)\n    }\n"
            "}\n"
            "pub struct Count { n: u32 }\n"
            "impl Iterator for Count {\n    type Item = u32;\n"
            "    fn next(&mut self) -> Option<u32> { self.n += 1; Some(self.n) }\n}\n"
            "pub fn total(p: P, q: P) -> P {\n    p + q\n}\n"
            "pub fn show(p: P) -> String {\n    format!(\"{}\", p)\n}\n"
            "pub fn sum(c: Count) -> u32 {\n    let mut s = 0;\n    for n in c {\n        s += n;\n"
            "    }\n    s\n}\n"
            "pub fn plain(a: i32, b: i32) -> i32 {\n    a + b\n}\n")


@pytest.mark.parametrize(("old", "new", "line"), [
    ("fn add(self, o: P) -> P", "fn add(self, o: P, k: i32) -> P", 20),
    ("fn fmt(&self, f: &mut fmt::Formatter)", "fn fmt(&self, f: &mut fmt::Formatter, k: u8)", 23),
    ("fn next(&mut self) -> Option<u32>", "fn next(&mut self, k: u8) -> Option<u32>", 27),
])
def test_rust_operator_and_protocol_syntax_on_a_known_type_is_a_caller(
        make_repo, old: str, new: str, line: int) -> None:
    report = checked(make_repo, {"src/lib.rs": RUST_OPS}, "src/lib.rs", old, new)
    assert direct(report) == {("src/lib.rs", line): "probable"}
    assert report["complete"] is False  # operands of unknown type are not searched
    assert any("found only where the operand's type shows" in r
               for r in report["incomplete_reasons"])


# --- Rust receivers typed from declarations (issue 19: regex-syntax's name-only matches) ----

RUST_RECEIVERS = """pub struct Lit { bytes: Vec<u8> }
impl Lit {
    pub fn new() -> Self { Lit { bytes: vec![] } }
    pub fn as_bytes(&self) -> &[u8] { &self.bytes }
    pub fn make(&self) -> Option<Lit> { None }
    pub fn is_empty(&self) -> bool { self.bytes.is_empty() }
}
pub struct Union { items: Vec<Lit>, first: Lit }
impl Union {
    pub fn check(&self, x: &str, ch: char) -> usize {
        let mut buf = [0; 4];
        let a = x.as_bytes().len() + "lit".as_bytes().len();
        let b = ch.encode_utf8(&mut buf).as_bytes().len();
        if self.items.is_empty() { return a + b; }
        self.first.is_empty() as usize
    }
    pub fn chained(&self) -> usize {
        let lit = Lit::new();
        if let Some(other) = lit.make() {
            return other.as_bytes().len();
        }
        0
    }
    pub fn built(&self) -> usize {
        Lit::new().as_bytes().len()
    }
    pub fn in_macro(&self) -> Vec<usize> {
        vec![("x".as_bytes()).len()]
    }
}
"""


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("pub fn as_bytes(&self)", "pub fn as_bytes(&self, k: u8)",
     {("src/lib.rs", 20): "probable", ("src/lib.rs", 25): "probable"}),
    ("pub fn is_empty(&self)", "pub fn is_empty(&self, k: u8)", {("src/lib.rs", 15): "probable"}),
])
def test_rust_receivers_of_std_types_are_no_callers_and_declared_types_are(
        make_repo, old: str, new: str, expected: dict) -> None:
    """`x: &str`, a string literal, a char's method chain and a `Vec` field reach no method
    of the crate; `-> Self`, `-> Option<Lit>` under `if let Some(..)` and a struct field's
    declared type type their receivers."""
    report = checked(make_repo, {"src/lib.rs": RUST_RECEIVERS}, "src/lib.rs", old, new)
    assert direct(report) == expected
    assert report["possible"] == []


RUST_CHAINS = """pub struct Bytes;
impl Bytes {
    pub fn union(&mut self, o: &Bytes) {}
}
pub struct Chars;
impl Chars {
    pub fn union(&mut self, o: &Chars) {}
}
pub enum Frame { B(Bytes), C(Chars) }
impl Frame {
    fn unwrap_bytes(self) -> Bytes { match self { Frame::B(b) => b, _ => panic!() } }
    fn unwrap_chars(self) -> Chars { match self { Frame::C(c) => c, _ => panic!() } }
}
pub struct T { stack: Vec<Frame> }
impl T {
    fn pop(&mut self) -> Option<Frame> { self.stack.pop() }
    fn post(&mut self, o: &Bytes) {
        let mut cls = self.pop().unwrap().unwrap_bytes();
        cls.union(o);
    }
    fn arms(&mut self, o: &Bytes, p: &Chars, flag: bool) {
        if flag {
            let mut cls = self.pop().unwrap().unwrap_chars();
            cls.union(p);
        } else {
            let mut cls = self.pop().unwrap().unwrap_bytes();
            cls.union(o);
        }
    }
}
fn merged(cls1: &Bytes, cls2: &Bytes) {
    let mut cls_ = cls1.clone();
    cls_.union(cls2);
}
fn chars(a: &mut Chars, b: &Chars) {
    a.union(b);
}
"""


def test_rust_receivers_typed_through_call_chains(make_repo) -> None:
    """regex-syntax: `let mut cls = self.pop().unwrap().unwrap_class_bytes()` (an Option's
    unwrap, then a declared return type) and `cls1.clone()` type their locals; `cls` is an
    ordinary name in Rust, not Python's `cls`; of two `let cls` in one function (one per
    branch), the nearest above the call counts."""
    report = checked(make_repo, {"src/lib.rs": RUST_CHAINS}, "src/lib.rs",
                     "pub fn union(&mut self, o: &Bytes)",
                     "pub fn union(&mut self, o: &Bytes, k: u8)")
    assert direct(report) == {("src/lib.rs", 19): "probable", ("src/lib.rs", 27): "probable",
                              ("src/lib.rs", 33): "probable"}
    assert report["possible"] == []


def test_rust_an_item_popped_from_a_typed_vec_field_is_typed(make_repo) -> None:
    """regex-syntax's `while let Some(mut r) = self.range_stack.pop()` with
    `range_stack: Vec<ScalarRange>`: r is a ScalarRange, not any `is_valid`."""
    source = ("pub struct Range;\nimpl Range {\n    pub fn is_valid(&self) -> bool { true }\n}\n"
              "pub struct Other;\nimpl Other {\n    pub fn is_valid(&self) -> bool { true }\n}\n"
              "pub struct Seqs { stack: Vec<Other> }\nimpl Seqs {\n"
              "    pub fn next(&mut self) -> bool {\n"
              "        while let Some(r) = self.stack.pop() {\n"
              "            return r.is_valid();\n        }\n        false\n    }\n}\n"
              "pub fn direct(r: &Range) -> bool {\n    r.is_valid()\n}\n")
    report = checked(make_repo, {"src/lib.rs": source}, "src/lib.rs",
                     "impl Range {\n    pub fn is_valid(&self)",
                     "impl Range {\n    pub fn is_valid(&self, k: u8)")
    assert direct(report) == {("src/lib.rs", 19): "probable"}
    assert report["possible"] == []


def test_rust_a_call_chain_inside_macro_tokens_is_typed(make_repo) -> None:
    """regex-syntax: `assert_eq!(0, props(r"a").explicit_captures_len())`, where the macro's
    tokens put `(0, props(r"a")` before the method: the receiver is `props(r"a")`, typed by
    props's return type; `("x".len())` is a literal's."""
    source = ("pub struct Props;\nimpl Props {\n    pub fn len(&self) -> usize { 0 }\n}\n"
              "pub struct Other;\nimpl Other {\n    pub fn len(&self) -> usize { 0 }\n}\n"
              "fn props(p: &str) -> Props {\n    Props\n}\n"
              "pub fn check() {\n    assert_eq!(0, props(r\"a\").len());\n}\n"
              "pub fn lit() -> Vec<usize> {\n    vec![(\"x\".len())]\n}\n")
    report = checked(make_repo, {"src/lib.rs": source}, "src/lib.rs",
                     "impl Props {\n    pub fn len(&self)",
                     "impl Props {\n    pub fn len(&self, k: u8)")
    assert direct(report) == {("src/lib.rs", 13): "probable"}
    assert report["possible"] == []


def test_go_a_closure_parameter_does_not_retype_the_variable_it_shadows(make_repo) -> None:
    """pflag: `f := newSet(); f.VisitAll(func(f *Flag) {...})`: the call's receiver is
    the outer f (a *FlagSet), not the closure's parameter of the same name."""
    files = {"m.go": "package m\n\ntype Flag struct{}\n\ntype FlagSet struct{}\n\n"
                     "func (s *FlagSet) VisitAll(fn func(*Flag)) {}\n\n"
                     "func newSet() *FlagSet { return &FlagSet{} }\n\n"
                     "func Use() {\n\tf := newSet()\n\tf.VisitAll(func(f *Flag) {})\n}\n"}
    report = checked(make_repo, files, "m.go", "func (s *FlagSet) VisitAll(fn func(*Flag))",
                     "func (s *FlagSet) VisitAll(fn func(*Flag), n int)")
    assert set(direct(report)) == {("m.go", 13)}


def test_a_javascript_closure_returned_in_an_object_stays_a_callee_by_name(make_repo) -> None:
    """rxjs's createAnimator returns `{ cancelAnimationFrame }`, a function defined inside
    it: `animator.cancelAnimationFrame(id)` may call it (a name-only match, not nothing)."""
    source = ("function createAnimator() {\n  function cancel(id) {\n    return id;\n  }\n"
              "  return { cancel };\n}\n"
              "function use() {\n  const animator = createAnimator();\n"
              "  return animator.cancel(1);\n}\nmodule.exports = { use };\n")
    report = checked(make_repo, {"m.js": source}, "m.js", "function cancel(id) {",
                     "function cancel(id, now) {")
    assert ("m.js", 9) in direct(report)


SUBSCRIPTION = """export class Subscription {
  private _parentage: Subscription[] | Subscription | null = null;

  unsubscribe(): void {
    const { _parentage } = this;
    if (Array.isArray(_parentage)) {
      for (const parent of _parentage) {
        parent.remove(this);
      }
    } else if (_parentage) {
      _parentage.remove(this);
    }
  }

  remove(teardown: Subscription): void {
    return;
  }
}

export class Other {
  remove(x: number): void {
    return;
  }
}
"""


@pytest.mark.parametrize("call", ["parent.remove(this);", "_parentage.remove(this);"])
def test_a_typescript_local_destructured_from_this_has_the_fields_type(
        make_repo, call: str) -> None:
    """rxjs's Subscription.unsubscribe: `const { _parentage } = this;` with the field
    declared `Subscription[] | Subscription | null`; the loop over it and the call on it
    reach Subscription.remove (bench/tsleg.py answered no caller, a lower bound)."""
    source = SUBSCRIPTION.replace("parent.remove(this);" if call.startswith("_")
                                  else "_parentage.remove(this);", "return;")
    report = checked(make_repo, {"m.ts": source}, "m.ts", "remove(teardown: Subscription)",
                     "remove(teardown: Subscription, mgExtra: string)")
    line = source.splitlines().index("        " + call) + 1 if call.startswith("p") else \
        source.splitlines().index("      " + call) + 1
    assert direct(report) == {("m.ts", line): "probable"}
    assert report["possible"] == [] and report["complete"] is True


ANIMATOR = """export interface Provider {
  delegate: { cancelFrame(h: number): void } | undefined;
}
export const provider: Provider = { delegate: undefined };

export class Scheduler {
  private createAnimator() {
    let last = 0;
    const delegate = {
      requestFrame(cb: number) {
        return ++last;
      },
      cancelFrame(handle: number) {
        last = handle;
      },
    };
    const animate = (m: string) => m;
    return { animate, delegate };
  }

  run(): void {
    const animator = this.createAnimator();
    provider.delegate = animator.delegate;
    const a = animator.animate;
  }
}
"""


def test_an_object_literal_returned_by_its_function_is_handed_on_where_it_is_read(
        make_repo) -> None:
    """rxjs's TestScheduler.createAnimator returns `{ animate, delegate }`, `delegate` an
    object literal with `cancelAnimationFrame(handle)`; run() hands `animator.delegate` on
    to a slot typed with the old shape (tsc's error there): that line is affected,
    probable, as a function passed as a value (bench/tsleg.py answered no caller)."""
    report = checked(make_repo, {"m.ts": ANIMATOR}, "m.ts", "cancelFrame(handle: number) {",
                     "cancelFrame(handle: number, mgExtra: string) {")
    assert direct(report) == {("m.ts", 23): "probable"}
    other = checked(make_repo, {"m.ts": ANIMATOR}, "m.ts", "const animate = (m: string) => m;",
                    "const animate = (m: string, n: number) => m;")
    assert ("m.ts", 23) not in direct(other)  # `animator.delegate` is not `animate`


ITERABLE_BAG = """export class Bag {
  items: number[] = [];
  [Symbol.iterator](): Iterator<number> {
    return this.items.values();
  }
}

export class Other {
  [Symbol.iterator](): Iterator<number> {
    return [].values();
  }
}
"""

ITERATING = """import { Bag } from "./bag";

export function total(bag: Bag): number {
  let n = 0;
  for (const x of bag) {
    n += x;
  }
  return n;
}

export function copy(): number[] {
  const b = new Bag();
  return [...b];
}

export function unknown(x: any): number[] {
  return Array.from(x);
}
"""


def test_a_typescript_symbol_iterator_is_called_by_for_of_and_spread(make_repo) -> None:
    """`[Symbol.iterator]()` is a method (named `@@iterator`); `for (const x of bag)` with
    `bag: Bag` and `[...b]` with `b = new Bag()` call it; `Array.from(x)` of an `any` is
    not shown to be a Bag, so the answer says it is a lower bound."""
    report = checked(make_repo, {"bag.ts": ITERABLE_BAG, "use.ts": ITERATING}, "bag.ts",
                     "  [Symbol.iterator](): Iterator<number> {\n    return this.items",
                     "  [Symbol.iterator](k: number): Iterator<number> {\n    return this.items")
    assert [c["name"] for c in report["changed_symbols"]] == ["@@iterator"]
    assert direct(report) == {("use.ts", 5): "probable", ("use.ts", 13): "probable"}
    assert report["complete"] is False
    assert any("called implicitly" in r and "type shows" in r
               for r in report["incomplete_reasons"])


RUST_SPLIT_IMPL = {
    "Cargo.toml": "[package]\nname = \"x\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    "src/lib.rs": "pub mod shape;\npub mod area;\npub mod other;\npub mod usage;\n",
    "src/shape.rs": "pub struct Shape {\n    pub w: i32,\n}\n",
    "src/area.rs": ("use crate::shape::Shape;\n\nimpl Shape {\n"
                    "    pub fn area(&self) -> i32 {\n        self.w\n    }\n}\n"),
    "src/other.rs": ("pub struct Other;\n\nimpl Other {\n"
                     "    pub fn area(&self) -> i32 {\n        0\n    }\n}\n"),
    "src/usage.rs": ("use crate::shape::Shape;\n\npub fn total(s: &Shape) -> i32 {\n"
                     "    s.area()\n}\n\npub fn make() -> i32 {\n"
                     "    let s = Shape { w: 1 };\n    s.area()\n}\n"),
}


def test_a_rust_impl_block_in_another_file_than_its_type_holds_its_methods(make_repo) -> None:
    """`pub struct Shape` in shape.rs, `impl Shape { pub fn area(&self) }` in area.rs:
    `s.area()` on a `&Shape` parameter or a `Shape { .. }` local calls it (before: no
    caller, and the check said complete: a false no impact); Other's area is not."""
    report = checked(make_repo, RUST_SPLIT_IMPL, "src/area.rs", "pub fn area(&self) -> i32",
                     "pub fn area(&self, k: i32) -> i32")
    assert direct(report) == {("src/usage.rs", 4): "probable", ("src/usage.rs", 9): "probable"}
    assert report["complete"] is True
    other = checked(make_repo, RUST_SPLIT_IMPL, "src/other.rs", "pub fn area(&self) -> i32",
                    "pub fn area(&self, k: i32) -> i32")
    assert direct(other) == {}
