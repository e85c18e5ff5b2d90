"""Real renderers for the report tests: Debian's Chromium (headless) and the Mermaid CLI.

Tests skip only when Node.js or Chromium is absent (.ci/run installs both). The Mermaid CLI
comes from the npm registry, pinned, into bench/.cache (gitignored, outside the package),
with Puppeteer's own browser download skipped: it drives /usr/bin/chromium instead.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MERMAID_VERSION = "11.17.0"
MERMAID_CLI = f"@mermaid-js/mermaid-cli@{MERMAID_VERSION}"
CLI_DIR = Path(os.environ.get("MG_MERMAID_CLI_DIR", ROOT / "bench" / ".cache" / "mermaid-cli"))
# No network, no profile state, no sandbox (CI runs as root in a container).
FLAGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-sync"]
TIMEOUT = 120


def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("Chromium is not installed (apt-get install chromium)")


def node() -> str:
    found = shutil.which("node")
    if not found or not shutil.which("npm"):
        pytest.skip("Node.js (node and npm) is not installed")
    return found


def mmdc() -> Path:
    """The mmdc command, installed on first use (a missing registry fails the test)."""
    node()
    binary = CLI_DIR / "node_modules" / ".bin" / "mmdc"
    package = CLI_DIR / "node_modules" / "@mermaid-js" / "mermaid-cli" / "package.json"
    installed = json.loads(package.read_text("utf-8"))["version"] if package.exists() else None
    if not binary.exists() or installed != MERMAID_VERSION:
        CLI_DIR.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "PUPPETEER_SKIP_DOWNLOAD": "1"}
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(CLI_DIR),
                        MERMAID_CLI], check=True, env=env, capture_output=True, timeout=600)
    return binary


def puppeteer_config(folder: Path) -> Path:
    path = folder / "puppeteer.json"
    path.write_text(json.dumps({"executablePath": chromium(), "args": FLAGS}), "utf-8")
    return path


def render_mermaid(source: str, folder: Path, fmt: str = "svg") -> Path:
    """Render a diagram with the real Mermaid; a syntax error fails with Mermaid's message."""
    binary = mmdc()
    src, out = folder / "diagram.mmd", folder / f"diagram.{fmt}"
    src.write_text(source, "utf-8")
    done = subprocess.run([str(binary), "-p", str(puppeteer_config(folder)), "-i", str(src),
                           "-o", str(out), "-q"], capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr[-2000:]
    return out


def run_chromium(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([chromium(), *FLAGS, *args], capture_output=True, text=True,
                          timeout=TIMEOUT)


def dump_dom(page: Path) -> str:
    """The DOM after the page's scripts ran, serialised."""
    done = run_chromium("--dump-dom", page.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def screenshot(page: Path, out: Path, size: str = "1280,1400") -> Path:
    done = run_chromium(f"--screenshot={out}", f"--window-size={size}", page.as_uri())
    assert done.returncode == 0 and out.exists(), done.stderr[-2000:]
    return out


class Elements(HTMLParser):
    """Every element of a document: (tag, attributes), and its text."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def tags(self) -> set[str]:
        return {tag for tag, _ in self.elements}

    def with_class(self, tag: str, name: str) -> list[dict[str, str | None]]:
        return [a for t, a in self.elements if t == tag and name in (a.get("class") or "").split()]


def png_pixels(path: Path) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB or RGBA PNG, unfiltered."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
            step = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, rows, prior = zlib.decompress(idat), [], bytearray(width * step)
    stride = width * step + 1
    for y in range(height):
        kind, line = raw[y * stride], bytearray(raw[y * stride + 1:(y + 1) * stride])
        for i in range(len(line)):
            a = line[i - step] if i >= step else 0
            b, c = prior[i], prior[i - step] if i >= step else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prior = line
    return width, height, rows


def colours(path: Path) -> dict[tuple[int, int, int], int]:
    """How many pixels of each RGB colour the screenshot has."""
    width, _, rows = png_pixels(path)
    step = len(rows[0]) // width
    counts: dict[tuple[int, int, int], int] = {}
    for row in rows:
        for x in range(0, len(row), step):
            key = (row[x], row[x + 1], row[x + 2])
            counts[key] = counts.get(key, 0) + 1
    return counts
