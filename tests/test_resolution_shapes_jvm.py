"""The call shapes of issue 24 in Java, Kotlin and Scala, each on a real repository through
the real CLI: inherited methods, `super` calls, constructor chains, interface default
methods, local functions, lambdas and anonymous classes, values passed and invoked, loop
variables, iterators and operators (where the operand's type shows), and comments that
mention a symbol (never a caller)."""

from __future__ import annotations

import pytest
from conftest import check_json, edit


def affected(make_repo, files: dict[str, str], path: str, old: str, new: str) -> dict:
    repo = make_repo(files)
    edit(repo, path, old, new)
    return check_json(repo, "--depth", "1")


def callers(report: dict) -> set[tuple[str, str, str]]:
    """(path, calling symbol, confidence) of the depth-1 entries."""
    return {(a["path"], a["symbol"], a["confidence"]) for a in report["affected"]
            if a["depth"] == 1}


JAVA_A = "package p;\npublic class A {\n  public int m(int x) { return x; }\n}\n"
JAVA_OTHER = "package p;\npublic class Other {\n  public int m(int x) { return x; }\n}\n"


# --- inherited methods, `super`, constructor chains, interface default methods ---------------

@pytest.mark.parametrize(("files", "path", "old", "new", "expected"), [
    ({"p/A.java": JAVA_A, "p/Other.java": JAVA_OTHER,
      "p/B.java": "package p;\npublic class B extends A {}\n",
      "p/Use.java": "package p;\npublic class Use {\n"
                    "  int go() { return new B().m(1); }\n}\n"},
     "p/A.java", "public int m(int x)", "public int m(int x, int y)",
     {("p/Use.java", "p.Use.Use.go", "exact")}),
    ({"A.kt": "package p\n\nopen class A {\n    fun m(x: Int): Int = x\n}\n",
      "Other.kt": "package p\n\nclass Other {\n    fun m(x: Int): Int = x\n}\n",
      "B.kt": "package p\n\nclass B : A()\n",
      "Use.kt": "package p\n\nfun go(): Int = B().m(1)\n"},
     "A.kt", "fun m(x: Int): Int", "fun m(x: Int, y: Int): Int",
     {("Use.kt", "Use.go", "exact")}),
    ({"A.scala": "package p\n\nclass A {\n  def m(x: Int): Int = x\n}\n",
      "Other.scala": "package p\n\nclass Other {\n  def m(x: Int): Int = x\n}\n",
      "B.scala": "package p\n\nclass B extends A\n",
      "Use.scala": "package p\n\nobject Use {\n  def go(): Int = new B().m(1)\n}\n"},
     "A.scala", "def m(x: Int): Int", "def m(x: Int, y: Int): Int",
     {("Use.scala", "Use.Use.go", "exact")}),
], ids=["java", "kotlin", "scala"])
def test_a_method_inherited_by_a_new_instance_is_reached(
        make_repo, files, path, old, new, expected) -> None:
    report = affected(make_repo, files, path, old, new)
    assert callers(report) == expected


