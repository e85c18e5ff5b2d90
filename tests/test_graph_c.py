"""Callers in C and C++: includes, a prototype and its body as one symbol, static functions
kept apart, namespaces, `using namespace`, methods through declared types and bases."""

from __future__ import annotations

from conftest import graph_hits

from maguyva_guard.records import AMBIGUOUS

C_FILES = {
    "include/util.h": "#ifndef UTIL_H\n#define UTIL_H\nint util_add(int a, int b);\n#endif\n",
    "src/util.c": (
        '#include "util.h"\n'
        "int util_add(int a, int b) { return a + b; }\n"
    ),
    "src/main.c": (
        '#include "util.h"\n'
        "int main(void) { return util_add(1, 2); }\n"
    ),
    "src/calc/sum.c": (
        '#include "../../include/util.h"\n'
        "int sum3(int a, int b, int c) { return util_add(util_add(a, b), c); }\n"
    ),
    "tools/other.c": (
        "static int util_add(int a, int b) { return a - b; }\n"
        "int other(void) { return util_add(3, 4); }\n"
    ),
}

CPP_FILES = {
    "include/geo/shape.hpp": (
        "#pragma once\n"
        "namespace geo {\n"
        "class Base {\n public:\n  int id(int k);\n};\n"
        "class Shape : public Base {\n"
        " public:\n"
        "  Shape(int sides);\n"
        "  int area(int scale) const;\n"
        "  static int count(int x);\n"
        " private:\n"
        "  int sides_;\n"
        "};\n"
        "int helper(int v);\n"
        "}\n"
    ),
    "src/shape.cpp": (
        '#include "geo/shape.hpp"\n'
        "namespace geo {\n"
        "int Base::id(int k) { return k; }\n"
        "Shape::Shape(int sides) : sides_(sides) {}\n"
        "int Shape::area(int scale) const { return helper(sides_) * scale; }\n"
        "int Shape::count(int x) { return x; }\n"
        "int helper(int v) { return v; }\n"
        "}\n"
    ),
    "src/app.cpp": (
        '#include "geo/shape.hpp"\n'
        "using namespace geo;\n"
        "class Circle {\n public:\n  int area(int scale) const { return scale; }\n};\n"
        "int onStack() { Shape s(3); return s.area(2); }\n"
        "int onHeap() { Shape *p = new Shape(4); return p->area(1); }\n"
        "int byRef(const Shape &ref) { return ref.area(5); }\n"
        "int qualified() { return geo::Shape::count(1); }\n"
        "int inherited(Shape &s) { return s.id(7); }\n"
        "int circle() { Circle c; return c.area(1); }\n"
        "int unknown(Thing *t) { return t->area(9); }\n"
    ),
}


def _callers(repo, qualified_name: str, path: str) -> dict[str, str]:
    hits = graph_hits(repo, qualified_name, path)
    return {f"{h.path}:{h.symbol}": h.confidence for h in hits}


def test_c_a_prototype_and_its_body_have_the_same_callers(make_repo):
    repo = make_repo(C_FILES)
    by_body = _callers(repo, "util_add", "src/util.c")
    by_prototype = _callers(repo, "util_add", "include/util.h")
    expected = {"src/main.c:main", "src/calc/sum.c:sum3"}
    assert expected <= set(by_body), by_body
    assert set(by_body) == set(by_prototype)
    assert all(by_body[c] == "exact" for c in expected), by_body
    assert "tools/other.c:other" not in by_body  # its own static util_add


def test_c_static_function_is_its_files_own(make_repo):
    repo = make_repo(C_FILES)
    found = _callers(repo, "util_add", "tools/other.c")
    assert set(found) == {"tools/other.c:other"}, found


def test_cpp_methods_through_declared_types_namespaces_and_bases(make_repo):
    repo = make_repo(CPP_FILES)
    area = _callers(repo, "geo.Shape.area", "src/shape.cpp")
    assert {"src/app.cpp:onStack", "src/app.cpp:onHeap", "src/app.cpp:byRef"} <= set(area)
    assert "src/app.cpp:circle" not in area, area  # Circle's own area
    assert area.get("src/app.cpp:unknown") == AMBIGUOUS, area  # a type the repo lacks
    declared = _callers(repo, "geo.Shape.area", "include/geo/shape.hpp")
    assert set(declared) == set(area)
    assert set(_callers(repo, "geo.Shape.count", "include/geo/shape.hpp")) == {
        "src/app.cpp:qualified"}
    assert "src/app.cpp:inherited" in _callers(repo, "geo.Base.id", "src/shape.cpp")
    assert "src/shape.cpp:geo.Shape.area" in _callers(repo, "geo.helper", "include/geo/shape.hpp")


def test_cpp_constructor_callers_are_the_objects_built(make_repo):
    repo = make_repo(CPP_FILES)
    found = _callers(repo, "geo.Shape.Shape", "src/shape.cpp")
    assert {"src/app.cpp:onStack", "src/app.cpp:onHeap"} <= set(found), found
    assert "src/app.cpp:circle" not in found


