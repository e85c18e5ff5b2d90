"""`check --format sarif`: SARIF 2.1.0 for code-scanning tools (GitHub code scanning).

One result per affected call site, under the rule of the change that affects it (the
riskiest when several do), at the call site's line. A lower-bound report says so in
`run.properties` and in a tool notification, so no consumer reads "no results" as "safe".
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import quote

from maguyva_guard import __version__
from maguyva_guard.guard.model import STAGED, ImpactReport, ranked
from maguyva_guard.guard.risk import HIGH, LEVELS, MEDIUM, is_due_to
from maguyva_guard.records import (
    ADDED,
    AMBIGUOUS,
    CLASS,
    CONSTANT,
    FUNCTION,
    INTERFACE,
    METHOD,
    MODIFIED,
    REMOVED,
    RENAMED,
    SIGNATURE_CHANGED,
    TYPE,
    Affected,
    ChangedSymbol,
)
from maguyva_guard.report import escape
from maguyva_guard.report.as_json import CENTRALITY_DIGITS, SCORE_DIGITS

SARIF_VERSION: Final = "2.1.0"
SARIF_SCHEMA: Final = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL_NAME: Final = "maguyva-guard"
SRCROOT: Final = "%SRCROOT%"  # result paths are relative to the repository root
FINGERPRINT_KEY: Final = "maguyvaGuard/v1"  # bump the suffix if the fingerprint changes
FINGERPRINT_HEX: Final = 32  # 128 bits of sha256: collisions are not a concern


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    short: str
    full: str
    level: str  # the default level, before the changed symbol's risk decides


# One rule per change kind, plus one for what only the fallback searches found. The ids are
# stable: GitHub matches alerts across runs by rule id and fingerprint.
RULES: Final[dict[str, Rule]] = {
    SIGNATURE_CHANGED: Rule(
        "MG001", "signature-changed-caller", "Caller of a symbol whose signature changed",
        "This code calls or uses a symbol whose parameters changed in this change; "
        "the call may no longer match them.", "warning",
    ),
    REMOVED: Rule(
        "MG002", "removed-symbol-caller", "Caller of a removed symbol",
        "This code refers to a symbol that this change removes.", "error",
    ),
    RENAMED: Rule(
        "MG003", "renamed-symbol-caller", "Caller of a renamed symbol",
        "This code refers to a symbol by the name that this change renames away.", "error",
    ),
    MODIFIED: Rule(
        "MG004", "modified-symbol-caller", "Caller of a symbol whose body changed",
        "This code depends on a symbol whose behaviour may have changed.", "note",
    ),
    ADDED: Rule(
        "MG005", "added-symbol-caller", "User of a newly added symbol",
        "This code refers to a name that this change defines anew; it may now resolve to "
        "the new definition.", "note",
    ),
}
FALLBACK_RULE: Final = Rule(
    "MG006", "fallback-match", "Code matched by a fallback search",
    "A change outside any symbol (module-level code, a constant, a language without symbol "
    "support) was searched for by text and meaning; this code matched.", "note",
)
# The order rules are listed in, so that the rule indexes of results are stable.
ALL_RULES: Final = (*RULES.values(), FALLBACK_RULE)

# Breaking changes first: they decide the rule when one caller is due to several changes.
_SEVERITY: Final = (ADDED, MODIFIED, SIGNATURE_CHANGED, RENAMED, REMOVED)
NOTE: Final = "note"
_LEVEL_OF_RISK: Final[dict[str, str]] = {HIGH: "error", MEDIUM: "warning"}  # low and none: "note"
_WEAKER: Final = {"error": "warning", "warning": NOTE, NOTE: NOTE}
# SARIF's logicalLocation kinds for ours (SARIF 2.1.0, 3.33.7).
_LOGICAL_KIND: Final = {
    FUNCTION: "function", METHOD: "member", CLASS: "type", INTERFACE: "type", TYPE: "type",
    CONSTANT: "variable",
}


def render_sarif(report: ImpactReport) -> str:
    return json.dumps(to_sarif(report), indent=2) + "\n"


def to_sarif(report: ImpactReport) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for a in ranked(report.affected):
        changed = _driving_change(a, report.changed_symbols)
        result = _result(a, changed)
        key = result["partialFingerprints"][FINGERPRINT_KEY]
        seen[key] = seen.get(key, -1) + 1  # two call sites in one function stay two results
        result["partialFingerprints"][FINGERPRINT_KEY] = _digest(key, str(seen[key]))
        results.append(result)
    run: dict[str, Any] = {
        "tool": {"driver": _driver()},
        "results": results,
        "invocations": [
            {"executionSuccessful": True, "toolExecutionNotifications": _notifications(report)}
        ],
        "properties": {
            "complete": report.complete,
            "incompleteReasons": list(report.incomplete_reasons),
            "summary": report.summary,
            "risk": report.risk,
            # Mentions are not alerts (a word search proves no dependency): counted only.
            "mentions": report.mention_count,
            "filesNotAnalysed": len(report.not_analysed),
        },
    }
    repo_url = escape.http_url(report.repo_url)
    if repo_url and report.head != STAGED:
        run["versionControlProvenance"] = [{"repositoryUri": repo_url, "revisionId": report.head}]
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def _driver() -> dict[str, Any]:
    return {
        "name": TOOL_NAME,
        "version": __version__,
        "semanticVersion": __version__,
        "rules": [
            {
                "id": r.id,
                "name": r.name,
                "shortDescription": {"text": r.short},
                "fullDescription": {"text": r.full},
                "defaultConfiguration": {"level": r.level},
            }
            for r in ALL_RULES
        ],
    }


def _driving_change(
    a: Affected, changed_symbols: tuple[ChangedSymbol, ...]
) -> ChangedSymbol | None:
    mine = [c for c in changed_symbols if is_due_to(a, c)]
    return max(
        mine, key=lambda c: (LEVELS.index(c.risk), _SEVERITY.index(c.change)), default=None
    )


def _result(a: Affected, changed: ChangedSymbol | None) -> dict[str, Any]:
    rule = RULES[changed.change] if changed else FALLBACK_RULE
    level = _LEVEL_OF_RISK.get(changed.risk, NOTE) if changed else NOTE
    if a.confidence == AMBIGUOUS:
        level = _WEAKER[level]  # the edge may not exist: one level down
    cause = changed.qualified_name if changed else ", ".join(a.because_of)
    return {
        "ruleId": rule.id,
        "ruleIndex": ALL_RULES.index(rule),
        "level": level,
        "message": {"text": _message(a, changed)},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": quote(a.path, safe="/"), "uriBaseId": SRCROOT},
                    "region": {"startLine": max(a.line, 1)},
                },
                "logicalLocations": [
                    {"fullyQualifiedName": a.symbol, "kind": _LOGICAL_KIND.get(a.kind, "module")}
                ],
            }
        ],
        # Line numbers stay out: the alert should survive code moving within the file.
        "partialFingerprints": {FINGERPRINT_KEY: _digest(rule.id, cause, a.path, a.symbol)},
        "properties": {
            "risk": changed.risk if changed else "none",
            "depth": a.depth,
            "confidence": a.confidence,
            "score": round(a.score, SCORE_DIGITS),
            "centrality": round(a.centrality, CENTRALITY_DIGITS),
            "modalities": list(a.modalities),
            "becauseOf": list(a.because_of),
            "via": list(a.via),
        },
    }


def _message(a: Affected, changed: ChangedSymbol | None) -> str:
    caller = escape.visible(a.symbol)
    how = f"confidence {a.confidence}; found by {'+'.join(a.modalities) or 'nothing'}"
    if changed is None:
        causes = escape.visible(", ".join(a.because_of))
        return f"{caller} matched a fallback search for a change in {causes} ({how})."
    chain = [n for n in a.via if n not in a.because_of and n != changed.qualified_name]
    through = f" through {escape.visible(' -> '.join(chain))}" if chain else ""
    others = len(a.because_of) - 1
    also = f" Also affected by {others} other changed symbol(s)." if others > 0 else ""
    return (
        f"{_what_happened(changed)}; {caller} {'calls or uses' if a.depth <= 1 else 'depends on'}"
        f" it{through} (depth {a.depth}; {how}).{also}"
    )


def _what_happened(c: ChangedSymbol) -> str:
    name = escape.visible(c.qualified_name)
    if c.change == RENAMED and c.old_name:
        return f"{name} was renamed from {escape.visible(c.old_name)}"
    said: dict[str, str] = {
        SIGNATURE_CHANGED: f"The signature of {name} changed",
        REMOVED: f"{name} was removed",
        RENAMED: f"{name} was renamed",
        MODIFIED: f"The body of {name} changed",
        ADDED: f"{name} was added",
    }
    return said[c.change]


def _notifications(report: ImpactReport) -> list[dict[str, Any]]:
    notes: list[dict[str, Any]] = []
    if not report.complete:
        reasons = "; ".join(report.incomplete_reasons)
        notes.append({
            "level": "warning",
            "descriptor": {"id": "lower-bound"},
            "message": {"text": f"These results are a lower bound: {escape.visible(reasons)}"},
        })
    for f in report.fallbacks:
        notes.append({
            "level": "note",
            "descriptor": {"id": "fallback"},
            "message": {"text": escape.visible(f"{f.path}: {f.reason}")},
            "locations": [{"physicalLocation": {"artifactLocation": {
                "uri": quote(f.path, safe="/"), "uriBaseId": SRCROOT}}}],
        })
    notes.extend(_file_notes(report))
    return notes


def _file_notes(report: ImpactReport) -> list[dict[str, Any]]:
    """Changed files whose code was not read (the lower bound's cause), and documentation
    that names a changed symbol, located where they are."""
    notes: list[dict[str, Any]] = []
    for f in report.files:
        if f.lower_bound:
            notes.append({
                "level": "warning",
                "descriptor": {"id": "not-analysed"},
                "message": {"text": escape.visible(f"{f.path}: {f.reason}")},
                "locations": [{"physicalLocation": {"artifactLocation": {
                    "uri": quote(f.path, safe="/"), "uriBaseId": SRCROOT}}}],
            })
    for d in report.docs_to_review:
        notes.append({
            "level": "note",
            "descriptor": {"id": "docs-to-review"},
            "message": {"text": escape.visible(f"{d.path}:{d.line} names {d.term} ({d.symbol})")},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": quote(d.path, safe="/"), "uriBaseId": SRCROOT},
                "region": {"startLine": max(d.line, 1)}}}],
        })
    return notes


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:FINGERPRINT_HEX]
