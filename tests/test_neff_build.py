"""A NEFF written from a kernel (tongasm.neff.build, ``assemble --neff``), checked against the real files
of its target and against the simulator.

The real files: cayman 2.23 = ``matmul_small.neff`` (always at hand) and one trn2 corpus file; sunda 2.23 =
a trn1 causal-attention corpus file. What a written NEFF lacks that they hold is listed in MISSING with the
reason; everything it holds must be in them, with the same keys and value types.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import ap, inst, kernel, loc
from corpus_support import corpus_dir
from neff_support import small
from tongasm.cli import main
from tongasm.codegen import assemble
from tongasm.errors import InputError
from tongasm.isa.decisions import DecisionSet
from tongasm.isa.fields import BUNDLE_SIZE
from tongasm.isa.vector_enums import ACT_SETS
from tongasm.ir import read_bir
from tongasm.neff import Neff, NeffError, read_neff
from tongasm.neff.build import build_neff_from_listing
from tongasm.neff.debuginfo import parse_debug_info
from tongasm.neff.run import run_neff
from tongasm.text.assembler import assemble_file
from tongasm.sim.run import run_kernel

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

#: members of the real files a written NEFF does not have, and why (per graph members without "sgNN/")
MISSING = {
    "hlo_stats.json": "statistics of the HLO module the compiler started from; a kernel has none",
    "debug_info/": "the Penguin/HLO/framework debug layers above BIR (a BIR kernel is the top layer)",
    "tensor_map.json": "the compiler's tensor names per HLO tensor; a kernel has none",
    "act_info.json": "R-85: the activation table index, the compiler's data",
    "exp_and_others": "R-85: an activation table set (.json, _bkt.bin, _ctrl.bin), the compiler's data",
    "default_": "R-85: the DVE tables, the compiler's data",
    "value_": "the .npy constants of 'file' variables: a kernel's constants live in the inputs it is given",
    "kernel_debug_info.json": "NKI's per-kernel debug index (sunda 2.23): a BIR kernel has no NKI source",
    ".klir.debuginfo.json": "NKI's KLIR debug info (sunda 2.23): a BIR kernel has no NKI source",
}
#: sidecar keys the real files have that a written NEFF does not (R-85: they name table members)
SIDECAR_MISSING = {"act": {"act_info"}, "dve": {"dve_tables"}}
#: what a NEFF written with the tables of a real file (--tables, D-36) still lacks: MISSING less the tables
TABLES = ("act_info.json", "exp_and_others", "default_")
MISSING_WITH_TABLES = {k: v for k, v in MISSING.items() if k not in TABLES}


def real(target: str) -> list[Neff]:
    if target == "gen3":
        files = [small(), corpus_dir() / "attention-trn2" / "baseline_bf16_s512.neff"]
    else:
        files = [corpus_dir() / "causal-attention-trn1" / "model_3c6ff38f.neff"]
    return [read_neff(f) for f in files]


def example(name: str, target: str = "gen3", *decisions: str) -> Neff:
    asm = assemble(read_bir(EXAMPLES / f"{name}.json"), target=target, decisions=DecisionSet.parse(decisions))
    return Neff.from_bytes(asm.to_neff().to_bytes(DecisionSet.parse(decisions)))  # as a reader sees the file


def relative(member: str) -> str:
    return member.split("/", 1)[1] if member.startswith("sg") and "/" in member else member


def types(obj: Any) -> Any:
    """The key structure and value types of a JSON value (list items: the set of their shapes)."""
    if isinstance(obj, dict):
        return {k: types(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return ("list", sorted({json.dumps(types(x), sort_keys=True) for x in obj}))
    return type(obj).__name__


def load(n: Neff, member: str) -> Any:
    return json.loads(n.members[member])


@pytest.mark.parametrize("target", ["gen3", "gen2"])
def test_members_are_those_of_the_real_files_less_the_listed_ones(target: str) -> None:
    ours = {relative(m) for m in example("softmax", target).members}
    for r in real(target):
        theirs = {relative(m) for m in r.members}
        assert ours - theirs == set(), r.path  # nothing the real files do not have
        unexplained = {m for m in theirs - ours if not any(k in m for k in MISSING)}
        assert unexplained == set(), r.path


def table_source(target: str) -> Path:
    return small() if target == "gen3" else corpus_dir() / "causal-attention-trn1" / "model_3c6ff38f.neff"


@pytest.mark.parametrize("target", ["gen3", "gen2"])
def test_with_the_tables_of_a_real_file_the_members_and_sidecars_are_the_real_ones(target: str) -> None:
    """D-36: given a real NEFF of the target (--tables), a written graph holds act_info.json, the sets it loads
    and the DVE tables, byte for byte as the real graphs hold them, and its sidecars are keyed as theirs."""
    src = read_neff(table_source(target))
    asm = assemble(read_bir(EXAMPLES / "softmax.json"), target=target)
    n = Neff.from_bytes(asm.to_neff(tables=src).to_bytes())
    ours = {relative(m) for m in n.members}
    assert len(MISSING_WITH_TABLES) == len(MISSING) - 3
    for r in real(target):
        theirs = {relative(m) for m in r.members}
        assert ours - theirs == set(), r.path
        assert {m for m in theirs - ours if not any(k in m for k in MISSING_WITH_TABLES)} == set(), r.path
        for tok, side in n.graph("sg00").streams.items():  # every sidecar key of the real files now
            assert set(load(n, side.sidecar or "")) == set(load(r, r.graph("sg00").streams[tok].sidecar or "")), tok
    dve = {"gen3": ["control_fast", "control_slow", "datapath", "opcode"], "gen2": ["control", "datapath", "opcode"]}
    assert sorted(m for m in ours if m.startswith("default_")) == [f"default_{t}_table.bin" for t in dve[target]]
    assert {m for m in ours if m.startswith("exp_")} == {"exp_and_others.json", "exp_and_others_bkt.bin",
                                                         "exp_and_others_ctrl.bin"}
    for m in ours & {relative(x) for x in src.members}:
        if m.startswith(TABLES):
            assert n.members["sg00/" + m] == src.members["sg00/" + m], m
    assert load(n, "sg00/Activation.json")["act_info"] == "act_info.json"
    # a graph loading no set holds act_info.json and the DVE tables only (as 36 real graphs)
    va = Neff.from_bytes(assemble(read_bir(EXAMPLES / "vector_add.json"), target=target).to_neff(tables=src).to_bytes())
    assert sorted(relative(m) for m in va.members if relative(m).startswith(TABLES)) == [
        "act_info.json", *(f"default_{t}_table.bin" for t in dve[target])]


def test_tables_from_the_wrong_file_are_refused_naming_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gelu = assemble(read_bir(EXAMPLES / "mlp_gelu.json"), target="gen3")
    with pytest.raises(InputError, match="no table members of the activation set gelu_apprx_tanh_and_others"):
        gelu.to_neff(tables=read_neff(small()))
    soft2 = assemble(read_bir(EXAMPLES / "softmax.json"), target="gen2")
    with pytest.raises(InputError, match="is a cayman NEFF; the tables of a gen2 NEFF come from a sunda one"):
        soft2.to_neff(tables=read_neff(small()))
    old = next(iter(sorted((corpus_dir() / "yolox-trn1").glob("*.neff"))))  # neuronx-cc 2.14 (sunda)
    with pytest.raises(InputError, match=r"written by compiler 2\.14\..*D-36=any-compiler"):
        soft2.to_neff(tables=read_neff(old))
    assert main(["assemble", str(EXAMPLES / "softmax.json"), "-o", str(tmp_path / "d"), "--tables", str(small())]) == 2
    assert "--tables gives the table members of a NEFF: it needs --neff" in capsys.readouterr().err


@pytest.mark.parametrize("target", ["gen3", "gen2"])
def test_json_keys_and_types_are_the_real_files(target: str) -> None:
    n = example("vector_add", target)
    for r in real(target):
        for member in ("info.json", "kelf-0.json"):
            assert types(load(n, member)) == types(load(r, member)), (r.path, member)
        ours, theirs = load(n, "sg00/def.json"), load(r, "sg00/def.json")
        assert set(ours) == set(theirs), r.path
        assert types(ours["dma_queue"]["qPoolDynamic"]) == types(theirs["dma_queue"]["qPoolDynamic"])
        for key in ("fp8_conversion_config", "neff_features", "runtime_event_count",
                    "runtime_semaphore_count", "cc_streams", "version", "#rank_world_size"):
            assert ours[key] == theirs[key], (r.path, key)  # copied as they are
        by_type: dict[str, Any] = {}
        for v in theirs["var"].values():
            by_type.setdefault(v["type"], types(v))
        for name, v in ours["var"].items():
            if v["type"] in by_type:
                assert types(v) == by_type[v["type"]], (r.path, name)
        sets = example("softmax", target)  # (36 corpus graphs list no activation set, as vector_add: softmax has one)
        for tok, side in sets.graph("sg00").streams.items():
            real_side = load(r, r.graph("sg00").streams[tok].sidecar or "")
            mine = load(sets, side.sidecar or "")
            assert set(real_side) - set(mine) == SIDECAR_MISSING.get(tok, set()), (r.path, tok)
            assert {k: types(v) for k, v in mine.items()} == {k: types(real_side[k]) for k in mine}, (r.path, tok)
        g, rg = load(n, "neff.json"), load(r, "neff.json")
        assert set(g) == set(rg) and set(g["attrs"]) == set(rg["attrs"])
        assert [set(x) for x in g["nodes"][:1] + g["nodes"][-1:]] == [set(x) for x in rg["nodes"][:1] + rg["nodes"][-1:]]
        assert types(g["nodes"][-1]["attrs"]) == types(rg["nodes"][-1]["attrs"])


def test_member_order_and_tar_style_are_the_targets() -> None:
    """R-6: cayman 2.23 writes byte order with neff.json last, sunda 2.23 (trn1) plain byte order; R-40: ustar."""
    g3, g2 = example("softmax", "gen3"), example("softmax", "gen2")
    assert list(g3.members)[-1] == "neff.json" and list(g3.members)[:-1] == sorted(list(g3.members)[:-1])
    assert list(g2.members) == sorted(g2.members)
    assert g3.tar_style is not None and g3.tar_style.name == "ustar"


def test_vector_add_variables_and_var_ids() -> None:
    """R-80/R-81 and D-8, derived by hand from examples/vector_add.json: n (DRAM, tensor_id 7, read before the
    SP writes it back) keeps var 7 and is an input; the SBUF tensors a, b, mask are read first (inputs), sum,
    sel and the PSUM acc are the Output kinds; the staged ones take 8.. in location order."""
    n = example("vector_add")
    var = {k: (v.type, v.var_id, v.size) for k, v in n.graph("sg00").definition.variables.items()}
    assert var == {"SB": ("state-buffer", 0, None), "n": ("input", 7, 16), "a": ("input", 8, 128 * 2048),
                   "b": ("input", 9, 128 * 2048), "sum": ("output", 10, 128 * 2048), "mask": ("input", 11, 128 * 512),
                   "sel": ("output", 12, 128 * 2048), "acc": ("output", 13, 128 * 2048)}
    g = n.graph_json
    assert g is not None
    assert [(e.name, e.dtype, e.shape) for e in g.entries] == [
        ("a", "float32", (128, 512)), ("b", "float32", (128, 512)), ("mask", "uint8", (128, 512)),
        ("n", "int32", (4,)), ("sum", "float32", (128, 512)), ("sel", "float32", (128, 512)),
        ("acc", "float32", (128, 512))]
    kinds = example("vector_add", "gen3", "R-80=kinds").graph("sg00").definition.variables
    assert {k for k, v in kinds.items() if v.type == "input"} == set()  # no allocation says Input
    assert kinds["n"].type == "virtual" and kinds["n"].raw["backing_variable_off"] == 0


def test_the_bundles_name_the_var_ids_of_the_table() -> None:
    """Every DMA and SP load/store of the written streams names a DRAM variable of def.json (or var 0)."""
    from tongasm.sim.scheduler import load_streams

    n = example("vector_add")
    ids = {v.var_id for v in n.graph("sg00").definition.variables.values()}
    named = set()
    for s in load_streams({s.stream: n.stream_data(s) for s in n.streams() if n.stream_data(s)}, DecisionSet()):
        for d in s.bundles:
            for key in ("src.var", "dst.var", "var_id"):
                if key in d.fields:
                    named.add(d.fields[key])
    assert named and named <= ids
    assert {7, 8, 9, 10, 11, 12, 13} <= named  # n (SP load/store) and every staged variable (Pool DMAs)


def test_dbg_members_name_every_bundle() -> None:
    n = example("vector_add")
    dve = n.graph("sg00").streams["dve"]
    assert n.bir_names(dve) == ["R-81-wait-inputs", "add_ab", "pick", "pick", "R-81-done", "R-81-wait-done",
                                "R-81-copy-acc", "R-81-copied"]
    for s in n.streams():
        names = n.bir_names(s)
        assert names is not None and len(names) == len(n.stream_data(s)) // BUNDLE_SIZE


def test_header_fields_derived_and_chosen() -> None:
    """data_size and the info.json mirrors derived; under R-83=derived the hash is the payload's MD5 and the
    UUID a v4 of it (the same kernel gives the same file); 0x228 = one graph."""
    asm = assemble(read_bir(EXAMPLES / "softmax.json"), target="gen3")
    data = asm.to_neff().to_bytes()
    assert data == asm.to_neff().to_bytes()
    n = Neff.from_bytes(data)
    h = n.header
    assert h.number("data_size") == len(data) - 1024 and h.number("packaging_version") == 2
    assert h.raw("hash") == hashlib.md5(data[1024:]).digest() and h.raw("hash_rest") == bytes(16)
    assert h.raw("uuid")[6] >> 4 == 4 and h.raw("uuid")[8] >> 6 == 0b10
    assert h.number("unknown_0x228") == 1 and h.text("name") == "file.neff"
    z = Neff.from_bytes(asm.to_neff(decisions=DecisionSet.parse(["R-83=zero"])).to_bytes())
    assert z.header.raw("hash") == bytes(16) and z.header.raw("uuid") == bytes(16)
    assert json.loads(n.members["info.json"])["tool_version"] == "2.23.6484.0+3b612583"
    t = asm.to_neff(decisions=DecisionSet.parse(["R-82=tongasm"]))
    assert json.loads(t.members["info.json"])["tool_version"].startswith("tongasm ")


def test_activation_sets_are_named_and_indexed_as_r21_reads_them() -> None:
    """mlp_gelu loads act_info set 11 (GELU): the NEFF lists that set alone and the 0x23 byte becomes 0."""
    asm = assemble(read_bir(EXAMPLES / "mlp_gelu.json"), target="gen3")
    assert asm.streams["act"][0] == 0x23 and asm.streams["act"][0x23] == 11
    n = asm.to_neff()
    assert n.activation_function_sets("sg00") == (ACT_SETS[11].name,)
    act = n.stream_data(n.graph("sg00").streams["act"])
    loads = [off for off in range(0, len(act), BUNDLE_SIZE) if act[off] == 0x23]
    assert [act[off + 0x23] for off in loads] == [0]


def _inputs(name: str, seed: int = 5) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    spec = {"vector_add": {"a": ((128, 512), np.float32), "b": ((128, 512), np.float32),
                           "mask": ((128, 512), np.uint8), "n": ((4,), np.int32)},
            "softmax": {"x": ((128, 256), np.float32)},
            "rmsnorm": {"x": ((128, 256), np.float32), "g": ((128, 256), np.float32)},
            "mlp_gelu": {"x": ((128, 128), np.float16), "w1": ((128, 128), np.float16),
                         "w2": ((128, 128), np.float16), "b1": ((128, 1), np.float32)}}[name]
    return {k: (rng.random(s) > 0.5).astype(dt) if dt == np.uint8 else (rng.standard_normal(s) * 0.5).astype(dt)
            for k, (s, dt) in spec.items()}


@pytest.mark.parametrize("name,target", [("vector_add", "gen3"), ("softmax", "gen3"), ("rmsnorm", "gen3"),
                                         ("mlp_gelu", "gen3"), ("vector_add", "gen2"), ("softmax", "gen2"),
                                         ("rmsnorm", "gen2")])
def test_the_neff_computes_what_the_kernel_computes(name: str, target: str) -> None:
    kern = read_bir(EXAMPLES / f"{name}.json")
    ins = _inputs(name)
    want = run_kernel(kern, ins, target=target)
    outs = [v.name for v in want.memory.variables if v.is_output]
    neff = Neff.from_bytes(assemble(kern, target=target).to_neff().to_bytes())
    got = run_neff(neff, ins).outputs()
    assert sorted(got) == sorted(outs)
    expected = want.outputs(outs)
    for k in outs:
        assert got[k].shape == expected[k].shape and got[k].tobytes() == expected[k].tobytes(), k
        assert np.any(got[k] != 0), k  # not two runs of nothing


def test_vector_add_neff_equals_numpy() -> None:
    ins = _inputs("vector_add", 9)
    got = run_neff(example("vector_add"), ins).outputs(["sum", "sel", "acc", "n"])
    a, b = ins["a"], ins["b"]
    assert np.array_equal(got["sum"], a + b) and np.array_equal(got["acc"], a + b)
    assert np.array_equal(got["sel"], np.where(ins["mask"] != 0, a, b))
    assert got["n"].tolist() == [*ins["n"][:3].tolist(), int(ins["n"][2]) + 100]  # examples/demo.py's n


def matmul_kernel() -> dict:
    """Pool DMAs x and y (y through DGE entry 0) into SBUF, PE computes x^T y into PSUM, Activation copies it
    to SBUF, a Pool DMA stores it: DRAM variables only, so the NEFF needs no staging (gen3 semaphores)."""
    w = {"mode": "sem_ge_imm"}
    T = [[1, 128], [1, 128]]
    y = {"name": "y_set", "memorylocations": [{"name": "y", "type": "DRAM", "dims": [1, 32768], "tensor_id": 2,
                                               "dge_entry": 0}]}
    allocs = [loc("sb", "SB", dims=(128, 229376)), loc("ps", "PSUM", dims=(128, 16384)),
              loc("x", "DRAM", dims=(1, 32768), tensor_id=1), y, loc("out", "DRAM", dims=(1, 65536), tensor_id=3)]
    allocs[2]["kind"], allocs[4]["kind"] = "Input", "Output"
    insts = [
        inst("DMACopy", [ap("x", "float16", [[128, 128], [1, 128]])], [ap("sb", "float16", T, 0)], engine="Pool",
             dma_semaphore=24),
        inst("DMACopy", [ap("y", "float16", [[128, 128], [1, 128]])], [ap("sb", "float16", T, 0x4000)], engine="Pool",
             dma_semaphore=25),
        inst("EventSemaphore", engine="PE", sync={"wait": [{**w, "index": 25, "value": 16}]}),
        inst("LoadStationary", [ap("sb", "float16", T, 0)], [], engine="PE",
             sync={"wait": [{**w, "index": 24, "value": 16}]}),
        inst("MultiplyMoving", [ap("sb", "float16", T, 0x4000)], [ap("ps", "float32", T)], engine="PE",
             start_tensor_calc=True, stop_tensor_calc=True, sync={"update": {"mode": "sem_inc", "index": 5}}),
        inst("TensorCopy", [ap("ps", "float32", T)], [ap("sb", "float32", T, 0x8000)], engine="Activation",
             sync={"wait": {**w, "index": 5, "value": 1}, "update": {"mode": "sem_inc", "index": 4}}),
        inst("DMACopy", [ap("sb", "float32", T, 0x8000)], [ap("out", "float32", [[128, 128], [1, 128]])],
             engine="Pool", dma_semaphore=26, sync={"wait": {**w, "index": 4, "value": 1}}),
        inst("NoOp", engine="Pool", sync={"wait": {**w, "index": 26, "value": 16}})]
    return kernel(*insts, allocs=allocs, arch="gen3")


def test_a_multi_engine_kernel_with_dmas() -> None:
    kern = read_bir(matmul_kernel())
    asm = assemble(kern)
    n = Neff.from_bytes(asm.to_neff().to_bytes())
    d = n.graph("sg00").definition
    assert {k: (v.type, v.var_id) for k, v in d.variables.items()} == {
        "SB": ("state-buffer", 0), "x": ("input", 1), "y": ("input", 2), "out": ("output", 3),
        "DGETable0": ("dge-table", 4)}
    assert d.variables["DGETable0"].raw["list"] == [2]
    assert {k: (q.owner, q.semaphore_set) for k, q in d.dma_queues.items()} == {"qPoolDynamic": ("pool", tuple(range(24, 40)))}
    assert [len(n.stream_data(s)) // BUNDLE_SIZE for s in n.streams()] == [1, 0, 3, 4, 0]  # no staging: the kernel's
    rng = np.random.default_rng(2)
    x = rng.uniform(-1, 1, (128, 128)).astype(np.float16)
    y = rng.uniform(-1, 1, (128, 128)).astype(np.float16)
    ins = {"x": x.reshape(-1), "y": y.reshape(-1)}
    got = run_neff(n, ins).outputs(["out"])["out"]
    want = run_kernel(kern, ins).outputs(["out"])["out"]
    assert got.tobytes() == want.tobytes()
    ref = x.astype(np.float64).T @ y.astype(np.float64)
    assert np.allclose(got.view(np.float32).reshape(-1)[:128 * 128].reshape(128, 128), ref, rtol=1e-5, atol=1e-5)


def test_a_dma_on_a_semaphore_its_queue_does_not_own_is_refused() -> None:
    """R-86/S-64: one engine's DMAs signal one block of 16 semaphores (its queue); two engines share none."""
    bad = matmul_kernel()
    bad["functions"][0]["blocks"][0]["instructions"][0]["dma_semaphore"] = 8  # 8..23, the others 24..39
    with pytest.raises(NeffError, match="pool bundle 1: the DMA signals semaphore 25, but pool bundle 0 signals 8"):
        assemble(read_bir(bad)).to_neff()
    low = matmul_kernel()
    low["functions"][0]["blocks"][0]["instructions"][0]["dma_semaphore"] = 7
    with pytest.raises(NeffError, match="semaphore 7; a NEFF's DMA queues own semaphores from 8 up"):
        assemble(read_bir(low)).to_neff()


