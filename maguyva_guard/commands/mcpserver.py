"""`maguyva-guard mcp`: the engine as tools for coding agents, over MCP on stdio.

Built on the official `mcp` SDK (the `mcp` extra). Each tool (mcptools.py) is a thin layer
over maguyva_guard.api: the same answer the CLI gives, in the compact view of mcpviews.py,
cut to a token budget with a cursor for the rest (paging.py), and saying how fresh the index
was.
The index is brought up to date before every answer, as the CLI does.

A user's mistake (a symbol that names nothing, a bad revision, a folder outside a work tree)
is a tool error (isError) with its one-line message; so is anything unexpected, with its type
and message. The server itself never stops for a bad call. Calls are answered one at a time:
they share one index, which a check may switch to another revision's tree.
"""

from __future__ import annotations

import sys
import threading
from importlib import metadata
from typing import Final

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from maguyva_guard.commands import paging
from maguyva_guard.commands.mcptools import NAMES, Tools

NAME: Final = "maguyva-guard"
INSTRUCTIONS: Final = (
    "Code search and change impact for this git repository. Ask in plain terms: search for "
    "how/where questions, definition for where a name is defined, callers for who calls a "
    "symbol, impact for what a change (a symbol, the staged changes, or base..head) can "
    "break, explain for why search ranked what it did. Every answer says whether the index "
    "held the working tree (index.up_to_date); unstaged edits are not seen. Long answers "
    "come in pages: call again with the same arguments and page.next_cursor."
)
READ_ONLY: Final = ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                   idempotent_hint=True, open_world_hint=False)


def build(repo: str, max_tokens: int = paging.DEFAULT_MAX_TOKENS) -> tuple[MCPServer, Tools]:
    server: MCPServer = MCPServer(NAME, instructions=INSTRUCTIONS,
                                  version=metadata.version("maguyva-guard"))
    tools = Tools(repo, max_tokens)
    for name in NAMES:
        server.add_tool(getattr(tools, name), annotations=READ_ONLY, structured_output=False)
    return server, tools


def serve(repo: str, max_tokens: int = paging.DEFAULT_MAX_TOKENS) -> None:
    """Serve on stdin/stdout until the client closes the stream."""
    server, tools = build(repo, max(max_tokens, paging.MIN_MAX_TOKENS))
    threading.Thread(target=tools.warm, name="warm-index", daemon=True).start()
    try:
        server.run("stdio")
    except KeyboardInterrupt:  # pragma: no cover - a terminal's ^C
        sys.exit(0)
