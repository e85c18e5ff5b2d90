"""Where Ruby requires and PHP class names point (retrievers/scripting.py through
ImportPaths): require_relative, a load path, PSR-4 from composer.json or from folder names."""

from __future__ import annotations

import json

import pytest

from maguyva_guard.retrievers.importpaths import ImportPaths, Target

RUBY = ["lib/shop.rb", "lib/shop/cart.rb", "lib/shop/pricing/discount.rb", "app/models/cart.rb",
        "vendor/gems/x/lib/x/util.rb"]
PHP = ["src/Models/Cart.php", "legacy/Models/Cart.php", "src/Http/Controller.php",
       "lib/Util/Strings.php", "composer.json"]
COMPOSER = json.dumps({"autoload": {"psr-4": {"Acme\\Shop\\": "src/"}},
                       "autoload-dev": {"psr-4": {"Acme\\Tools\\": ["lib/", "tools/"]}}})


@pytest.mark.parametrize(("importer", "target", "expected"), [
    ("lib/shop.rb", "./shop/cart", "lib/shop/cart.rb"),  # require_relative
    ("lib/shop/cart.rb", "./pricing/discount", "lib/shop/pricing/discount.rb"),
    ("lib/shop/cart.rb", "./../shop", "lib/shop.rb"),
    ("app/x.rb", "shop/cart", "lib/shop/cart.rb"),  # require: lib/ is on the load path
    ("app/x.rb", "x/util", "vendor/gems/x/lib/x/util.rb"),  # a gem's lib/ folder
    ("app/x.rb", "json", None),  # the standard library
    ("lib/shop.rb", "./missing", None),
])
def test_a_ruby_require_points_at_a_file(importer: str, target: str,
                                         expected: str | None) -> None:
    found = ImportPaths(RUBY).resolve("ruby", importer, target)
    assert found == (Target(expected) if expected else None)


def test_composer_psr4_picks_the_mapped_folder_where_folder_names_are_ambiguous() -> None:
    with_composer = ImportPaths(PHP, {"composer.json": COMPOSER}.__getitem__)
    without = ImportPaths([p for p in PHP if p != "composer.json"])
    cart = "Acme.Shop.Models.Cart"
    assert with_composer.resolve("php", "x.php", cart) == Target("src/Models/Cart.php", ("Cart",))
    assert without.resolve("php", "x.php", cart) is None  # two Models/Cart.php: not settled
    assert with_composer.resolve("php", "x.php", "Acme.Tools.Util.Strings") == Target(
        "lib/Util/Strings.php", ("Strings",))  # autoload-dev, a list of folders


def test_php_without_composer_matches_the_trailing_namespace_segments() -> None:
    paths = ImportPaths(["src/Http/Controller.php", "src/Models/User.php"])
    assert paths.resolve("php", "x.php", "App.Http.Controller") == Target(
        "src/Http/Controller.php", ("Controller",))
    assert paths.resolve("php", "x.php", "Psr.Log.LoggerInterface") is None  # a dependency


def test_a_broken_composer_json_is_ignored() -> None:
    paths = ImportPaths(PHP, {"composer.json": "{not json"}.__getitem__)
    assert paths.resolve("php", "x.php", "Acme.Shop.Http.Controller") == Target(
        "src/Http/Controller.php", ("Controller",))
