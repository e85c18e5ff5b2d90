"""Is a cold index's content unchanged by a speed change? A digest of what it holds.

    python -m bench.indexdump REPO [--json OUT]       # digest the index of REPO as it is
    python -m bench.indexdump --compare A.json B.json # say which parts differ

Each record table (blobs, defs, refs, chunks, files) is digested over its rows sorted (row
order and blob ids depend on which worker finished first), with each blob's id replaced by
its git object id; meta over its keys except those that name a moment or the extractor's
own code; the vectors file over its (key, bits) records sorted by key. Run it on two cold
indexes of one repository (old code, new code) and compare: the same digests mean the same
index, whatever order it was written in.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sqlite3
import sys
from pathlib import Path

# Meta keys that differ between two builds of the same content by design.
VOLATILE_META = frozenset({"extractor", "built_at", "centrality_at"})
TABLES = {
    "blobs": "SELECT oid, language, size, status, parse_errors FROM blobs",
    "defs": "SELECT b.oid, d.name, d.qname, d.kind, d.line_start, d.line_end, d.signature, "
            "d.doc, d.parent, d.bases FROM defs d JOIN blobs b ON b.id = d.blob",
    "refs": "SELECT b.oid, r.name, r.kind, r.line, r.scope, r.receiver, r.target, r.alias "
            "FROM refs r JOIN blobs b ON b.id = r.blob",
    "chunks": "SELECT b.oid, c.symbol, c.line_start, c.line_end, c.hash, c.text "
              "FROM chunks c JOIN blobs b ON b.id = c.blob",
    "files": "SELECT path, blob, language, category FROM files",
    # PageRank's sums depend on the order nodes were added (which follows row ids): compare
    # to 9 decimals, far below any ranking difference.
    "centrality": "SELECT path, qualified_name, round(value, 9) FROM graph_centrality",
}


def _rows_digest(rows: list[tuple[object, ...]]) -> dict[str, object]:
    h = hashlib.sha256()
    for row in sorted(rows, key=repr):
        h.update(repr(row).encode("utf-8", "surrogatepass"))
    return {"rows": len(rows), "sha256": h.hexdigest()}


def digest(repo: Path) -> dict[str, dict[str, object]]:
    index_dir = repo / ".git" / "maguyva-guard"
    databases = sorted(index_dir.glob("index-v*.sqlite"))
    if not databases:
        raise SystemExit(f"no index under {index_dir}")
    conn = sqlite3.connect(f"file:{databases[-1]}?mode=ro", uri=True)
    out = {name: _rows_digest(conn.execute(sql).fetchall()) for name, sql in TABLES.items()}
    meta = [row for row in conn.execute("SELECT key, value FROM meta")
            if row[0] not in VOLATILE_META]
    out["meta"] = _rows_digest(meta)
    conn.close()
    for path in sorted(index_dir.glob("vectors-*.npy")):
        import numpy as np

        records = np.load(path, mmap_mode="r")
        pairs = sorted((bytes(r["key"]), bytes(r["bits"])) for r in records)
        h = hashlib.sha256()
        for key, bits in pairs:
            h.update(key + bits)
        out[path.name] = {"rows": len(pairs), "sha256": h.hexdigest()}
    return out


def compare(a: dict[str, dict[str, object]], b: dict[str, dict[str, object]]) -> list[str]:
    """One line per part: 'same' or how it differs."""
    lines = []
    for part in sorted(a.keys() | b.keys()):
        left, right = a.get(part), b.get(part)
        if left == right:
            lines.append(f"{part:58} same ({left['rows'] if left else 0} rows)")
        else:
            lines.append(f"{part:58} DIFFERS: {left} vs {right}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", nargs="?")
    parser.add_argument("--json", help="write the digest here")
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"))
    args = parser.parse_args()
    if args.compare:
        a, b = (json.loads(Path(p).read_text()) for p in args.compare)
        lines = compare(a, b)
        print("\n".join(lines))
        sys.exit(0 if all(line.endswith("rows)") for line in lines) else 1)
    if not args.repo:
        parser.error("REPO or --compare A B")
    found = digest(Path(args.repo))
    text = json.dumps(found, indent=1, sort_keys=True)
    if args.json:
        Path(args.json).write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
