"""The encoder's two paths agree byte for byte.

``assemble(check="off")`` runs GENERATE_ISACODE in the assembler's loop (the plan's encode function
called per (class, engine, operand counts), loop iterations reused); ``check="warn"`` runs every
instruction through ``generate()`` (RUN_ISA_CHECKS, the bytes decoded again and checked). Both use
the same plans; they must write the same streams, on the benchmark's
mixed kernel (every family, five engines, sync, Selects) flat and inside a loop, and whether the
kernel is in memory or streamed from its JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import load_file
from tongasm.codegen import assemble
from tongasm.isa.decisions import DecisionSet
from tongasm.ir import read_bir
from tongasm.ir.stream_reader import stream_bir

ROOT = Path(__file__).resolve().parent.parent


KERNELS = load_file(ROOT / "benchmarks" / "kernels.py", "tongasm_bench_kernels")


def streams(asm: Any) -> dict[str, bytes]:
    return {n: bytes(s) for n, s in asm.streams.items()}


@pytest.mark.parametrize(("seed", "readings"), [(0, []), (1, []), (2, ["D-2=raw", "D-6=outermost-first"]),
                                               (3, ["D-4=update-wins", "D-12=bypass-bitvec"])])
def test_lean_and_checked_paths_write_the_same_streams(seed: int, readings: list[str]) -> None:
    k = KERNELS.kernel_ir(1200, seed=seed)
    ds = DecisionSet.parse(readings)
    lean = assemble(k, check="off", decisions=ds)
    checked = assemble(k, check="warn", decisions=ds)
    assert streams(lean) == streams(checked)
    assert [e.to_json() for e in lean.instructions] == [e.to_json() for e in checked.instructions]
    assert sum(len(s) for s in lean.streams.values()) == 64 * (1200 + 1200 // 16)  # a Select is 2 bundles


def test_loop_bodies_encode_as_their_flat_unrolling() -> None:
    looped = assemble(KERNELS.looped_kernel_ir(600, body=200), check="off")
    flat = KERNELS.kernel_ir(200)
    once = streams(assemble(flat, check="off"))
    assert streams(looped) == {n: s * 3 for n, s in once.items()}


def test_a_streamed_kernel_encodes_as_the_same_kernel_in_memory(tmp_path: Path) -> None:
    path = tmp_path / "k.json"
    KERNELS.write_kernel(path, 900, seed=3)
    in_memory = assemble(read_bir(json.loads(path.read_text())), check="off")
    streamed = assemble(stream_bir(path), check="off")
    assert streams(in_memory) == streams(streamed)
    assert [e.to_json() for e in in_memory.instructions] == [e.to_json() for e in streamed.instructions]


# --- the shape memo: an access pattern at a new offset costs only its ADDR4 word ----------------------

from hypothesis import given, settings, strategies as st  # noqa: E402

from tongasm.errors import EncodeError  # noqa: E402

_ALLOC = [
    {"name": "a_set", "kind": "Internal", "dtype": "float32",
     "memorylocations": [{"name": "a", "type": "SB", "addr": 256, "base": 3, "dims": [125, 65536]}]},
    {"name": "p_set", "kind": "Internal", "dtype": "float32",
     "memorylocations": [{"name": "p", "type": "PSUM", "addr": 0, "base": 0, "bank": 2, "dims": [128, 8192]}]},
]


def _copy(k: int, src: int, dst: int, mem: str = "p") -> dict[str, Any]:
    dst_ap = [[2048, 4], [1, 64]] if mem == "p" else [[16384, 4], [1, 64]]
    return {"opcode": "TensorCopy", "name": f"c{k}", "engine": "Activation",
            "ins": [{"kind": "physical_ap", "dtype": "float32", "ap": [[16384, 4], [1, 64]], "offset": src,
                     "memref": "a"}],
            "outs": [{"kind": "physical_ap", "dtype": "float32", "ap": dst_ap, "offset": dst, "memref": mem}]}


def _kernel(insts: list[dict[str, Any]]) -> Any:
    return read_bir({"arch": "gen2", "functions": [{"name": "f", "allocations": _ALLOC,
                                                    "blocks": [{"name": "b", "instructions": insts}]}]})


def _alone(inst: dict[str, Any]) -> bytes | str:
    """The instruction's bundle (or error) when it is the only one: a fresh context, no memo."""
    try:
        return streams(assemble(_kernel([inst]), check="off"))["act"]
    except EncodeError as e:
        return str(e)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3_000_000), st.integers(0, 40_000), st.booleans()), min_size=2,
                max_size=12))
def test_same_shape_at_many_offsets_encodes_as_each_alone(offsets: list[tuple[int, int, bool]]) -> None:
    """Offsets crossing partitions, PSUM banks and the ADDR4 limits: every bundle (or the first error)
    is what the instruction alone gives."""
    insts = [_copy(k, s, d, "p" if psum else "a") for k, (s, d, psum) in enumerate(offsets)]
    want = [_alone(i) for i in insts]
    bad = next((k for k, w in enumerate(want) if isinstance(w, str)), None)
    try:
        got = streams(assemble(_kernel(insts), check="off"))["act"]
    except EncodeError as e:
        assert bad is not None, f"refused a kernel whose every instruction encodes alone: {e}"
        # the same error, now naming the instruction's place in the kernel
        assert str(e) == str(want[bad]).replace("'c" + f"{bad}' #0", f"'c{bad}' #{bad}"), (str(e), want[bad])
        return
    assert bad is None, f"accepted instruction {bad}, which alone is refused: {want[bad]}"
    assert got == b"".join(w for w in want if isinstance(w, bytes))


