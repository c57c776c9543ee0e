"""Structural tests of the wire tables (riscv-opcodes style): every format fits the 64-byte bundle,
no two fields overlap, every decision id exists, every in-scope opcode has a layout, and variants of
one opcode are told apart on decode."""

from __future__ import annotations

import itertools

import pytest

from tongasm.isa import DECISIONS, OPCODES, DecisionSet, build_formats
from tongasm.isa.fields import BUNDLE_SIZE, NONZERO, Conf, Kind

SELECTABLE = [d for d in DECISIONS.values() if d.selectable]


def all_decision_sets() -> list[DecisionSet]:
    """The default set plus each alternative reading on its own."""
    out = [DecisionSet()]
    for d in SELECTABLE:
        for c in d.choices[1:]:
            out.append(DecisionSet.of({d.id: c}))
    return out


@pytest.mark.parametrize("ds", all_decision_sets(), ids=lambda d: ",".join(d.describe()) or "default")
def test_every_format_fits_and_fields_do_not_overlap(ds: DecisionSet) -> None:
    fs = build_formats(ds)
    for fmt in fs:
        bits: dict[int, str] = {}
        for f in fmt.fields:
            assert 0 <= f.offset and f.offset + f.size <= BUNDLE_SIZE, (fmt.name, f.name)
            lo, hi = f.bit_range
            for b in range(lo, hi):
                assert b not in bits, f"{fmt.name}: {f.name} overlaps {bits[b]}"
                bits[b] = f.name
        assert fmt.struct.size == BUNDLE_SIZE


def test_every_field_has_a_confidence_and_known_decision() -> None:
    for ds in all_decision_sets():
        for fmt in build_formats(ds):
            for f in fmt.fields:
                assert isinstance(f.conf, Conf)
                assert f.decision is None or f.decision in DECISIONS, (fmt.name, f.name, f.decision)
                if f.conf is Conf.D:
                    assert f.decision, f"{fmt.name}.{f.name} is tagged D but names no decision"
                assert f.doc, f"{fmt.name}.{f.name} has no doc"


def test_every_in_scope_opcode_has_a_layout() -> None:
    fs = build_formats(DecisionSet())
    for byte in OPCODES:
        assert fs.variants(byte), f"opcode {byte:#04x} has no layout"
    assert set(fs.by_opcode) == set(OPCODES)


def test_header_and_sync_band_are_shared() -> None:
    """SPEC §3.2: every format starts with the same header and (D-3) sync band."""
    fs = build_formats(DecisionSet())
    expect = {"opcode": (0, 1), "inst_word_len": (1, 1), "reserved_02": (2, 2), "wait_mode": (4, 1),
              "wait_idx": (5, 1), "update_mode": (6, 1), "update_idx": (7, 1), "sync_value": (8, 4)}
    for fmt in fs:
        # EventSemaphore (0xA0) has its own lanes: wait 0 where the band's wait is, +0x06/+0x07 reserved
        # a second wait at +0x20/+0x21/+0x24 and the update at +0x22/+0x23/+0x28
        own = {"update_mode": (0x22, 1), "update_idx": (0x23, 1)} if fmt.layout.sync is not None else {}
        for name, (off, size) in {**expect, **own}.items():
            f = fmt.field_map[name]
            assert (f.offset, f.size) == (off, size), (fmt.name, name)
        # D-1; PseudoExtension 0xDA holds 0 there: it continues the DMA before it
        assert fmt.field_map["inst_word_len"].const == (0 if fmt.name == "DmaExtension" else 0x10)
    lanes = fs.by_name["EventSemaphore"].sync
    assert lanes is not None and [w.value for w in lanes.waits] == ["sync_value", "wait1_value"]
    assert fs.by_name["EventSemaphore"].field_map["wait1_value"].offset == 0x24


def _sample(fmt, variant_values):  # values that satisfy a variant's match rule
    vals = {}
    for name, exp in fmt.match.items():
        vals[name] = 1 if exp is NONZERO else (min(exp) if isinstance(exp, frozenset) else exp)
    vals.update(variant_values)
    return vals