@pytest.mark.parametrize(("files", "path", "old", "new", "expected"), [
    ({"p/A.java": JAVA_A, "p/Other.java": JAVA_OTHER,
      "p/B.java": "package p;\npublic class B extends A {\n"
                  "  @Override\n  public int m(int x) { return super.m(x) + 1; }\n}\n"},
     "p/A.java", "public int m(int x)", "public int m(int x, int y)",
     {("p/B.java", "p.B.B.m", "exact")}),
    ({"A.kt": "package p\n\nopen class A {\n    open fun m(x: Int): Int = x\n}\n",
      "Other.kt": "package p\n\nclass Other {\n    fun m(x: Int): Int = x\n}\n",
      "B.kt": "package p\n\nclass B : A() {\n"
              "    override fun m(x: Int): Int = super.m(x) + 1\n}\n"},
     "A.kt", "open fun m(x: Int): Int", "open fun m(x: Int, y: Int): Int",
     {("B.kt", "B.B.m", "exact")}),
    ({"A.scala": "package p\n\nclass A {\n  def m(x: Int): Int = x\n}\n",
      "Other.scala": "package p\n\nclass Other {\n  def m(x: Int): Int = x\n}\n",
      "B.scala": "package p\n\nclass B extends A {\n"
                 "  override def m(x: Int): Int = super.m(x) + 1\n}\n"},
     "A.scala", "def m(x: Int): Int", "def m(x: Int, y: Int): Int",
     {("B.scala", "B.B.m", "exact")}),
], ids=["java", "kotlin", "scala"])
def test_a_super_call_reaches_the_base_method(make_repo, files, path, old, new,
                                             expected) -> None:
    report = affected(make_repo, files, path, old, new)
    assert callers(report) == expected


def test_java_new_of_a_subclass_without_a_constructor_runs_the_base_one(make_repo) -> None:
    """`class B extends A {}`: B's default constructor calls `A()`, so `new B()` runs it;
    `new A()` is a caller of A's constructor, not of a same-named method elsewhere."""
    files = {"p/A.java": "package p;\npublic class A {\n  public A() { }\n"
                         "  public A(int x) { }\n}\n",
             "p/B.java": "package p;\npublic class B extends A {}\n",
             "p/C.java": "package p;\npublic class C extends A {\n"
                         "  public C() { super(2); }\n}\n",
             "p/Use.java": "package p;\npublic class Use {\n"
                           "  Object one() { return new A(); }\n"
                           "  Object two() { return new B(); }\n"
                           "  Object three() { return new C(); }\n"
                           "  Object four() { return new A(1); }\n}\n"}
    report = affected(make_repo, files, "p/A.java", "public A() { }", "public A(String s) { }")
    # `new A(1)` and C's `super(2)` fit the new `A(String s)` by their count, but an int
    # cannot be passed as a String and fits `A(int x)` (retrievers/jvmoverloads.py).
    assert {(path, symbol) for path, symbol, _ in callers(report)} == {
        ("p/B.java", "p.B.B"), ("p/Use.java", "p.Use.Use.one"), ("p/Use.java", "p.Use.Use.two")}
    assert ("p/Use.java", "p.Use.Use.one", "exact") in callers(report)
    # The other overload: `new A(1)` and C's `super(2)` (B's default constructor calls `A()`).
    report = affected(make_repo, files, "p/A.java", "public A(int x) { }",
                      "public A(int x, int y) { }")
    assert callers(report) == {("p/Use.java", "p.Use.Use.four", "exact"),
                               ("p/C.java", "p.C.C.C", "exact")}


@pytest.mark.parametrize(("files", "path", "old", "new", "expected"), [
    ({"p/I.java": "package p;\npublic interface I {\n"
                  "  default int m(int x) { return x; }\n}\n",
      "p/Other.java": JAVA_OTHER,
      "p/C.java": "package p;\npublic class C implements I {}\n",
      "p/Use.java": "package p;\npublic class Use {\n"
                    "  int go(C c) { return c.m(1); }\n}\n"},
     "p/I.java", "default int m(int x)", "default int m(int x, int y)",
     {("p/Use.java", "p.Use.Use.go", "probable")}),
    ({"I.kt": "package p\n\ninterface I {\n    fun m(x: Int): Int = x\n}\n",
      "Other.kt": "package p\n\nclass Other {\n    fun m(x: Int): Int = x\n}\n",
      "C.kt": "package p\n\nclass C : I\n",
      "Use.kt": "package p\n\nfun go(c: C): Int = c.m(1)\n"},
     "I.kt", "fun m(x: Int): Int = x", "fun m(x: Int, y: Int): Int = x",
     {("Use.kt", "Use.go", "probable")}),
    ({"I.scala": "package p\n\ntrait I {\n  def m(x: Int): Int = x\n}\n",
      "Other.scala": "package p\n\nclass Other {\n  def m(x: Int): Int = x\n}\n",
      "C.scala": "package p\n\nclass C extends I\n",
      "Use.scala": "package p\n\nobject Use {\n  def go(c: C): Int = c.m(1)\n}\n"},
     "I.scala", "def m(x: Int): Int", "def m(x: Int, y: Int): Int",
     {("Use.scala", "Use.Use.go", "probable")}),
], ids=["java", "kotlin", "scala"])
def test_an_interface_default_method_is_reached_through_an_implementation(
        make_repo, files, path, old, new, expected) -> None:
    report = affected(make_repo, files, path, old, new)
    assert callers(report) == expected


