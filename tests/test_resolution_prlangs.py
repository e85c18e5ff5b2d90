"""Caller shapes found in real release diffs in TypeScript and Java (issue 17), each on a
real repository through the real CLI: a callback's parameter typed by the callee it is
passed to (rxjs's `operate((source, subscriber) => ...)` and `new Observable((subscriber)
=> ...)`), and Java overloads of the same arity told apart by their arguments' static
types (commons-cli's `getOptionValue(String)` / `(char)` / `(Option)`)."""

from __future__ import annotations

from conftest import checked
from conftest import direct_confidences as direct

SUBSCRIBER = """export class Subscriber<T> {
  next(value: T): void {
    console.log(value);
  }
}

export class Other<T> {
  next(value: T): void {
    console.log(value);
  }
}
"""
OBSERVABLE = """import { Subscriber } from './Subscriber';

export class Observable<T> {
  constructor(subscribe?: (this: Observable<T>, subscriber: Subscriber<T>) => void) {
    console.log(subscribe);
  }
}
"""
LIFT = """import { Subscriber, Other } from './Subscriber';

export function operate<T, R>(
  init: (source: T, subscriber: Subscriber<R>) => void
): void {
  console.log(init);
}

export function either<R>(init: (subscriber: Subscriber<R> | Other<R>) => void): void {
  console.log(init);
}
"""
USES = """import { operate, either } from './lift';
import { Observable } from './Observable';

export function map<T>(project: (v: T) => T) {
  return operate((source: T, subscriber) => {
    subscriber.next(project(source));
  });
}

export function of<T>(value: T) {
  return new Observable<{ v: T }>((subscriber) => {
    const handler = () => subscriber.next({ v: value });
    handler();
  });
}

export function unknown<T>(value: T) {
  return either<T>((subscriber) => {
    subscriber.next(value);
  });
}
"""
TS_FILES = {"Subscriber.ts": SUBSCRIBER, "Observable.ts": OBSERVABLE, "lift.ts": LIFT,
            "uses.ts": USES}


def _line(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), start=1) if text in line)


def test_a_callbacks_parameter_takes_the_class_its_callee_declares_for_it(make_repo) -> None:
    """rxjs 7.8.1 -> 7.8.2 changed Subscriber.next: 53 of tsc's 67 calling symbols called
    it on such a parameter, all listed apart as possible callers before (recall 13%). The
    operate() callback (second parameter) and the Observable constructor's (after `this:`)
    reach Subscriber.next, probable; a callee declaring a union stays possible."""
    report = checked(make_repo, TS_FILES, "Subscriber.ts", "  next(value: T): void {\n"
                     "    console.log(value);\n  }\n}\n\nexport class Other",
                     "  next(value: T, extra: string): void {\n    console.log(value);\n"
                     "  }\n}\n\nexport class Other")
    assert direct(report) == {
        ("uses.ts", _line(USES, "subscriber.next(project")): "probable",
        ("uses.ts", _line(USES, "subscriber.next({ v")): "probable",
    }
    possible = {(p["path"], p["line"]) for p in report["possible"]}
    assert possible == {("uses.ts", _line(USES, "subscriber.next(value)"))}


def test_a_callbacks_parameter_of_another_class_does_not_reach_the_changed_one(
        make_repo) -> None:
    """The same callbacks when Other.next changes: none of them is Other's caller (the
    union one stays possible, never affected)."""
    report = checked(make_repo, TS_FILES, "Subscriber.ts",
                     "export class Other<T> {\n  next(value: T): void {",
                     "export class Other<T> {\n  next(value: T, extra: string): void {")
    assert direct(report) == {}
    assert {(p["path"], p["line"]) for p in report["possible"]} == {
        ("uses.ts", _line(USES, "subscriber.next(value)"))}


