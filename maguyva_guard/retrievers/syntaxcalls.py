"""Methods other languages call by syntax, not by name: a change to one is a lower bound.

Python's special methods are resolved site by site (protocols.py). In the other languages
the same shape exists (`a + b` runs Rust's `Add::add`, C++'s `operator+` and Kotlin's
`operator fun plus`; `for x in v` runs Rust's `Iterator::next`, Java's `iterator()`, C#'s
`GetEnumerator`; string formatting runs `fmt`, `toString`, `String()`, `__toString`), and
no reference names the method at those sites. They are found where the operand's type
shows (Rust: rustsyntax.py; Java, Kotlin and Scala: jvmsyntax.py; C++ and C#:
cfamsyntax.py); elsewhere they are not searched. Either way the answer about such a method
says it is a lower bound instead of "complete". The lists are the methods each language's
syntax or standard library calls implicitly; a same-named
ordinary method (a Kotlin `plus` without `operator`) only costs the "lower bound" line.
"""

from __future__ import annotations

import re
from typing import Final, Protocol

from maguyva_guard.extract.languages import language_for
from maguyva_guard.records import FUNCTION, METHOD

_CPP: Final = frozenset({"begin", "end", "swap"})  # range-for; std::swap by ADL
_BY_LANGUAGE: Final[dict[str, frozenset[str]]] = {
    "rust": frozenset({
        "add", "sub", "mul", "div", "rem", "neg", "not", "bitand", "bitor", "bitxor", "shl",
        "shr", "add_assign", "sub_assign", "mul_assign", "div_assign", "rem_assign", "index",
        "index_mut", "deref", "deref_mut", "drop", "next", "into_iter", "eq", "ne",
        "partial_cmp", "cmp", "lt", "le", "gt", "ge", "fmt", "hash", "from", "try_from",
        "call", "call_mut", "call_once", "poll"}),
    "c": _CPP,
    "cpp": _CPP,
    "kotlin": frozenset({
        "plus", "minus", "times", "div", "rem", "mod", "unaryPlus", "unaryMinus", "not",
        "inc", "dec", "rangeTo", "rangeUntil", "contains", "get", "set", "invoke",
        "iterator", "next", "hasNext", "compareTo", "equals", "hashCode", "toString",
        "plusAssign", "minusAssign", "timesAssign", "divAssign", "remAssign", "getValue",
        "setValue", "provideDelegate", "component1", "component2", "component3",
        "component4", "component5"}),
    "scala": frozenset({
        "apply", "unapply", "unapplySeq", "update", "foreach", "map", "flatMap",
        "withFilter", "toString", "equals", "hashCode", "compare"}),
    "swift": frozenset({
        "makeIterator", "next", "callAsFunction", "description", "debugDescription", "hash",
        "subscript"}),
    "csharp": frozenset({
        "GetEnumerator", "MoveNext", "Current", "Dispose", "DisposeAsync", "ToString",
        "Equals", "GetHashCode", "CompareTo", "Deconstruct", "GetAwaiter", "this"}),
    "java": frozenset({
        "iterator", "hasNext", "next", "close", "toString", "equals", "hashCode",
        "compareTo"}),
    "go": frozenset({
        "String", "Error", "Format", "GoString", "Len", "Less", "Swap", "MarshalJSON",
        "UnmarshalJSON", "MarshalText", "UnmarshalText"}),
    "javascript": frozenset({"toString", "valueOf", "toJSON", "then", "next", "@@iterator",
                             "@@asyncIterator"}),
    "ruby": frozenset({
        "each", "to_s", "to_str", "inspect", "call", "coerce", "method_missing",
        "respond_to_missing?", "hash", "eql?", "to_proc", "<=>", "==", "[]", "[]=", "+", "-",
        "*", "/"}),
    "php": frozenset({
        "__toString", "__get", "__set", "__isset", "__unset", "__call", "__callStatic",
        "__invoke", "__destruct", "__clone", "__serialize", "__unserialize", "offsetGet",
        "offsetSet", "offsetExists", "offsetUnset", "getIterator", "count",
        "jsonSerialize", "current", "key", "valid", "rewind"}),
}
_BY_LANGUAGE["typescript"] = _BY_LANGUAGE["tsx"] = _BY_LANGUAGE["javascript"]
# Operators declared under their symbol: C++/C# `operator+`, Scala/Swift/Ruby `+`, `==`.
_OPERATOR_NAME: Final = re.compile(r"^(?:operator\b.*|~\w+|[!#%&*+\-/:<=>?@\\^|~]+)$")


class Located(Protocol):
    @property
    def path(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...


def syntax_called(target: Located) -> bool:
    """A method or function of a language other than Python that its syntax or standard
    library calls without naming it (see the module's docstring)."""
    if target.kind not in (METHOD, FUNCTION):
        return False
    language = language_for(target.path)
    if language is None or language == "python":
        return False
    names = _BY_LANGUAGE.get(language, frozenset())
    return target.name in names or bool(_OPERATOR_NAME.match(target.name))


# Languages whose syntax-call sites are searched where the operand's type shows
# (retrievers/jvmsyntax.py); elsewhere they are not searched at all.
_SEARCHED: Final = frozenset({"java", "kotlin", "scala"})
# JavaScript/TypeScript: the iterator methods only (retrievers/ecmasyntax.py).
_SEARCHED_NAMES: Final = frozenset({"@@iterator", "@@asyncIterator"})


def syntax_reason(qualified_name: str, path: str) -> str:
    """Why an answer about a syntax-called method is a lower bound."""
    language = language_for(path)
    if language in _SEARCHED or qualified_name.rpartition(".")[2] in _SEARCHED_NAMES:
        return (f"{qualified_name} is also called implicitly (by operator or protocol "
                f"syntax, not by name); in {language} code such sites are found only where "
                "the operand's type shows")
    return (f"{qualified_name} is also called implicitly (by operator or protocol syntax, "
            f"not by name); such sites are not searched in {language} code")
