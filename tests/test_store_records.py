"""store.py fills its Definition and Reference records in directly (not through the frozen
dataclass's __init__, which cost a sixth of a 50-symbol check's callers' search): each
record read from a real index is the record __init__ would make, field by field, and
hashes and compares as it."""

from __future__ import annotations

import dataclasses

from click.testing import CliRunner

from maguyva_guard.cli import main
from maguyva_guard.index.store import Store
from maguyva_guard.records import Definition, Reference

FILES = {
    "pkg/__init__.py": "",
    "pkg/base.py": "class Base:\n    def run(self, x):\n        return x\n",
    "pkg/mod.py": (
        "from pkg.base import Base as B\n\n\n"
        "class Thing(B, object):\n"
        "    def run(self, x):\n"
        "        return super().run(x)\n\n\n"
        "def use():\n    return Thing().run(1)\n"
    ),
    "web/app.ts": "import { f } from './lib';\nexport class App { go() { return f(); } }\n",
    "web/lib.ts": "export function f(): number { return 1; }\n",
}


def _made_by_init(record: object) -> object:
    return dataclasses.replace(record)  # type: ignore[type-var]


def test_records_read_from_the_index_equal_those_init_makes(make_repo):
    repo = make_repo(FILES)
    assert CliRunner().invoke(main, ["index", "--repo", str(repo)]).exit_code == 0
    with Store.open(repo) as store:
        defs, refs = store.definitions(), store.references()
    assert {d.qualified_name for d in defs} >= {"pkg.mod.Thing", "pkg.mod.Thing.run",
                                                "pkg.base.Base.run"}
    assert any(d.bases == ("B", "object") for d in defs)
    assert any(r.kind == "import" and r.alias == "B" for r in refs)
    for record, cls in [*((d, Definition) for d in defs), *((r, Reference) for r in refs)]:
        made = _made_by_init(record)
        assert type(record) is cls
        assert vars(record) == vars(made)  # every field, none missing, none extra
        assert list(vars(record)) == [f.name for f in dataclasses.fields(cls)]
        assert record == made and hash(record) == hash(made) and repr(record) == repr(made)


def test_definition_spans_are_the_definitions_where_and_in_their_order(make_repo):
    """The text retriever's enclosing symbol reads spans only (store.definition_spans, and
    the check's shared view derives them from records it already read): the same
    definitions in definitions_in's order, so ties between equal spans fall as before."""
    from maguyva_guard.guard.batch import CheckStore

    repo = make_repo(FILES)
    assert CliRunner().invoke(main, ["index", "--repo", str(repo)]).exit_code == 0
    with Store.open(repo) as store:
        for path in FILES:
            want = [(d.qualified_name, d.kind, d.line_start, d.line_end)
                    for d in store.definitions_in(path)]
            assert [tuple(s) for s in store.definition_spans(path)] == want
            fresh, read = CheckStore(store), CheckStore(store)
            read.definitions_in(path)  # records read first: the spans come from them
            assert [tuple(s) for s in fresh.definition_spans(path)] == want
            assert [tuple(s) for s in read.definition_spans(path)] == want
        assert store.definition_spans("pkg/mod.py")[0].qualified_name.startswith("pkg.mod")
