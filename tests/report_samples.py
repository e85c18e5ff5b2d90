"""The report fixtures that several test files share: a report with every kind of entry
(the golden files' report), clean reports of N callers, hostile names, golden-file checks."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from maguyva_guard.guard import risk
from maguyva_guard.guard.model import ImpactReport, Stats
from maguyva_guard.records import (
    AMBIGUOUS,
    EXACT,
    MODIFIED,
    RENAMED,
    SIGNATURE_CHANGED,
    Affected,
    ChangedFile,
    ChangedSymbol,
    Contribution,
    DocMention,
    Fallback,
    Mention,
)
from maguyva_guard.spec import centrality_boost, rrf_contribution

HERE = Path(__file__).parent
GOLDEN = HERE / "golden"
TARGET = "pkg.config.parse_config"
HEAD = "abcdef0123456789abcdef0123456789abcdef01"
BASE = "1111111111111111111111111111111111111111"
URL = "https://github.com/acme/widgets"
K_THOROUGH = 60


def contribution(modality: str, rank: int, weight: float, centrality: float) -> Contribution:
    return Contribution(
        modality, rank, weight, centrality_boost(centrality),
        rrf_contribution(weight, rank, K_THOROUGH, centrality),
    )


def affected(
    path: str, symbol: str, line: int, *, score: float = 0.01, centrality: float = 1.0,
    depth: int = 1, because_of: tuple[str, ...] = (TARGET,), confidence: str = EXACT,
    modalities: tuple[str, ...] = ("graph",), via: tuple[str, ...] = (TARGET,),
    kind: str = "function",
) -> Affected:
    return Affected(
        path, symbol, line, kind, score, centrality, depth, because_of, modalities, "rrf",
        confidence, via,
        tuple(contribution(m, i, 0.7, centrality) for i, m in enumerate(modalities)),
    )


def fixture_report(**changes: Any) -> ImpactReport:
    """A signature change with 3 callers at depth 1 and 2 (one ambiguous), a body change
    without callers, a fallback and a possible (name-only) caller: the golden files' report."""
    callers = (
        affected("pkg/server.py", "pkg.server.Server.load", 40, score=0.0125, centrality=0.8,
                 confidence=AMBIGUOUS, kind="method"),
        affected("pkg/app.py", "pkg.app.run", 12, score=0.0101, centrality=1.1, depth=2,
                 via=(TARGET, "pkg.cli.main")),
        affected("pkg/cli.py", "pkg.cli.main", 88, score=0.0312, centrality=6.0,
                 modalities=("graph", "text")),
    )
    changed = risk.assess(
        [
            ChangedSymbol("pkg/config.py", "parse_config", TARGET, "function",
                          SIGNATURE_CHANGED, 10, 42),
            ChangedSymbol("pkg/util.py", "slugify", "pkg.util.slugify", "function",
                          MODIFIED, 5, 9),
        ],
        callers,
    )
    fields: dict[str, Any] = dict(
        repo=".", base=BASE, head=HEAD, changed_symbols=changed, affected=callers,
        fallbacks=(Fallback("config/defaults.yaml", "no symbol support for YAML",
                            ("parse_config", "timeout: 30")),),
        stats=Stats(12, 0.5, 0.25), repo_url=URL,
        possible=(affected("pkg/jobs.py", "pkg.jobs.<b>Job</b>.parse_config", 7, score=0.002,
                           confidence=AMBIGUOUS, kind="method"),),
        files=(ChangedFile("pkg/config.py", "code", "analysed", "1 changed symbol", 1),
               ChangedFile("config/defaults.yaml", "config", "analysed",
                           "changed keys searched for mentions"),
               ChangedFile("CHANGES.rst", "docs", "not-analysed",
                           "documentation, cannot change behaviour")),
        mentions=(Mention("pkg/settings.py", 3, "pkg.settings.<module>",
                          "config/defaults.yaml:<module>", "parse_config"),),
        mentions_hidden=(("config/defaults.yaml:<module>", 4),),
        docs_to_review=(DocMention("docs/api.md", 12, TARGET, "parse_config"),),
    )
    return ImpactReport(**(fields | changes))


def clean_report(n_callers: int = 1, **changes: Any) -> ImpactReport:
    """A complete report: exact callers only, no fallback."""
    callers = tuple(
        affected(f"pkg/m{i}.py", f"pkg.m{i}.f", i + 1, score=0.01 + i / 1000)
        for i in range(n_callers)
    )
    changed = risk.assess(
        [ChangedSymbol("pkg/config.py", "parse_config", TARGET, "function",
                       SIGNATURE_CHANGED, 10, 42)],
        callers,
    )
    fields: dict[str, Any] = dict(repo=".", base="main", head=HEAD, changed_symbols=changed,
                                  affected=callers, repo_url=URL)
    return ImpactReport(**(fields | changes))


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("MG_REGEN_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} is missing: run with MG_REGEN_GOLDEN=1 and review it"
    assert text == path.read_text(encoding="utf-8")


HOSTILE = [
    "<script>alert(1)</script>",
    "```\n</details><img src=x onerror=alert(1)>```",
    "`a` ``b``",
    "@octocat and @github/security",
    "](javascript:alert(1))",
    "[click](javascript:alert(1))",
    "a|b|c",
    "dir\nname\r.py",
    "#123 and GH-1",
    "**bold** _it_ ~~s~~ $x$",
    "<!-- maguyva-guard -->",
    "\\`escaped\\`",
    "&lt;script&gt;",
]


def hostile_report() -> ImpactReport:
    changed, callers = [], []
    for i, evil in enumerate(HOSTILE):
        name = f"pkg.{evil}"
        changed.append(ChangedSymbol(f"{evil}.py", evil, name, "function", RENAMED, 1, 2,
                                     old_name=evil))
        callers.append(affected(f"{evil}/x{i}.py", evil, i + 1, because_of=(name,),
                                via=(name, evil), depth=2))
    fallbacks = (Fallback(HOSTILE[0], HOSTILE[4], tuple(HOSTILE[1:4])),)
    return ImpactReport(".", HOSTILE[3], HEAD, tuple(changed), tuple(callers), fallbacks,
                        incomplete_reasons=(HOSTILE[0], HOSTILE[3]), repo_url=URL)