# --- local functions, lambdas and anonymous classes -------------------------------------------

@pytest.mark.parametrize(("files", "path", "old", "new", "expected"), [
    ({"p/Use.java": "package p;\npublic class Use {\n"
                    "  static int helper(int x) { return x; }\n"
                    "  void lambda() {\n    Runnable r = () -> helper(1);\n    r.run();\n  }\n"
                    "  void anonymous() {\n    Runnable r = new Runnable() {\n"
                    "      public void run() { helper(2); }\n    };\n    r.run();\n  }\n}\n"},
     "p/Use.java", "static int helper(int x)", "static int helper(int x, int y)",
     {("p/Use.java", "p.Use.Use.lambda", "exact"),
      ("p/Use.java", "p.Use.Use.anonymous.run", "exact")}),  # the anonymous class's method
    ({"Use.kt": "package p\n\nfun outer(): Int {\n    fun helper(x: Int): Int = x\n"
                "    return helper(1)\n}\n\nfun helper(x: String): String = x\n"},
     "Use.kt", "    fun helper(x: Int): Int = x", "    fun helper(x: Int, y: Int): Int = x",
     {("Use.kt", "Use.outer", "exact")}),
    ({"Use.scala": "package p\n\nobject Use {\n  def outer(): Int = {\n"
                   "    def helper(x: Int): Int = x\n    helper(1)\n  }\n"
                   "  def helper(x: String): String = x\n}\n"},
     "Use.scala", "    def helper(x: Int): Int = x", "    def helper(x: Int, y: Int): Int = x",
     {("Use.scala", "Use.Use.outer", "exact")}),
], ids=["java", "kotlin", "scala"])
def test_a_local_function_or_lambda_is_called_by_the_function_around_it(
        make_repo, files, path, old, new, expected) -> None:
    report = affected(make_repo, files, path, old, new)
    assert callers(report) == expected


# --- values passed and invoked ------------------------------------------------------------------

@pytest.mark.parametrize(("files", "path", "old", "new", "passed", "invoked"), [
    ({"p/Use.java": "package p;\nimport java.util.function.Function;\npublic class Use {\n"
                    "  int target(int x) { return x; }\n"
                    "  int apply(Function<Integer, Integer> f) {\n    return f.apply(1);\n  }\n"
                    "  int main() { return apply(this::target); }\n}\n"},
     "p/Use.java", "int target(int x)", "int target(int x, int y)",
     ("p/Use.java", "p.Use.Use.main", 8), ("p/Use.java", "p.Use.Use.apply", 6)),
    ({"Use.kt": "package p\n\nfun target(x: Int): Int = x\n\n"
                "fun apply(f: (Int) -> Int): Int {\n    return f(1)\n}\n\n"
                "fun main(): Int = apply(::target)\n"},
     "Use.kt", "fun target(x: Int): Int", "fun target(x: Int, y: Int): Int",
     ("Use.kt", "Use.main", 9), ("Use.kt", "Use.apply", 6)),
    ({"Use.scala": "package p\n\nobject Use {\n  def target(x: Int): Int = x\n"
                   "  def twice(f: Int => Int): Int = {\n    f(1)\n  }\n"
                   "  def main(): Int = twice(target)\n}\n"},
     "Use.scala", "def target(x: Int): Int", "def target(x: Int, y: Int): Int",
     ("Use.scala", "Use.Use.main", 8), ("Use.scala", "Use.Use.twice", 6)),
], ids=["java", "kotlin", "scala"])
def test_a_method_passed_as_a_value_breaks_where_it_is_invoked(
        make_repo, files, path, old, new, passed, invoked) -> None:
    report = affected(make_repo, files, path, old, new)
    found = {(a["path"], a["symbol"], a["line"]): a for a in report["affected"]}
    assert found[passed]["confidence"] == "exact"  # where the value is passed
    hop = found[invoked]  # where it is called, one hop on
    assert hop["confidence"] == "probable" and hop["depth"] == 1
    assert hop["via"][-1] == passed[1]


