"""The generic tier: every other programming language of the language pack gets its
definitions from a tags query and its calls by name, always `ambiguous`; a change in such a
file is pinned to its symbols; `check` says the list is a lower bound; `tests` runs all."""

from __future__ import annotations

import json

import pytest
from conftest import check, check_json, edit, git
from regen_golden import golden_languages, sample_path

from maguyva_guard.cli import main
from maguyva_guard.extract.generic import GENERIC
from maguyva_guard.extract.languages import LANGUAGES, language_for
from maguyva_guard.extract.symbols import extract
from maguyva_guard.index import indexer
from maguyva_guard.index.store import Store
from maguyva_guard.records import AMBIGUOUS, CALL
from maguyva_guard.retrievers.base import SearchRequest
from maguyva_guard.retrievers.graph import GraphRetriever

GENERIC_NAMES = sorted(g.name for g in GENERIC)

# Language families, each with one golden fixture (its first language): the golden pins
# signatures, spans, chunks and references; the table below pins every language's names.
FAMILIES = {
    "scripting": ("luau", "perl", "tcl", "vim", "magik"),
    "shells": ("bash", "fish", "powershell"),
    "beam": ("elixir", "erlang", "gleam"),
    "ml and haskell": ("haskell", "ocaml", "ocaml_interface", "elm", "purescript", "fsharp",
                       "agda"),
    "lisps": ("clojure", "commonlisp", "elisp", "scheme", "racket", "fennel", "janet",
              "clarity"),
    "systems": ("zig", "odin", "hare", "d", "nim", "cairo", "pony"),
    "c family and shaders": ("glsl", "cuda", "arduino", "hlsl", "ispc", "wgsl", "objc",
                             "nqc", "func"),
    "class-based": ("dart", "haxe", "apex", "hack", "actionscript", "squirrel", "solidity",
                    "gdscript", "starlark"),
    "scientific": ("julia", "r", "fortran"),
    "pascal and ada": ("pascal", "ada"),
    "hardware": ("verilog", "vhdl"),
}

# The qualified names each language's sample defines (read from the samples by hand).
DEFINED = {
    "actionscript": {'shop.Cart', 'shop.Cart.total'},
    "ada": {'Cart.Show', 'Cart.Total'},
    "agda": {'Nat', 'Nat.suc', 'Nat.zero', 'helper', 'total'},
    "apex": {'Cart', 'Cart.helper', 'Cart.total'},
    "arduino": {'helper', 'loop', 'setup'},
    "bash": {'helper', 'parse_config'},
    "cairo": {'Item', 'P', 'P.f', 'helper', 'shop.g', 'total'},
    "clarity": {'RATE', 'get-rate', 'total'},
    "clojure": {'P', 'R', 'helper', 'm', 'rate', 'total'},
    "commonlisp": {'*rate*', 'cost', 'item', 'm', 'total'},
    "cuda": {'Item', 'helper', 'total'},
    "d": {'Cart', 'Cart.total', 'E', 'Item', 'P', 'P.f', 'helper'},
    "dart": {'Cart', 'Cart.named', 'Cart.total', 'E', 'M', 'X', 'X.f', 'helper'},
    "elisp": {'shop-c', 'shop-m', 'shop-rate', 'shop-total'},
    "elixir": {'Shop.Cart.helper', 'Shop.Cart.m', 'Shop.Cart.total'},
    "elm": {'Item', 'Msg', 'helper', 'total'},
    "erlang": {'helper', 'item', 'total'},
    "fennel": {'l', 'm', 'total'},
    "fish": {'helper', 'parse_config'},
    "fortran": {'cart.show', 'cart.total', 'main'},
    "fsharp": {'Cart', 'Cart.Total', 'Item', 'helper', 'total'},
    "func": {'helper', 'total'},
    "gdscript": {'Inner', 'Inner.f', 'RATE', 'done', 'helper', 'total'},
    "gleam": {'Item', 'helper', 'rate', 'total'},
    "glsl": {'Light', 'helper', 'main', 'total'},
    "hack": {'Cart', 'Cart.total', 'helper'},
    "hare": {'helper', 'item', 'total'},
    "haskell": {'Cart', 'Item', 'Priced', 'helper', 'total'},
    "haxe": {'Cart', 'Cart.helper', 'Cart.total', 'P', 'P.f', 'T'},
    "hlsl": {'Light', 'helper', 'total'},
    "ispc": {'f', 'total'},
    "janet": {'helper', 'm', 'rate', 'total'},
    "julia": {'Shop.Item', 'Shop.Priced', 'Shop.helper', 'Shop.m', 'Shop.total'},
    "luau": {'M.parse', 'Point', 'helper'},
    "magik": {'cart.total'},
    "nim": {'Item', 'cost', 'each', 'helper', 'm', 't', 'total'},
    "nqc": {'helper', 'main', 's'},
    "objc": {'Cart', 'Cart.make', 'Cart.total', 'helper'},
    "ocaml": {'Cart.helper', 'Cart.item', 'Cart.total', 'counter', 'counter.incr', 'run'},
    "ocaml_interface": {'Cart.helper', 'item', 'total'},
    "odin": {'Item', 'helper', 'total'},
    "pascal": {'Show', 'TCart', 'TCart.Add', 'Total'},
    "perl": {'new', 'total'},
    "pony": {'Cart', 'Cart.total', 'Main', 'Main.create', 'Main.helper', 'P', 'P.f'},
    "powershell": {'Cart', 'Cart.Total', 'Get-Helper', 'Get-Total'},
    "purescript": {'Item', 'Priced', 'helper', 'total'},
    "r": {'helper', 'total'},
    "racket": {'item', 'rate', 'total'},
    "scheme": {'m', 'rate', 'total'},
    "solidity": {'Cart', 'Cart.Done', 'Cart.Item', 'Cart.helper', 'Cart.onlyOwner', 'Cart.rate',
                 'Cart.total', 'L', 'L.g', 'P', 'P.f'},
    "squirrel": {'Cart', 'Cart.f', 'helper', 'total'},
    "starlark": {'RATE', 'helper', 'total'},
    "tcl": {'f', 'helper', 'total'},
    "verilog": {'cart', 'cart.show', 'cart.total'},
    "vhdl": {'cart', 'rtl'},
    "vim": {'Total', 'helper', 'shop#total'},
    "wgsl": {'Light', 'helper', 'total'},
    "zig": {'Item', 'Item.cost', 'helper', 'total'},
}


