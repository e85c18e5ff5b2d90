"""The call shapes of issue 24 in C++ and C#, each on a real repository through the real
CLI: inherited methods, base constructors run by derived ones, lambdas and local functions,
operators, iterators, `using`/destructors, indexers and loop variables. Where the operand's
type is known the site is a caller; where it is not the answer says it is a lower bound."""

from __future__ import annotations

from conftest import checked


def direct(report: dict, target: str | None = None) -> dict[tuple[str, int], str]:
    """Depth-1 sites (of `target` only, when given: the class around a changed method is
    changed too, and its own users are not the shape under test)."""
    return {(a["path"], a["line"]): a["confidence"] for a in report["affected"]
            if a["depth"] == 1 and (target is None or target in a["because_of"])}


# --- C++ -----------------------------------------------------------------------------------

CPP_A = "struct A {\n  int m(int x) { return x; }\n};\n"


def test_cpp_an_inherited_method_is_reached_through_a_subclass_instance(make_repo) -> None:
    files = {"a.hpp": CPP_A,
             "b.cpp": '#include "a.hpp"\nstruct B : A {};\n'
                      "int use() {\n  B b;\n  return b.m(1);\n}\n"}
    report = checked(make_repo, files, "a.hpp", "int m(int x)", "int m(int x, int y)")
    assert direct(report, "A.m") == {("b.cpp", 5): "probable"}


def test_cpp_a_derived_constructor_runs_the_base_one(make_repo) -> None:
    files = {"a.hpp": "struct A {\n  A(int x) {}\n};\n",
             "b.cpp": '#include "a.hpp"\nstruct B : A {\n  B() : A(1) {}\n};\n'}
    report = checked(make_repo, files, "a.hpp", "A(int x) {}", "A(int x, int y) {}")
    # `struct B : A` names A (as in Python); B's constructor runs A's.
    assert direct(report, "A.A") == {("b.cpp", 2): "exact", ("b.cpp", 3): "exact"}


def test_cpp_a_lambda_is_called_where_its_variable_is(make_repo) -> None:
    files = {"m.cpp": "int run() {\n  auto twice = [](int x) { return 2 * x; };\n"
                      "  return twice(1);\n}\n"}
    report = checked(make_repo, files, "m.cpp", "[](int x)", "[](int x, int y)")
    assert {s["qualified_name"] for s in report["changed_symbols"]} == {"run.twice"}
    assert direct(report) == {("m.cpp", 3): "exact"}


def test_cpp_an_operator_is_called_by_its_syntax_on_declared_operands(make_repo) -> None:
    files = {"v.hpp": "struct V {\n  int x;\n};\n"
                    "V operator+(const V& a, const V& b) { return V{a.x + b.x}; }\n",
             "u.cpp": '#include "v.hpp"\nint use(V a, V b) {\n  V c = a + b;\n'
                      "  int n = 1 + 2;\n  return c.x + n;\n}\n"}
    report = checked(make_repo, files, "v.hpp", "V operator+(const V& a, const V& b)",
                     "V operator+(const V& a, V& b)")
    assert direct(report) == {("u.cpp", 3): "probable"}
    assert any("called implicitly" in r for r in report["incomplete_reasons"])


def test_cpp_begin_and_end_are_called_by_a_range_for(make_repo) -> None:
    files = {"bag.hpp": "struct Bag {\n  int* begin() { return 0; }\n"
                        "  int* end() { return 0; }\n};\n",
             "u.cpp": '#include "bag.hpp"\nint use(Bag& bag) {\n  int n = 0;\n'
                      "  for (int x : bag) { n += x; }\n  return n;\n}\n"}
    report = checked(make_repo, files, "bag.hpp", "int* begin() {", "int* begin(int k) {")
    assert direct(report, "Bag.begin") == {("u.cpp", 4): "probable"}