# --- loop variables -----------------------------------------------------------------------------

@pytest.mark.parametrize(("files", "path", "old", "new", "expected"), [
    ({"p/A.java": JAVA_A, "p/Other.java": JAVA_OTHER,
      "p/Use.java": "package p;\nimport java.util.List;\npublic class Use {\n"
                    "  int go(List<A> list) {\n    int n = 0;\n"
                    "    for (A a : list) {\n      n += a.m(1);\n    }\n    return n;\n  }\n}\n"},
     "p/A.java", "public int m(int x)", "public int m(int x, int y)",
     {("p/Use.java", "p.Use.Use.go", "probable")}),
    ({"A.kt": "package p\n\nclass A {\n    fun m(x: Int): Int = x\n}\n",
      "Other.kt": "package p\n\nclass Other {\n    fun m(x: Int): Int = x\n}\n",
      "Use.kt": "package p\n\nfun go(items: List<A>): Int {\n    var n = 0\n"
                "    for (a in items) {\n        n += a.m(1)\n    }\n    return n\n}\n"},
     "A.kt", "fun m(x: Int): Int", "fun m(x: Int, y: Int): Int",
     {("Use.kt", "Use.go", "probable")}),
    ({"A.scala": "package p\n\nclass A {\n  def m(x: Int): Int = x\n}\n",
      "Other.scala": "package p\n\nclass Other {\n  def m(x: Int): Int = x\n}\n",
      "Use.scala": "package p\n\nobject Use {\n  def go(items: List[A]): Unit = {\n"
                   "    for (a <- items) {\n      a.m(1)\n    }\n  }\n}\n"},
     "A.scala", "def m(x: Int): Int", "def m(x: Int, y: Int): Int",
     {("Use.scala", "Use.Use.go", "probable")}),
], ids=["java", "kotlin", "scala"])
def test_a_loop_variable_is_typed_by_the_collection(make_repo, files, path, old, new,
                                                   expected) -> None:
    report = affected(make_repo, files, path, old, new)
    assert callers(report) == expected
    assert report["complete"] is True


# --- iterators and operators --------------------------------------------------------------------

JAVA_BAG = ("package p;\nimport java.util.Iterator;\nimport java.util.List;\n"
            "public class Bag implements Iterable<String>, AutoCloseable {\n"
            "  public Iterator<String> iterator() { return List.of(\"a\").iterator(); }\n"
            "  public void close() { }\n}\n")
JAVA_BAG_USE = ("package p;\npublic class Use {\n"
                "  int walk(Bag bag) {\n    int n = 0;\n"
                "    for (String s : bag) {\n      n++;\n    }\n    return n;\n  }\n"
                "  void open() throws Exception {\n"
                "    try (Bag b = new Bag()) {\n      b.hashCode();\n    }\n  }\n"
                "  int unknown(Iterable<String> items) {\n    int n = 0;\n"
                "    for (String s : items) {\n      n++;\n    }\n    return n;\n  }\n}\n")
