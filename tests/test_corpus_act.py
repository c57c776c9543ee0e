"""The Activation, DVE and Pool vector families on every real bundle of the corpus (96 NEFFs,
neuronx-cc 2.14 sunda and 2.23 sunda/cayman): each decodes, explains with no unexplained byte,
round-trips through text identically and passes ``check`` (the stream-order residency rule too, with
the graph's own function-set list, R-21). Must-fail cases show that each corrected rule still catches
a real violation, and the fields the real bytes settled read as the bytes and the vendor profiler say
(the scale word +0x24 and its kind +0x0D, N-5/N-2; the TensorScalar scalar kinds and value slots,
N-2/N-3; the int32 band on gen2 Pool 0x41, D-21).
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest

from corpus_support import corpus_dir, corpus_files
from tongasm.check import check_stream
from tongasm.check.runner import check_bundle
from tongasm.decode.bundle import decode_bundle
from tongasm.isa import DecisionSet, build_formats, get_target
from tongasm.isa.decisions import DEFAULT_DECISIONS
from tongasm.isa.targets import Target
from tongasm.neff import Neff, read_neff
from tongasm.text.assembler import assemble_text
from tongasm.text.explain import explain_bundle
from tongasm.text.listing import StreamInput, listing

#: the opcodes of the families this file covers (Activation: 0x21, 0x23; DVE/Pool vector ops: TensorTensor 0x41,
#: TensorReduce 0x42, TensorScalar 0x43/0x53, Pool 0x45, the copies 0x46/0x47, Reciprocal 0x48, CopyPredicated 0x72)
OPCODES = frozenset({0x21, 0x23, 0x24, 0x41, 0x42, 0x43, 0x45, 0x46, 0x47, 0x48, 0x53, 0x72})
ENGINES = frozenset({"act", "dve", "pool"})


@dataclass(frozen=True)
class Corpus:
    """Every distinct (target, engine, bundle) of the covered opcodes, with its count and compiler versions."""

    bundles: dict[tuple[str, str, bytes], int]
    versions: dict[tuple[str, str, bytes], frozenset[str]]
    #: (file, graph, engine) → the stream's bytes, for the stream-order rule
    streams: list[tuple[str, str, str, Target, bytes, tuple[str, ...] | None]]


@cache
def corpus() -> Corpus:
    bundles: dict[tuple[str, str, bytes], int] = {}
    versions: dict[tuple[str, str, bytes], set[str]] = {}
    streams = []
    for cf in corpus_files():
        n = read_neff(cf.path)
        for s in n.streams():
            if s.stream not in ENGINES:
                continue
            data = n.stream_data(s)
            arr = np.frombuffer(data, np.uint8).reshape(-1, 64)
            rows = arr[np.isin(arr[:, 0], list(OPCODES))]
            for raw in rows:
                key = (n.target.name, s.stream, raw.tobytes())
                bundles[key] = bundles.get(key, 0) + 1
                versions.setdefault(key, set()).add(cf.compiler[:4])
            if s.stream == "act":
                streams.append((cf.relative, s.graph, s.stream, n.target, data, n.activation_function_sets(s.graph)))
    return Corpus(bundles, {k: frozenset(v) for k, v in versions.items()}, streams)


def _distinct(op: int) -> Iterator[tuple[str, str, bytes, int]]:
    for (target, engine, raw), count in corpus().bundles.items():
        if raw[0] == op:
            yield target, engine, raw, count


def test_the_corpus_holds_these_families() -> None:
    """The population the tests below run over (counts of the real files, so nothing silently vanishes)."""
    corpus_dir()
    per_op: dict[int, int] = {}
    for (_t, _e, raw), count in corpus().bundles.items():
        per_op[raw[0]] = per_op.get(raw[0], 0) + count
    assert per_op[0x21] == 148_279 and per_op[0x23] == 4_298
    assert per_op[0x43] == 23_056 and per_op[0x53] == 167 and per_op[0x41] >= 54_870


@pytest.mark.parametrize("op", sorted(OPCODES), ids=lambda o: f"{o:#04x}")
def test_every_real_bundle_decodes_explains_and_checks(op: int) -> None:
    """Each distinct bundle decodes to a layout of its opcode, explains with no unexplained byte and no
    error, and the bundle checks find nothing."""
    fs = build_formats(DEFAULT_DECISIONS)
    seen = 0
    for target, engine, raw, _count in _distinct(op):
        seen += 1
        sel = fs.select(raw[0], raw)
        assert sel is not None, (target, engine, raw.hex())
        t = get_target(target)
        findings = check_bundle(sel[0], sel[1], raw, target=t, stream=engine)
        assert findings == [], (target, engine, raw.hex(), [f.line() for f in findings])
        ex = explain_bundle(raw, target=t)
        assert not ex.error and ex.unexplained == [], (target, engine, raw.hex())
    if op != 0x24:  # 0x24 (the Activation accumulator read-out) has no real bundle in this corpus
        assert seen, f"no real bundle of {op:#04x}"


def test_every_real_bundle_round_trips_through_text() -> None:
    """bytes → listing → bytes is the identity on the distinct bundles, per (target, engine)."""
    groups: dict[tuple[str, str], list[bytes]] = {}
    for (target, engine, raw) in corpus().bundles:
        groups.setdefault((target, engine), []).append(raw)
    for (target, engine), raws in groups.items():
        data = b"".join(raws)
        name = f"sg00.{engine}"
        lines = list(listing([StreamInput(name, data)], target=get_target(target)))
        assert not [line for line in lines if ".bytes" in line], (target, engine)
        prog = assemble_text("\n".join(lines))
        assert bytes(prog.streams[name]) == data, (target, engine)


def test_every_activation_stream_passes_the_stream_order_rule() -> None:
    """N-35 with R-21's default: every real Activate uses a function its last loaded set holds, the set read
    in the graph's own Activation.json list."""
    n_streams = 0
    for file, graph, engine, target, data, table in corpus().streams:
        found = check_stream(data, name=f"{file}:{graph}/{engine}", target=target, stream=engine,
                             unmodelled="note", act_sets=table)
        assert [f.line() for f in found if f.check in ("act.resident", "act.set_id")] == []
        n_streams += 1
    assert n_streams >= 70