def test_cpp_a_destructor_runs_where_a_local_is_declared_or_deleted(make_repo) -> None:
    files = {"f.hpp": "struct File {\n  File() {}\n  ~File() { close(); }\n  void close() {}\n};\n",
             "u.cpp": '#include "f.hpp"\nvoid use() {\n  File f;\n}\n'
                      "void drop(File* p) {\n  delete p;\n}\n"}
    report = checked(make_repo, files, "f.hpp", "~File() { close(); }",
                     "~File() noexcept(false) { close(); }")
    assert direct(report, "File.~File") == {("u.cpp", 3): "probable", ("u.cpp", 6): "probable"}


def test_cpp_a_range_for_variable_has_the_containers_element_type(make_repo) -> None:
    files = {"a.hpp": CPP_A + "struct C {\n  int m(int x) { return x; }\n};\n",
             "u.cpp": '#include <vector>\n#include "a.hpp"\n'
                      "int use(std::vector<A> v) {\n  int n = 0;\n"
                      "  for (auto& a : v) { n += a.m(1); }\n  return n;\n}\n"}
    report = checked(make_repo, files, "a.hpp", "int m(int x) { return x; }\n};\nstruct C",
                     "int m(int x, int y) { return x; }\n};\nstruct C")
    assert direct(report, "A.m") == {("u.cpp", 5): "probable"}


# --- C# ------------------------------------------------------------------------------------

CS_A = "namespace N {\n  public class A {\n    public int M(int x) { return x; }\n  }\n}\n"


def test_csharp_an_inherited_method_is_reached_through_a_subclass_instance(make_repo) -> None:
    files = {"A.cs": CS_A,
             "B.cs": "namespace N {\n  public class B : A {}\n  public class Use {\n"
                     "    public int Run() {\n      var b = new B();\n      return b.M(1);\n"
                     "    }\n  }\n}\n",
             "C.cs": "namespace N {\n  public class C {\n    public int M(int x) { return x; }\n"
                     "  }\n}\n"}
    report = checked(make_repo, files, "A.cs", "public int M(int x)", "public int M(int x, int y)")
    assert direct(report, "A.A.M") == {("B.cs", 6): "probable"}


def test_csharp_a_derived_constructor_runs_the_base_one(make_repo) -> None:
    files = {"A.cs": "namespace N {\n  public class A {\n    public A(int x) {}\n  }\n}\n",
             "B.cs": "namespace N {\n  public class B : A {\n    public B() : base(1) {}\n"
                     "  }\n}\n"}
    report = checked(make_repo, files, "A.cs", "public A(int x) {}", "public A(int x, int y) {}")
    assert direct(report, "A.A.A") == {("B.cs", 2): "exact", ("B.cs", 3): "exact"}


def test_csharp_a_local_function_is_called_by_its_method(make_repo) -> None:
    files = {"M.cs": "namespace N {\n  public class M {\n    public int Run() {\n"
                     "      int Twice(int x) { return 2 * x; }\n      return Twice(1);\n"
                     "    }\n  }\n}\n"}
    report = checked(make_repo, files, "M.cs", "int Twice(int x)", "int Twice(int x, int y)")
    assert "M.M.Run.Twice" in {s["qualified_name"] for s in report["changed_symbols"]}
    assert direct(report) == {("M.cs", 5): "exact"}


def test_csharp_a_lambda_is_called_where_its_variable_is(make_repo) -> None:
    files = {"M.cs": "namespace N {\n  public class M {\n    public int Run() {\n"
                     "      Func<int, int> twice = (int x) => 2 * x;\n      return twice(1);\n"
                     "    }\n  }\n}\n"}
    report = checked(make_repo, files, "M.cs", "(int x) => 2 * x", "(int x, int y) => 2 * x")
    assert direct(report) == {("M.cs", 5): "exact"}


V_CS = ("namespace N {\n  public class V {\n    public int X;\n"
        "    public static V operator +(V a, V b) { return a; }\n"
        "    public int this[int i] { get { return X; } }\n"
        "    public System.Collections.Generic.IEnumerator<int> GetEnumerator() {\n"
        "      yield return X;\n    }\n"
        "    public void Dispose() {}\n  }\n}\n")
