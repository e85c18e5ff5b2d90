"""Receivers whose type the code shows, typed so that their calls resolve (issue 17: the
callers jedi finds on real release diffs and name matching alone cannot settle), each on a
real repository through the real CLI. Every fixture has a second class with a method of the
same name, so that a name-only match would be ambiguous (a possible caller, not affected)."""

from __future__ import annotations

from conftest import check_json, edit

HEADERS = (
    "class Headers:\n"
    "    def get(self, key):\n"
    "        return key\n"
    "\n"
    "\n"
    "class Other:\n"
    "    def get(self, key):\n"
    "        return key\n"
)
CHANGE = ("app/ds.py", "    def get(self, key):\n        return key\n\n\nclass Other",
          "    def get(self, key, default):\n        return key\n\n\nclass Other")


def callers_of_get(make_repo, use: str) -> tuple[dict[tuple[str, int], str], list]:
    """Depth-1 callers (path, line) -> confidence after Headers.get's signature changed,
    and the possible callers' (path, line)."""
    repo = make_repo({"app/__init__.py": "", "app/ds.py": HEADERS, "app/use.py": use})
    edit(repo, *CHANGE)
    report = check_json(repo, "--depth", "1")
    assert [c["qualified_name"] for c in report["changed_symbols"]] == ["app.ds.Headers.get"]
    found = {(a["path"], a["line"]): a["confidence"] for a in report["affected"]
             if a["depth"] == 1}
    return found, [(a["path"], a["line"]) for a in report["possible"]]


def test_a_class_attribute_holding_a_class_builds_its_instances(make_repo) -> None:
    use = ("from app import ds\n\n\n"
           "class TestHeaders:\n"
           "    storage_class = ds.Headers\n\n"
           "    def test_get(self):\n"
           "        h = self.storage_class()\n"
           "        return h.get('a')\n\n"
           "    def test_alias(self):\n"
           "        cls = self.storage_class\n"
           "        return cls().get('b')\n")
    found, possible = callers_of_get(make_repo, use)
    assert set(found) == {("app/use.py", 9), ("app/use.py", 13)}, (found, possible)
    assert possible == []


def test_an_attribute_annotated_type_of_a_class_builds_its_instances(make_repo) -> None:
    use = ("import typing as t\n\nfrom app.ds import Headers\n\n\n"
           "class Base:\n"
           "    storage_class: t.Type[Headers]\n"
           "    other_class: type['Headers']\n\n"
           "    def test_get(self):\n"
           "        return self.storage_class().get('a')\n\n"
           "    def test_other(self):\n"
           "        return self.other_class().get('b')\n")
    found, possible = callers_of_get(make_repo, use)
    assert set(found) == {("app/use.py", 11), ("app/use.py", 14)}, (found, possible)


def test_an_attribute_of_a_typed_parameter_has_its_declared_type(make_repo) -> None:
    use = ("from dataclasses import dataclass\n\nfrom app.ds import Headers\n\n\n"
           "@dataclass\nclass File:\n    name: str\n    headers: Headers\n\n\n"
           "class Part:\n    def __init__(self):\n        self.headers = Headers()\n\n\n"
           "def stream(event: File):\n    return event.headers.get('content-type')\n\n\n"
           "def part(p: Part):\n    return p.headers.get('x')\n")
    found, possible = callers_of_get(make_repo, use)
    assert set(found) == {("app/use.py", 18), ("app/use.py", 22)}, (found, possible)


def test_a_return_annotation_with_type_arguments_types_the_call(make_repo) -> None:
    use = ("import typing as t\n\nfrom app.ds import Headers\n\n\n"
           "def parse(text) -> Headers[str, str]:\n    return make(text)\n\n\n"
           "class Request:\n    @property\n    def cookies(self) -> 'Headers[str, t.Any]':\n"
           "        return make(1)\n\n\n"
           "def trust(environ):\n    return parse(environ).get('pin')\n\n\n"
           "def read(req: Request):\n    return req.cookies.get('a')\n")
    found, possible = callers_of_get(make_repo, use)
    assert set(found) == {("app/use.py", 17), ("app/use.py", 21)}, (found, possible)


def test_an_annotated_self_outside_a_class_is_typed_by_its_annotation(make_repo) -> None:
    use = ("from app.ds import Headers\n\n\n"
           "class Response:\n    headers: Headers\n\n\n"
           "def _set_property(name):\n"
           "    def fget(self: Response):\n"
           "        return self.headers.get(name)\n\n"
           "    return property(fget)\n")
    found, possible = callers_of_get(make_repo, use)
    assert set(found) == {("app/use.py", 10)}, (found, possible)


def test_a_method_returning_self_type_gives_its_class(make_repo) -> None:
    use = ("import typing_extensions as te\n\nfrom app import ds\n\n\n"
           "class Sub(ds.Headers):\n"
           "    def copy(self) -> te.Self:\n        return type(self)()\n\n"
           "    def __or__(self, other):\n"
           "        rv = self.copy()\n        return rv.get(other)\n")
    found, possible = callers_of_get(make_repo, use)
    assert set(found) == {("app/use.py", 12)}, (found, possible)


def test_an_annotation_naming_a_class_is_no_caller_of_its_constructor(make_repo) -> None:
    """A constructor's signature change breaks `Headers(...)` and subclasses, not `h:
    Headers` nor `isinstance(h, Headers)` (werkzeug: `remove_entity_headers(headers:
    ds.Headers | list)`)."""
    ds = HEADERS.replace("class Headers:\n", "class Headers:\n"
                         "    def __init__(self, items=None):\n        self.items = items\n\n")
    repo = make_repo({"app/__init__.py": "", "app/ds.py": ds, "app/use.py": (
        "from app.ds import Headers\n\n\n"
        "def typed(h: Headers | None) -> 'Headers':\n    return h\n\n\n"
        "def build():\n    return Headers()\n\n\n"
        "def check(h):\n    return isinstance(h, (Headers, dict))\n\n\n"
        "def both(h):\n    return h if isinstance(h, Headers) else Headers(h)\n\n\n"
        "class Env(Headers):\n    pass\n")})
    edit(repo, "app/ds.py", "def __init__(self, items=None):", "def __init__(self, items):")
    report = check_json(repo, "--depth", "1")
    assert [c["qualified_name"] for c in report["changed_symbols"]] == [
        "app.ds.Headers.__init__"]
    found = {a["symbol"] for a in report["affected"] if a["path"] == "app/use.py"}
    assert found == {"<module>", "app.use.build", "app.use.both", "app.use.Env"}, found
