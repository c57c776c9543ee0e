#!/usr/bin/env python3
"""Write the seed corpora of the fuzz harnesses into fuzz/corpus/<harness>/ (or a given directory).

    python fuzz/make_corpus.py [OUT_DIR]

Seeds come from the repository itself: examples/vector_add.json, every golden vector of
tests/golden/vectors (its kernel, and the streams it assembles to), the golden listings of
tests/golden/listings, and a few kernels made with :class:`tongasm.ir.builder.KernelBuilder`.

* ``decode``: byte 0 = index of the decision readings (0 = defaults), then a stream;
* ``check``:  byte 0 = target/pedantic/engine selector, byte 1 = decision readings, then a stream;
* ``asm_text``: listing text (the golden listings and listings of the assembled streams);
* ``bir_json``: BIR JSON kernels;
* ``outputs``: memory descriptions (the example's ``memory.json``, with names that try to escape).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

from tongasm.codegen import assemble  # noqa: E402
from tongasm.errors import TongasmError  # noqa: E402
from tongasm.ir import read_bir  # noqa: E402
from tongasm.ir.builder import KernelBuilder, sync  # noqa: E402
from tongasm.isa import DecisionSet  # noqa: E402
from tongasm.text import StreamInput, listing  # noqa: E402

HARNESSES = ("decode", "check", "asm_text", "bir_json", "outputs")


def builder_kernels() -> list[str]:
    """A few small kernels from the Python builder (tensor ops, SP ops, sync, registers)."""
    out = []
    kb = KernelBuilder(arch="gen2")
    a = kb.sbuf("a", bytes_per_partition=2048)
    b = kb.sbuf("b", bytes_per_partition=2048, addr=2048)
    c = kb.sbuf("c", bytes_per_partition=2048, addr=4096)
    kb.tensor_tensor(out=c.tile("float32", 128, 512), in0=a.tile("float32", 128, 512),
                     in1=b.tile("float32", 128, 512), op="add", sync=sync(("sem_ge_imm", 3, 5), ("sem_inc", 4)))
    kb.tensor_copy(c.tile("bfloat16", 64, 16, 4), a.tile("bfloat16", 64, 16, 4), engine="Pool")
    kb.memset(c.tile("float32", 128, 8), constant_bits=7, engine="Activation")
    kb.copy_predicated(c.tile("float32", 128, 16), a.tile("uint8", 128, 16), b.tile("float32", 128, 16))
    out.append(kb.to_json_text())

    kb = KernelBuilder(arch="gen3")
    r = kb.register("x", 5)
    pair = kb.register("p", [10, 11])
    d = kb.dram("d", nbytes=4096, tensor_id=3)
    s = kb.sbuf("s", bytes_per_partition=4096)
    kb.register_move(kb.reg(r), kb.imm("int32", -7))
    kb.register_move(kb.reg(pair, "int64"), kb.imm("int64", 1 << 40))
    kb.register_alu(kb.reg(r), kb.reg(r), kb.imm("int32", 3), "add")
    kb.tensor_load(kb.reg(r), d.ap("int32", [[1, 1]]))
    kb.tensor_save(d.ap("int32", [[1, 1]]), kb.reg(r))
    kb.select(s.tile("float32", 128, 16), s.tile("uint8", 128, 16, offset=64), s.tile("float32", 128, 16),
              kb.imm("float32", 0.5))
    out.append(kb.to_json_text())
    return out


def kernels() -> list[tuple[str, bytes, dict]]:
    """(name, JSON text, vector case) of every seed kernel."""
    out = [("example_vector_add", (ROOT / "examples" / "vector_add.json").read_bytes(), {})]
    for i, text in enumerate(builder_kernels()):
        out.append((f"builder_{i}", text.encode(), {}))
    for p in sorted((ROOT / "tests" / "golden" / "vectors").glob("**/*.json")):
        case = json.loads(p.read_text())
        out.append((f"vector_{p.parent.name}_{p.stem}", json.dumps(case["kernel"], indent=1).encode(), case))
    return out


def seeds() -> dict[str, dict[str, bytes]]:
    """harness name -> {file name: contents}."""
    out: dict[str, dict[str, bytes]] = {h: {} for h in HARNESSES}
    listings = out["asm_text"]
    for p in sorted((ROOT / "tests" / "golden" / "listings").glob("**/*.s")):
        listings[f"golden_{p.parent.name}_{p.stem}.s"] = p.read_bytes()
    for name, text, case in kernels():
        out["bir_json"][f"{name}.json"] = text
        try:
            ds = DecisionSet.parse(case.get("decisions") or [])
            asm = assemble(read_bir(text), target=case.get("target"), decisions=ds, check="warn")
        except TongasmError:
            continue  # a vector that must fail: a kernel seed only
        for sname, data in asm.streams.items():
            data = bytes(data)
            out["decode"][f"{name}_{sname}.bin"] = bytes([0]) + data
            out["check"][f"{name}_{sname}.bin"] = bytes([4 + 4 * ["pool", "act", "pe", "dma", "dve", "sp"].index(sname)
                                                         if sname in ("pool", "act", "pe", "dma", "dve", "sp") else 0,
                                                         0]) + data
        lines = list(listing([StreamInput(n, bytes(d)) for n, d in asm.streams.items()], decisions=ds))
        listings[f"{name}.s"] = ("\n".join(lines) + "\n").encode()
    # memory descriptions: the example's, with names that try to leave the output directory
    from tongasm.ir.memory import describe_kernel

    mem = describe_kernel(read_bir(ROOT / "examples" / "vector_add.json"), "gen2").to_json()
    out["outputs"]["vector_add_memory.json"] = json.dumps(mem).encode()
    for i, name in enumerate(["../x", "/abs", "a\u0000b", "\ud800", ".", "..", ".hidden", "a/b", "%2F", "é"]):
        bad = json.loads(json.dumps(mem))
        bad["variables"][2]["name"] = name
        out["outputs"][f"name_{i}.json"] = json.dumps(bad).encode()
    out["outputs"]["empty.json"] = b'{"variables": []}'
    out["outputs"]["duplicate.json"] = b'{"variables": [], "variables": []}'
    # a few hand-made edge cases
    out["decode"]["empty"] = b""
    out["decode"]["zeros"] = bytes(1 + 128)
    out["decode"]["tail"] = bytes(1 + 64 + 5)
    out["check"]["empty"] = b""
    out["check"]["zeros_pedantic"] = bytes([2, 0]) + bytes(128)
    out["asm_text"]["bytes.s"] = b".stream dve\n.bytes " + b"00" * 64 + b"\n"
    out["bir_json"]["minimal.json"] = b'{"functions": []}'
    return out


def write(out_dir: Path) -> dict[str, int]:
    counts = {}
    for h, files in seeds().items():
        d = out_dir / h
        d.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            # libFuzzer names its own finds by content hash; seeds keep readable names
            (d / name).write_bytes(data)
        counts[h] = len(files)
    return counts


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "corpus"
    for h, n in write(out).items():
        print(f"{out / h}: {n} seeds")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