def test_staging_refused_and_the_refusals_name_what() -> None:
    with pytest.raises(InputError, match=r"SB variable 'x' is an input.*R-81=refuse"):
        example("softmax", "gen3", "R-81=refuse")
    asm = assemble(read_bir(EXAMPLES / "softmax.json"), target="gen3")
    with pytest.raises(InputError, match="assembled for gen3"):
        from tongasm.neff.build import build_neff

        build_neff(asm, target="gen2")


def test_cli_assemble_neff_then_info_check_disasm_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "va.neff"
    assert main(["assemble", str(EXAMPLES / "vector_add.json"), "--neff", str(out), "--target", "gen3"]) == 0
    assert not (tmp_path / "manifest.json").exists() and out.is_file()
    ins = _inputs("vector_add", 11)
    args = []
    for k, v in ins.items():
        np.save(tmp_path / f"{k}.npy", v)
        args += ["-i", f"{k}={tmp_path / k}.npy"]
    assert main(["neff", "info", str(out)]) == 0
    assert main(["check", str(out)]) == 0
    assert main(["disasm", f"{out}:sg00/pool"]) == 0
    assert "R-81-load-a" in capsys.readouterr().out
    assert main(["run", str(out), "-o", str(tmp_path / "n"), "-q", *args]) == 0
    assert main(["run", str(EXAMPLES / "vector_add.json"), "--target", "gen3", "-o", str(tmp_path / "k"), "-q",
                 *args]) == 0
    for k in ("sum", "sel", "acc"):
        assert np.load(tmp_path / "n" / f"{k}.npy").tobytes() == np.load(tmp_path / "k" / f"{k}.npy").tobytes()
    assert main(["assemble", str(EXAMPLES / "vector_add.json")]) == 2  # neither -o nor --neff
    assert "-o DIR" in capsys.readouterr().err