def test_every_generic_language_is_in_one_family_and_each_family_has_a_golden():
    members = [lang for family in FAMILIES.values() for lang in family]
    assert sorted(members) == GENERIC_NAMES
    goldens = set(golden_languages())
    assert all(family[0] in goldens for family in FAMILIES.values())
    assert sorted(DEFINED) == GENERIC_NAMES


@pytest.mark.parametrize("language", GENERIC_NAMES)
def test_each_generic_sample_parses_and_yields_its_definitions(language):
    spec = LANGUAGES[language]
    assert spec.generic and spec.query_file == f"generic/{language}.scm"
    sample = sample_path(language)
    assert language_for(sample.name) == language
    symbols = extract(sample.read_bytes(), language)
    assert symbols.parse_errors == 0
    assert {d.qualified_name for d in symbols.definitions} == DEFINED[language]
    assert {r.kind for r in symbols.references} <= {CALL}  # calls by name, nothing else


def test_no_extension_is_claimed_twice_and_scm_stays_unclaimed():
    extensions = [ext for spec in LANGUAGES.values() for ext in spec.extensions]
    assert len(extensions) == len(set(extensions))
    assert language_for("queries/python.scm") is None  # tree-sitter query files


# Luau (Roblox's Lua; Lua itself is a resolved language now: test_graph_lua.py).
LUAU = {
    "lib/config.luau": (
        "local M = {}\n\nfunction M.parse(path)\n  return read(path)\nend\n\n"
        "function read(path)\n  return path\nend\n\nreturn M\n"
    ),
    "app/main.luau": (
        "local config = require('lib.config')\n\nfunction run()\n"
        "  return config.parse('a')\nend\n\nfunction other()\n  return read('x')\nend\n"
    ),
    "tests/test_config.luau": "function test_parse()\n  return run()\nend\n",
    "tests/test_other.py": "def test_x():\n    assert True\n",
}


def test_a_generic_call_is_matched_by_name_and_never_more_than_ambiguous(make_repo):
    repo = make_repo(LUAU)
    with Store.open(repo) as store:
        indexer.update(store)
        (target,) = store.definitions(name="read")
        hits = GraphRetriever(store).search(
            SearchRequest(query="", intent="find_references", target=target, limit=0))
    found = {h.symbol: h.confidence for h in hits}
    assert found == {"lib.config.M.parse": AMBIGUOUS, "app.main.other": AMBIGUOUS}


def test_check_pins_a_luau_signature_change_and_says_lower_bound(make_repo):
    repo = make_repo(LUAU)
    edit(repo, "lib/config.luau", "function M.parse(path)", "function M.parse(path, strict)")
    report = check_json(repo)
    changes = {(s["qualified_name"], s["change"]) for s in report["changed_symbols"]}
    assert changes == {("lib.config.M.parse", "signature_changed")}
    # Matched by name only: a possible caller, listed apart, never an affected one.
    possible = {a["symbol"]: a["confidence"] for a in report["possible"]}
    assert possible.get("app.main.run") == AMBIGUOUS, possible
    assert "app.main.run" not in {a["symbol"] for a in report["affected"]}
    assert report["complete"] is False
    assert any("generic tier" in r for r in report["incomplete_reasons"])
    assert any(r.startswith("lib.config.M.parse: no resolved caller")
               for r in report["incomplete_reasons"])
    (entry,) = report["files"]
    assert entry["treatment"] == "analysed"
    assert entry["reason"] == "1 changed symbol; generic tier: callers matched by name only"


def test_check_pins_a_luau_rename_and_a_removal(make_repo):
    repo = make_repo(LUAU)
    edit(repo, "lib/config.luau", "function read(path)", "function load(path)")
    report = check_json(repo)
    (sym,) = report["changed_symbols"]
    assert (sym["change"], sym["old_name"], sym["name"]) == ("renamed", "read", "load")
    assert "app.main.other" in {a["symbol"] for a in report["possible"]}
    git(repo, "rm", "-q", "-f", "lib/config.luau")
    report = check_json(repo)
    removed = {s["qualified_name"] for s in report["changed_symbols"] if s["change"] == "removed"}
    assert removed == {"lib.config.M.parse", "lib.config.read"}


def test_a_generic_tier_change_selects_every_test(make_repo, capsys):
    repo = make_repo(LUAU)
    edit(repo, "lib/config.luau", "function M.parse(path)", "function M.parse(path, strict)")
    with pytest.raises(SystemExit) as exit_info:
        main(["tests", "--repo", str(repo), "--format", "json"])
    assert exit_info.value.code == 0
    selection = json.loads(capsys.readouterr().out)
    assert selection["run_all"] is True
    assert any("generic tier" in r for r in selection["reasons"]), selection["reasons"]


def test_a_comment_only_change_in_a_generic_file_raises_no_alarm(make_repo):
    repo = make_repo(LUAU)
    edit(repo, "lib/config.luau", "local M = {}\n", "-- The configuration module.\nlocal M = {}\n")
    code, out, _ = check(repo)
    assert code == 0 and "No callers affected" in out
