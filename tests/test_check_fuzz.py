"""Fuzzing the raw-stream checker (issue 3, item 5): whatever bytes ``check_stream`` is fed, it
returns findings or raises a :class:`TongasmError`; any other exception, or a hang, is a bug.

Random bundles mostly start with an opcode byte that has no layout, so part of the examples are
biased: a known opcode byte (the keys of ``build_formats(DecisionSet()).by_opcode``), sparse bytes
around a plausible header, or a legal bundle with a few bytes mutated, so that every layout and the
checks behind it are actually exercised. Bounded to a few seconds.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import time_limit
from tongasm.check import CHECKS, CheckSet, Finding, check_stream
from tongasm.codegen import assemble
from tongasm.errors import TongasmError
from tongasm.ir import read_bir
from tongasm.isa import GEN2, GEN3, DecisionSet, build_formats, each_reading

from test_checks import BASES

OPCODES = sorted(build_formats(DecisionSet()).by_opcode)
READINGS = each_reading()
LEGAL = [bytes(next(iter(assemble(read_bir(k()), check="off").streams.values()))) for k, _ in BASES.values()]

SETTINGS = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def checked(data: bytes, **kw: Any) -> list[Finding] | None:
    """Run check_stream; return its findings, or None if it raised a TongasmError (a clean refusal)."""
    try:
        with time_limit(5.0, "check_stream"):
            out = check_stream(data, name="fuzz.bin", **kw)
    except TongasmError:
        return None
    assert isinstance(out, list)
    n = len(data)
    for f in out:
        assert isinstance(f, Finding)
        assert f.check in CHECKS, f.check
        assert f.stream == "fuzz.bin"
        assert isinstance(f.offset, int) and 0 <= f.offset <= n and f.offset % 64 == 0, f
        assert f.severity == "error" and f.message
        f.line()
        json.dumps(f.to_json())
    if n % 64:
        assert [f.check for f in out if f.offset == n - n % 64 and f.check == "stream.length"] == ["stream.length"]
    return out


context = st.fixed_dictionaries({
    "target": st.sampled_from([GEN2, GEN3]),
    "decisions": st.sampled_from(READINGS),
    "checks": st.sampled_from([CheckSet(), CheckSet(pedantic=True)]),
    "stream": st.sampled_from([None, "pool", "act", "pe", "dma", "dve", "sp"]),
})


@st.composite
def biased_bundle(draw: st.DrawFn) -> bytes:
    """A 64-byte bundle that decodes often: a known opcode with random, sparse or mutated bytes."""
    how = draw(st.sampled_from(["random", "sparse", "mutated"]))
    if how == "mutated":
        b = bytearray(draw(st.sampled_from(LEGAL)))
        for off, v in draw(st.lists(st.tuples(st.integers(1, 63), st.integers(0, 255)), max_size=4)):
            b[off] = v
        return bytes(b)
    if how == "sparse":
        b = bytearray(64)
        b[1] = draw(st.sampled_from([0x10, 0x00, 0x10, draw(st.integers(0, 255))]))
        for off, v in draw(st.lists(st.tuples(st.integers(2, 63), st.integers(0, 255)), max_size=8)):
            b[off] = v
    else:
        b = bytearray(draw(st.binary(min_size=64, max_size=64)))
    b[0] = draw(st.sampled_from(OPCODES))
    return bytes(b)


@SETTINGS
@given(data=st.binary(min_size=64, max_size=64), kw=context)
def test_random_bundle(data: bytes, kw: dict[str, Any]) -> None:
    checked(data, **kw)


@SETTINGS
@given(data=st.binary(max_size=64 * 4 + 63), kw=context)
def test_random_length(data: bytes, kw: dict[str, Any]) -> None:
    out = checked(data, **kw)
    assert out is not None or len(data) % 64 == 0


@SETTINGS
@given(bundles=st.lists(biased_bundle(), min_size=1, max_size=4), tail=st.binary(max_size=63), kw=context)
def test_bundles_with_known_opcodes(bundles: list[bytes], tail: bytes, kw: dict[str, Any]) -> None:
    data = b"".join(bundles) + tail
    out = checked(data, **kw)
    if out is not None:
        # a known opcode never yields bundle.opcode; every other finding sits on a bundle boundary
        assert not [f for f in out if f.check == "bundle.opcode"]


def test_the_biased_strategy_reaches_every_layout() -> None:
    """The fuzzed opcodes are the layouts' opcodes, and each layout decodes at least one legal base."""
    fs = build_formats(DecisionSet())
    assert OPCODES and all(fs.variants(o) for o in OPCODES)
    reached = {fs.select(b[0], b)[0].name for b in LEGAL}  # type: ignore[index]
    assert reached >= {"TensorTensor", "CopyPredicated", "CopyPredicatedScalar", "SelectReduce", "TensorCopy",
                       "Memset", "MoveShape", "RegisterMove.reg", "RegisterMove.imm", "RegisterMove.imm64",
                       "RegisterAlu.reg", "RegisterAlu.imm", "RegisterAlu.imm64", "TensorLoadSave.imm",
                       "TensorLoadSave.reg"}


@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 127, 128, 1000])
def test_edge_lengths(n: int) -> None:
    out = checked(bytes(n))
    assert out is not None
    assert [f.check for f in out if f.check == "stream.length"] == (["stream.length"] if n % 64 else [])
    # all-zero bundles: opcode 0x00 has no layout
    assert len([f for f in out if f.check == "bundle.opcode"]) == n // 64