# --- a NEFF from a listing (assemble LISTING.s --neff) -------------------------------------------------

@pytest.mark.parametrize("name,target", [("vector_add", "gen3"), ("softmax", "gen2"), ("rmsnorm", "gen3"),
                                         ("mlp_gelu", "gen3"), ("matmul", "gen3")])
def test_a_listing_of_a_written_neff_assembles_to_the_same_neff(name: str, target: str, tmp_path: Path) -> None:
    """disasm of a written NEFF (its bundles, BIR names as comments, .var and .act_sets lines) -> assemble
    --neff: the same bytes (every member, the .dbg names and the header digest), so the same bundles and run."""
    kern = read_bir(matmul_kernel()) if name == "matmul" else read_bir(EXAMPLES / f"{name}.json")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, again, listing = tmp_path / "a" / "k.neff", tmp_path / "b" / "k.neff", tmp_path / "k.s"
    first.write_bytes(assemble(kern, target=target).to_neff(name="k.neff").to_bytes())
    assert main(["disasm", str(first), "-o", str(listing), "-q"]) == 0
    text = listing.read_text()
    assert ".var {" in text and ".act_sets {" in text
    assert main(["assemble", str(listing), "--neff", str(again), "-q"]) == 0
    one, two = read_neff(first), read_neff(again)
    assert list(one.members) == list(two.members)
    for m in one.members:  # all the same but the source lines, which are now the listing's (D-37)
        if "debug_info_backend_" not in m:
            assert one.members[m] == two.members[m], m
            continue
        a, b = parse_debug_info(one.members[m], m), parse_debug_info(two.members[m], m)
        assert [(i.id, i.name, list(i.sync_deps)) for i in a.instructions] == [
            (i.id, i.name, list(i.sync_deps)) for i in b.instructions], m
        lines = text.splitlines()
        for i in b.instructions:  # each kernel_line is a bundle line of the listing naming the instruction
            line = dict((x.key, x.value) for x in i.attributes)["kernel_line"]
            assert lines[int(line) - 1].endswith(f"  ; {i.name}"), (m, i.name)
        assert b.source_file == str(listing) if b.instructions else True
    assert one.to_bytes() == Neff.from_bytes(build_neff_from_listing(assemble_file(listing), name="k.neff").to_bytes()).to_bytes()
    if name in ("vector_add", "matmul"):
        ins = _inputs(name) if name == "vector_add" else {
            "x": np.ones(16384, np.float16), "y": np.full(16384, 0.5, np.float16)}
        a, b = run_neff(read_neff(first), ins).outputs(), run_neff(read_neff(again), ins).outputs()
        assert sorted(a) == sorted(b) and all(a[k].tobytes() == b[k].tobytes() for k in a)


