"""Round trips at every level, property-based (hypothesis):

* fields → bytes → fields for every format and decision selection (decode(encode(v)) == v);
* bytes → fields → bytes for every format (encode(decode(b)) == b);
* IR access pattern → descriptor bytes → access pattern;
* BIR JSON → IR → BIR JSON, and builder → JSON → IR → the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from conftest import ap, inst, kernel, loc
from strategies import ALL_FORMATS, format_and_values
from tongasm.codegen import assemble
from tongasm.decode import decode_bundle
from tongasm.errors import FieldRangeError
from tongasm.isa import DecisionSet, build_formats
from tongasm.ir import read_bir, write_bir
from tongasm.ir.bir_json import kernel_to_json
from tongasm.ir.instructions import UnknownInstruction

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

@settings(max_examples=400, deadline=None)
@given(format_and_values())
def test_decode_encode_gives_back_the_fields(case):
    ds, fmt, vals = case
    raw = fmt.encode(vals)
    assert len(raw) == 64
    got = build_formats(ds).select(vals["opcode"], raw)
    assert got is not None and got[0] is fmt
    assert got[1] == vals


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(ALL_FORMATS), st.binary(min_size=64, max_size=64))
def test_encode_decode_gives_back_the_bytes(case, noise):
    ds, fmt, op = case
    mask = fmt.covered_mask()
    raw = bytearray(a & b for a, b in zip(noise, mask))
    raw[0] = op
    for f in fmt.fields:  # constants keep their value in a well-formed bundle
        if f.const is not None:
            raw[f.offset:f.offset + f.size] = f.const.to_bytes(f.size, "little")
    sel = build_formats(ds).select(op, bytes(raw))
    assume(sel is not None and sel[0] is fmt)
    assert fmt.encode(sel[1]) == bytes(raw)
    assert decode_bundle(bytes(raw), decisions=ds).fields == sel[1]


@settings(max_examples=300, deadline=None)
@given(format_and_values(), st.data())
def test_out_of_range_values_are_refused_not_wrapped(case, data):
    ds, fmt, vals = case
    settable = [f for f in fmt.fields if f.const is None and f.name not in fmt.match and f.name != "opcode"]
    assume(settable)
    f = data.draw(st.sampled_from(settable))
    bad = data.draw(st.one_of(st.integers(f.hi + 1, f.hi + 2**40), st.integers(f.lo - 2**40, f.lo - 1)))
    try:
        fmt.encode({**vals, f.name: bad})
    except FieldRangeError as e:
        assert e.field == f.name and e.value == bad and str(f.hi) in str(e)
    else:
        raise AssertionError(f"{fmt.name}.{f.name} accepted {bad}")


# --- IR access pattern → descriptor → access pattern ----------------------------------------------

pair = st.tuples(st.integers(-32768, 32767), st.integers(2, 300))  # non-degenerate free pairs


@settings(max_examples=300, deadline=None)
@given(st.lists(pair, min_size=0, max_size=4), st.integers(1, 128), st.sampled_from(["innermost-first",
                                                                                       "outermost-first"]))
def test_access_pattern_round_trips_through_tensor4d(free, parts, order):
    ds = DecisionSet.of({"D-6": order})
    pairs = [[1, parts]] + [list(p) for p in free]
    k = kernel(inst("TensorCopy", [ap("a", "int8", pairs)], [ap("a", "int8", pairs)], engine="DVE"),
               allocs=[loc("a", "SB")])
    raw = assemble(read_bir(k), decisions=ds, check="off").streams["dve"]
    d = decode_bundle(raw, decisions=ds)
    got = [(d.fields[f"src.step{i}"], d.fields[f"src.num{i}"]) for i in range(4)]
    packed = [p for p in got[:len(free)]]
    assert packed == (free[::-1] if order == "innermost-first" else free)
    assert got[len(free):] == [(1, 1)] * (4 - len(free))  # unused slots are {1, 1}
    assert d.fields["num_partitions"] == parts


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(-5, 5), st.integers(1, 4)), min_size=1, max_size=6))
def test_degenerate_pairs_are_dropped(free):
    pairs = [[1, 8]] + [list(p) for p in free]
    nondeg = [p for p in free if p[1] != 1]
    k = kernel(inst("TensorCopy", [ap("a", "int8", pairs)], [ap("a", "int8", [[1, 8], [1, 1]])], engine="DVE"),
               allocs=[loc("a", "SB")])
    if len(nondeg) > 4:
        from tongasm.errors import EncodeError
        try:
            assemble(read_bir(k), check="off")
        except EncodeError as e:
            assert f"Illegal ISA memory access dimension {len(nondeg)}" in str(e)
            return
        raise AssertionError("too many dims accepted")
    d = decode_bundle(assemble(read_bir(k), check="off").streams["dve"])
    got = [(d.fields[f"src.step{i}"], d.fields[f"src.num{i}"]) for i in range(len(nondeg))]
    assert got == nondeg[::-1]


# --- BIR JSON round trips -----------------------------------------------------------------------

def _canon(obj):
    return json.loads(json.dumps(obj, sort_keys=True))


def test_example_json_round_trips():
    for path in EXAMPLES.glob("*.json"):
        original = json.loads(path.read_text())
        k1 = read_bir(path)
        out = kernel_to_json(k1)
        assert _canon(out) == _canon(original), path.name
        k2 = read_bir(write_bir(k1))
        assert not any(isinstance(i, UnknownInstruction) for f in k1.functions for i in f.instructions()), path.name
        assert assemble(k2).streams == assemble(k1).streams


def test_unknown_keys_and_opcodes_survive_the_round_trip():
    d = kernel(
        inst("Activation", [ap("a", "float32", [[1, 1]])], [ap("a", "float32", [[1, 1]])], func="Exp", scale=1.5),
        inst("TensorTensor", [ap("a", "float32", [[1, 1]], extra_key=[1, 2])] * 2, [ap("a", "float32", [[1, 1]])],
             op="add", can_read_uninit=False, dependencies=["x"]),
        {"opcode": "Loop", "LoopAxis": {"name": "i", "lb": 0, "ub": 2, "stride": 1}, "blocks": [
            {"name": "body", "instructions": [inst("Memset", [], [ap("a", "float32", [[1, 1]])], mode="Const",
                                                    constant=0)]}]},
        allocs=[loc("a", "SB")], registers={"x": 1, "y": [2, 3]})
    d["functions"][0]["allocations"][0]["Skind"] = "memory_location_set"
    d["functions"][0]["allocations"][0]["memorylocations"][0]["pinned"] = False
    assert _canon(kernel_to_json(read_bir(d))) == _canon(d)


names = st.sampled_from(["add", "subtract", "mult", "max", "bitwise_and", "is_lt", "bypass"])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(names, st.integers(0, 100), st.integers(1, 64)), min_size=1, max_size=8))
def test_builder_json_and_reader_agree(ops):
    from tongasm.ir.builder import KernelBuilder

    kb = KernelBuilder()
    a = kb.sbuf("a", bytes_per_partition=65536)
    for op, off, n in ops:
        t = a.ap("int32", [[1024, 128], [1, n]], offset=off)
        kb.tensor_tensor(t, t, a.ap("int32", [[1024, 128], [1, n]]), op)
    direct = assemble(kb.build())
    via_json = assemble(read_bir(kb.to_json_text()))
    assert direct.streams == via_json.streams
    assert direct.manifest() == via_json.manifest()


def test_identical_bundles_of_a_stream_are_decoded_once_and_share_their_fields():
    """A stream that repeats bundles (a third to a half of a large real NEFF's; all of a hostile one)
    keeps one field dict per distinct bundle, and each bundle decodes as it does alone."""
    from tongasm.decode import decode_bundle, iter_stream

    a = bytes.fromhex("46100000" + "00" * 8 + "00080000") + bytes(48)
    b = bytes([0x46, 0x10]) + bytes(62)
    out = list(iter_stream(a + b + a + a))
    assert [d.offset for d in out] == [0, 64, 128, 192]
    assert out[0].fields is out[2].fields is out[3].fields and out[0].raw is out[3].raw
    assert out[1].fields is not out[0].fields
    for d, raw in zip(out, (a, b, a, a)):
        alone = decode_bundle(raw)
        assert (d.opcode, d.fmt.name, d.fields, d.raw) == (alone.opcode, alone.fmt.name, alone.fields, raw)