USE_CS = ("namespace N {\n  public class Use {\n    public int Run(V a, V b) {\n"
          "      V c = a + b;\n      int n = a[0];\n      foreach (var x in a) { n += x; }\n"
          "      using (var d = new V()) { n += 1; }\n      int k = 1 + 2;\n"
          "      return n + k;\n    }\n  }\n}\n")


def test_csharp_an_operator_is_called_by_its_syntax_on_declared_operands(make_repo) -> None:
    report = checked(make_repo, {"V.cs": V_CS, "Use.cs": USE_CS}, "V.cs",
                     "operator +(V a, V b)", "operator +(V a, V b, V c)")
    assert direct(report, "V.V.operator+") == {("Use.cs", 4): "probable"}


def test_csharp_an_indexer_is_called_by_subscripts(make_repo) -> None:
    report = checked(make_repo, {"V.cs": V_CS, "Use.cs": USE_CS}, "V.cs",
                     "this[int i]", "this[long i]")
    assert direct(report, "V.V.this") == {("Use.cs", 5): "probable"}


def test_csharp_get_enumerator_is_called_by_foreach(make_repo) -> None:
    report = checked(make_repo, {"V.cs": V_CS, "Use.cs": USE_CS}, "V.cs",
                     "GetEnumerator() {", "GetEnumerator(int k) {")
    assert direct(report, "V.V.GetEnumerator") == {("Use.cs", 6): "probable"}


def test_csharp_dispose_is_called_by_using(make_repo) -> None:
    report = checked(make_repo, {"V.cs": V_CS, "Use.cs": USE_CS}, "V.cs",
                     "public void Dispose() {}", "public void Dispose(bool d) {}")
    assert direct(report, "V.V.Dispose") == {("Use.cs", 7): "probable"}


def test_csharp_a_foreach_variable_has_the_lists_element_type(make_repo) -> None:
    files = {"A.cs": CS_A,
             "C.cs": "namespace N {\n  public class C {\n    public int M(int x) { return x; }\n"
                     "  }\n}\n",
             "U.cs": "using System.Collections.Generic;\nnamespace N {\n  public class U {\n"
                     "    public int Run(List<A> list) {\n      int n = 0;\n"
                     "      foreach (var a in list) { n += a.M(1); }\n      return n;\n"
                     "    }\n  }\n}\n"}
    report = checked(make_repo, files, "A.cs", "public int M(int x)", "public int M(int x, int y)")
    assert direct(report, "A.A.M") == {("U.cs", 6): "probable"}


def test_csharp_an_operand_of_unknown_type_leaves_a_lower_bound(make_repo) -> None:
    files = {"V.cs": V_CS,
             "Use.cs": "namespace N {\n  public class Use {\n    public int Run(dynamic a) {\n"
                       "      var c = a + a;\n      return 0;\n    }\n  }\n}\n"}
    report = checked(make_repo, files, "V.cs", "operator +(V a, V b)", "operator +(V a, V b, V c)")
    assert direct(report) == {}
    assert any("called implicitly" in r for r in report["incomplete_reasons"])


# --- overloads (seen in pythonnet and Capacitor) --------------------------------------------

OVERLOADED = {"Py.cs": "namespace N {\n  public class Py {\n    public static void SetArgv() {}\n"
                       "    public static void SetArgv(IEnumerable<string> argv) {}\n"
                       "    public static void Run(string[] args) {\n      SetArgv(args);\n"
                       "    }\n    public static void Go() {\n      SetArgv();\n    }\n  }\n}\n"}


def test_csharp_a_call_whose_arguments_fit_another_overload_is_not_a_caller(make_repo) -> None:
    report = checked(make_repo, OVERLOADED, "Py.cs", "public static void SetArgv() {}",
                     "public static void SetArgv() { int k = 1; }")
    assert direct(report, "Py.Py.SetArgv") == {("Py.cs", 9): "exact"}


def test_csharp_a_changed_overload_keeps_its_callers_when_its_parameters_change(
        make_repo) -> None:
    report = checked(make_repo, OVERLOADED, "Py.cs", "public static void SetArgv() {}",
                     "public static void SetArgv(int k) {}")
    assert ("Py.cs", 9) in direct(report, "Py.Py.SetArgv")