def test_a_listing_without_what_a_neff_needs_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = tmp_path / "s.neff"
    first.write_bytes(assemble(read_bir(EXAMPLES / "softmax.json"), target="gen3").to_neff().to_bytes())
    assert main(["disasm", str(first), "-o", str(tmp_path / "s.s"), "-q"]) == 0
    full = (tmp_path / "s.s").read_text()
    bare = tmp_path / "bare.s"
    bare.write_text("".join(x for x in full.splitlines(True) if not x.startswith(".var")))
    capsys.readouterr()
    assert main(["assemble", str(bare), "--neff", str(tmp_path / "o.neff")]) == 2
    err = capsys.readouterr().err
    assert "the bundles name DRAM variables 1 (pool bundle 0), 2 (pool bundle " in err
    assert "holds no .var directive" in err and "Traceback" not in err
    assert not (tmp_path / "o.neff").exists()
    some = tmp_path / "some.s"  # one variable left out: named
    some.write_text("".join(x for x in full.splitlines(True) if '"var_id": 2,' not in x))
    assert main(["assemble", str(some), "--neff", str(tmp_path / "o.neff")]) == 2
    assert "DRAM variables 2 (pool bundle " in capsys.readouterr().err
    two = tmp_path / "two.s"
    two.write_text(full + ".stream sg01.pe\n")
    assert main(["assemble", str(two), "--neff", str(tmp_path / "o.neff")]) == 2
    assert "holds graphs sg00, sg01" in capsys.readouterr().err
    assert main(["assemble", str(tmp_path / "s.s"), "-o", str(tmp_path / "d")]) == 2
    assert "tongasm asm" in capsys.readouterr().err