KOTLIN_V = ("package p\n\nclass V(val x: Int) {\n"
            "    operator fun plus(o: V): V = V(x + o.x)\n"
            "    operator fun get(i: Int): Int = x + i\n"
            "    operator fun invoke(): Int = x\n"
            "    operator fun iterator(): Iterator<Int> = listOf(x).iterator()\n}\n")
KOTLIN_V_USE = ("package p\n\nfun total(a: V, b: V): V = a + b\n\n"
                "fun item(a: V): Int = a[1]\n\nfun call(a: V): Int = a()\n\n"
                "fun walk(a: V): Int {\n    var n = 0\n    for (i in a) {\n        n += i\n"
                "    }\n    return n\n}\n\nfun numbers(a: Int, b: Int): Int = a + b\n")
SCALA_P = ("package p\n\nclass P(val x: Int) {\n  def +(o: P): P = new P(x + o.x)\n"
           "  def apply(i: Int): Int = x + i\n}\n")
SCALA_P_USE = ("package p\n\nobject Use {\n  def total(a: P, b: P): P = a + b\n"
               "  def item(a: P): Int = a(1)\n  def numbers(a: Int, b: Int): Int = a + b\n}\n")


@pytest.mark.parametrize(("files", "path", "old", "new", "expected"), [
    ({"p/Bag.java": JAVA_BAG, "p/Use.java": JAVA_BAG_USE},
     "p/Bag.java", "public Iterator<String> iterator()",
     "public Iterator<String> iterator(int n)", {("p/Use.java", "p.Use.Use.walk", "probable")}),
    ({"p/Bag.java": JAVA_BAG, "p/Use.java": JAVA_BAG_USE},
     "p/Bag.java", "public void close()", "public void close(int n)",
     {("p/Use.java", "p.Use.Use.open", "probable")}),
    ({"V.kt": KOTLIN_V, "Use.kt": KOTLIN_V_USE},
     "V.kt", "operator fun plus(o: V): V", "operator fun plus(o: V, k: Int): V",
     {("Use.kt", "Use.total", "probable")}),
    ({"V.kt": KOTLIN_V, "Use.kt": KOTLIN_V_USE},
     "V.kt", "operator fun get(i: Int): Int", "operator fun get(i: Int, j: Int): Int",
     {("Use.kt", "Use.item", "probable")}),
    ({"V.kt": KOTLIN_V, "Use.kt": KOTLIN_V_USE},
     "V.kt", "operator fun invoke(): Int", "operator fun invoke(k: Int): Int",
     {("Use.kt", "Use.call", "probable")}),
    ({"V.kt": KOTLIN_V, "Use.kt": KOTLIN_V_USE},
     "V.kt", "operator fun iterator(): Iterator<Int>",
     "operator fun iterator(k: Int): Iterator<Int>", {("Use.kt", "Use.walk", "probable")}),
    ({"P.scala": SCALA_P, "Use.scala": SCALA_P_USE},
     "P.scala", "def +(o: P): P", "def +(o: P, k: Int): P",
     {("Use.scala", "Use.Use.total", "probable")}),
    ({"P.scala": SCALA_P, "Use.scala": SCALA_P_USE},
     "P.scala", "def apply(i: Int): Int", "def apply(i: Int, j: Int): Int",
     {("Use.scala", "Use.Use.item", "probable")}),
], ids=["java-for-each", "java-try-with-resources", "kotlin-plus", "kotlin-get",
        "kotlin-invoke", "kotlin-for", "scala-plus", "scala-apply"])
def test_syntax_that_calls_a_method_is_a_caller_where_the_operand_type_shows(
        make_repo, files, path, old, new, expected) -> None:
    report = affected(make_repo, files, path, old, new)
    assert callers(report) == expected
    # Where the operand's type does not show (`Iterable<String> items`, `a + b` on Ints
    # is not V's), nothing is claimed: the answer stays a lower bound.
    assert report["complete"] is False
    assert any("called implicitly" in r for r in report["incomplete_reasons"])


