"""Callers across files in JavaScript, TypeScript, Go, Java and Rust: imports, receivers and
packages resolved the way each language does, same-named definitions kept apart."""

from __future__ import annotations

import pytest
from conftest import graph_hits

from maguyva_guard.index import indexer
from maguyva_guard.index.store import Store
from maguyva_guard.records import AMBIGUOUS
from maguyva_guard.retrievers.base import SearchRequest
from maguyva_guard.retrievers.graph import GraphRetriever

CASES = {
    "typescript": (
        {
            "src/config.ts": (
                "export function parseConfig(path: string): object {\n  return {};\n}\n"
                "export class Loader {\n  parseConfig(text: string) { return text; }\n"
                "  load() { return this.parseConfig('x'); }\n}\n"
            ),
            "src/index.ts": "export { parseConfig } from './config';\n",
            "src/cli.ts": (
                "import { parseConfig as pc } from './config';\n"
                "import * as cfg from './config';\n"
                "import { parseConfig } from './index';\n"
                "export function main() { return pc('a'); }\n"
                "export function viaNamespace() { return cfg.parseConfig('b'); }\n"
                "export function viaReexport() { return parseConfig('c'); }\n"
            ),
            "src/other.ts": (
                "function parseConfig(x: string) { return x; }\n"
                "export function local() { return parseConfig('d'); }\n"
            ),
        },
        "src.config.parseConfig",
        {"src.cli.main", "src.cli.viaNamespace", "src.cli.viaReexport"},
        {"src.other.local", "src.config.Loader.load"},
    ),
    "javascript": (
        {
            "lib/format.js": (
                "function formatTask(t) { return t; }\nmodule.exports = { formatTask };\n"
            ),
            "lib/view.js": (
                "const { formatTask } = require('./format');\n"
                "function render(t) { return formatTask(t); }\n"
                "module.exports = { render };\n"
            ),
            "lib/unrelated.js": (
                "function formatTask() {}\nfunction go() { return formatTask(); }\n"
            ),
        },
        "lib.format.formatTask",
        {"lib.view.render"},
        {"lib.unrelated.go"},
    ),
    "go": (
        {
            "go.mod": "module github.com/acme/tasks\n",
            "store/store.go": (
                "package store\n\nfunc Open(path string) *DB { return nil }\n\n"
                "type DB struct{}\n\nfunc (d *DB) Close() error { return nil }\n"
            ),
            "store/util.go": "package store\n\nfunc reopen() *DB { return Open(\"x\") }\n",
            "server/server.go": (
                "package server\n\nimport \"github.com/acme/tasks/store\"\n\n"
                "func Start() { db := store.Open(\"a\"); db.Close() }\n"
            ),
            "other/other.go": "package other\n\nfunc Open() {}\n\nfunc Use() { Open() }\n",
        },
        "store.Open",
        {"server.Start", "store.reopen"},
        {"other.Use"},
    ),
    "java": (
        {
            "src/main/java/com/acme/store/Store.java": (
                "package com.acme.store;\n\npublic class Store {\n"
                "  public static Store open(String p) { return new Store(); }\n"
                "  public void close() { flush(); }\n  void flush() {}\n}\n"
            ),
            "src/main/java/com/acme/app/App.java": (
                "package com.acme.app;\n\nimport com.acme.store.Store;\n\npublic class App {\n"
                "  public void run() { Store s = Store.open(\"a\"); s.close(); }\n}\n"
            ),
            "src/main/java/com/acme/other/Cache.java": (
                "package com.acme.other;\n\npublic class Cache {\n"
                "  static Cache open(String p) { return null; }\n"
                "  void go() { open(\"x\"); }\n}\n"
            ),
        },
        "src.main.java.com.acme.store.Store.Store.open",
        {"src.main.java.com.acme.app.App.App.run"},
        {"src.main.java.com.acme.other.Cache.Cache.go"},
    ),
    "rust": (
        {
            "src/lib.rs": "pub mod store;\npub mod app;\n",
            "src/store.rs": (
                "pub struct Store {}\n\nimpl Store {\n"
                "    pub fn open(path: &str) -> Store { Store {} }\n}\n"
            ),
            "src/app.rs": (
                "use crate::store::Store;\n\npub fn run() {\n    let s = Store::open(\"a\");\n}\n"
            ),
            "src/other.rs": (
                "pub struct Cache {}\nimpl Cache {\n    pub fn open() -> Cache { Cache {} }\n}\n"
                "pub fn go() { let c = Cache::open(); }\n"
            ),
        },
        "src.store.Store.open",
        {"src.app.run"},
        {"src.other.go"},
    ),
}


@pytest.mark.parametrize("language", sorted(CASES))
def test_callers_resolve_across_files(make_repo, language):
    files, target_qn, expected, not_expected = CASES[language]
    repo = make_repo(files)
    hits = graph_hits(repo, target_qn)
    found = {h.symbol: h.confidence for h in hits}
    assert expected <= set(found), found
    assert not (not_expected & set(found)), found
    assert all(found[s] != AMBIGUOUS for s in expected)


OBJECT_METHODS = {
    "src/immediate.ts": (
        "export const Immediate = {\n"
        "  setImmediate(cb: () => void): number { return 1; },\n"
        "};\n"
    ),
    "src/provider.ts": (
        "import { Immediate } from './immediate';\n"
        "const { setImmediate } = Immediate;\n"
        "export const provider = {\n"
        "  setImmediate(cb: () => void) {\n"
        "    return setImmediate(cb);\n"
        "  },\n"
        "};\n"
    ),
    "src/user.ts": (
        "import { Immediate } from './immediate';\n"
        "export function run() {\n"
        "  return Immediate.setImmediate(() => {});\n"
        "}\n"
    ),
}


def test_a_bare_name_is_no_object_literal_member_and_stays_a_possible_caller(make_repo):
    """In `provider = { setImmediate(cb) { return setImmediate(cb); } }` the inner
    `setImmediate` is not the member around it (object literal members bind no name); bound
    by destructuring, it is kept as an ambiguous caller of `Immediate.setImmediate`, so the
    check says "lower bound" rather than "no callers"; the destructuring itself reads
    `Immediate.setImmediate`, a member of an object literal, exactly."""
    repo = make_repo(OBJECT_METHODS)
    with Store.open(repo) as store:
        indexer.update(store)
        (target,) = [d for d in store.definitions(name="setImmediate")
                     if d.path == "src/immediate.ts"]
        (member,) = [d for d in store.definitions(name="setImmediate")
                     if d.path == "src/provider.ts"]
        graph = GraphRetriever(store)
        found = {h.symbol: h.confidence for h in graph.search(SearchRequest(
            query="", intent="find_references", target=target, limit=0))}
        own = {h.symbol: h.confidence for h in graph.search(SearchRequest(
            query="", intent="find_references", target=member, limit=0))}
    assert found.get(member.qualified_name) == AMBIGUOUS, found
    assert found.get("<module>") == "exact", found  # const { setImmediate } = Immediate
    assert found.get("src.user.run") == "exact", found  # a call of an object's method
    assert own.get(member.qualified_name) != "exact", own  # not a call of itself