# --- the manifest's column form ---------------------------------------------------------------------

def test_manifest_columns_expand_to_every_entry_and_stay_smaller_than_the_streams(tmp_path: Path) -> None:
    """The written manifest (streamed) equals manifest(); expanding it gives exactly the per-instruction
    entries (names, opcodes read from the streams, byte offsets); it is smaller than the streams."""
    from tongasm import expand_manifest

    asm = assemble(KERNELS.kernel_ir(3000, seed=5), check="off")
    with open(tmp_path / "m.json", "wb") as fh:
        asm.write_manifest(fh)
    written = json.loads((tmp_path / "m.json").read_text())
    assert written == asm.manifest()
    assert list(expand_manifest(written)) == [e.to_json() for e in asm.instructions]
    for e in expand_manifest(written):  # each offset holds the named opcode, in the named stream
        assert [asm.streams[e["engine"]][o] for o in e["offsets"]] == e["opcodes"]
    assert (tmp_path / "m.json").stat().st_size < sum(len(s) for s in asm.streams.values()) / 4


@pytest.mark.parametrize("bad", [{}, {"instructions": []}, {"instructions": {"form": "columns-0"}},
                                 {"instructions": {"form": "columns-1", "count": 1, "name": ["a"], "kind": [3],
                                                   "kinds": []}},
                                 {"instructions": {"form": "columns-1", "count": 2, "name": ["a"], "kind": [0],
                                                   "kinds": [{"engine": "dve", "opcodes": [65]}]}},
                                 {"instructions": {"form": "columns-1", "count": 1, "name": ["a"], "kind": [0],
                                                   "kinds": [{"engine": 3, "opcodes": [65]}]}}])
def test_a_broken_manifest_is_an_input_error(bad: dict[str, Any]) -> None:
    from tongasm import expand_manifest
    from tongasm.errors import InputError

    with pytest.raises(InputError):
        list(expand_manifest(bad))


# --- the validator over finished streams ---------------------------------------------------------------

def _findings(kernel: Any, ds: DecisionSet, per_instruction: bool) -> list[dict[str, Any]] | str:
    """check="warn" findings (or the refusal), through the batched path or instruction by instruction
    (an on_result hook forces the latter)."""
    hook = (lambda _r: None) if per_instruction else None
    try:
        asm = assemble(kernel, check="warn", decisions=ds, on_result=hook)
    except Exception as e:  # an encoder refusal: the same on both paths
        return f"{type(e).__name__}: {e}"
    return [{**f.to_json(), "bundle": f.bundle} for f in asm.findings]


def _kernel_vectors() -> list[Path]:
    out = []
    for p in sorted((ROOT / "tests" / "golden").glob("**/*.json")):
        doc = json.loads(p.read_text())
        if isinstance(doc, dict) and "kernel" in doc:
            out.append(p)
    return out


@pytest.mark.parametrize("path", _kernel_vectors(), ids=lambda p: p.name)
def test_batched_validator_reports_what_instruction_by_instruction_does(path: Path) -> None:
    """Every golden kernel (legal ones, ones the checks flag, ones the encoder refuses)."""
    doc = json.loads(path.read_text())
    try:
        ds = DecisionSet.parse(doc.get("decisions", []))
        kernel = read_bir(doc["kernel"])
    except Exception:
        pytest.skip("a decision or kernel this tree does not read (a pending vector)")
    assert _findings(kernel, ds, False) == _findings(kernel, ds, True)


def test_batched_validator_on_a_kernel_with_findings_everywhere() -> None:
    """The benchmark kernel with its DRAM table on another tensor's var_id (a lint finding per
    TensorLoad) and bad partitions spread over it: same findings, same order, same names."""
    insts = list(KERNELS.instructions(700, seed=9))
    for k, d in enumerate(insts):
        if k % 11 == 0 and d["outs"] and d["outs"][0].get("memref") in ("a", "b") and d["outs"][0]["dtype"] == "float32":
            d["outs"][0]["offset"] = d["outs"][0]["offset"] + 127 * 16384  # start partition ~127: geometry
    doc = {"arch": "gen2", "functions": [{"name": "f", "allocations": KERNELS.ALLOCATIONS, "registers": KERNELS.REGISTERS,
                                          "blocks": [{"name": "b", "instructions": insts}]}]}
    doc["functions"][0]["allocations"] = json.loads(json.dumps(KERNELS.ALLOCATIONS).replace('"tensor_id": 5', '"tensor_id": 3'))
    kernel = read_bir(doc)
    batched = _findings(kernel, DecisionSet(), False)
    assert isinstance(batched, list) and len(batched) > 50
    assert batched == _findings(kernel, DecisionSet(), True)