RANGE = """import { Observable } from './Observable';

export function range(count: number): Observable<number>;

export function range(count: number, slow?: boolean): Observable<number> {
  const end = count + 1;
  return new Observable<number>(
    slow
      ? // The slow path: the callback opens lines below the call's parenthesis.
        (subscriber) => {
          if (count < end) {
            subscriber.next(count);
          }
        }
      : (subscriber) => {
          subscriber.next(end);
        }
  );
}

export function after(count: number) {
  const log = (x: number) => console.log(x);
  log(count);
  const other = (subscriber) => {
    subscriber.next(count + 1);
  };
  return other;
}
"""


def test_a_callback_opened_below_its_calls_parenthesis_takes_the_declared_type(
        make_repo) -> None:
    """rxjs's range() passes `new Observable(` a conditional whose arms are callbacks on
    later lines (comments, a comparison `count < end` in between): both arms' `subscriber`
    are Subscribers, probable (one entry for range(), neither call left possible; tsc's one
    missed calling symbol of rxjs 7.8.1 -> 7.8.2). A callback after a finished statement
    (`;`) is passed to no call: possible only. range() is overloaded, as rxjs's: its
    implementation's lines are read."""
    report = checked(make_repo, {**TS_FILES, "range.ts": RANGE}, "Subscriber.ts",
                     "  next(value: T): void {\n    console.log(value);\n  }\n}\n\n"
                     "export class Other",
                     "  next(value: T, extra: string): void {\n    console.log(value);\n"
                     "  }\n}\n\nexport class Other")
    found = {k: v for k, v in direct(report).items() if k[0] == "range.ts"}
    assert found == {("range.ts", _line(RANGE, "subscriber.next(count);")): "probable"}
    possible = {(p["path"], p["line"]) for p in report["possible"] if p["path"] == "range.ts"}
    assert possible == {("range.ts", _line(RANGE, "subscriber.next(count + 1)"))}


OPTION = "package p;\npublic class Option {\n  public String name() { return \"o\"; }\n}\n"
GROUP = ("package p;\npublic class OptionGroup {\n"
         "  public String getSelected() { return \"o\"; }\n}\n")
COMMAND_LINE = """package p;

import java.util.Properties;

public class CommandLine {
    private final Properties props = new Properties();
    private String last;

    public String get(final char c) {
        return String.valueOf(c);
    }

    public String get(final String name) {
        return get(resolve(name));
    }

    public String get(final Option option) {
        return option.name();
    }

    public String get(final OptionGroup group) {
        return get(group.getSelected());
    }

    private Option resolve(final String name) {
        return new Option();
    }

    public String viaValueOf(final char c) {
        return get(String.valueOf(c));
    }

    public String viaField() {
        return get(last);
    }

    public String viaNew() {
        return get(new Option());
    }

    public String viaLiteral() {
        return get('x');
    }

    public String viaChar(final char c) {
        return get(c);
    }

    public String viaUnknown() {
        return get(props.getProperty("a"));
    }
}
"""
PARSER = """package p;

public class Parser {
    void process(final CommandLine cmd, final java.util.List<String> names) {
        for (final String each : names) {
            final String option = each.trim();
            cmd.get(option);
        }
    }
}
"""
JAVA_FILES = {"p/Option.java": OPTION, "p/OptionGroup.java": GROUP,
              "p/CommandLine.java": COMMAND_LINE, "p/Parser.java": PARSER}


def test_a_java_overload_of_one_arity_is_chosen_by_the_arguments_static_types(
        make_repo) -> None:
    """commons-cli 1.9.0 -> 1.10.0 renamed the parameters of `getOptionValue(char)` and its
    String/Option/OptionGroup siblings: 9 of 32 depth-1 callers were calls of a sibling
    (a String or Option parameter or local, `optionGroup.getSelected()`, `resolveOption(..)`,
    precision 72%). A char literal or parameter calls the changed `get(char)`; an argument
    of unknown type (`props.getProperty(..)`, a JDK method) stays its caller."""
    report = checked(make_repo, JAVA_FILES, "p/CommandLine.java",
                     "public String get(final char c) {\n        return String.valueOf(c);",
                     "public String get(final char ch) {\n        return String.valueOf(ch);")
    assert {(a["path"], a["symbol"].rsplit(".", 1)[-1]) for a in report["affected"]
            if a["depth"] == 1} == {("p/CommandLine.java", "viaLiteral"),
                                    ("p/CommandLine.java", "viaChar"),
                                    ("p/CommandLine.java", "viaUnknown")}


