"""The streaming BIR reader gives exactly what the whole-file reader gives (same bytes, same
manifest, same errors), whatever the key order of the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ap, inst, kernel, loc
from tongasm.codegen import assemble, collect_opcodes
from tongasm.errors import TongasmError
from tongasm.isa.decisions import DecisionSet
from tongasm.ir import read_bir
from tongasm.ir.stream_reader import stream_bir

ROOT = Path(__file__).resolve().parent
VECTORS = sorted((ROOT / "golden" / "vectors").glob("**/*.json")) + [ROOT.parent / "examples" / "vector_add.json"]


def _write(tmp_path: Path, obj: dict, sort: bool = False, name: str = "k.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(obj, sort_keys=sort, indent=1))
    return p


def _outcome(make, **kw):
    try:
        a = assemble(make(), check="off", **kw)
        return ("ok", {n: bytes(s) for n, s in a.streams.items()}, a.manifest())
    except TongasmError as e:
        return ("error", type(e).__name__, str(e))


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
@pytest.mark.parametrize("sort", [False, True], ids=["as-written", "sorted-keys"])
def test_streamed_and_whole_reads_assemble_the_same(path, sort, tmp_path):
    case = json.loads(path.read_text())
    k = case.get("kernel", case)
    target = case.get("target")
    ds = DecisionSet.parse(case.get("decisions") or [])
    p = _write(tmp_path, k, sort)
    assert _outcome(lambda: stream_bir(p), target=target, decisions=ds) == \
        _outcome(lambda: read_bir(p), target=target, decisions=ds)


def test_registers_after_blocks_and_arch_after_functions(tmp_path):
    k = kernel(inst("RegisterMove", [{"kind": "imm_value", "dtype": "int32", "value": 3}],
                    [{"kind": "register_access", "dtype": "int32", "regref": "late"}], engine="SP"),
               registers={"late": 9}, arch=None)
    func = k["functions"][0]
    reordered = {"functions": [{"name": func["name"], "blocks": func["blocks"], "allocations": [],
                                "registers": func["registers"]}], "arch": "gen3"}
    p = _write(tmp_path, reordered)
    a = assemble(stream_bir(p))
    assert a.target.name == "gen3" and bytes(a.streams["sp"])[0x18] == 9


def test_loops_and_opcodes_stream(tmp_path):
    body = inst("Memset", [], [ap("a", "float32", [[4, 128], [1, 4]])], mode="Const", constant=0)
    k = kernel({"opcode": "Loop", "LoopAxis": {"name": "i", "lb": 0, "ub": 3, "stride": 1},
                "blocks": [{"name": "l", "instructions": [body]}]}, allocs=[loc("a")])
    p = _write(tmp_path, k)
    assert len(assemble(stream_bir(p)).streams["dve"]) == 3 * 64
    assert [s.opcodes for s in collect_opcodes(stream_bir(p))] == [[0x49]] * 3


@pytest.mark.parametrize("text,needle", [
    ("{not json", "not valid JSON"),
    ('{"functions": [], "arch": "gen2"} trailing', "extra data"),
    ('{"arch": "gen2"}', "missing key 'functions'"),
    ('{"functions": [{"blocks": [{"instructions": [{"opcode": "TensorTensor", "op": "nope"}]}]}]}',
     "unknown ALU op 'nope'"),
    ('{"functions": [{"blocks": {}}]}', "must be a JSON array"),
])
def test_stream_errors_match(tmp_path, text, needle):
    p = tmp_path / "k.json"
    p.write_text(text)
    with pytest.raises(TongasmError) as ei:
        assemble(stream_bir(p))
    assert needle in str(ei.value)


def test_unrolled_loops_encode_like_their_flat_expansion(tmp_path):
    """Loop iterations reuse their body's bundles; the result equals the written-out kernel."""
    m = ap("m", "uint8", [[64, 128], [1, 64]])
    body = [inst("Select", [m, ap("a", "float32", [[64, 128], [1, 64]]), {"kind": "imm_value", "dtype": "float32",
                                                                          "value": 1.0}],
                 [ap("a", "float32", [[64, 128], [1, 64]], offset=64)], name="sel", engine="DVE",
                 sync={"wait": {"mode": "sem_ge_imm", "index": 1, "value": 0}, "update": {"mode": "sem_inc",
                                                                                          "index": 2}}),
            inst("TensorCopy", [ap("a", "float32", [[64, 128], [1, 64]])], [ap("a", "float32", [[64, 128], [1, 64]],
                                                                               offset=128)], name="cp")]
    loop = {"opcode": "Loop", "LoopAxis": {"name": "i", "lb": 0, "ub": 4, "stride": 1},
            "blocks": [{"name": "body", "instructions": body}]}
    allocs = [loc("a"), loc("m", addr=0x8000)]
    looped = assemble(read_bir(kernel(loop, allocs=allocs)), check="off")
    flat = assemble(read_bir(kernel(*(body * 4), allocs=allocs)), check="off")
    assert looped.streams == flat.streams
    assert [e.offsets for e in looped.instructions] == [e.offsets for e in flat.instructions]
