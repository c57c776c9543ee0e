"""Benchmark inputs: mixed kernels of any size, as BIR JSON (written incrementally) or as IR.

The kernel imitates unrolled tile loops: a few hundred distinct access patterns (tiles of SBUF
and PSUM, a DRAM table) are reused by a rotating mix of every opcode family — TensorTensor (arith,
bit-vector, compare, GPSIMD int32), TensorCopy/cast, Memset, CopyPredicated, SelectReduce, Select,
MoveShape, RegisterMove, RegisterAlu, TensorLoad/TensorSave — on five engines, with sync bands.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Iterator, TextIO

TILES = 64  # distinct tile offsets per tensor (variety="tiles")
F = 64  # free elements per tile row
#: elements per partition of each tensor (its offsets stay inside: variety="wide" draws any of them)
ROW = {"i": 8192, "p": 4096}


def _ap(memref: str, dtype: str, pairs: list[list[int]], offset: int) -> dict[str, Any]:
    return {"kind": "physical_ap", "dtype": dtype, "ap": pairs, "offset": offset, "memref": memref}


def _reg(name: str, dtype: str = "int32") -> dict[str, Any]:
    return {"kind": "register_access", "dtype": dtype, "regref": name}


def _imm(dtype: str, value: Any) -> dict[str, Any]:
    return {"kind": "imm_value", "dtype": dtype, "value": value}


ALLOCATIONS = [
    {"name": "a_set", "kind": "Internal", "dtype": "float32",
     "memorylocations": [{"name": "a", "type": "SB", "addr": 0, "base": 0, "dims": [128, 65536]}]},
    {"name": "b_set", "kind": "Internal", "dtype": "float32",
     "memorylocations": [{"name": "b", "type": "SB", "addr": 65536, "base": 0, "dims": [128, 65536]}]},
    {"name": "i_set", "kind": "Internal", "dtype": "int32",
     "memorylocations": [{"name": "i", "type": "SB", "addr": 131072, "base": 0, "dims": [128, 32768]}]},
    {"name": "m_set", "kind": "Internal", "dtype": "uint8",
     "memorylocations": [{"name": "m", "type": "SB", "addr": 163840, "base": 0, "dims": [128, 8192]}]},
    {"name": "p_set", "kind": "Internal", "dtype": "float32",
     "memorylocations": [{"name": "p", "type": "PSUM", "addr": 0, "base": 0, "bank": 0, "dims": [128, 16384]}]},
    {"name": "t_set", "kind": "Const", "dtype": "int32",
     "memorylocations": [{"name": "t", "type": "DRAM", "addr": 0, "dims": [1, 65536], "tensor_id": 5}]},
]
REGISTERS = {f"r{i}": i for i in range(16)}


def instructions(n: int, seed: int = 0, variety: str = "wide") -> Iterator[dict[str, Any]]:
    """``n`` BIR instruction objects of the mixed kernel.

    ``variety="wide"`` (the default): each operand's element offset is drawn from 8,128 values (4,032
    for the PSUM tile), every one keeping the tile inside its tensor's partition, so operands hardly
    repeat; the real NEFFs' DMA operands
    are like this (matmul_large: 8,235 distinct addresses over 17,536 DMA operands). ``"tiles"``:
    64 tile offsets per tensor, like their compute operands (matmul_large: 18-320 distinct
    addresses per layout)."""
    if variety not in ("wide", "tiles"):
        raise ValueError(f"variety must be 'wide' or 'tiles', not {variety!r}")
    rnd = random.Random(seed)
    ops = ["add", "subtract", "mult", "max", "min", "is_lt", "bitwise_and", "logical_shift_left"]
    tile = [[65536 // 4, 128], [1, F]]
    draw = ((lambda: rnd.randrange(TILES) * F) if variety == "tiles" else (lambda: rnd.randrange(ROW["i"] - F)))
    for k in range(n):
        t0, t1, t2 = draw(), draw(), draw()
        kind = k % 16
        name = f"i{k}"
        sync: dict[str, Any] | None = None
        if k % 7 == 0:
            sync = {"update": {"mode": "sem_inc", "index": k % 8}}
        elif k % 7 == 3:
            sync = {"wait": {"mode": "sem_ge_imm", "index": (k - 3) % 8, "value": 0}}
        if kind < 5:
            op = ops[k % len(ops)]
            src = "i" if op in ("bitwise_and", "logical_shift_left") else "a"
            dt = "int32" if src == "i" else "float32"
            tl = [[32768 // 4, 128], [1, F]] if src == "i" else tile
            d = {"opcode": "TensorTensor", "name": name, "engine": "DVE", "op": op,
                 "ins": [_ap(src, dt, tl, t0), _ap(src, dt, tl, t1)],
                 "outs": [_ap(src if op != "is_lt" else "m", dt if op != "is_lt" else "uint8",
                              tl if op != "is_lt" else [[8192, 128], [1, F]], t2)]}
        elif kind == 5:
            d = {"opcode": "TensorTensor", "name": name, "engine": "Pool", "op": "add",
                 "ins": [_ap("i", "int32", [[8192, 128], [1, F]], t0), _ap("i", "int32", [[8192, 128], [1, F]], t1)],
                 "outs": [_ap("i", "int32", [[8192, 128], [1, F]], t2)]}
        elif kind == 6:
            d = {"opcode": "TensorCopy", "name": name, "engine": "Activation",
                 "ins": [_ap("a", "float32", tile, t0)], "outs": [_ap("b", "bfloat16", [[32768, 128], [2, F // 2],
                                                                                       [1, 2]], t1 * 2)]}
        elif kind == 7:
            d = {"opcode": "TensorCopy", "name": name, "engine": "Activation",
                 "ins": [_ap("a", "float32", tile, t0)], "outs": [_ap("p", "float32", [[4096, 128], [1, F]], t1 % (ROW["p"] - F))]}
        elif kind == 8:
            d = {"opcode": "Memset", "name": name, "engine": "DVE", "mode": "Const", "constant": 0,
                 "ins": [], "outs": [_ap("a", "float32", tile, t0)]}
        elif kind == 9:
            d = {"opcode": "CopyPredicated", "name": name, "engine": "DVE",
                 "ins": [_ap("m", "uint8", [[8192, 128], [1, F]], t0), _ap("a", "float32", tile, t1)],
                 "outs": [_ap("b", "float32", tile, t2)]}
        elif kind == 10:
            d = {"opcode": "CopyPredicated", "name": name, "engine": "DVE", "op": "max", "acc": "ZeroAccumulate",
                 "ins": [_ap("m", "uint8", [[8192, 128], [1, F]], t0), _ap("a", "float32", tile, t1),
                         _imm("float32", 0.0)], "outs": [_ap("b", "float32", tile, t2)]}
        elif kind == 11:
            d = {"opcode": "Select", "name": name, "engine": "DVE",
                 "ins": [_ap("m", "uint8", [[8192, 128], [1, F]], t0), _ap("a", "float32", tile, t1),
                         _imm("float32", 0.0)], "outs": [_ap("b", "float32", tile, t2)]}
        elif kind == 12:
            d = {"opcode": "RegisterMove", "name": name, "engine": "SP", "ins": [_imm("int32", k % 1000)],
                 "outs": [_reg(f"r{k % 8}")]}
        elif kind == 13:
            d = {"opcode": "RegisterAlu", "name": name, "engine": "SP", "op": "add",
                 "ins": [_reg(f"r{k % 8}"), _imm("int32", 1)], "outs": [_reg(f"r{(k + 1) % 8}")]}
        elif kind == 14:
            d = {"opcode": "TensorLoad", "name": name, "engine": "SP",
                 "ins": [_ap("t", "int32", [[1, 1], [1, 1]], t0 % 4096)], "outs": [_reg(f"r{k % 8}")]}
        else:
            d = {"opcode": "MoveShape", "name": name, "engine": "DVE",
                 "ins": [_ap("t", "int32", [[0, 1], [64, 4], [1, 64]], 0)], "outs": []}
        if sync is not None:
            d["sync"] = sync
        yield d


def write_kernel(path: str | Path, n: int, seed: int = 0, variety: str = "wide") -> int:
    """Write the mixed kernel as BIR JSON, one instruction at a time; returns the file size."""
    p = Path(path)
    with open(p, "w") as fh:
        _write(fh, n, seed, variety)
    return p.stat().st_size


def _write(fh: TextIO, n: int, seed: int, variety: str) -> None:
    fh.write('{"arch": "gen2", "version": 2, "functions": [{"name": "bench", "attributes": [], "allocations": ')
    fh.write(json.dumps(ALLOCATIONS))
    fh.write(', "registers": ' + json.dumps(REGISTERS))
    fh.write(', "blocks": [{"name": "b", "instructions": [\n')
    for k, d in enumerate(instructions(n, seed, variety)):
        fh.write((",\n" if k else "") + json.dumps(d, separators=(",", ":")))
    fh.write("\n]}]}]}\n")


def kernel_ir(n: int, seed: int = 0, variety: str = "wide") -> Any:
    """The same kernel as IR objects (through the ordinary reader)."""
    from tongasm.ir.bir_json import kernel_from_json

    return kernel_from_json({"arch": "gen2", "functions": [
        {"name": "bench", "allocations": ALLOCATIONS, "registers": REGISTERS,
         "blocks": [{"name": "b", "instructions": list(instructions(n, seed, variety))}]}]})


def looped_kernel_ir(n: int, body: int = 1000, seed: int = 0) -> Any:
    """``n`` instructions as a ``Loop`` of ``n // body`` iterations over a ``body``-instruction block
    (how a compiler's tile loop reaches BIR): the body is the mixed kernel's first ``body`` instructions."""
    from tongasm.ir.bir_json import kernel_from_json

    loop = {"opcode": "Loop", "name": "tiles", "LoopAxis": {"name": "t", "lb": 0, "ub": max(n // body, 1), "stride": 1},
            "blocks": [{"name": "body", "instructions": list(instructions(body, seed))}]}
    return kernel_from_json({"arch": "gen2", "functions": [
        {"name": "bench", "allocations": ALLOCATIONS, "registers": REGISTERS,
         "blocks": [{"name": "b", "instructions": [loop]}]}]})