# --- comments -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("files", "path", "old", "new", "expected"), [
    ({"p/J.java": "package p;\npublic class J {\n  public int m(int x) { return x; }\n}\n",
      "p/K.java": "package p;\npublic class K {\n"
                  "  /**\n   * Calls {@link J#m(int)}, see J.m and j.m(1).\n   */\n"
                  "  int go(J j) {\n    // not j.m(2) nor J.m\n    return j.m(3);\n  }\n}\n"},
     "p/J.java", "public int m(int x)", "public int m(int x, int y)",
     {("p/K.java", "p.K.K.go", "probable")}),
    ({"A.kt": "package p\n\nclass A {\n    fun m(x: Int): Int = x\n}\n",
      "Use.kt": "package p\n\n/**\n * Calls [A.m] and\n * a.m(1) on an A.m.\n */\n"
                "fun go(a: A): Int {\n    // a.m(2), A.m\n    return a.m(3)\n}\n"},
     "A.kt", "fun m(x: Int): Int", "fun m(x: Int, y: Int): Int",
     {("Use.kt", "Use.go", "probable")}),
    ({"B.scala": "package q\n\nclass B {\n  def m(x: Int): Int = x\n}\n",
      "Use.scala": "package q\n\nobject Use {\n  /** Calls [[B.m]] and b.m(1)\n"
                   "   * more B.m */\n  def go(b: B): Int = {\n    // b.m(2), B.m\n"
                   "    b.m(3)\n  }\n}\n"},
     "B.scala", "def m(x: Int): Int", "def m(x: Int, y: Int): Int",
     {("Use.scala", "Use.Use.go", "probable")}),
], ids=["javadoc", "kdoc", "scaladoc"])
def test_a_doc_comment_that_mentions_a_method_is_no_caller(
        make_repo, files, path, old, new, expected) -> None:
    report = affected(make_repo, files, path, old, new)
    assert callers(report) == expected
    assert {a["line"] for a in report["affected"]} == {
        n for n, line in enumerate(files[next(iter(set(files) - {path}))].splitlines(), 1)
        if ".m(3)" in line}


# --- Scala receivers seen in cats: type members, casts, summoned type classes -----------------

def test_scala_receivers_typed_by_type_member_cast_or_summoner_reach_that_class_only(
        make_repo) -> None:
    """cats: `typeClassInstance.foldM(...)` with `type TypeClassType <: Foldable[F]`,
    `val ti = x.asInstanceOf[Foldable[List]]`, `Foldable[List].foldM(...)`: each calls
    Foldable's foldM, not an override of the same name elsewhere (name-only before)."""
    files = {"F.scala": "package c\n\ntrait Foldable[F[_]] {\n  def foldM(x: Int): Int = x\n}\n"
                        "object Foldable {\n  trait Ops[F[_], A] {\n"
                        "    type TypeClassType <: Foldable[F]\n"
                        "    val typeClassInstance: TypeClassType\n"
                        "    def foldM(z: Int): Int =\n      typeClassInstance.foldM(z)\n  }\n}\n",
             "N.scala": "package c\n\nclass NonEmpty extends Foldable[List] {\n"
                        "  override def foldM(x: Int): Int = x\n"
                        "  val ti = Traverse[List].asInstanceOf[Foldable[List]]\n"
                        "  def go(): Int = ti.foldM(1)\n"
                        "  def two(): Int = Foldable[List].foldM(2)\n}\n"}
    report = affected(make_repo, files, "N.scala", "override def foldM(x: Int): Int",
                      "override def foldM(x: Int, y: Int): Int")
    assert callers(report) == set()
    report = affected(make_repo, files, "F.scala", "def foldM(x: Int): Int",
                      "def foldM(x: Int, y: Int): Int")
    assert callers(report) == {("F.scala", "F.Foldable.Ops.foldM", "probable"),
                               ("N.scala", "N.NonEmpty.go", "probable"),
                               ("N.scala", "N.NonEmpty.two", "probable")}


