"""`super().m()` whose class's bases in the repository define no `m` reaches the `m` of a
class in the MRO of that class or of a class derived from it, not every `m` of the
repository: python-dateutil's metaclass `_TzSingleton(type)` calls
`super(_TzSingleton, cls).__call__()` (type's), and was taken for a caller of every
`__call__`, so a change under `gettz` ran every test importing `dateutil.tz`."""

from __future__ import annotations

from conftest import checked

CODE = (
    "class Meta(type):\n    def __call__(cls):\n        return super(Meta, cls).__call__()\n\n\n"
    "class Fn:\n    def __call__(self, x):\n        return x + 1\n\n\n"
    "class Mixin:\n    def save(self):\n        return super().save()\n\n\n"
    "class Store:\n    def save(self):\n        return 1\n\n\n"
    "class Other:\n    def save(self):\n        return 2\n\n\n"
    "class Model(Mixin, Store):\n    pass\n"
)


def _callers(report: dict) -> set[str]:
    return {a["symbol"] for a in (*report["affected"], *report["possible"])}


def test_super_in_a_class_nobody_derives_from_reaches_no_repository_method(make_repo):
    report = checked(make_repo, {"app.py": CODE}, "app.py", "return x + 1", "return x + 2")
    assert "app.Meta.__call__" not in _callers(report)


def test_super_in_a_mixin_reaches_the_class_beside_it_in_a_derived_class(make_repo):
    report = checked(make_repo, {"app.py": CODE}, "app.py", "return 1\n", "return 3\n")
    assert "app.Mixin.save" in _callers(report)


def test_super_in_a_mixin_does_not_reach_an_unrelated_class(make_repo):
    report = checked(make_repo, {"app.py": CODE}, "app.py", "return 2\n", "return 4\n")
    assert "app.Mixin.save" not in _callers(report)


def test_super_of_self_class_in_a_builtin_subclass_reaches_the_builtin(make_repo):
    # dateutil's `_ymd(list)`: `super(self.__class__, self).__init__(...)` is list's
    code = ("class Ymd(list):\n    def __init__(self, *args):\n"
            "        super(self.__class__, self).__init__(*args)\n\n\n"
            "class Zone:\n    def __init__(self, name):\n        self.name = name\n")
    report = checked(make_repo, {"app.py": code}, "app.py", "self.name = name",
                     "self.name = name + ''")
    assert "app.Ymd.__init__" not in _callers(report)