def test_csharp_a_renamed_overload_keeps_only_its_own_callers(make_repo) -> None:
    # The hand-judged leg renames: `Py.SetArgv(args)` stays a call of a sibling that keeps
    # the old name, so it is no caller of the renamed one.
    report = checked(make_repo, OVERLOADED, "Py.cs", "public static void SetArgv() {}",
                     "public static void SetArgvMg() {}")
    assert direct(report, "Py.Py.SetArgv") == {("Py.cs", 9): "exact"}


GET_ATTR = {"Runtime.cs": "namespace N {\n  public class Runtime {\n"
                         "    static int GetAttr(object o, string name) { return 1; }\n"
                         "    static int GetAttr(object o, StrPtr name) { return 2; }\n"
                         "    static int A(object o) {\n      return GetAttr(o, \"warn\");\n"
                         "    }\n    static int B(object o, StrPtr p) {\n"
                         "      return GetAttr(o, p);\n    }\n"
                         "    static int C(object o, string name) {\n"
                         "      return GetAttr(o, name);\n    }\n  }\n}\n"}


def test_csharp_a_string_literal_argument_calls_the_string_overload(make_repo) -> None:
    # pythonnet: `PyObject_GetAttrString(builtins, "NotImplemented")`, and the same with a
    # `string name` parameter, are calls of the (.., string) overload, not of the
    # (.., StrPtr) one of the same arity.
    report = checked(make_repo, GET_ATTR, "Runtime.cs", "StrPtr name) { return 2; }",
                     "StrPtr name) { return 3; }")
    assert direct(report, "Runtime.Runtime.GetAttr") == {("Runtime.cs", 9): "exact"}


def test_swift_an_overload_calling_its_sibling_is_a_caller(make_repo) -> None:
    files = {"Sources/M/Cookies.swift":
             "public class Cookies {\n  public func url() -> String? {\n    return nil\n  }\n"
             "  public func url(_ s: String?) -> String? {\n    return url()\n  }\n"
             "  public func use(_ d: String) -> String? {\n    return url(d)\n  }\n}\n"}
    report = checked(make_repo, files, "Sources/M/Cookies.swift", "    return nil\n",
                     "    return \"\"\n")
    assert direct(report, "Sources.M.Cookies.Cookies.url") == {
        ("Sources/M/Cookies.swift", 6): "exact"}


def test_a_same_named_method_in_another_languages_file_is_no_caller(make_repo) -> None:
    files = {"Sources/M/Cookies.swift":
             "public class Cookies {\n  public func serverUrl() -> String? {\n    return nil\n"
             "  }\n}\n",
             "web/bridge.js": "function start(cap) {\n  return cap.serverUrl();\n}\n",
             "tests/test_it.py": "def test_url(cookies):\n    assert cookies.serverUrl()\n"}
    report = checked(make_repo, files, "Sources/M/Cookies.swift",
                     "public func serverUrl() -> String? {",
                     "public func serverUrl(_ s: String) -> String? {")
    assert direct(report) == {}


# --- Swift, where the shape is cheap ---------------------------------------------------------

SWIFT_A = "public class A {\n  public func m(_ x: Int) -> Int {\n    return x\n  }\n}\n"


def test_swift_an_inherited_method_is_reached_through_a_subclass_instance(make_repo) -> None:
    files = {"Sources/M/A.swift": SWIFT_A,
             "Sources/M/B.swift": "public class B: A {}\npublic class C {\n"
                                  "  public func m(_ x: Int) -> Int {\n    return x\n  }\n}\n"
                                  "func use() -> Int {\n  let b = B()\n  return b.m(1)\n}\n"}
    report = checked(make_repo, files, "Sources/M/A.swift", "public func m(_ x: Int) -> Int {",
                     "public func m(_ x: Int, _ y: Int) -> Int {")
    assert direct(report, "Sources.M.A.A.m") == {("Sources/M/B.swift", 9): "probable"}