def test_a_java_call_with_a_string_argument_stays_a_caller_of_the_string_overload(
        make_repo) -> None:
    """The same calls when `get(String)` changes: the String arguments (a field, a local,
    `String.valueOf`, `getSelected()`) call it, the char and Option ones do not."""
    report = checked(make_repo, JAVA_FILES, "p/CommandLine.java",
                     "public String get(final String name) {",
                     "public String get(final String key) {\n        final String name = key;")
    assert {(a["path"], a["symbol"].rsplit(".", 1)[-1]) for a in report["affected"]
            if a["depth"] == 1} == {("p/CommandLine.java", "get"),
                                    ("p/CommandLine.java", "viaValueOf"),
                                    ("p/CommandLine.java", "viaField"),
                                    ("p/CommandLine.java", "viaUnknown"),
                                    ("p/Parser.java", "process")}


BUFFERS = """package p;

public class Buffers {
    abstract static class Buffer {
        protected final char[] data;

        Buffer(final char[] data) {
            this.data = data;
        }

        Buffer(final int size) {
            this.data = new char[size];
        }
    }

    static final class Input extends Buffer {
        Input(final char[] data) {
            super(data);
        }
    }

    static final class Output extends Buffer {
        Output(final int size) {
            super(size);
        }
    }
}
"""


def test_a_java_super_call_runs_the_constructor_its_arguments_types_choose(make_repo) -> None:
    """commons-codec 1.17.1 -> 1.17.2 (kept apart) changed ColognePhonetic's
    `CologneBuffer(char[])`: the subclass calling `super(buffSize)` with `final int
    buffSize` runs `CologneBuffer(int)`, and was an extra caller."""
    report = checked(make_repo, {"p/Buffers.java": BUFFERS}, "p/Buffers.java",
                     "Buffer(final char[] data) {\n            this.data = data;",
                     "Buffer(final char[] chars) {\n            this.data = chars;")
    assert {a["symbol"].rsplit(".", 2)[-2] for a in report["affected"]
            if a["depth"] == 1} == {"Input"}


PHONEME = """package p;

public class Phoneme {
    private final StringBuilder text = new StringBuilder();

    public Phoneme append(final CharSequence sequence) {
        text.append(sequence);
        return this;
    }
}
"""
BUILDER = """package p;

import java.util.List;
import java.util.Set;

public class Builder {
    private final Set<Phoneme> phonemes;

    Builder(final Set<Phoneme> phonemes) {
        this.phonemes = phonemes;
    }

    public void append(final CharSequence str) {
        phonemes.forEach(ph -> ph.append(str));
    }

    public void appendAll(final List<StringBuilder> builders, final CharSequence str) {
        builders.forEach(b -> b.append(str));
    }
}
"""


def test_a_java_lambda_passed_to_for_each_takes_the_collections_item_class(
        make_repo) -> None:
    """commons-codec 1.17.1 -> 1.17.2 (kept apart) changed `Rule.Phoneme.append`, called
    in `phonemes.forEach(ph -> ph.append(str))` with `Set<Rule.Phoneme> phonemes` a field:
    a possible caller only, missed. The lambda over `List<StringBuilder>` (a JDK class)
    calls no Phoneme."""
    report = checked(make_repo, {"p/Phoneme.java": PHONEME, "p/Builder.java": BUILDER},
                     "p/Phoneme.java", "append(final CharSequence sequence) {\n"
                     "        text.append(sequence);",
                     "append(final CharSequence chars) {\n        text.append(chars);")
    assert direct(report) == {("p/Builder.java", _line(BUILDER, "ph.append")): "probable"}
    assert ("p/Builder.java", _line(BUILDER, "b.append")) not in {
        (p["path"], p["line"]) for p in report["affected"]}