def test_kotlin_receivers_typed_by_a_cast_a_property_chain_or_a_nested_type(make_repo) -> None:
    """okhttp: `val exchange = realChain.exchange!!` after `val realChain = chain as
    RealChain`, and `frameCallback.onReadPing()` with a constructor property typed by a
    nested interface: each reaches that type's method, not a same-named other."""
    files = {"Codec.kt": "package p\n\nclass Codec {\n    fun write(x: Int) {}\n"
                         "    fun onPing(x: Int) {}\n}\n",
             "Exchange.kt": "package p\n\nclass Exchange {\n    fun write(x: Int) {}\n}\n",
             "Chain.kt": "package p\n\nopen class Chain\n\n"
                         "class RealChain(val exchange: Exchange?) : Chain()\n\n"
                         "fun intercept(chain: Chain) {\n    val realChain = chain as RealChain\n"
                         "    val exchange = realChain.exchange!!\n    exchange.write(1)\n}\n",
             "Reader.kt": "package p\n\nclass Reader(\n    private val callback: Callback,\n) {\n"
                          "    fun read() {\n        callback.onPing(1)\n    }\n\n"
                          "    interface Callback {\n        fun onPing(x: Int)\n    }\n}\n"}
    report = affected(make_repo, files, "Codec.kt", "fun write(x: Int) {}",
                      "fun write(x: Int, y: Int) {}")
    assert callers(report) == set()
    report = affected(make_repo, files, "Codec.kt", "fun onPing(x: Int) {}",
                      "fun onPing(x: Int, y: Int) {}")
    assert callers(report) == set()
    report = affected(make_repo, files, "Exchange.kt", "fun write(x: Int) {}",
                      "fun write(x: Int, y: Int) {}")
    assert callers(report) == {("Chain.kt", "Chain.intercept", "probable")}


def test_java_fields_typed_by_a_qualified_type_or_through_a_chained_builder(make_repo) -> None:
    """commons-cli: `private final TextStyle.Builder b;` then `b.setMaxWidth(1)`, and a
    field `CommandLine cmd;` assigned `cmd = CommandLine.builder().get();` (the chain's
    first call returns a Builder, which is not what `cmd` holds)."""
    files = {"p/Line.java": "package p;\npublic class Line {\n"
                            "  public static Builder builder() { return new Builder(); }\n"
                            "  void addArg(String a) { }\n"
                            "  public static class Builder {\n"
                            "    public Line get() { return new Line(); }\n"
                            "    void addArg(String a) { }\n"
                            "    public Builder setMaxWidth(int w) { return this; }\n  }\n}\n",
             "p/Other.java": "package p;\npublic class Other {\n"
                             "  void addArg(String a) { }\n  void setMaxWidth(int w) { }\n}\n",
             "p/Parser.java": "package p;\npublic class Parser {\n  protected Line cmd;\n"
                              "  private final Line.Builder style = Line.builder();\n"
                              "  void parse() {\n    cmd = Line.builder().get();\n"
                              "    cmd.addArg(\"x\");\n  }\n"
                              "  void resize() {\n    style.setMaxWidth(1);\n  }\n}\n"}
    report = affected(make_repo, files, "p/Line.java", "  void addArg(String a) { }\n  public",
                      "  void addArg(String a, int b) { }\n  public")
    assert callers(report) == {("p/Parser.java", "p.Parser.Parser.parse", "probable")}
    report = affected(make_repo, files, "p/Line.java", "public Builder setMaxWidth(int w)",
                      "public Builder setMaxWidth(int w, int h)")
    assert callers(report) == {("p/Parser.java", "p.Parser.Parser.resize", "probable")}


# --- a nested class calling its outer class's members by bare name ---------------------------

