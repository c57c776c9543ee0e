"""The memory description: what variables a run has, where they live, and their element layout.

``tongasm assemble`` writes it beside the streams as ``memory.json``; ``tongasm run DIR/*.bin
--memory DIR/memory.json`` reads it back. It is derived from the kernel's allocations: each memory
location becomes a variable with its id (D-8: ``tensor_id`` or its index), its space (DRAM, SB,
PSUM), start partition, byte address, PSUM bank, ``dims`` = [partitions, bytes per partition],
element dtype and logical shape.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..isa.enums import DTYPE_INFO, Dtype
from ..ir.instructions import Kernel
from ..ir.operands import MemoryLocation, PhysicalAP, RegisterAP

SPACES = ("DRAM", "SB", "PSUM")


@dataclass
class Variable:
    """One memory location of the kernel, as the simulator sees it."""

    name: str
    var_id: int
    space: str  # DRAM, SB or PSUM
    partition: int = 0
    addr: int = 0
    bank: int = 0
    dims: tuple[int, int] = (1, 0)
    dtype: str | None = None  # BIR dtype name of its elements
    shape: list[int] | None = None
    kind: str | None = None  # TensorKind (Input/Output/Internal...) when the kernel says

    @property
    def nbytes(self) -> int:
        return self.dims[0] * self.dims[1]

    @property
    def is_output(self) -> bool:
        return self.kind in ("Output", "ExternalOutput", "ExternalOutputParameter")

    def numpy_dtype(self) -> np.dtype:
        from ..numeric import numpy_dtype

        if self.dtype is None:
            return np.dtype(np.uint8)
        return numpy_dtype(Dtype[self.dtype])

    def logical_shape(self) -> tuple[int, ...]:
        if self.shape:
            return tuple(self.shape)
        size = self.numpy_dtype().itemsize
        return (self.dims[0], self.dims[1] // size) if self.space != "DRAM" else (self.nbytes // size,)


@dataclass
class MemoryDescription:
    target: str = "gen2"
    variables: list[Variable] = field(default_factory=list)
    #: the DGE table (R-17): entry → var_id (None: no such entry), for DMA sides in mode 0x20
    dge_table: list[int | None] = field(default_factory=list)

    def by_name(self, name: str) -> Variable:
        for v in self.variables:
            if v.name == name:
                return v
        raise InputError(f"no variable named {name!r} (known: {', '.join(v.name for v in self.variables)})")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"target": self.target, "variables": [asdict(v) for v in self.variables]}
        if self.dge_table:
            out["dge_table"] = list(self.dge_table)
        return out

    @classmethod
    def from_json(cls, data: Any, path: str = "memory description") -> MemoryDescription:
        try:
            if "memory" in data and "variables" not in data:  # accept a manifest carrying one
                data = data["memory"]
            vs = []
            for d in data["variables"]:
                d = dict(d)
                d["dims"] = tuple(d.get("dims") or (1, 0))
                v = Variable(**d)
                if v.space not in SPACES:
                    raise InputError(f"{path}: variable {v.name!r} has space {v.space!r}; use DRAM, SB or PSUM")
                vs.append(v)
            table = data.get("dge_table", [])
            if not isinstance(table, list) or not all(e is None or (isinstance(e, int) and not isinstance(e, bool))
                                                      for e in table):
                raise InputError(f"{path}: dge_table must be a list of var_ids (or null)")
            return cls(str(data.get("target", "gen2")), vs, table)
        except (KeyError, TypeError) as e:
            raise InputError(f"{path}: not a memory description ({e})") from None

    @classmethod
    def load(cls, path: str | Path) -> MemoryDescription:
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, json.JSONDecodeError) as e:
            raise InputError(f"cannot read memory description {path}: {e}") from None
        return cls.from_json(data, str(path))


def _dtypes_used(kernel: Kernel) -> dict[str, str]:
    """Location name → dtype of the first access pattern that touches it (when no allocation dtype)."""
    seen: dict[str, str] = {}
    from ..passes import flatten

    for item in flatten(kernel):
        for op in [*item.inst.ins, *item.inst.outs]:
            if isinstance(op, PhysicalAP) and op.location is not None and isinstance(op.dtype, Dtype):
                seen.setdefault(op.location.name, op.dtype.name)
            elif isinstance(op, RegisterAP) and op.allocation is not None and isinstance(op.dtype, Dtype):
                for loc in op.allocation.locations:
                    seen.setdefault(loc.name, op.dtype.name)
    return seen


def describe_kernel(kernel: Kernel, target: str) -> MemoryDescription:
    """The memory description of a kernel's allocations."""
    used = _dtypes_used(kernel)
    out = MemoryDescription(target)
    for func in kernel.functions:
        for loc in func.locations():
            v = variable_of(loc, used.get(loc.name))
            out.variables.append(v)
            entry = loc.extra.get("dge_entry")  # a DRAM location a DMA reaches through the DGE table
            if isinstance(entry, int) and not isinstance(entry, bool) and 0 <= entry <= 0xFFFF:
                out.dge_table += [None] * (entry + 1 - len(out.dge_table))
                out.dge_table[entry] = v.var_id
    return out


def variable_of(loc: MemoryLocation, used_dtype: str | None) -> Variable:
    alloc_extra = loc.allocation.extra if loc.allocation is not None else {}
    dtype = alloc_extra.get("dtype") if isinstance(alloc_extra.get("dtype"), str) else None
    if dtype is not None and dtype not in Dtype.__members__:
        dtype = None
    dtype = dtype or used_dtype
    space = "DRAM" if loc.type.is_dram else loc.type.value
    dims = tuple(loc.dims[:2]) if loc.dims and len(loc.dims) >= 2 else (1, 0)
    shape = alloc_extra.get("tensor_shape")
    kind = alloc_extra.get("kind") if isinstance(alloc_extra.get("kind"), str) else None
    if kind is None and loc.type.value in ("Input", "Output"):
        kind = loc.type.value
    if isinstance(shape, list) and dtype is not None and all(isinstance(s, int) for s in shape):
        size = DTYPE_INFO[Dtype[dtype]].size
        if int(np.prod(shape)) * size > dims[0] * dims[1] > 0:
            shape = None
    else:
        shape = None
    return Variable(loc.name, loc.tensor_id if loc.tensor_id is not None else loc.index, space, loc.base, loc.addr,
                    loc.bank, dims, dtype, shape, kind)  # type: ignore[arg-type]

