"""bench/pasted_messages.py renders messages as a program prints them, from real source."""

from __future__ import annotations

from pathlib import Path

from bench.pasted_messages import half_prefixed, messages

SOURCE = '''
import logging
from pkg.errors import ImproperlyConfigured
log = logging.getLogger(__name__)

def f(name, n):
    raise ImproperlyConfigured(f"The {name!r} setting must not be empty.")
    raise ValueError("cannot take %d items from %s" % (n, name))
    raise KeyError("no entry named {} in the registry".format(name))
    raise TypeError(_("Enter a valid %(kind)s value.") % {"kind": name})
    raise RuntimeError("Invalid URL %r: No scheme supplied. "
                       "Perhaps you meant https://%s?" % (name, name))
    log.error("upload of " + name + " failed over the quota")
    raise ValueError(msg)
    raise ValueError("short")
'''


def test_each_construction_is_rendered_with_values(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(SOURCE)
    found = sorted(messages(tmp_path, ["pkg"]), key=lambda m: m.line)
    assert [m.message for m in found] == [
        "The 'title' setting must not be empty.",
        "cannot take 3 items from title",
        "no entry named utf-8 in the registry",
        "Enter a valid utf-8 value.",
        "Invalid URL 'main': No scheme supplied. Perhaps you meant https://title?",
        "upload of title failed over the quota",
    ]
    assert all(m.labels == ("pkg/mod.py",) for m in found)
    # Every other message is pasted with its class (module-qualified when imported, for
    # every other class site) or its log prefix in front.
    pasted = half_prefixed(found)
    assert [m.text.split(": ")[0] if m.prefix else "" for m in pasted] == [
        "pkg.errors.ImproperlyConfigured", "", "KeyError", "", "RuntimeError", ""]
    assert pasted[0].text == "pkg.errors.ImproperlyConfigured: The 'title' setting must not " \
                             "be empty."