@pytest.mark.parametrize(("files", "path", "old", "new", "expected"), [
    ({"p/Outer.java": "package p;\npublic class Outer {\n"
                      "  public static final class Builder {\n"
                      "    private final java.util.function.Function<String, String> f =\n"
                      "        o -> \"x\" + describe(o);\n"
                      "    public String make(String s) { return describe(s); }\n  }\n"
                      "  public static String describe(final String s) { return s; }\n}\n"},
     "p/Outer.java", "describe(final String s)", "describe(final String s, int k)",
     {("p/Outer.java", "p.Outer.Outer.Builder", "exact"),
      ("p/Outer.java", "p.Outer.Outer.Builder.make", "exact")}),
    ({"Outer.cs": "namespace P {\n  public class Outer {\n"
                  "    public class Inner {\n"
                  "      public int Go() { return Twice(1); }\n    }\n"
                  "    public static int Twice(int x) { return 2 * x; }\n  }\n}\n"},
     "Outer.cs", "Twice(int x)", "Twice(int x, int y)",
     {("Outer.cs", "Outer.Outer.Inner.Go", "exact")}),
], ids=["java", "csharp"])
def test_a_nested_class_calls_its_outer_classs_member_by_bare_name(
        make_repo, files, path, old, new, expected) -> None:
    # Before: "No callers affected" and complete, a false "no impact" (commons-cli's
    # HelpFormatter.Builder calling HelpFormatter.getDescription in the Java leg).
    report = affected(make_repo, files, path, old, new)
    assert callers(report) == expected


# --- overloads (seen in commons-cli's 1.9.0 -> 1.10.0 release diff) --------------------------

JAVA_CLI = ("package p;\npublic class Cli {\n"
            "  public String value(String opt) { return value(opt, null); }\n"          # 3
            "  public String value(String opt, String dflt) { return dflt; }\n"         # 4
            "  public boolean has(String opt) { return value(opt) != null; }\n"         # 5
            "  public String either(String opt) { return value(opt, \"x\"); }\n}\n")  # 6


def test_java_a_call_whose_arguments_fit_another_overload_is_not_a_caller(make_repo) -> None:
    """commons-cli 1.10.0 changed `getOptionValue(Option, Supplier)`: the calls of its
    one-argument siblings (`hasOption` calling `getOptionValue(opt)`) were reported as its
    callers; javac, with a parameter appended to the changed one, breaks none of them."""
    report = affected(make_repo, {"p/Cli.java": JAVA_CLI}, "p/Cli.java",
                      "public String value(String opt, String dflt)",
                      "public String value(final String opt, String dflt)")
    assert callers(report) == {("p/Cli.java", "p.Cli.Cli.value", "exact"),
                               ("p/Cli.java", "p.Cli.Cli.either", "exact")}


EXPLICIT_A = ("package p;\npublic class A {\n  public A(int x) { }\n"
              "  public A(String s, String t) { }\n}\n")
EXPLICIT_B = ("package p;\npublic class B extends A {\n  public B() {\n    super(1);\n  }\n"
              "  public B(int a, int b) {\n    this();\n  }\n}\n")


@pytest.mark.parametrize(("path", "old", "new", "expected"), [
    ("src/A.java", "public A(int x) { }", "public A(int x, int y) { }",
     {("src/B.java", 4): "exact"}),  # super(1) in B()
    ("src/B.java", "public B() {", "public B(long z) {",
     {("src/B.java", 7): "exact"}),  # this() in B(int, int)
])
def test_java_super_and_this_constructor_calls_are_callers(
        make_repo, path: str, old: str, new: str, expected: dict) -> None:
    report = affected(make_repo, {"src/A.java": EXPLICIT_A, "src/B.java": EXPLICIT_B},
                      path, old, new)
    assert {(a["path"], a["line"]): a["confidence"] for a in report["affected"]
            if a["depth"] == 1} == expected
