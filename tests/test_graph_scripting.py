"""Callers across files in Ruby and PHP: require/require_relative and autoloaded constants,
reopened classes, mixins, `self.`/implicit self; PHP namespaces, `use` aliases, PSR-4
(composer.json or folder suffixes), `$this->`, `self::`, `static::`, `parent::`, `new`,
traits. What the resolver cannot settle stays ambiguous."""

from __future__ import annotations

import json

import pytest
from conftest import graph_hits

from maguyva_guard.records import AMBIGUOUS, EXACT

RUBY = {
    "lib/shop/cart.rb": (
        "module Shop\n  class Cart < Base\n    include Pricing\n"
        "    def initialize(items)\n      @items = items\n    end\n\n"
        "    def total\n      discount(1)\n      self.tax\n    end\n\n"
        "    def self.build(items)\n      new(items)\n    end\n  end\nend\n"
    ),
    "lib/shop/cart_tax.rb": (
        "module Shop\n  class Cart\n    def tax\n      0\n    end\n  end\nend\n"
    ),
    "lib/shop/pricing.rb": (
        "module Shop\n  module Pricing\n    def discount(rate)\n      rate\n    end\n"
        "  end\nend\n"
    ),
    "lib/shop/base.rb": "module Shop\n  class Base\n    def audit\n    end\n  end\nend\n",
    "lib/shop/checkout.rb": (
        "require_relative 'cart'\n\nmodule Shop\n  class Checkout\n"
        "    def run(items)\n      cart = Cart.new(items)\n      Shop::Cart.build(items)\n"
        "      cart.total\n    end\n  end\nend\n"
    ),
    "lib/other.rb": (
        "class Invoice\n  def total\n    0\n  end\n\n  def print\n    total\n  end\n\n"
        "  def due\n    [total - 1, 0].max\n  end\n\n"
        "  def shadowed\n    total = 3\n    total\n  end\nend\n"
        "def tax\n  1\nend\n"
    ),
}

# Methods named by a symbol: renaming one breaks each of these lines (measured on Thor:
# `alias_method :prepend_file, :prepend_to_file`, `klass.send(:dispatch, ...)`, the
# SHELL_DELEGATED_METHODS list of delegated names).
RUBY_SYMBOLS = {
    "lib/report.rb": (
        "class Report\n  DELEGATED = [:summary, :title]\n  alias_method :brief, :summary\n\n"
        "  def summary\n    1\n  end\n\n  def run\n    send(:summary)\n  end\n\n"
        "  def all(items)\n    items.map(&:summary)\n  end\nend\n"
    ),
    "lib/printer.rb": (
        "class Printer\n  def show(obj)\n    obj.public_send(:summary)\n"
        "    obj.respond_to?(:summary)\n  end\n\n  def other\n    { summary: 1 }\n"
        "  end\nend\n\nclass Digest\n  def summary\n    2\n  end\nend\n"
    ),
}

PHP = {
    "composer.json": json.dumps({"autoload": {"psr-4": {"Acme\\Shop\\": "src/"}}}),
    "src/Models/Cart.php": (
        "<?php\nnamespace Acme\\Shop\\Models;\n\nclass Cart extends Base\n{\n"
        "    use Pricing;\n"
        "    public function __construct(array $items) { parent::__construct(); }\n"
        "    public static function make(array $items): static\n    {\n"
        "        return new static($items);\n    }\n"
        "    public function total(): int { return $this->discount(self::rate()); }\n"
        "    public static function rate(): int { return static::base(); }\n"
        "    public static function base(): int { return 1; }\n}\n"
    ),
    "src/Models/Base.php": (
        "<?php\nnamespace Acme\\Shop\\Models;\n\nabstract class Base\n{\n"
        "    public function __construct() {}\n    public function audit() {}\n}\n"
    ),
    "src/Models/Pricing.php": (
        "<?php\nnamespace Acme\\Shop\\Models;\n\ntrait Pricing\n{\n"
        "    public function discount(int $rate): int { return $rate; }\n}\n"
    ),
    "src/Http/CheckoutController.php": (
        "<?php\nnamespace Acme\\Shop\\Http;\n\nuse Acme\\Shop\\Models\\Cart as ShopCart;\n\n"
        "class CheckoutController\n{\n"
        "    public function store(array $items) { $cart = new ShopCart($items);"
        " return ShopCart::make($items); }\n"
        "    public function show($cart) { return $cart->total(); }\n"
        "    public function audit() { $this->audit(); }\n}\n"
    ),
    "src/Legacy/Cart.php": (
        "<?php\nnamespace Acme\\Shop\\Legacy;\n\nclass Cart\n{\n"
        "    public static function make() { return new Cart(); }\n"
        "    public function total() { return 0; }\n}\n"
    ),
}