def test_c_static_helpers_of_headers_reach_fragments_included_by_a_source(make_repo):
    """`x_inc.h` is pasted into x.c, which includes quality.h first: the fragment's call
    of quality.h's static inline function is a call, though the fragment includes nothing;
    a source file's own static function is not another source file's."""
    repo = make_repo({
        "enc/quality.h": "static inline int spree(int q) { return q * 2; }\n",
        "enc/refs_inc.h": "static int EXPORT_FN(create)(int q) { return spree(q); }\n",
        "enc/refs.c": (
            '#include "quality.h"\n#define EXPORT_FN(x) x##_fast\n#include "refs_inc.h"\n'
            "static int own(int v) { return v; }\nint use(void) { return own(1); }\n"
        ),
        "enc/other.c": "int own(int v);\nint more(void) { return own(2); }\n",
    })
    assert set(_callers(repo, "spree", "enc/quality.h")) == {"enc/refs_inc.h:<module>"}
    assert set(_callers(repo, "own", "enc/refs.c")) == {"enc/refs.c:use"}


def test_c_a_name_pasted_by_a_macro_is_not_a_use_of_that_name(make_repo):
    """`FN(Prepare)(cache)` calls `Prepare_H5` (the macro pastes a suffix): not `Prepare`;
    `void FN(Prepare)(int *cache) {` (parsed as a parameter of type Prepare) defines it."""
    repo = make_repo({
        "hash.h": "static inline void Prepare(int *cache) { cache[0] = 1; }\n",
        "hash_inc.h": (
            "static void real(int *cache) { Prepare(cache); }\n"
            "static void store(int *cache) { FN(Prepare)(cache); }\n"
            "static void FN(Prepare)(int *cache) { cache[1] = 2; }\n"
        ),
        "hash.c": '#include "hash.h"\n#define FN(x) x##_H5\n#include "hash_inc.h"\n',
    })
    assert set(_callers(repo, "Prepare", "hash.h")) == {"hash_inc.h:real"}


def test_c_a_callback_from_another_file_is_a_use_and_a_local_of_that_name_is_not(make_repo):
    repo = make_repo({
        "cmp.h": "int by_size(const void *a, const void *b);\n",
        "cmp.c": '#include "cmp.h"\nint by_size(const void *a, const void *b) { return 0; }\n',
        "sort.c": (
            '#include <stdlib.h>\n#include "cmp.h"\n'
            "void sort(int *v, int n) { qsort(v, n, sizeof *v, by_size); }\n"
            "int shadow(int by_size) { return abs(by_size); }\n"
        ),
    })
    assert set(_callers(repo, "by_size", "cmp.c")) == {"sort.c:sort"}


def test_cpp_locals_are_read_in_the_function_around_the_call_when_macros_share_a_name(make_repo):
    """A local's type is read in the function around the call (gtest-style `TEST(A, B)`
    blocks, each the method B of A, once all parsed as functions named TEST)."""
    repo = make_repo({
        "slice.h": "class Slice {\n public:\n  int compare(const Slice& b) const;\n};\n",
        "slice_test.cc": (
            '#include "slice.h"\n'
            "TEST(Slice, First) {\n  Slice result;\n  result.compare(result);\n}\n"
            "TEST(Slice, Second) {\n  int other = 1;\n}\n"
        ),
        "other.h": "class Other {\n public:\n  int compare(int b) const;\n};\n",
    })
    found = _callers(repo, "Slice.compare", "slice.h")
    assert found == {"slice_test.cc:Slice.First": "probable"}, found


def test_cpp_a_nested_class_defined_outside_its_class_is_built_by_new(make_repo):
    repo = make_repo({
        "version.h": "namespace db {\nclass Version {\n class FileIter;\n void Add();\n};\n}\n",
        "version.cc": (
            '#include "version.h"\nnamespace db {\n'
            "class Version::FileIter {\n public:\n  FileIter(int level) {}\n};\n"
            "void Version::Add() { new FileIter(1); }\n"
            "void Other() { new Version::FileIter(2); }\n}\n"
        ),
    })
    found = _callers(repo, "db.Version.FileIter.FileIter", "version.cc")
    assert set(found) == {"version.cc:db.Version.Add", "version.cc:db.Other"}, found


def test_cpp_a_test_macro_block_is_a_method_of_its_fixture(make_repo):
    """`TEST(CorruptionTest, Recovery) { Check(10, 10); }` calls the fixture's Check (the
    harness derives the test from the fixture); each block is its own caller."""
    repo = make_repo({
        "db/corruption_test.cc": (
            "namespace leveldb {\nclass CorruptionTest {\n public:\n"
            "  void Check(int min, int max) {}\n};\n"
            "TEST(CorruptionTest, Recovery) {\n  Check(10, 10);\n}\n"
            "TEST(CorruptionTest, Table) { Check(1, 2); }\n}\n"
        ),
    })
    found = _callers(repo, "leveldb.CorruptionTest.Check", "db/corruption_test.cc")
    assert found == {"db/corruption_test.cc:leveldb.CorruptionTest.Recovery": "exact",
                     "db/corruption_test.cc:leveldb.CorruptionTest.Table": "exact"}, found
