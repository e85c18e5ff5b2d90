"""Pasted errors: the plan, and the chain that never answers nothing without saying why.

A pasted error (intent.Intent.pasted) has one thing to find, the code that printed it, so
its plan is the text modality alone, in steps, each tried only when the one before found
nothing, each saying so in the response's notes:
  1. "message": the trace's frames in this repository and the string expressions that build
     the message (retrievers/pasted.py);
  2. "fragments": the message's longest literal fragments (the runs between its quoted
     values and numbers), as plain literals;
  3. "words": fused search, the understand_code profile under the preset, for the
     message's distinctive words;
  4. "nothing": the repository holds none of it; the note names what was looked for.
Graph centrality does not reorder these answers (engine.py): which site printed a message
does not depend on how central its function is.

`probe` is the engine's look at the index for a sentence the classifier did not recognise
(row 7): if a source string builds it (a score of PROBE_MIN_SCORE: a raise or log
site covering most of it), it is a pasted message after all (spec.CONF_EXACT_PROBED).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from maguyva_guard import spec
from maguyva_guard.records import Hit
from maguyva_guard.retrievers.base import SearchRequest
from maguyva_guard.search import modalities
from maguyva_guard.search.intent import Intent
from maguyva_guard.search.pasted import MESSAGE, Pasted, distinctive_words, fragments

MESSAGE_STAGE, FRAGMENTS, WORDS, NOTHING = "message", "fragments", "words", "nothing"
PROBE_MIN_SCORE: Final = 0.6
PROBE_MIN_WORDS: Final = 3
PROBE_RULES: Final = ("7 fallback",)  # a question ("how", "why") is not a message


@dataclass(frozen=True)
class Outcome:
    ranked: dict[str, list[Hit]]
    failed: dict[str, str]
    modalities_run: tuple[str, ...]
    weights: Mapping[str, float]
    stage: str
    fused: bool = False  # the "words" step fuses; the others are direct
    notes: tuple[str, ...] = ()
    searched: tuple[str, ...] = field(default=())  # fragments or words looked for


def probe(found: Intent, query: str, factories: Mapping[str, modalities.Factory],
          limit: int, timeout: float) -> tuple[Intent, list[Hit]] | None:
    """A sentence of row 7 that a source string builds: (the exact_match intent, its
    hits); None when it is not one."""
    text = query.strip()
    if found.given or found.rule not in PROBE_RULES or "\n" in text \
            or len(text.split()) < PROBE_MIN_WORDS:
        return None
    request = SearchRequest(query=text, intent=spec.EXACT_MATCH, limit=limit, message=text)
    ranked, _ = modalities.run((spec.TEXT,), factories, request, timeout)
    hits = ranked.get(spec.TEXT, [])
    if not hits or hits[0].score < PROBE_MIN_SCORE:
        return None
    intent = Intent(spec.EXACT_MATCH, spec.CONF_EXACT_PROBED, "4 message found in the source",
                    (text,), pasted=Pasted(MESSAGE, text))
    return intent, hits


def run(found: Intent, pasted: Pasted, query: str, preset: str,
        factories: Mapping[str, modalities.Factory], limit: int, timeout: float,
        first: list[Hit] | None = None) -> Outcome:
    """The chain of the module doc. `first`: step 1's hits when the probe already ran it."""
    exact = spec.WEIGHTS[spec.EXACT_MATCH]
    if first is None:
        request = SearchRequest(query=query, intent=spec.EXACT_MATCH, terms=found.terms,
                                limit=limit, message=pasted.message,
                                error_class=pasted.error_class, frames=pasted.frames)
        ranked, failed = modalities.run((spec.TEXT,), factories, request, timeout)
    else:
        ranked, failed = {spec.TEXT: first}, {}
    if any(ranked.values()) or failed:
        return Outcome(ranked, failed, (spec.TEXT,), exact, MESSAGE_STAGE)
    notes = ["no string in this repository builds the message"]
    pieces = fragments(pasted.message)
    if pieces:
        request = SearchRequest(query=query, intent=spec.EXACT_MATCH, terms=pieces,
                                limit=limit)
        ranked, failed = modalities.run((spec.TEXT,), factories, request, timeout)
        notes.append("searched its longest literal fragments: "
                     + ", ".join(repr(p) for p in pieces))
        if any(ranked.values()):
            return Outcome(ranked, failed, (spec.TEXT,), exact, FRAGMENTS, notes=tuple(notes),
                           searched=pieces)
    words = distinctive_words(pasted.message) or tuple(pasted.message.split()[:8])
    run_order = spec.preset_modalities(preset, spec.UNDERSTAND_CODE)
    request = SearchRequest(query=" ".join(words), intent=spec.UNDERSTAND_CODE, terms=words,
                            limit=limit)
    ranked, failed = modalities.run(run_order, factories, request, timeout)
    notes.append(f"fused search ({', '.join(run_order)}) for its distinctive words: "
                 + ", ".join(words))
    stage = WORDS if any(ranked.values()) else NOTHING
    if stage == NOTHING:
        notes.append("nothing plausible: no file of this repository holds the message, its "
                     "fragments or its words")
    return Outcome(ranked, failed, run_order, spec.WEIGHTS[spec.UNDERSTAND_CODE], stage,
                   fused=True, notes=tuple(notes), searched=words)


def recognised_json(pasted: Pasted, outcome: Outcome) -> dict[str, Any]:
    """The query JSON's `recognised` object: what was read out of the paste, and which step
    of the chain answered."""
    return {**pasted.to_json(), "stage": outcome.stage, "searched": list(outcome.searched)}