def test_a_listing_of_a_real_neff_with_a_constant_is_refused_naming_it(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """matmul_small's graph has a 'file' variable (its .npy constant is not in a listing)."""
    assert main(["disasm", f"{small()}:sg00", "-o", str(tmp_path / "m.s"), "-q"]) == 0
    assert main(["assemble", str(tmp_path / "m.s"), "--neff", str(tmp_path / "m.neff")]) == 2
    assert "variable 'identity_82_sg0000' is a 'file' variable" in capsys.readouterr().err


def test_dbg_members_carry_source_lines_and_semaphore_dependencies(tmp_path: Path) -> None:
    """D-37: each backend entry of a kernel's instruction names its line in the kernel JSON (kernel_file 0 =
    the file's source_file), as the real files name the NKI source; a wait depends on the instructions of
    other engines that update its semaphore (kind 4), every entry has unknown_6 1."""
    out = tmp_path / "s.neff"
    src = EXAMPLES / "softmax.json"
    assert main(["assemble", str(src), "--neff", str(out), "--target", "gen3", "-q"]) == 0
    n = read_neff(out)
    text = src.read_text().splitlines()
    act = n.graph("sg00").streams["act"]
    where = n.source_lines(act)
    names = n.bir_names(act)
    assert where is not None and names is not None
    for w, nm in zip(where, names):
        if nm is None or nm.startswith("R-8"):  # the prologue and the staging have no source line
            assert w is None
            continue
        assert w is not None and w.startswith(f"{src}:")
        assert text[int(w.rsplit(":", 1)[1]) - 1].strip() == f'"name": "{nm}",'
    by_name = {}
    for m in n.members:
        if "debug_info_backend_" in m:
            for i in parse_debug_info(n.members[m], m).instructions:
                by_name[(m.rsplit("_", 1)[1], i.name)] = i
    assert {i.unknown_6 for i in by_name.values()} == {1}
    ids = {i.id: k for k, i in by_name.items()}
    wait = by_name[("Activation.dbg", "R-81-wait-inputs")]  # waits for the Pool DMA that loads x
    assert [ids[d] for d in wait.sync_deps] == [("Pool.dbg", "R-81-load-x")] and list(wait.sync_dep_kinds) == [4]
    exp = by_name[("Activation.dbg", "exp")]  # waits for DVE's rowmax
    assert [ids[d][0] for d in exp.sync_deps] == ["DVE.dbg"] and len(exp.sync_dep_kinds) == len(exp.sync_deps)
    assert not by_name[("Activation.dbg", "exp_set")].sync_deps


def two_queue_kernel() -> dict:
    """matmul_kernel with its store on SP (the SP queue, semaphores 8..23) beside Pool's loads (24..39)."""
    k = matmul_kernel()
    insts = k["functions"][0]["blocks"][0]["instructions"]
    insts[-2].update(engine="SP", dma_semaphore=8)
    insts[-1].update(engine="SP", sync={"wait": {"mode": "sem_ge_imm", "index": 8, "value": 16}})
    return k


@pytest.mark.parametrize("name,target", [("vector_add", "gen3"), ("softmax", "gen3"), ("rmsnorm", "gen2"),
                                         ("mlp_gelu", "gen3"), ("matmul", "gen3"), ("two_queues", "gen3")])
def test_cli_run_of_the_neff_equals_run_of_the_kernel(name: str, target: str, tmp_path: Path) -> None:
    """tongasm run OUT.neff -i ... gives the bytes tongasm run KERNEL.json -i ... gives, for every output."""
    if name in ("matmul", "two_queues"):
        src = tmp_path / f"{name}.json"
        src.write_text(json.dumps(matmul_kernel() if name == "matmul" else two_queue_kernel()))
        rng = np.random.default_rng(4)
        ins = {k: rng.uniform(-1, 1, 16384).astype(np.float16) for k in ("x", "y")}
    else:
        src, ins = EXAMPLES / f"{name}.json", _inputs(name, 13)
    out = tmp_path / "k.neff"
    assert main(["assemble", str(src), "--neff", str(out), "--target", target, "-q"]) == 0
    if name == "two_queues":
        queues = read_neff(out).graph("sg00").definition.dma_queues
        assert {q.owner: q.semaphore_set[0] for q in queues.values()} == {"pool": 24, "sp": 8}
    args = []
    for k, v in ins.items():
        np.save(tmp_path / f"{k}.npy", v)
        args += ["-i", f"{k}={tmp_path / k}.npy"]
    assert main(["run", str(out), "-o", str(tmp_path / "n"), "-q", *args]) == 0
    assert main(["run", str(src), "--target", target, "-o", str(tmp_path / "k"), "-q", *args]) == 0
    outs = sorted(p.name for p in (tmp_path / "n").glob("*.npy"))
    assert outs and all((tmp_path / "k" / p).is_file() for p in outs)
    for p in outs:
        got, want = np.load(tmp_path / "n" / p), np.load(tmp_path / "k" / p)
        assert got.tobytes() == want.tobytes(), p
        assert np.any(got.view(np.uint8) != 0), p


def test_check_of_a_written_neff_names_the_source_lines_of_a_race(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """D-37: a listing whose DVE no longer waits for the input DMA, written as a NEFF: tongasm check names both
    sides of the race by BIR instruction and listing line, as it names a real NEFF's by its NKI source."""
    n = tmp_path / "s.neff"
    n.write_bytes(assemble(read_bir(EXAMPLES / "softmax.json"), target="gen3").to_neff().to_bytes())
    assert main(["disasm", str(n), "-o", str(tmp_path / "s.s"), "-q"]) == 0
    lines, stream = [], None
    for line in (tmp_path / "s.s").read_text().splitlines():
        stream = line if line.startswith(".stream") else stream
        if stream == ".stream sg00.dve" and line.endswith("  ; R-81-wait-inputs"):
            line = "Nop  ; R-81-wait-inputs"  # the wait dropped
        lines.append(line)
    racy = tmp_path / "r.s"
    racy.write_text("\n".join(lines) + "\n")
    load = next(k for k, x in enumerate(lines, 1) if x.endswith("; R-81-load-x"))
    rowmax = next(k for k, x in enumerate(lines, 1) if x.endswith("; rowmax"))
    assert main(["assemble", str(racy), "--neff", str(tmp_path / "r.neff"), "-q"]) == 0
    capsys.readouterr()
    assert main(["check", str(tmp_path / "r.neff")]) == 1
    out = capsys.readouterr().out
    assert f"(R-81-load-x, PseudoDmaDirect2d, {racy}:{load})" in out
    assert f"(rowmax, TensorReduceArithOp, {racy}:{rowmax})" in out
