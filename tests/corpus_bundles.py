"""The real bundles of some opcodes over the whole corpus (tests/corpus_support.py), per stream, for the
corpus tests of each family (tests/test_corpus_*.py): every bundle is checked, and a representative of
each distinct shape is explained and taken through the text form.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from corpus_support import CorpusFile, corpus_files
from tongasm.check.runner import check_stream
from tongasm.isa.fields import BUNDLE_SIZE
from tongasm.isa.targets import Target
from tongasm.neff.neff import Neff
from tongasm.text import StreamInput, assemble_text
from tongasm.text.explain import explain_bundle
from tongasm.text.fast import fast_listing


@dataclass(frozen=True)
class RealStream:
    """The bundles of the chosen opcodes in one engine stream of one corpus NEFF, in stream order."""

    file: CorpusFile
    graph: str
    stream: str  # tongasm stream name: pe, pool, act, dve, sp
    target: Target
    rows: np.ndarray  # (n, 64) uint8
    index: np.ndarray  # each row's bundle number in the stream
    all_ops: np.ndarray  # the opcode byte of every bundle of the whole stream

    @property
    def where(self) -> str:
        return f"{self.file.relative}:{self.graph}/{self.stream}"


@cache
def real_streams(ops: tuple[int, ...]) -> tuple[RealStream, ...]:
    """Every corpus stream holding one of ``ops``, with those bundles."""
    out = []
    for cf in corpus_files():
        n = Neff.read(cf.path)
        for s in n.streams():
            a = np.frombuffer(n.stream_data(s), np.uint8)
            a = a[: len(a) // BUNDLE_SIZE * BUNDLE_SIZE].reshape(-1, BUNDLE_SIZE)
            sel = np.flatnonzero(np.isin(a[:, 0], ops))
            if len(sel):
                out.append(RealStream(cf, s.graph, s.stream, n.target, a[sel].copy(), sel, a[:, 0].copy()))
    return tuple(out)


def all_rows(ops: tuple[int, ...]) -> tuple[np.ndarray, list[RealStream]]:
    """Every row of ``ops`` over the corpus (concatenated) and, per row, its stream."""
    streams = real_streams(ops)
    rows = np.concatenate([s.rows for s in streams])
    owner = [s for s in streams for _ in range(len(s.rows))]
    return rows, owner


def findings_of(streams: tuple[RealStream, ...]) -> list[str]:
    """The findings of ``check`` on every chosen bundle, one line each (``where: finding``)."""
    out = []
    for s in streams:
        for f in check_stream(s.rows.tobytes(), name=s.where, target=s.target, stream=s.stream, unmodelled="note"):
            out.append(f.line())
    return out


def representatives(s: RealStream, varying: tuple[int, ...]) -> np.ndarray:
    """One row of each distinct shape of a stream: rows equal but for the bytes at ``varying``
    (addresses, sync values), which only count as zero or non-zero."""
    key = s.rows.copy()
    if varying:
        key[:, list(varying)] = key[:, list(varying)] != 0
    _u, first = np.unique(np.ascontiguousarray(key).view(f"V{BUNDLE_SIZE}").ravel(), return_index=True)
    return s.rows[np.sort(first)]


def explain_and_round_trip(streams: tuple[RealStream, ...], varying: tuple[int, ...]) -> tuple[int, list[str]]:
    """Explain every representative (no unexplained byte) and take them through the text and back
    (identical bytes); returns (bundles tried, problems)."""
    problems: list[str] = []
    tried = 0
    for s in streams:
        reps = representatives(s, varying)
        tried += len(reps)
        for raw in reps:
            ex = explain_bundle(bytes(raw), target=s.target, stream=s.stream)
            if ex.unexplained:
                problems.append(f"{s.where}: {bytes(raw).hex()} unexplained {[r.name for r in ex.unexplained]}")
        data = reps.tobytes()
        text = "\n".join(fast_listing([StreamInput(s.stream, data)], target=s.target))
        back = bytes(assemble_text(text).streams[s.stream])
        if back != data:
            bad = next(i for i in range(len(reps)) if back[i * 64:(i + 1) * 64] != data[i * 64:(i + 1) * 64])
            problems.append(f"{s.where}: {data[bad * 64:(bad + 1) * 64].hex()} -> text -> "
                            f"{back[bad * 64:(bad + 1) * 64].hex()}")
    return tried, problems


def check_ids(raw: bytes | bytearray | np.ndarray, s: RealStream) -> set[str]:
    """The check ids ``check`` reports on one (mutated) bundle of stream ``s``."""
    return {f.check for f in check_stream(bytes(raw), target=s.target, stream=s.stream, unmodelled="note")}


def vector_is_real(vector: str, file: str, stream: str, bundles: list[int]) -> None:
    """A golden vector (tests/golden/vectors/...) whose expected bytes were taken from the corpus: assert
    they are still the bundles ``bundles`` of ``stream`` (sg00) of ``file``, in order."""
    import json
    from pathlib import Path

    case = json.loads((Path(__file__).parent / "golden" / "vectors" / vector).read_text())
    (want,) = case["expect"]["streams"].values()
    cf = next(c for c in corpus_files() if c.relative == file)
    n = Neff.read(cf.path)
    data = n.stream_data(n.graph("sg00").streams[stream])
    assert [data[i * BUNDLE_SIZE:(i + 1) * BUNDLE_SIZE].hex() for i in bundles] == want, vector