@pytest.mark.parametrize("ds", all_decision_sets(), ids=lambda d: ",".join(d.describe()) or "default")
def test_variants_decode_to_themselves(ds: DecisionSet) -> None:
    """Encoding a value set that satisfies a variant's match rule decodes back to that variant."""
    fs = build_formats(ds)
    for byte, variants in fs.by_opcode.items():
        for fmt in variants:
            vals = _sample(fmt, {"opcode": byte})
            raw = fmt.encode(vals)
            sel = fs.select(byte, raw)
            assert sel is not None and sel[0] is fmt, (fmt.name, sel and sel[0].name)


def test_slots_follow_the_4_plus_4n_rule() -> None:
    """SPEC §3.4: N free dims = ADDR4 + N i16 steps + N u16 counts, 4 + 4N bytes."""
    for fmt in build_formats(DecisionSet()):
        for s in fmt.slots.values():
            fm = fmt.field_map
            assert fm[f"{s.name}.addr"].offset == s.offset and fm[f"{s.name}.addr"].kind is Kind.ADDR4
            for i in range(s.ndims):
                assert fm[f"{s.name}.step{i}"].offset == s.offset + 4 + 2 * i
                assert fm[f"{s.name}.step{i}"].signed
                assert fm[f"{s.name}.num{i}"].offset == s.offset + 4 + 2 * s.ndims + 2 * i
            assert s.size == 4 + 4 * s.ndims


def test_descriptor_slots_where_the_spec_puts_them() -> None:
    """SPEC §3.4/§4, with R-7 (TensorTensor: +0x10 is an input, by the real NEFFs) and R-8."""
    fs = build_formats(DecisionSet()).by_name
    where = {
        "TensorTensor": {"out": (0x30, 3), "in0": (0x10, 3), "in1": (0x20, 3)},
        "CopyPredicated": {"dst": (0x30, 3), "src": (0x20, 3), "mask": (0x10, 3)},
        "CopyPredicatedScalar": {"dst": (0x10, 3), "mask": (0x30, 3)},
        "SelectReduce": {"src": (0x0C, 2), "dst": (0x18, 2), "mask": (0x30, 2)},
        "TensorCopy": {"src": (0x0C, 4), "dst": (0x2C, 4)},
        "Memset": {"dst": (0x2C, 4)},
    }
    for name, slots in where.items():
        got = {s.name: (s.offset, s.ndims) for s in fs[name].slots.values()}
        assert got == slots, name


@pytest.mark.parametrize("reading, want", [
    ("in0-in1-out", {"in0": 0x10, "in1": 0x20, "out": 0x30}),
    ("in0-out-in1", {"in0": 0x10, "out": 0x20, "in1": 0x30}),
    ("in1-in0-out", {"in1": 0x10, "in0": 0x20, "out": 0x30}),
    ("out-in0-in1", {"out": 0x10, "in0": 0x20, "in1": 0x30}),
])
def test_r7_readings_place_the_tensortensor_slots(reading: str, want: dict[str, int]) -> None:
    fmt = build_formats(DecisionSet.parse([f"R-7={reading}"])).by_name["TensorTensor"]
    assert {s.name: s.offset for s in fmt.slots.values()} == want
    # the low nibble and the partition count belong to the input at +0x10
    first = "in1" if reading == "in1-in0-out" else "in0"
    assert fmt.field_map[f"{first}_dtype"].shift == 0 and f"({first})" in fmt.field_map["num_partitions"].doc


@pytest.mark.parametrize("reading, want", [
    ("mask-src-dst", {"mask": 0x10, "src": 0x20, "dst": 0x30}),
    ("dst-src-mask", {"dst": 0x10, "src": 0x20, "mask": 0x30}),
    ("src-mask-dst", {"src": 0x10, "mask": 0x20, "dst": 0x30}),
])
def test_r8_readings_place_the_copy_predicated_slots(reading: str, want: dict[str, int]) -> None:
    fmt = build_formats(DecisionSet.parse([f"R-8={reading}"])).by_name["CopyPredicated"]
    assert {s.name: s.offset for s in fmt.slots.values()} == want


def test_decisions_parse_and_reject_unknown() -> None:
    from tongasm.errors import UsageError

    ds = DecisionSet.parse(["D-6=outermost-first", "d-20=u32"])
    assert ds["D-6"] == "outermost-first" and ds["D-20"] == "u32" and ds["D-2"] == "lut"
    assert DecisionSet.parse(["D-6=innermost-first"]) == DecisionSet()  # defaults are canonicalised away
    for bad in (["D-99=x"], ["D-6=sideways"], ["D-6"]):
        with pytest.raises(UsageError):
            DecisionSet.parse(bad)


