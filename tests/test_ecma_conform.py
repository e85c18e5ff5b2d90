"""TypeScript's structural typing (issue 17): when a method of a class changes its signature,
the places that hand an instance of the class to a declared type with a member of that
name (an interface, a type alias of object types, another class) stop type-checking,
though no line names the method. rxjs 7.8.1 -> 7.8.2 (`Subscriber.next`): 38 of tsc's 106
callers were such places (`source.subscribe(subscriber)` where `subscribe` expects a
`Partial<Observer<T>>`). Each shape on a real repository through the real CLI; such an
entry's link says `"reason": "conforms"`."""

from __future__ import annotations

from conftest import checked

SUBSCRIBER = """export interface Observer<T> {
  closed?: boolean;
  next: (value: T) => void;
  complete: () => void;
}

export interface Closable {
  close(): void;
}

export type PartialObserver<T> = Observer<T> | { next?: (value: T) => void };

export class Subscriber<T> implements Observer<T>, Closable {
  next(value: T): void {
    console.log(value);
  }
  complete(): void {
    console.log('done');
  }
  close(): void {
    console.log('closed');
  }
}
"""
SOURCE = """import { Observer, PartialObserver, Closable, Subscriber } from './Subscriber';

export class Source<T> {
  subscribe(observer?: Partial<Observer<T>> | ((value: T) => void) | null): void {
    console.log(observer);
  }
  attach(observer: PartialObserver<T>): void {
    console.log(observer);
  }
  closeLater(target: Closable): void {
    console.log(target);
  }
  exact(subscriber: Subscriber<T>): void {
    console.log(subscriber);
  }
}
"""
USES = """import { Observer, Closable, Subscriber } from './Subscriber';
import { Source } from './Source';

export function passes<T>(source: Source<T>, subscriber: Subscriber<T>): void {
  source.subscribe(subscriber);
}

export function passesNew<T>(source: Source<T>): void {
  source.attach(new Subscriber<T>());
}

export function assigns<T>(subscriber: Subscriber<T>): void {
  const observer: Observer<T> = subscriber;
  console.log(observer);
}

export function returns<T>(subscriber: Subscriber<T>): Observer<T> {
  return subscriber;
}

export function closes<T>(source: Source<T>, subscriber: Subscriber<T>): Closable {
  source.closeLater(subscriber);
  const c: Closable = subscriber;
  console.log(c);
  return subscriber;
}

export function same<T>(source: Source<T>, subscriber: Subscriber<T>): Subscriber<T> {
  source.exact(subscriber);
  return subscriber;
}
"""
WRAP = """import { Subscriber } from './Subscriber';
import { Source } from './Source';

export function wrap<T>(destination: Subscriber<T>, onNext?: (value: T) => void): Subscriber<T> {
  console.log(onNext);
  return destination;
}

export function wraps<T>(source: Source<T>, subscriber: Subscriber<T>): void {
  source.subscribe(
    wrap(subscriber, (value: T) => {
      console.log(value);
    })
  );
}
"""
FILES = {"Subscriber.ts": SUBSCRIBER, "Source.ts": SOURCE, "uses.ts": USES}
NEXT = ("  next(value: T): void {\n    console.log(value);",
        "  next(value: T, extra: string): void {\n    console.log(value);")


def _line(text: str) -> int:
    return next(n for n, line in enumerate(USES.splitlines(), start=1) if text in line)


def _conforming(report: dict) -> dict[tuple[str, int], tuple[str, str]]:
    """(path, line) -> (symbol, reason of its link to the changed method) at depth 1."""
    out = {}
    for a in report["affected"]:
        for link in a["links"]:
            if link["depth"] == 1:
                out[(a["path"], a["line"])] = (a["symbol"], link["reason"])
    return out


