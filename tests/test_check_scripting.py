"""`maguyva-guard check` on real Ruby, PHP and Lua repositories: a signature change, a rename and a
removal are each pinned to the symbol, with the callers the resolver finds; a Lua comment
(`--`, also after code) is no change."""

from __future__ import annotations

import pytest
from conftest import callers, check, check_json, edit, git
from test_graph_lua import LUA
from test_graph_scripting import PHP, RUBY

# language -> (files, path, old line, new signature line, renamed line, symbol, its caller)
CASES = {
    "lua": (
        LUA, "shop/cart.lua", "function Cart.new(items)\n",
        "function Cart.new(items, currency)\n", "function Cart.make(items)\n",
        "shop.cart.Cart.new", ("shop/checkout.lua", "shop.checkout.run"),
    ),
    "ruby": (
        RUBY, "lib/shop/cart.rb", "    def self.build(items)\n",
        "    def self.build(items, currency)\n", "    def self.assemble(items)\n",
        "Shop.Cart.build", ("lib/shop/checkout.rb", "Shop.Checkout.run"),
    ),
    "php": (
        PHP, "src/Models/Cart.php",
        "    public static function make(array $items): static\n",
        "    public static function make(array $items, int $n): static\n",
        "    public static function build(array $items): static\n",
        "Cart.make", ("src/Http/CheckoutController.php", "CheckoutController.store"),
    ),
}


@pytest.mark.parametrize("language", sorted(CASES))
def test_signature_change_names_the_symbol_and_its_caller(make_repo, language):
    files, path, old, new, _, symbol, caller = CASES[language]
    repo = make_repo(files)
    edit(repo, path, old, new)
    report = check_json(repo)
    changes = {(s["path"], s["qualified_name"]): s["change"] for s in report["changed_symbols"]}
    assert changes == {(path, symbol): "signature_changed"}
    assert caller in callers(report)


@pytest.mark.parametrize("language", sorted(CASES))
def test_rename_is_looked_up_under_the_old_name(make_repo, language):
    files, path, old, _, renamed, symbol, caller = CASES[language]
    repo = make_repo(files)
    edit(repo, path, old, renamed)
    report = check_json(repo)
    (sym,) = report["changed_symbols"]
    assert sym["change"] == "renamed" and sym["old_name"] == symbol.rsplit(".", 1)[-1]
    assert caller in callers(report)


@pytest.mark.parametrize("language", sorted(CASES))
def test_removed_file_removes_its_symbols_and_keeps_their_callers(make_repo, language):
    files, path, _, _, _, symbol, caller = CASES[language]
    repo = make_repo(files)
    git(repo, "rm", "-q", path)
    report = check_json(repo)
    changes = {s["qualified_name"]: s["change"] for s in report["changed_symbols"]
               if s["path"] == path}
    assert changes[symbol] == "removed"
    assert caller in callers(report)


def test_a_lua_comment_is_no_change(make_repo):
    repo = make_repo(LUA)
    edit(repo, "shop/cart.lua", "function Cart:tax()\n  return 0\n",
         "-- Taxes are added at checkout.\nfunction Cart:tax()\n  return 0 -- for now\n")
    code, out, _ = check(repo)
    assert code == 0 and "No callers affected" in out, out
