"""The generic tier: every other programming language of tree-sitter-language-pack.

A generic-tier language gets definitions from a tags-style query
(queries/generic/<name>.scm: functions, methods, classes, types, modules that qualify the
names inside them) and call references by name only. Nothing resolves its imports or
receivers, so the resolver reports every caller it finds in such a file `ambiguous` and an
impact list over it is a lower bound. What it buys over a word search: a change is pinned to
the symbols it touches (signature changed, renamed, removed), so the search that follows
looks for those names, not for every word on the changed lines.

Counted as programming languages: the rows below. Not counted (markup, data, config, build
files, schemas, IRs and assemblers: no functions worth naming, or no definitions a caller
can depend on): astro asm bibtex beancount bicep bitbake capnp chatito cmake comment cpon
css csv dockerfile doxygen dtd embeddedtemplate firrtl gitattributes gitcommit gitignore gn
gomod gosum graphql gstlaunch hcl heex html hyprlang ini jsdoc json jsonnet kconfig kdl
latex linkerscript llvm luadoc luap make markdown markdown_inline mermaid meson ninja nix
org pem pgn po printf prisma properties proto psv puppet pymanifest qmldir qmljs query re2c
readline regex rego requirements ron rst scss smali smithy sparql sql svelte tablegen
terraform test thrift toml tsv twig typst udev ungrammar uxntal vue wast wat xcompose xml
yaml yuck. Programming languages left out: groovy (the pack's grammar parses a class as a
flat run of commands: no definition nodes), cobol (paragraphs carry no names in the tree),
fsharp_signature (fails on plain `val` signatures), v (its `.v` is Verilog's), matlab (its
`.m` is Objective-C's), netlinx (no sample to check a query against). C, C++, C#, Kotlin,
Scala, Swift and Lua are resolved languages of their own.
"""

from __future__ import annotations

from typing import Final, NamedTuple


class Generic(NamedTuple):
    name: str  # the registry name, also the grammar's name in the language pack
    extensions: tuple[str, ...]
    filenames: tuple[str, ...] = ()
    comment_types: tuple[str, ...] = ("comment",)


# What starts a line comment, per language (default "//"): a change to such lines alone
# changes no behaviour. Only `"` (Vim) is never taken for a trailing comment: it is a quote.
LINE_COMMENTS: Final[dict[str, tuple[str, ...]]] = {
    **dict.fromkeys(("lua", "luau", "haskell", "elm", "purescript", "agda", "ada", "vhdl"),
                    ("--",)),
    **dict.fromkeys(("bash", "fish", "perl", "elixir", "julia", "r", "nim", "tcl",
                     "starlark", "powershell", "gdscript", "magik", "janet"), ("#",)),
    **dict.fromkeys(("clojure", "commonlisp", "elisp", "scheme", "racket", "fennel",
                     "clarity", "func"), (";",)),
    "erlang": ("%",),
    "fortran": ("!",),
    "vim": ('"',),
    "ocaml": ("(*",),
    "ocaml_interface": ("(*",),
    "fsharp": ("//", "(*"),
    "pascal": ("//", "{", "(*"),
}


# Extensions two languages claim go to the more common one: `.m` is Objective-C (MATLAB is
# left out: it has no other extension), `.v` is Verilog (not V), `.pp` Pascal (not Puppet),
# `.fs` F# (not a GLSL shader); `.scm` is left out (tree-sitter query files use it, Scheme
# keeps `.ss`).
GENERIC: Final[tuple[Generic, ...]] = (
    Generic("actionscript", (".as",)),
    Generic("ada", (".adb", ".ads", ".ada")),
    Generic("agda", (".agda",)),
    Generic("apex", (".cls", ".trigger", ".apex")),
    Generic("arduino", (".ino",)),
    Generic("bash", (".sh", ".bash", ".zsh", ".ksh"), (".bashrc", ".bash_profile")),
    Generic("cairo", (".cairo",)),
    Generic("clarity", (".clar",)),
    Generic("clojure", (".clj", ".cljs", ".cljc", ".bb")),
    Generic("commonlisp", (".lisp", ".lsp", ".asd")),
    Generic("cuda", (".cu", ".cuh")),
    Generic("d", (".d", ".di")),
    Generic("dart", (".dart",)),
    Generic("elisp", (".el",)),
    Generic("elixir", (".ex", ".exs")),
    Generic("elm", (".elm",)),
    Generic("erlang", (".erl", ".hrl")),
    Generic("fennel", (".fnl",)),
    Generic("fish", (".fish",)),
    Generic("fortran", (".f90", ".f95", ".f03", ".f08", ".f", ".for", ".f77")),
    Generic("fsharp", (".fs", ".fsx")),
    Generic("func", (".fc", ".func")),
    Generic("gdscript", (".gd",)),
    Generic("gleam", (".gleam",)),
    Generic("glsl", (".glsl", ".vert", ".frag", ".geom", ".comp", ".tesc", ".tese")),
    Generic("hack", (".hack", ".hhi")),
    Generic("hare", (".ha",)),
    Generic("haskell", (".hs", ".lhs")),
    Generic("haxe", (".hx",)),
    Generic("hlsl", (".hlsl", ".hlsli")),
    Generic("ispc", (".ispc", ".isph")),
    Generic("janet", (".janet",)),
    Generic("julia", (".jl",)),
    Generic("luau", (".luau",)),
    Generic("magik", (".magik",)),
    Generic("nim", (".nim", ".nims")),
    Generic("nqc", (".nqc",)),
    Generic("objc", (".m", ".mm")),
    Generic("ocaml", (".ml",)),
    Generic("ocaml_interface", (".mli",)),
    Generic("odin", (".odin",)),
    Generic("pascal", (".pas", ".pp", ".dpr", ".lpr")),
    Generic("perl", (".pl", ".pm")),
    Generic("pony", (".pony",)),
    Generic("powershell", (".ps1", ".psm1")),
    Generic("purescript", (".purs",)),
    Generic("r", (".r",)),
    Generic("racket", (".rkt",)),
    Generic("scheme", (".ss", ".sls", ".sld")),
    Generic("solidity", (".sol",)),
    Generic("squirrel", (".nut",)),
    Generic("starlark", (".bzl", ".star")),
    Generic("tcl", (".tcl",)),
    Generic("verilog", (".v", ".sv", ".svh", ".vh")),
    Generic("vhdl", (".vhd", ".vhdl")),
    Generic("vim", (".vim",), (".vimrc", "vimrc")),
    Generic("wgsl", (".wgsl",)),
    Generic("zig", (".zig",)),
)