def test_an_instance_handed_to_a_type_with_the_member_conforms(make_repo) -> None:
    """Passed to a parameter typed by an interface (through `Partial<>` and a union with a
    function type and null), `new C()` passed to a type alias of object types, assigned to
    a typed variable, returned from a function declared to return the interface: each is
    affected, probable, with the reason `conforms`. Nothing for the interface without
    `next` (Closable), nor where the class itself is expected."""
    report = checked(make_repo, FILES, "Subscriber.ts", *NEXT)
    assert _conforming(report) == {
        ("uses.ts", _line("source.subscribe(subscriber)")): ("uses.passes", "conforms"),
        ("uses.ts", _line("source.attach(new")): ("uses.passesNew", "conforms"),
        ("uses.ts", _line("const observer: Observer")): ("uses.assigns", "conforms"),
        ("uses.ts", _line("return subscriber;")): ("uses.returns", "conforms"),
    }
    assert {a["confidence"] for a in report["affected"]} == {"probable"}


def test_a_member_the_expected_types_lack_conforms_nowhere(make_repo) -> None:
    """`close` changes: Closable has it, so `closes` is affected three times over (one
    entry); Observer and the alias lack it, so the other sites are not."""
    report = checked(make_repo, FILES, "Subscriber.ts",
                     "  close(): void {", "  close(force: boolean): void {")
    assert set(_conforming(report).values()) == {("uses.closes", "conforms")}


def test_a_call_naming_the_method_keeps_the_reason_reference(make_repo) -> None:
    """An entry whose line calls the method says `reference`: the JSON's other links are
    unchanged in meaning."""
    uses = USES + "\nexport function calls(s: Subscriber<number>): void {\n  s.next(1);\n}\n"
    report = checked(make_repo, {**FILES, "uses.ts": uses}, "Subscriber.ts", *NEXT)
    found = _conforming(report)
    line = uses.splitlines().index("  s.next(1);") + 1
    assert found[("uses.ts", line)] == ("uses.calls", "reference")


def test_a_call_returning_an_instance_over_several_lines_conforms(make_repo) -> None:
    """rxjs's operators write `source.subscribe(\\n createOperatorSubscriber(subscriber,
    (value) => {...})\\n)`: the argument is a call whose declared return type is the
    class, on the line below the call's parenthesis, its own `)` lines further. Affected
    with the reason `conforms`; `wrap` itself (the class in, the class out) is not."""
    report = checked(make_repo, {**FILES, "wrap.ts": WRAP}, "Subscriber.ts", *NEXT)
    line = WRAP.splitlines().index("    wrap(subscriber, (value: T) => {") + 1
    found = {k: v for k, v in _conforming(report).items() if k[0] == "wrap.ts"}
    assert found == {("wrap.ts", line): ("wrap.wraps", "conforms")}


OTHER = """import { Observer } from './Subscriber';

export class Other<T> {
  subscribe(observer: Observer<T>): void {
    console.log(observer);
  }
}
"""
EXACT = """import { Subscriber } from './Subscriber';

export class Exact<T> {
  subscribe(subscriber: Subscriber<T>): void {
    console.log(subscriber);
  }
}
"""
PIPED = """import { Subscriber } from './Subscriber';

export function piped<T>(subscriber: Subscriber<T>, make: () => any): void {
  make()(1).subscribe(subscriber);
}
"""


def test_an_untyped_receiver_conforms_where_every_method_of_the_name_rejects(
        make_repo) -> None:
    """rxjs's `concatAll()(from(...)).subscribe(subscriber)`: the receiver's type is not in
    the text, so `subscribe` is any method of that name (Source's and Other's); both expect
    an Observer, so the site conforms. Where one method of the name takes the class itself
    (Exact), the instance may go there as it is: nothing."""
    files = {**FILES, "Other.ts": OTHER, "piped.ts": PIPED}
    report = checked(make_repo, files, "Subscriber.ts", *NEXT)
    line = PIPED.splitlines().index("  make()(1).subscribe(subscriber);") + 1
    found = {k: v for k, v in _conforming(report).items() if k[0] == "piped.ts"}
    assert found == {("piped.ts", line): ("piped.piped", "conforms")}
    report = checked(make_repo, {**files, "Exact.ts": EXACT}, "Subscriber.ts", *NEXT)
    assert {k for k in _conforming(report) if k[0] == "piped.ts"} == set()
