"""A receiver that is a builtin class itself (`str.split`, `dict.get(d, k)`) reaches the
builtin's method, never a repository method of that name: markupsafe's
`split.__doc__ = str.split.__doc__` in the body of `Markup(str)` made the class body an
ambiguous caller of `Markup.split`, and through it every test importing the package ran."""

from __future__ import annotations

from conftest import checked

MARKUP = ("class Markup(str):\n    def split(self, sep=None):\n        return [Markup(v) for v "
          "in super().split(sep)]\n\n    split.__doc__ = str.split.__doc__\n\n\n"
          "def words(s):\n    return s.split()\n")


def _callers(report: dict) -> set[tuple[str, str]]:
    return {(a["symbol"], a["confidence"]) for a in (*report["affected"], *report["possible"])}


def test_the_builtin_class_itself_is_no_caller_of_a_repository_method(make_repo):
    report = checked(make_repo, {"app.py": MARKUP}, "app.py", "return [Markup(v)",
                     "return [Markup(v + '')")
    assert ("app.Markup", "ambiguous") not in _callers(report)
    # a receiver of unknown type still matches by name
    assert ("app.words", "ambiguous") in _callers(report)


def test_a_local_named_like_a_builtin_class_stays_unknown(make_repo):
    files = {"app.py": MARKUP + "\n\ndef shadowed(str):\n    return str.split()\n"}
    report = checked(make_repo, files, "app.py", "return [Markup(v)", "return [Markup(v + '')")
    assert ("app.shadowed", "ambiguous") in _callers(report)
