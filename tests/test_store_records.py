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
