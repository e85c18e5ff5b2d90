"""The declared types C++ resolution reads receivers by (retrievers/cfamily.py)."""

from __future__ import annotations

import pytest

from maguyva_guard.retrievers.cfamily import _declared_in


@pytest.mark.parametrize(
    ("line", "var", "written"),
    [
        ("Foo f;", "f", "Foo"),
        ("  Foo *p = new Foo;", "p", "Foo"),
        ("int x(const Shape &ref, int y)", "ref", "Shape"),
        ("void m(Foo& a, Bar* const b)", "b", "Bar"),
        ("  VersionSet* const versions_;", "versions_", "VersionSet"),
        ("  port::Mutex mutex_;", "mutex_", "port::Mutex"),
        ("for (Foo *it = a; it; it = it->next)", "it", "Foo"),
        ("auto p = new Foo(1);", "p", "Foo"),
        ("auto p = std::make_unique<Foo>(1);", "p", "Foo"),
        ("auto n = count();", "n", ""),  # declared, but its type does not show
        ("std::unique_ptr<Foo> p;", "p", "Foo"),
        ("return p->x;", "p", None),
        ("x = y * p;", "p", None),  # a product, not a declaration of p
    ],
)
def test_declared_type(line: str, var: str, written: str | None) -> None:
    assert _declared_in([line], var) == written