# --- the per-operand memo of the plan builders: a failure is the one read in field order ----------------

_TT_ALLOC = [{"name": "a_set", "kind": "Internal", "dtype": "float32",
              "memorylocations": [{"name": "a", "type": "SB", "addr": 0, "base": 0, "dims": [128, 65536]}]}]
#: operand variants: fine ones (shared between instructions, so their memo entries are reused) and
#: faulty ones, each failing a different check: a free pair's num (0), a step off the i16 field, an
#: offset past the last partition, no partitions, a negative partition step
_OPS = {
    "ok0": ([[16384, 128], [1, 64]], 0), "ok1": ([[16384, 128], [1, 64]], 640), "ok2": ([[16384, 64], [2, 32]], 64),
    "num0": ([[16384, 128], [1, 0]], 0), "step": ([[16384, 128], [40_000, 2]], 0),
    "addr": ([[16384, 128], [1, 64]], 16384 * 128), "parts0": ([[16384, 0], [1, 64]], 0),
    "pstep": ([[-1, 128], [1, 64]], 0),
}


def _tt(k: int, ops: tuple[str, str, str]) -> dict[str, Any]:
    def ap(name: str) -> dict[str, Any]:
        pairs, off = _OPS[name]
        return {"kind": "physical_ap", "dtype": "float32", "ap": pairs, "offset": off, "memref": "a"}

    return {"opcode": "TensorTensor", "name": f"t{k}", "engine": "DVE", "op": "add",
            "ins": [ap(ops[0]), ap(ops[1])], "outs": [ap(ops[2])]}


def _tt_alone(inst: dict[str, Any]) -> bytes | str:
    try:
        k = read_bir({"arch": "gen2", "functions": [{"name": "f", "allocations": _TT_ALLOC,
                                                     "blocks": [{"name": "b", "instructions": [inst]}]}]})
        return streams(assemble(k, check="off"))["dve"]
    except EncodeError as e:
        return str(e)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(*[st.sampled_from(sorted(_OPS))] * 3), min_size=1, max_size=10))
def test_memoised_operands_fail_as_the_instruction_alone(rows: list[tuple[str, str, str]]) -> None:
    """Operands recur between instructions (the reader shares equal ones), so a later instruction
    finds some in the builders' per-operand memo and misses on others; whatever fails, the error is
    the one the instruction gives alone (the first field in the declared order), and every bundle
    before it is the instruction's own."""
    insts = [_tt(k, ops) for k, ops in enumerate(rows)]
    want = [_tt_alone(i) for i in insts]
    bad = next((k for k, w in enumerate(want) if isinstance(w, str)), None)
    kernel = read_bir({"arch": "gen2", "functions": [{"name": "f", "allocations": _TT_ALLOC,
                                                      "blocks": [{"name": "b", "instructions": insts}]}]})
    try:
        got = streams(assemble(kernel, check="off"))["dve"]
    except EncodeError as e:
        assert bad is not None, f"refused a kernel whose every instruction encodes alone: {e}"
        assert str(e) == str(want[bad]).replace(f"'t{bad}' #0", f"'t{bad}' #{bad}"), (str(e), want[bad])
        return
    assert bad is None, f"accepted instruction {bad}, which alone is refused: {want[bad]}"
    assert got == b"".join(w for w in want if isinstance(w, bytes))


def test_a_count_field_fails_before_an_earlier_slot() -> None:
    """The declared order: the partition and element counts of every role, then the slots. The PE
    MultiplyMoving puts its dst's partition count in ``num_active_cols`` (8 bits) and its moving
    operand in the first slot; with both wrong, the count is the error, in a fresh context and after
    a good instruction of the same plan (the builders memoise per operand and check slot by slot, and
    fall back to the declared order on any failure)."""
    from conftest import ap, inst, kernel, loc

    sb, ps = loc("sb", "SB", dims=(128, 229376)), loc("ps", "PSUM", dims=(128, 16384))

    def mm(name: str, moving: list[list[int]], dst: list[list[int]]) -> dict[str, Any]:
        return inst("MultiplyMoving", [ap("sb", "float16", moving, 0x4000)], [ap("ps", "float32", dst)],
                    engine="PE", name=name, start_tensor_calc=True, stop_tensor_calc=True)

    def error(*insts: dict[str, Any]) -> EncodeError:
        with pytest.raises(EncodeError) as ei:
            assemble(read_bir(kernel(*insts, allocs=[sb, ps], arch="gen3")), check="off")
        return ei.value

    good, bad_step, wide = [[1, 128], [1, 128]], [[1, 128], [40_000, 2]], [[1, 300], [1, 128]]
    assert error(mm("m", bad_step, good)).field == "moving.ap[1].step"  # each alone
    assert error(mm("m", good, wide)).field == "num_active_cols"
    for insts in ([mm("m1", bad_step, wide)], [mm("m0", good, good), mm("m1", bad_step, wide)]):
        e = error(*insts)
        assert e.field == "num_active_cols" and "300" in str(e) and "'m1'" in str(e), str(e)
