"""Callers across files in Lua: `require "a.b"` (a/b.lua, a/b/init.lua), the table a module
returns (`return M`), functions of a module table (`function M.f`, `M.f = function`,
`{ f = function() end }`), functions kept in locals (`local new = Cart.new`), methods
(`function M:m`) called on `self` and on instances built by `setmetatable({}, M)` or by a
constructor that returns one (`M.new`). A receiver of unknown type, or a global no
`require` binds, stays ambiguous."""

from __future__ import annotations

import pytest
from conftest import graph_hits

from maguyva_guard.records import AMBIGUOUS, EXACT

LUA = {
    "shop/cart.lua": (
        'local pricing = require("shop.pricing")\n\n'
        "local Cart = {}\nCart.__index = Cart\n\n"
        "function Cart.new(items)\n  local self = setmetatable({}, Cart)\n"
        "  self.items = items\n  return self\nend\n\n"
        "function Cart:total()\n  local sum = 0\n"
        "  for _, item in ipairs(self.items) do\n"
        "    sum = sum + pricing.discount(item)\n  end\n  return sum + self:tax()\nend\n\n"
        "function Cart:tax()\n  return 0\nend\n\n"
        "local function round(x)\n  return math.floor(x)\nend\n\n"
        "Cart.describe = function(cart)\n  return round(cart:total())\nend\n\n"
        "return Cart\n"
    ),
    "shop/pricing/init.lua": (
        "local P = {\n  discount = function(item)\n    return item.price\n  end,\n}\n\n"
        "function P.rate()\n  return 1\nend\n\nreturn P\n"
    ),
    "shop/checkout.lua": (
        'local Cart = require "shop.cart"\nlocal pricing = require("shop.pricing")\n\n'
        "local function run(items)\n  local cart = Cart.new(items)\n"
        "  print(cart:total() * pricing.rate())\n  return Cart.describe(cart)\nend\n\n"
        "local function build(items)\n  local c = setmetatable({ items = items }, Cart)\n"
        "  return c:tax()\nend\n\n"
        "return { run = run, build = build }\n"
    ),
    "shop/report.lua": (
        'local checkout = require("shop.checkout")\nrequire "shop.globals"\n\n'
        "local function show(obj)\n  return obj:total()\nend\n\n"
        "local function main(items)\n  checkout.run(items)\n  return greet()\nend\n\n"
        "return { show = show, main = main }\n"
    ),
    "shop/fast.lua": (
        'local Cart = require "shop.cart"\nlocal pricing = require "shop.pricing"\n'
        "local new, rate = Cart.new, pricing.rate\n\n"
        "local function quick(items)\n  return new(items), rate()\nend\n\n"
        "return { quick = quick }\n"
    ),
    "shop/globals.lua": "function greet()\n  return 'hi'\nend\n",
    "other/hello.lua": "local function hello()\n  return greet()\nend\n\nreturn hello\n",
    "other/invoice.lua": (
        "local Invoice = {}\n\nfunction Invoice:total()\n  return 1\nend\n\n"
        "function Invoice.tax()\n  return 2\nend\n\nreturn Invoice\n"
    ),
}

# (target (path, qualified name), exact callers, not callers, ambiguous callers)
CASES = {
    "module table function through require": (
        ("shop/cart.lua", "shop.cart.Cart.new"), {"shop.checkout.run"}, set(), set()),
    "method on self": (
        ("shop/cart.lua", "shop.cart.Cart.tax"), {"shop.cart.Cart.total"},
        {"other.invoice.Invoice.tax"}, set()),
    "method on an instance from the constructor": (
        ("shop/cart.lua", "shop.cart.Cart.total"), {"shop.checkout.run"}, set(), set()),
    "method on a setmetatable instance": (
        ("shop/cart.lua", "shop.cart.Cart.tax"), {"shop.checkout.build"}, set(), set()),
    "method on a parameter of unknown type is ambiguous": (
        ("shop/cart.lua", "shop.cart.Cart.total"), set(), set(), {"shop.report.show"}),
    "a.b/init.lua and a table constructor's function": (
        ("shop/pricing/init.lua", "shop.pricing.P.discount"), {"shop.cart.Cart.total"},
        set(), set()),
    "function added to the returned table": (
        ("shop/pricing/init.lua", "shop.pricing.P.rate"), {"shop.checkout.run"}, set(), set()),
    "assigned function field": (
        ("shop/cart.lua", "shop.cart.Cart.describe"), {"shop.checkout.run"}, set(), set()),
    "local function": (
        ("shop/cart.lua", "shop.cart.round"), {"shop.cart.Cart.describe"}, set(), set()),
    "module returning a table literal": (
        ("shop/checkout.lua", "shop.checkout.run"), {"shop.report.main"}, set(), set()),
    "functions kept in locals": (
        ("shop/cart.lua", "shop.cart.Cart.new"), {"shop.fast.quick"}, set(), set()),
    "a function kept in a local, of a table literal module": (
        ("shop/pricing/init.lua", "shop.pricing.P.rate"), {"shop.fast.quick"}, set(), set()),
    "a global of a required file": (
        ("shop/globals.lua", "shop.globals.greet"), {"shop.report.main"}, set(), set()),
    "a global no require binds stays ambiguous": (
        ("shop/globals.lua", "shop.globals.greet"), set(), set(), {"other.hello.hello"}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_lua_callers(make_repo, case):
    (path, qualified), exact, absent, ambiguous = CASES[case]
    hits = graph_hits(make_repo(LUA), qualified, path)
    found = {h.symbol: h.confidence for h in hits}
    assert exact <= set(found), found
    assert all(found[s] in (EXACT, "probable") for s in exact), found
    assert not (absent & set(found)), found
    assert all(found.get(s) == AMBIGUOUS for s in ambiguous), found
