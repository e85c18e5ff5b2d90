"""Files the parser read only in part: a call inside a region tree-sitter recovered from
(a syntax error, a construct the grammar does not know) may be no reference at all, and then
an answer of "no callers" would be a false "no impact". A changed symbol whose name appears
in such a file makes the answer a lower bound, naming the files.

Only the view's files with recorded parse errors are read (in real projects a handful, often
none), each once, and only for the changed names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from maguyva_guard import git
from maguyva_guard.guard.model import plural
from maguyva_guard.index.store import Store

MAX_FILES: Final = 200  # more damaged files than this: named by count, not read
NAMED: Final = 3  # files named in one reason


def reasons(repo: str, store: Store, names: Iterable[str]) -> list[str]:
    """One reason per changed name that a partly parsed file of the view mentions."""
    wanted = sorted({n for n in names if n})
    if not wanted:
        return []
    rows = store.conn.execute(
        "SELECT f.path, f.blob FROM files f JOIN blobs b ON b.id = f.blob_id "
        "WHERE b.parse_errors > 0 AND b.status = 'parsed' ORDER BY f.path").fetchall()
    if not rows:
        return []
    if len(rows) > MAX_FILES:
        return [f"{plural(len(rows), 'file')} parsed only in part (syntax errors the parser "
                "recovered from) were not searched for the changed names: callers there "
                "may be missed"]
    texts = git.read_blobs(repo, sorted({oid for _path, oid in rows}))
    out = []
    for name in wanted:
        word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])".encode())
        hit = [path for path, oid in rows if word.search(texts.get(oid, b""))]
        if hit:
            shown = ", ".join(hit[:NAMED]) + (", ..." if len(hit) > NAMED else "")
            out.append(f"{plural(len(hit), 'file')} naming {name} parsed only in part "
                       f"(syntax errors the parser recovered from): callers there may be "
                       f"missed ({shown})")
    return out
