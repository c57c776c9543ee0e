"""Acceptance of the Pool-engine (GPSIMD) opcodes on every real bundle of the shared corpus:
TensorScalarAddr 0x74, CustomOpHeader 0x85 / CustomOpPayload 0x86, PoolBufferLoad 0x67 / Gather 0x68,
Iota 0x7E and TensorScalarAffineSelect 0x92. Every bundle of them decodes to its layout, no non-zero
bit is outside a field, ``explain`` leaves nothing unexplained on one bundle of each pattern of
non-zero bytes, bytes -> text -> bytes is the identity on every stream that holds them, and the checks
find nothing on them. The counts are the corpus's (PROVENANCE.tsv's 96 NEFFs).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest

from corpus_support import corpus_files
from tongasm.check import CheckSet, check_stream
from tongasm.decode.batch import decode_stream
from tongasm.isa import Target
from tongasm.neff import Neff
from tongasm.text.assembler import assemble_text
from tongasm.text.explain import explain_bundle
from tongasm.text.fast import fast_listing
from tongasm.text.listing import StreamInput

#: opcode -> (layout, bundles in the corpus)
EXPECTED = {
    0x74: ("TensorScalarAddr", 559),
    0x85: ("CustomOpHeader", 92),
    0x86: ("CustomOpPayload", 460),
    0x67: ("PoolBufferLoad", 18),
    0x68: ("Gather", 18),
    0x7E: ("Iota", 16),
    0x92: ("TensorScalarAffineSelect", 8),
}


@dataclass(frozen=True)
class RealStream:
    file: str
    name: str
    engine: str
    target: Target
    data: bytes

    @property
    def rows(self) -> np.ndarray:
        return np.frombuffer(self.data, np.uint8).reshape(-1, 64)

    @property
    def mine(self) -> np.ndarray:
        return np.isin(self.rows[:, 0], list(EXPECTED))


@cache
def streams() -> tuple[RealStream, ...]:
    """Every corpus stream that holds a bundle of these opcodes."""
    out = []
    for cf in corpus_files():
        n = Neff.read(cf.path)
        for s in n.streams():
            data = n.stream_data(s)
            rows = np.frombuffer(data, np.uint8).reshape(-1, 64)
            if np.isin(rows[:, 0], list(EXPECTED)).any():
                out.append(RealStream(cf.relative, s.name, s.stream, n.target, data))
    return tuple(out)


def test_the_corpus_holds_these_opcodes_in_these_numbers() -> None:
    seen: Counter[int] = Counter()
    for s in streams():
        seen.update(int(op) for op in s.rows[s.mine, 0])
    assert dict(seen) == {op: n for op, (_name, n) in EXPECTED.items()}
    assert {s.engine for s in streams()} == {"pool"}


def test_every_bundle_decodes_to_its_layout_with_no_bit_outside_a_field() -> None:
    for s in streams():
        cols = decode_stream(s.data)
        rows = s.rows
        for k in np.flatnonzero(s.mine):
            name = cols.layout_names[cols.layout[k]] if cols.layout[k] >= 0 else None
            assert name == EXPECTED[int(rows[k, 0])][0], (s.file, s.name, int(k))
        for name, g in cols.groups.items():
            if name not in {v[0] for v in EXPECTED.values()}:
                continue
            mask = np.frombuffer(g.fmt.covered_mask(), np.uint8)
            assert not (rows[g.index] & ~mask).any(), (s.file, name)


def test_explain_leaves_no_byte_unexplained() -> None:
    """One bundle of each (opcode, pattern of non-zero bytes): every field has a confidence tag, no byte
    is unexplained, no error finding."""
    patterns: dict[tuple[int, bytes], tuple[bytes, Target]] = {}
    for s in streams():
        rows = s.rows
        for k in np.flatnonzero(s.mine):
            patterns.setdefault((int(rows[k, 0]), np.packbits(rows[k] != 0).tobytes()), (rows[k].tobytes(), s.target))
    assert len({op for op, _p in patterns}) == len(EXPECTED)
    for (op, _p), (raw, target) in patterns.items():
        ex = explain_bundle(raw, target=target)
        assert ex.layout == EXPECTED[op][0] and not ex.error and ex.unexplained == [], raw.hex()
        assert all(r.conf for r in ex.rows), raw.hex()
        assert ex.findings == [], (raw.hex(), [f.line() for f in ex.findings])


@pytest.mark.parametrize("index", range(len(EXPECTED)), ids=[v[0] for v in EXPECTED.values()])
def test_text_round_trip_is_the_identity_on_every_stream_holding_them(index: int) -> None:
    op = list(EXPECTED)[index]
    for s in streams():
        if not (s.rows[:, 0] == op).any():
            continue
        lines = list(fast_listing([StreamInput(s.name, s.data)], target=s.target))
        prog = assemble_text("\n".join(lines))
        assert bytes(prog.streams[s.name]) == s.data, (s.file, s.name)
        mnemonic = EXPECTED[op][0]
        assert sum(line.lstrip().startswith(mnemonic + " ") or f" {mnemonic} " in line for line in lines) \
            >= int((s.rows[:, 0] == op).sum()), (s.file, mnemonic)


def test_the_checks_find_nothing_on_these_bundles_pedantic_ones_included() -> None:
    for s in streams():
        findings = check_stream(s.data, name=s.name, target=s.target, stream=s.engine, unmodelled="note",
                                checks=CheckSet(pedantic=True))
        ours = [f for f in findings if f.offset is not None and s.mine[f.offset // 64]]
        assert ours == [], (s.file, [f.line() for f in ours])