def test_the_book_set_order_contradicts_the_real_streams() -> None:
    """Must-fail: read in act_info.json's order (R-21=act-info, the book's LAF reading), the real streams use
    functions the named set does not hold: the rule still catches a real mismatch."""
    ds = DecisionSet.parse(["R-21=act-info"])
    bad = 0
    for file, graph, engine, target, data, table in corpus().streams:
        found = check_stream(data, name=f"{file}:{graph}/{engine}", target=target, stream=engine, decisions=ds,
                             unmodelled="note", act_sets=table)
        bad += sum(f.check == "act.resident" for f in found)
    assert bad == 24_342


# --- the corrected rules still catch violations ---------------------------------------------------------------

def _first(op: int, engine: str, target: str = "gen2") -> bytes:
    for t, e, raw, _c in _distinct(op):
        if t == target and e == engine:
            return raw
    raise AssertionError(f"no {op:#04x} bundle on {target}/{engine}")


def test_residency_still_catches_a_function_the_loaded_set_lacks() -> None:
    """Must-fail: a real Activation stream whose LoadActFuncSet bytes name another set of the graph's list."""
    for file, graph, engine, target, data, table in corpus().streams:
        if not table or len(table) < 2 or "sigmoid_and_others" not in table:
            continue
        arr = bytearray(data)
        sig = table.index("sigmoid_and_others")
        other = next(k for k, n in enumerate(table) if n in ("exp_and_others", "reciprocal_sqrt_and_small"))
        changed = 0
        for k in range(0, len(arr), 64):
            if arr[k] == 0x23 and arr[k + 0x23] == sig:
                arr[k + 0x23] = other
                changed += 1
        if not changed:
            continue
        found = check_stream(bytes(arr), target=target, stream=engine, unmodelled="note", act_sets=table)
        msgs = [f.message for f in found if f.check == "act.resident"]
        assert msgs and any("Sigmoid" in m for m in msgs), file
        # and an index past the graph's list is an act.set_id finding
        arr2 = bytearray(data)
        k = next(k for k in range(0, len(arr2), 64) if arr2[k] == 0x23)
        arr2[k + 0x23] = len(table)
        found = check_stream(bytes(arr2), target=target, stream=engine, unmodelled="note", act_sets=table)
        assert any(f.check == "act.set_id" for f in found), file
        return
    raise AssertionError("no Activation stream with sigmoid_and_others in its list")


def test_the_int32_band_still_needs_int32_operands_and_the_pool_engine() -> None:
    """Must-fail: the real gen2 Pool 0x41 with 0xC4 passes (D-21=both-targets), fails under D-21=gen3-only, with
    a float32 operand, and on the DVE engine."""
    raw = _first(0x41, "pool")
    assert raw[0x0E] == 0xC4 and raw[0x0C] == 0x88 and raw[0x0D] == 0x08  # add in the band, all int32
    gen2 = get_target("gen2")
    d = decode_bundle(raw)
    assert check_bundle(d.fmt, d.fields, raw, target=gen2, stream="pool") == []
    old = DecisionSet.parse(["D-21=gen3-only"])
    d_old = decode_bundle(raw, decisions=old)
    assert {f.check for f in check_bundle(d_old.fmt, d_old.fields, raw, target=gen2, stream="pool",
                                           decisions=old)} == {"tt.int_band"}
    f32 = bytearray(raw)
    f32[0x0C] = 0x8A  # in0 float32
    d2 = decode_bundle(bytes(f32))
    assert "tt.int_band" in {f.check for f in check_bundle(d2.fmt, d2.fields, bytes(f32), target=gen2, stream="pool")}
    assert "tt.int_band" in {f.check for f in check_bundle(d.fmt, d.fields, raw, target=gen2, stream="dve")}


