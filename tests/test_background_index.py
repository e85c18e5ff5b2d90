"""A cold `maguyva-guard index` leaves the semantic vectors and the centralities to a
background `index --vectors` (index/background.py): the records are usable at once, a check
meanwhile says its semantic results are partial and still finds the graph's callers, and
the job stores the same vectors and centralities as a build that waited for them."""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
from pathlib import Path

from click.testing import CliRunner, Result
from conftest import CALLED_CONFIG, callers, check, edit

from maguyva_guard.cli import main
from maguyva_guard.embed import backend as embedding
from maguyva_guard.index import parse as blobparse

# Enough new blobs for the parse workers, hence for the background job.
FILES = {**CALLED_CONFIG, **{f"pkg/m{i}.py": f"def scale_{i}(value):\n    return value * {i}\n"
                             for i in range(blobparse.PARALLEL_MIN_BLOBS)}}
NOTE = "semantic vectors and centralities: in the background (process "


def index(repo: Path, *args: str) -> Result:
    result = CliRunner().invoke(main, ["index", "--repo", str(repo), *args])
    assert result.exit_code == 0, result.output
    return result


def hold_job_lock(repo: Path) -> int:
    """Take the job's lock, as a job already at work would: the spawned one waits."""
    folder = repo / ".git" / "maguyva-guard"
    folder.mkdir(exist_ok=True)
    fd = os.open(folder / "background.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def vectors_and_centrality(repo: Path) -> tuple[dict[bytes, bytes], list[tuple]]:
    from maguyva_guard.embed import vectors

    folder = repo / ".git" / "maguyva-guard"
    (path,) = folder.glob("vectors-*.npy")
    found = vectors.load(path, 1024)
    assert found is not None
    (database,) = folder.glob("index-v*.sqlite")
    with sqlite3.connect(database) as conn:
        ranks = sorted(conn.execute(
            "SELECT path, qualified_name, round(value, 9) FROM graph_centrality"))
    return {k: found.bits[i].tobytes() for i, k in enumerate(found.keys)}, ranks


def test_a_check_before_the_background_vectors_says_semantic_is_partial_and_finds_callers(
        make_repo):
    repo = make_repo(FILES)
    held = hold_job_lock(repo)
    try:
        cold = index(repo)
        assert NOTE in cold.stderr
        assert not list((repo / ".git" / "maguyva-guard").glob("vectors-*.npy"))
        edit(repo, "pkg/config.py", "def parse_config(path):", "def parse_config(path, strict):")
        embedding._warned.clear()
        code, out, err = check(repo, "--format", "json")
        assert code == 0, err
        assert "semantic index incomplete: 0 of" in err
        assert "a background `maguyva-guard index --vectors` is computing the rest" in err
        assert ("pkg/cli.py", "main") in {(p, s.rpartition(".")[2]) for p, s in
                                          callers(json.loads(out))}
    finally:
        os.close(held)  # the spawned job goes on
    done = index(repo, "--vectors")
    assert "semantic vectors complete" in done.stderr
    embedding._warned.clear()
    code, _, err = check(repo, "--format", "json")
    assert code == 0 and "semantic index incomplete" not in err, err


def test_the_background_job_stores_what_a_build_that_waits_stores(make_repo):
    background, waited = make_repo(FILES), make_repo(FILES)
    cold = index(background)
    assert NOTE in cold.stderr
    finished = index(background, "--vectors")  # waits for the spawned job, or does its work
    assert "semantic vectors complete" in finished.stderr
    now = index(waited, "--embed-now")
    assert NOTE not in now.stderr
    vectors, ranks = vectors_and_centrality(background)
    assert len(vectors) > blobparse.PARALLEL_MIN_BLOBS < len(ranks)
    assert (vectors, ranks) == vectors_and_centrality(waited)
    # Rows in key order, whatever order the workers finished in: equally distant semantic
    # hits then come back in the same order from any build.
    assert list(vectors) == sorted(vectors)
    again = index(background)  # the view is embedded: nothing is left to the background
    assert NOTE not in again.stderr and "deferred" not in again.stderr
