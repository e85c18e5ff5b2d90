"""The MCP tools: each a thin layer over maguyva_guard.api, paged to a token budget.

Their docstrings and argument descriptions are what the agent reads in tools/list: they
say what the tool answers, not how it works.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import Annotated, Any, Final, Literal

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from maguyva_guard import api
from maguyva_guard.commands import mcpviews, paging
from maguyva_guard.errors import FatalError
from maguyva_guard.index import centrality, indexer
from maguyva_guard.index.store import Store

NAMES: Final = ("search", "impact", "callers", "definition", "explain", "tests")  # as listed
Preset = Literal["quick", "default", "thorough"]
Cursor = Annotated[str | None, Field(description="page.next_cursor of the previous answer; "
                                                 "repeat the other arguments unchanged")]
MaxTokens = Annotated[int | None, Field(ge=paging.MIN_MAX_TOKENS, le=paging.MAX_MAX_TOKENS,
                                        description="this answer's budget (default: the "
                                        "server's); the rest comes by cursor")]


class Tools:
    """The tools' shared state: the repository, the budget, and the one-call-at-a-time lock."""

    def __init__(self, repo: str, max_tokens: int) -> None:
        self.repo = os.path.abspath(repo)  # messages name the folder, not "."
        self.max_tokens = max_tokens
        self.lock = threading.Lock()

    def answer(self, tool: str, args: dict[str, Any], cursor: str | None,
               ask: Callable[[], Any], show: Callable[[Any], mcpviews.View],
               max_tokens: int | None = None) -> str:
        """Ask the api, show the answer's view, page it; errors as tool errors."""
        try:
            with self.lock:
                found = ask()
            head, lists = show(found)
            digest = found.index.digest
            question = paging.question_key(tool, args)
            offset = paging.start(cursor, question, digest)
            return paging.page(head, lists, offset=offset, max_tokens=max_tokens or self.max_tokens,
                               question=question, index=digest)
        except FatalError as exc:
            raise ToolError(str(exc)) from None
        except Exception as exc:  # never a crash of the server: the agent reads what failed
            raise ToolError(f"internal error: {type(exc).__name__}: {exc}") from None

    def warm(self) -> None:
        """Bring the index up to date before the first question (a cold index of a large
        repository takes tens of seconds). A failure is said once on stderr, which clients
        keep as the server's log; each tool call then reports it to the agent."""
        try:
            with self.lock, Store.open(self.repo, exclusive=True) as store:
                indexer.update(store)
                centrality.refresh(store)
        except Exception as exc:  # noqa: BLE001 - every tool call reports it again
            print(f"maguyva-guard mcp: warning: {exc} (every tool will answer with this error)",
                  file=sys.stderr, flush=True)

    def search(
        self,
        question: Annotated[str, Field(description="what to find, in plain words or code: "
                                       "'how are migrations squashed', 'def parse_config'")],
        preset: Annotated[Preset, Field(description="how many retrievers run")] = "default",
        limit: Annotated[int, Field(ge=1, le=100, description="how many results")] = 10,
        cursor: Cursor = None,
        max_tokens: MaxTokens = None,
    ) -> str:
        """The fused code search (text, structure, call graph, embeddings): the intent it
        read, its confidence, the fusion strategy, and ranked results with path, lines,
        symbol, the retrievers that found each, and a short snippet."""
        return self.answer("search", {"q": question, "p": preset, "l": limit}, cursor,
                           lambda: api.search(self.repo, question, preset=preset, limit=limit,
                                              snippets=True),
                           mcpviews.search, max_tokens)

    def explain(
        self,
        question: Annotated[str, Field(description="the search question to explain")],
        preset: Annotated[Preset, Field(description="how many retrievers run")] = "default",
        limit: Annotated[int, Field(ge=1, le=100, description="how many results")] = 10,
        cursor: Cursor = None,
        max_tokens: MaxTokens = None,
    ) -> str:
        """How search answers a question: the classifier's rule and terms, the plan (direct
        or fused, k, retrievers run or failed), and each result's score contributions."""
        return self.answer("explain", {"q": question, "p": preset, "l": limit}, cursor,
                           lambda: api.explain(self.repo, question, preset=preset, limit=limit),
                           lambda a: mcpviews.search(a, explain=True), max_tokens)

    def definition(
        self,
        name: Annotated[str, Field(description="a qualified name (pkg.mod.Class.method), a "
                                   "dotted suffix of one (Class.method) or a bare name")],
        cursor: Cursor = None,
        max_tokens: MaxTokens = None,
    ) -> str:
        """Where a name is defined: qualified name, path, lines, kind, signature, doc."""
        return self.answer("definition", {"n": name}, cursor,
                           lambda: api.definition(self.repo, name), mcpviews.definition, max_tokens)

    def callers(
        self,
        symbol: Annotated[str, Field(description="the function, method or class: a qualified "
                                     "name or a dotted suffix naming one definition")],
        depth: Annotated[int, Field(ge=1, le=5, description="1: direct callers; 2: their "
                                    "callers too...")] = 1,
        cursor: Cursor = None,
        max_tokens: MaxTokens = None,
    ) -> str:
        """Who calls a symbol: resolved callers with depth, confidence (exact, probable,
        ambiguous) and chain; name-only matches apart in `possible`. complete=false means the
        list is a lower bound, for the reasons given."""
        return self.answer("callers", {"s": symbol, "d": depth}, cursor,
                           lambda: api.callers(self.repo, symbol, depth=depth), mcpviews.callers,
                           max_tokens)

    def impact(
        self,
        symbol: Annotated[str | None, Field(description="what if this symbol changed")] = None,
        base: Annotated[str | None, Field(description="compare merge-base(base, head)..head "
                                          "(a branch, tag or commit)")] = None,
        head: Annotated[str | None, Field(description="the head revision (needs base; "
                                          "default HEAD)")] = None,
        staged: Annotated[bool, Field(description="the staged changes (the default when "
                                      "neither symbol nor base is given)")] = False,
        depth: Annotated[int | None, Field(ge=1, le=5, description="how far to follow "
                                           "callers (default 2)")] = None,
        cursor: Cursor = None,
        max_tokens: MaxTokens = None,
    ) -> str:
        """What a change can break: changed symbols with their risk, affected callers with
        depth, confidence and chain, name-only `possible` callers, and the verdict
        (complete, or a lower bound with its reasons)."""
        args = {"s": symbol, "b": base, "h": head, "st": staged, "d": depth}
        if head and not base:
            raise ToolError("head needs base: give the base revision too (or neither)")
        return self.answer("impact", args, cursor,
                           lambda: api.impact(self.repo, symbol=symbol, base=base, head=head,
                                              staged=staged, depth=depth),
                           mcpviews.impact, max_tokens)

    def tests(
        self,
        base: Annotated[str | None, Field(description="compare merge-base(base, head)..head "
                                          "(a branch, tag or commit)")] = None,
        head: Annotated[str | None, Field(description="the head revision (needs base; "
                                          "default HEAD)")] = None,
        staged: Annotated[bool, Field(description="the staged changes (the default when "
                                      "base is not given)")] = False,
        cursor: Cursor = None,
        max_tokens: MaxTokens = None,
    ) -> str:
        """Which tests a change can break, each with the chain that selects it (test ->
        ... -> changed symbol); `run_all` with the reasons when the change cannot be
        followed (a conftest, test configuration, a lock file, an ambiguous edge)."""
        args = {"b": base, "h": head, "st": staged}
        if head and not base:
            raise ToolError("head needs base: give the base revision too (or neither)")
        return self.answer("tests", args, cursor,
                           lambda: api.tests(self.repo, base=base, head=head, staged=staged),
                           mcpviews.tests, max_tokens)