def test_swift_a_nested_function_is_called_by_its_function(make_repo) -> None:
    files = {"Sources/M/F.swift": "func run() -> Int {\n  func twice(_ x: Int) -> Int {\n"
                                  "    return 2 * x\n  }\n  return twice(1)\n}\n"}
    report = checked(make_repo, files, "Sources/M/F.swift", "func twice(_ x: Int) -> Int {",
                     "func twice(_ x: Int, _ y: Int) -> Int {")
    assert direct(report) == {("Sources/M/F.swift", 5): "exact"}


def test_swift_a_closure_is_called_where_its_local_is(make_repo) -> None:
    files = {"Sources/M/F.swift": "func run() -> Int {\n  let twice = { (x: Int) -> Int in\n"
                                  "    return 2 * x\n  }\n  return twice(1)\n}\n"}
    report = checked(make_repo, files, "Sources/M/F.swift", "{ (x: Int) -> Int in",
                     "{ (x: Int, y: Int) -> Int in")
    assert {s["qualified_name"] for s in report["changed_symbols"]} == {"Sources.M.F.run.twice"}
    assert direct(report) == {("Sources/M/F.swift", 5): "exact"}


# --- PHP: a receiver's declared type (seen in Symfony Console: 41 of 41 wrong callers) ------

PHP_TYPED = {
    "src/Input/InputOption.php": "<?php\nnamespace App\\Input;\n\nclass InputOption\n{\n"
                                 "    public function getName(): string\n    {\n"
                                 "        return 'o';\n    }\n}\n",
    "src/Command.php": "<?php\nnamespace App;\n\nclass Command\n{\n"
                      "    public function getName(): string\n    {\n        return 'c';\n"
                      "    }\n}\n",
    "src/Describe.php": "<?php\nnamespace App;\n\nuse App\\Input\\InputOption;\n\n"
                        "class Describe\n{\n    public function __construct(private Command $cmd)\n"
                        "    {\n    }\n\n"
                        "    public function option(InputOption $option): string\n    {\n"
                        "        return $option->getName();\n    }\n\n"
                        "    public function command(Command $command): string\n    {\n"
                        "        return $command->getName();\n    }\n\n"
                        "    public function own(): string\n    {\n"
                        "        return $this->cmd->getName();\n    }\n\n"
                        "    public function built(): string\n    {\n"
                        "        $c = new Command();\n        return $c->getName();\n    }\n}\n",
}


def test_php_a_typed_parameter_property_or_new_gives_the_receivers_class(make_repo) -> None:
    report = checked(make_repo, PHP_TYPED, "src/Command.php",
                     "    public function getName(): string\n    {\n        return 'c';",
                     "    public function getName(int $k): string\n    {\n        return 'c';")
    assert direct(report, "Command.getName") == {
        ("src/Describe.php", 19): "probable", ("src/Describe.php", 24): "probable",
        ("src/Describe.php", 30): "probable"}
    # `InputOption $option`: another class's getName, not even a possible caller.
    assert not [a for a in report["possible"] if a["line"] == 14]


def test_php_a_receiver_typed_with_an_interface_reaches_its_implementations(make_repo) -> None:
    files = {"src/OutputInterface.php": "<?php\nnamespace App;\n\ninterface OutputInterface\n{\n"
                                        "    public function getVerbosity(): int;\n}\n",
             "src/Output.php": "<?php\nnamespace App;\n\nclass Output implements OutputInterface\n"
                               "{\n    public function getVerbosity(): int\n    {\n"
                               "        return 1;\n    }\n}\n",
             "src/Bar.php": "<?php\nnamespace App;\n\nclass Bar\n{\n"
                            "    public function __construct(private OutputInterface $output)\n"
                            "    {\n    }\n\n    public function v(): int\n    {\n"
                            "        return $this->output->getVerbosity();\n    }\n}\n"}
    report = checked(make_repo, files, "src/Output.php", "public function getVerbosity(): int\n",
                     "public function getVerbosity(int $k): int\n")
    assert direct(report, "Output.getVerbosity") == {("src/Bar.php", 12): "probable"}