# (files, target (path, qualified name), exact callers, not callers, ambiguous callers)
CASES = {
    "ruby constant and require_relative": (
        RUBY, ("lib/shop/cart.rb", "Shop.Cart.build"), {"Shop.Checkout.run"},
        {"Shop.Cart.total"}, set()),
    "ruby Foo.new runs initialize": (
        RUBY, ("lib/shop/cart.rb", "Shop.Cart.initialize"), {"Shop.Checkout.run"},
        set(), set()),
    "ruby mixin method on self": (
        RUBY, ("lib/shop/pricing.rb", "Shop.Pricing.discount"), {"Shop.Cart.total"},
        set(), set()),
    "ruby reopened class, self. call": (
        RUBY, ("lib/shop/cart_tax.rb", "Shop.Cart.tax"), {"Shop.Cart.total"},
        set(), set()),
    "ruby implicit self is the own class": (
        RUBY, ("lib/other.rb", "Invoice.total"), {"Invoice.print", "Invoice.due"},
        {"Invoice.shadowed"}, {"Shop.Checkout.run"}),
    "ruby method named by a symbol": (
        RUBY_SYMBOLS, ("lib/report.rb", "Report.summary"),
        {"Report", "Report.DELEGATED", "Report.run"}, {"Printer.other"}, set()),
    "ruby method named by a symbol on another object": (
        RUBY_SYMBOLS, ("lib/report.rb", "Report.summary"), set(), set(),
        {"Report.all", "Printer.show"}),
    "php use alias and static call": (
        PHP, ("src/Models/Cart.php", "Cart.make"), {"CheckoutController.store"},
        {"Cart.make"}, set()),
    "php new runs __construct": (
        PHP, ("src/Models/Cart.php", "Cart.__construct"), {"CheckoutController.store"},
        {"Cart.make"}, set()),
    "php parent:: reaches the base": (
        PHP, ("src/Models/Base.php", "Base.__construct"), {"Cart.__construct"}, set(), set()),
    "php self:: and static::": (
        PHP, ("src/Models/Cart.php", "Cart.rate"), {"Cart.total"}, set(), set()),
    "php static:: on the own class": (
        PHP, ("src/Models/Cart.php", "Cart.base"), {"Cart.rate"}, set(), set()),
    "php trait method on $this": (
        PHP, ("src/Models/Pricing.php", "Pricing.discount"), {"Cart.total"}, set(), set()),
    "php receiver of unknown type stays ambiguous": (
        PHP, ("src/Models/Cart.php", "Cart.total"), set(), set(), {"CheckoutController.show"}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_script_callers(make_repo, case):
    files, (path, qualified), exact, absent, ambiguous = CASES[case]
    hits = graph_hits(make_repo(files), qualified, path)
    found = {h.symbol: h.confidence for h in hits}
    assert exact <= set(found), found
    assert all(found[s] == EXACT for s in exact), found
    assert not (absent & set(found)), found
    assert all(found.get(s) == AMBIGUOUS for s in ambiguous), found
