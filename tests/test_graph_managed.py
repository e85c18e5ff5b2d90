"""Callers across files in C#, Kotlin, Scala and Swift: namespaces and packages (not folders),
imports and aliases, receivers typed by declarations, implicit `this`/`self`, inherited
methods, members spread over files (partial classes, extensions, extension functions)."""

from __future__ import annotations

import pytest
from conftest import graph_hits

from maguyva_guard.records import AMBIGUOUS

# language -> (files, target qualified name, sure callers, not callers)
CASES = {
    "csharp": (
        {
            "src/Storage/Store.cs": (
                "namespace Acme.Storage {\n  public partial class Store {\n"
                "    public static Store Open(string p) { return new Store(); }\n"
                "    public void Close() { Flush(); }\n  }\n}\n"
            ),
            "src/Storage/Store.Flush.cs": (
                "namespace Acme.Storage {\n  public partial class Store {\n"
                "    public void Flush() {\n      int done = 1;\n    }\n  }\n}\n"
            ),
            "src/App/App.cs": (
                "using Acme.Storage;\nnamespace Acme.App {\n  public class App : Base {\n"
                "    private Store store;\n"
                "    public void Run() { Store s = Store.Open(\"a\"); s.Flush(); }\n"
                "    public void Field() { store.Flush(); }\n"
                "    public void Inherited() { Stop(); }\n  }\n}\n"
            ),
            "src/App/Base.cs": (
                "namespace Acme.App {\n  public class Base {\n    public void Stop() {}\n  }\n}\n"
            ),
            "src/Other/Cache.cs": (
                "namespace Acme.Other {\n  public class Cache {\n"
                "    public void Flush() {}\n    void Go() { Flush(); }\n  }\n}\n"
            ),
        },
        "src.Storage.Store.Flush.Store.Flush",
        {"src.Storage.Store.Store.Close", "src.App.App.App.Run", "src.App.App.App.Field"},
        {"src.Other.Cache.Cache.Go"},
    ),
    "kotlin": (
        {
            "src/main/kotlin/store/Store.kt": (
                "package com.acme.store\n\nclass Store {\n"
                "    fun close() {\n        val done = 1\n    }\n"
                "    companion object {\n        fun open(p: String): Store = Store()\n    }\n}\n"
            ),
            "src/main/kotlin/store/Ext.kt": (
                "package com.acme.store\n\nfun Store.reopen(): Store { close(); return this }\n"
            ),
            "src/main/kotlin/app/App.kt": (
                "package com.acme.app\n\nimport com.acme.store.Store\n"
                "import com.acme.store.reopen\n\n"
                "class App(private val store: Store) {\n"
                "    fun run() { val s = Store.open(\"a\"); s.close() }\n"
                "    fun typed(f: Store) { f.close() }\n"
                "    fun field() { store.close() }\n"
                "    fun again() { store.reopen() }\n}\n"
            ),
            "src/main/kotlin/other/Cache.kt": (
                "package com.acme.other\n\nclass Cache {\n    fun close() {}\n"
                "    fun go() { close() }\n}\n"
            ),
        },
        "src.main.kotlin.store.Store.Store.close",
        {"src.main.kotlin.app.App.App.run", "src.main.kotlin.app.App.App.typed",
         "src.main.kotlin.app.App.App.field", "src.main.kotlin.store.Ext.Store.reopen"},
        {"src.main.kotlin.other.Cache.Cache.go"},
    ),
    "scala": (
        {
            "src/main/scala/store/Store.scala": (
                "package com.acme.store\n\nclass Store {\n"
                "  def close(): Unit = {\n    val done = 1\n  }\n}\n"
                "object Store {\n  def open(p: String): Store = new Store()\n}\n"
            ),
            "src/main/scala/app/App.scala": (
                "package com.acme.app\n\nimport com.acme.store.{Store => S}\n\n"
                "class App(store: S) extends Base {\n"
                "  def run(): Unit = { val s = new S(); s.close() }\n"
                "  def typed(f: S): Unit = f.close()\n"
                "  def field(): Unit = store.close()\n"
                "  def inherited(): Unit = stop()\n}\n"
            ),
            "src/main/scala/app/Base.scala": (
                "package com.acme.app\n\nclass Base {\n  def stop(): Unit = {}\n}\n"
            ),
            "src/main/scala/other/Cache.scala": (
                "package com.acme.other\n\nclass Cache {\n  def close(): Unit = {}\n"
                "  def go(): Unit = close()\n}\n"
            ),
        },
        "src.main.scala.store.Store.Store.close",
        {"src.main.scala.app.App.App.run", "src.main.scala.app.App.App.typed",
         "src.main.scala.app.App.App.field"},
        {"src.main.scala.other.Cache.Cache.go"},
    ),
    "swift": (
        {
            "Sources/Store/Store.swift": (
                "public class Store {\n    public init() {}\n"
                "    public func close() {\n        let done = 1\n    }\n}\n"
            ),
            "Sources/Store/Store+Open.swift": (
                "extension Store {\n    public func reopen() -> Store { close(); return self }\n}\n"
            ),
            "Sources/App/App.swift": (
                "import Store\n\nclass App {\n    var store: Store\n"
                "    init(store: Store) { self.store = store }\n"
                "    func run() { let s = Store(); s.close() }\n"
                "    func typed(f: Store) { f.close() }\n"
                "    func field() { store.close() }\n"
                "    func again() { self.store.reopen() }\n}\n"
            ),
            "Sources/Other/Cache.swift": (
                "class Cache {\n    func close() {}\n    func go() { close() }\n}\n"
            ),
        },
        "Sources.Store.Store.Store.close",
        {"Sources.App.App.App.run", "Sources.App.App.App.typed", "Sources.App.App.App.field",
         "Sources.Store.Store+Open.Store.reopen"},
        {"Sources.Other.Cache.Cache.go"},
    ),
}