def test_an_unknown_scalar_kind_code_is_still_caught() -> None:
    """Must-fail: kind code 3 at the Activate scale kind +0x0D and at TensorScalar +0x23."""
    for op, off, check in ((0x21, 0x0D, "act.scalar_kinds"), (0x43, 0x23, "ts.scalar_kinds")):
        raw = bytearray(_first(op, "act" if op == 0x21 else "dve"))
        raw[off] = 3
        d = decode_bundle(bytes(raw))
        assert check in {f.check for f in check_bundle(d.fmt, d.fields, bytes(raw), target=get_target("gen2"))}


def test_the_scale_word_is_not_reserved_under_the_book_reading() -> None:
    """Must-fail: N-5=reserved-zero (§15.1) still flags the real scale word (1.0f at +0x24)."""
    ds = DecisionSet.parse(["N-5=reserved-zero"])
    raw = _first(0x21, "act")
    d = decode_bundle(raw, decisions=ds)
    found = check_bundle(d.fmt, d.fields, raw, target=get_target("gen2"), decisions=ds)
    assert [f.field for f in found if f.check == "field.constant"] == ["reserved_24"]


# --- the fields read as the bytes and the profiler say ----------------------------------------------------------

def _profile() -> Iterator[dict[str, str]]:
    for p in sorted((corpus_dir() / "attention-trn2" / "profile").glob("*.aligned.jsonl")):
        for line in p.read_text().splitlines():
            yield json.loads(line)


def test_the_profiler_reads_scale_bias_and_scalar_kinds_as_tongasm_does() -> None:
    """The vendor profiler's text of every traced Activate and TensorScalar: scale= is the +0x24 float under
    +0x0D = 0 (immediate), bias_ptr= the +0x28 word under +0x0F = 0 (pointer), imm_src=PTR/INSTRUCTION the
    +0x23/+0x27 kinds (1 pointer, 0 immediate) with imm= the +0x28/+0x2C words."""
    n_act = n_ts = 0
    for rec in _profile():
        raw = bytes.fromhex(rec["bundle_hex"])
        ops = rec["operands"]
        if rec["opcode_byte"] == "0x21":
            d = decode_bundle(raw)
            scale = struct.unpack("<f", struct.pack("<I", d.fields["arg2_value"]))[0]
            assert d.fields["arg2_kind"] == 0 and f"scale={scale:.6f}" in ops
            assert d.fields["arg1_kind"] == 0 and f"bias_ptr=fp32@{d.fields['arg1_value']:#x}" in ops
            n_act += 1
        elif rec["opcode_byte"] == "0x43":
            d = decode_bundle(raw)
            kinds = {0: "INSTRUCTION", 1: "PTR"}
            want = f"imm_src={kinds[d.fields['s0_kind']]},{kinds[d.fields['s1_kind']]}"
            assert want in ops, ops
            # a pointer's word prints in hex; the immediate 0 as 0 (the traced bundles have no other immediate)
            words = [f"{d.fields[f'{s}_value']:#x}" if d.fields[f"{s}_kind"] == 1 else str(d.fields[f"{s}_value"])
                     for s in ("s0", "s1")]
            assert f"imm={','.join(words)}" in ops, ops
            n_ts += 1
    assert n_act == 52 and n_ts == 44


def test_yolox_tensor_scalar_pointer_words_read_as_pointers() -> None:
    """2.14's TensorScalar kind-1 words are SBUF addresses (active bit set, no float reading), kind-0 words
    floats: the listing prints ptr(...) for the first, a float for the second."""
    raw = next(r for t, e, r, _c in _distinct(0x43) if t == "gen2" and r[0x23] == 1 and r[0x27] == 0)
    d = decode_bundle(raw)
    assert d.fields["s0_kind"] == 1 and d.fields["s1_kind"] == 0
    text = "\n".join(listing([StreamInput("sg00.dve", raw)], target=get_target("gen2")))
    assert f"s0=ptr({d.fields['s0_value']:#010x})" in text, text
    raw = next(r for t, e, r, _c in _distinct(0x43) if t == "gen2" and r[0x23] == 0 and r[0x27] == 1)
    d = decode_bundle(raw)
    s0 = struct.unpack("<f", raw[0x28:0x2C])[0]
    assert 0 < s0 < 1 and f"s1=ptr({d.fields['s1_value']:#010x})" in \
        "\n".join(listing([StreamInput("sg00.dve", raw)], target=get_target("gen2")))


def test_neff_activation_function_sets_is_the_graphs_list() -> None:
    """Neff.activation_function_sets gives the sidecar's list (the yolox graphs name up to four sets)."""
    lists = {t for _f, _g, _e, _t, _d, t in corpus().streams if t}
    assert ("exp_and_others",) in lists
    assert any(len(t) >= 4 for t in lists)
    n: Neff = read_neff(next(cf.path for cf in corpus_files() if cf.relative.startswith("attention-trn2")))
    assert n.activation_function_sets("sg00") == ("exp_and_others",)