def test_format_sets_are_cached_per_selection() -> None:
    a = build_formats(DecisionSet.parse(["D-20=u32"]))
    b = build_formats(DecisionSet.parse(["D-20=u32"]))
    assert a is b
    assert a.by_name["MoveShape"].field_map["count1"].offset == 0x34
    assert build_formats(DecisionSet()).by_name["MoveShape"].field_map["count1"].offset == 0x32


def test_no_opcode_layout_pair_is_ambiguous() -> None:
    """Two variants of one opcode must differ in at least one match field value."""
    fs = build_formats(DecisionSet())
    for byte, variants in fs.by_opcode.items():
        for a, b in itertools.combinations(variants, 2):
            assert a.match != b.match or a.match == {}, (a.name, b.name)
            if not a.match and not b.match:
                pytest.fail(f"{a.name} and {b.name} share opcode {byte:#04x} with no match rule")


# --- composition (Format.place / place_slot / compose): the encoder's hot path ------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tongasm.errors import FieldRangeError  # noqa: E402

from strategies import format_and_values  # noqa: E402


@settings(max_examples=300, deadline=None)
@given(format_and_values(), st.randoms(use_true_random=False))
def test_compose_of_any_split_equals_encode(fv, rnd) -> None:
    """Placing the fields in any grouping — some as plain values, some pre-placed, the slots as
    tuples — gives the same 64 bytes as encoding them all at once."""
    _ds, fmt, vals = fv
    want = fmt.encode(vals)
    slot_names = [s for s in fmt.slots if rnd.random() < 0.5]
    slots = {s: tuple(vals[n] for n in fmt.slot_fields[s]) for s in slot_names}
    rest = {k: v for k, v in vals.items() if fmt.field_map[k].slot not in slot_names
            and fmt.field_map[k].const is None}
    early = {k: v for k, v in rest.items() if rnd.random() < 0.5}
    late = {k: v for k, v in rest.items() if k not in early}
    assert fmt.compose(fmt.place(early), late, slots) == want
    bits = fmt.place(rest) | fmt.const_bits
    for s, tup in slots.items():
        bits |= fmt.place_slot(s, tup)
    assert bits.to_bytes(BUNDLE_SIZE, "little") == want


def test_place_refuses_what_does_not_fit_naming_the_field() -> None:
    fs = build_formats(DecisionSet())
    tt = fs.by_name["TensorTensor"]
    with pytest.raises(FieldRangeError, match=r"'num_partitions' of TensorTensor: value 256 does not fit \(allowed 0\.\.255\)"):
        tt.place({"num_partitions": 256})
    with pytest.raises(FieldRangeError, match=r"'in0_dtype'.*value 16 does not fit \(allowed 0\.\.15\)"):
        tt.place({"in0_dtype": 16})  # a nibble: never spills into in1_dtype
    with pytest.raises(FieldRangeError, match=r"'out.step0'.*value 32768 does not fit \(allowed -32768\.\.32767\)"):
        tt.place_slot("out", (0, 32768, 1, 1, 1, 1, 1))
    with pytest.raises(FieldRangeError, match=r"'inst_word_len'.*value 15 does not fit \(allowed 16\.\.16\)"):
        tt.place({"inst_word_len": 15})  # a constant accepts only its constant
    with pytest.raises(TypeError, match="needs an integer"):
        tt.place({"op": 1.0})
    with pytest.raises(KeyError):
        tt.place({"no_such_field": 1})


def test_place_puts_a_negative_step_in_twos_complement_within_its_field() -> None:
    tt = build_formats(DecisionSet()).by_name["TensorTensor"]
    tup = (0, -1, 1, 1, 1, 1, 1)
    got = tt.compose(0, {}, {"out": tup, "in0": (0, 1, 1, 1, 1, 1, 1), "in1": (0, 1, 1, 1, 1, 1, 1)})
    assert tt.decode(got)["out.step0"] == -1 and tt.decode(got)["out.step1"] == 1