def _callers(repo, qualified_name: str) -> dict[str, str]:
    hits = graph_hits(repo, qualified_name)
    return {h.symbol: h.confidence for h in hits}


@pytest.mark.parametrize("language", sorted(CASES))
def test_callers_resolve_through_namespaces_and_typed_receivers(make_repo, language):
    files, target_qn, expected, not_expected = CASES[language]
    found = _callers(make_repo(files), target_qn)
    assert expected <= set(found), found
    assert not (not_expected & set(found)), found
    assert all(found[s] != AMBIGUOUS for s in expected), found


# A receiver whose type does not show, and a method name that two classes define.
UNKNOWN_RECEIVER = {
    "csharp": ("src/Use.cs", "namespace Acme.Use {\n  public class Use {\n"
               "    public void Go(dynamic x) { x.Flush(); }\n  }\n}\n", "src.Use.Use.Go"),
    "kotlin": ("src/main/kotlin/use/Use.kt", "package com.acme.use\n\n"
               "fun go(items: List<Any>) { items.first().close() }\n",
               "src.main.kotlin.use.Use.go"),
    "scala": ("src/main/scala/use/Use.scala", "package com.acme.use\n\n"
              "object Use {\n  def go(items: Seq[Any]): Unit = items.head.close()\n}\n",
              "src.main.scala.use.Use.Use.go"),
    "swift": ("Sources/Use/Use.swift", "func go(items: [Any]) { items.first!.close() }\n",
              "Sources.Use.Use.go"),
}


@pytest.mark.parametrize("language", sorted(UNKNOWN_RECEIVER))
def test_a_call_the_resolver_cannot_settle_stays_ambiguous(make_repo, language):
    files, target_qn, _, _ = CASES[language]
    path, text, caller = UNKNOWN_RECEIVER[language]
    found = _callers(make_repo({**files, path: text}), target_qn)
    assert found.get(caller) == AMBIGUOUS, found


def test_swift_names_resolve_within_their_module_first(make_repo):
    """Two SwiftPM modules each define `Model`: a file of module B means B's, unimported A's
    is no caller's target."""
    model = "public class Model {\n    public func save() {\n        let done = 1\n    }\n}\n"
    repo = make_repo({
        "Sources/A/Model.swift": model,
        "Sources/B/Model.swift": model,
        "Sources/B/Use.swift": "func use() { let m = Model(); m.save() }\n",
    })
    assert "Sources.B.Use.use" not in _callers(repo, "Sources.A.Model.Model.save")
    assert _callers(repo, "Sources.B.Model.Model.save").get("Sources.B.Use.use") not in (
        None, AMBIGUOUS)


def test_kotlin_property_chains_and_library_types(make_repo):
    """`client.dispatcher.enqueue()` reads the property's declared type; `System.nanoTime()`
    is a library type's, not the repository's only `nanoTime`."""
    repo = make_repo({
        "src/Dispatcher.kt": "package acme\n\nclass Dispatcher {\n    fun enqueue(x: Int) {}\n"
                             "    fun nanoTime(): Long = 0\n}\n",
        "src/Client.kt": "package acme\n\nclass Client {\n    val dispatcher: Dispatcher = "
                         "Dispatcher()\n}\n",
        "src/Call.kt": "package acme\n\nclass Call(val client: Client) {\n"
                       "    fun run() { client.dispatcher.enqueue(1) }\n"
                       "    fun now() = System.nanoTime()\n}\n",
    })
    assert _callers(repo, "src.Dispatcher.Dispatcher.enqueue").get("src.Call.Call.run") \
        not in (None, AMBIGUOUS)
    assert "src.Call.Call.now" not in _callers(repo, "src.Dispatcher.Dispatcher.nanoTime")


def test_a_library_typed_receiver_reaches_extensions_only(make_repo):
    """`s: String` then `s.shout()`: the extension function `String.shout`; `c:
    Comparator<Int>` then `c.compare()`: the library's, not the repository's compare."""
    repo = make_repo({
        "src/Ext.kt": "package acme\n\nfun String.shout(): String = this\n",
        "src/Cmp.kt": "package acme\n\nclass Cmp {\n    fun compare(a: Int, b: Int): Int = 0\n"
                      "}\n\nclass Other {\n    fun compare(a: Int, b: Int): Int = 1\n}\n",
        "src/Use.kt": "package acme\n\nfun loud(s: String) = s.shout()\n"
                      "fun order(c: Comparator<Int>) = c.compare(1, 2)\n"
                      "fun <T> generic(t: T, o: Other) = o.compare(1, 2)\n",
    })
    assert _callers(repo, "src.Ext.String.shout").get("src.Use.loud") == "probable"
    assert "src.Use.order" not in _callers(repo, "src.Cmp.Cmp.compare")
    assert "src.Use.generic" in _callers(repo, "src.Cmp.Other.compare")
