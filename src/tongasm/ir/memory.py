"""The memory description: what variables a run has, where they live, and their element layout.

``tongasm assemble`` writes it beside the streams as ``memory.json``; ``tongasm run DIR/*.bin
--memory DIR/memory.json`` reads it back. It is derived from the kernel's allocations: each memory
location becomes a variable with its id (D-8: ``tensor_id`` or its index), its space (DRAM, SB,
PSUM), start partition, byte address, PSUM bank, ``dims`` = [partitions, bytes per partition],
element dtype and logical shape.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..io.limits import Limit
from ..isa.enums import DTYPE_INFO, Dtype
from .instructions import Instruction, Kernel, Loop
from .operands import MemoryLocation, PhysicalAP, RegisterAP

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


#: The most bytes of DRAM variables the simulator allocates in all (a memory description, a kernel or
#: a NEFF that asks for more is refused before a byte is allocated, not by the host running out of
#: memory). The corpus's largest: 434 MB of outputs and private variables (yolox
#: MODULE_15023315273075843957), 805 MB of inputs (moe v6b); each output is copied once more when its
#: ``.npy`` is written, so the default leaves a 4 GB machine room to finish.
SIM_DRAM_BYTES = Limit("the DRAM the simulator allocates", 1 << 30, "TONGASM_MAX_SIM_DRAM_BYTES",
                       "1 GiB: 2.5x the corpus's largest outputs and private variables (434 MB) and above its "
                       "largest inputs (805 MB)")
MAX_DRAM_BYTES = SIM_DRAM_BYTES.default


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
        known = ", ".join(repr(v.name) for v in self.variables[:50]) + (" ..." if len(self.variables) > 50 else "")
        raise InputError(f"no variable named {name!r} (known: {known or 'none'})")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"target": self.target, "variables": [asdict(v) for v in self.variables]}
        if self.dge_table:
            out["dge_table"] = list(self.dge_table)
        return out

    @classmethod
    def from_json(cls, data: Any, path: str = "memory description") -> MemoryDescription:
        """Read the ``memory.json`` object; every key is checked for its type and range (an
        InputError naming the file, the variable and the key), duplicate names are refused."""
        if isinstance(data, dict) and "memory" in data and "variables" not in data:  # a manifest carrying one
            data = data["memory"]
        if not isinstance(data, dict):
            raise InputError(f"{path}: not a memory description (a JSON object with \"variables\": [...])")
        unknown = set(data) - {"target", "variables", "dge_table"}
        if unknown:
            raise InputError(f"{path}: unknown key(s) {sorted(unknown)} (a memory description has \"target\" "
                             "and \"variables\", optionally \"dge_table\")")
        target = data.get("target", "gen2")
        if not isinstance(target, str):
            raise InputError(f"{path}: \"target\" must be a string such as \"gen2\", got {_show(target)}")
        raw = data.get("variables")
        if not isinstance(raw, list):
            raise InputError(f"{path}: \"variables\" must be a JSON array, got {_show(raw)}")
        vs = [_variable(d, f"{path}: variables[{i}]") for i, d in enumerate(raw)]
        seen: set[str] = set()
        for i, v in enumerate(vs):
            if v.name in seen:
                raise InputError(f"{path}: variables[{i}]: variable {v.name!r} is described twice")
            seen.add(v.name)
        table = data.get("dge_table", [])
        if not isinstance(table, list) or not all(e is None or (isinstance(e, int) and not isinstance(e, bool))
                                                  for e in table):
            raise InputError(f"{path}: \"dge_table\" must be a list of var_ids (integers) or nulls")
        return cls(target, vs, table)

    @classmethod
    def load(cls, path: str | Path) -> MemoryDescription:
        from ..io.inputs import read_text

        text = read_text(path)
        try:
            data = json.loads(text, object_pairs_hook=_no_duplicate_keys)
        except (ValueError, RecursionError) as e:  # JSONDecodeError, an int past the digit limit, a duplicate
            raise InputError(f"cannot read memory description {path}: not valid JSON: {e}") from None
        return cls.from_json(data, str(path))

    def validate(self, target: Any) -> None:
        """Each variable must lie inside its space on ``target`` (SB and PSUM: partitions and bytes
        per partition; DRAM: :data:`SIM_DRAM_BYTES` in all), its shape must fit its bytes: an
        InputError naming the variable otherwise. Runs before a machine is built."""
        from ..isa.descriptors import PSUM_PARTITION_BYTES

        dram = 0
        total = sum(v.dims[0] * v.dims[1] for v in self.variables if v.space == "DRAM" and min(v.dims) >= 0)
        dram_limit = SIM_DRAM_BYTES.value()
        for v in self.variables:
            rows, width = v.dims
            if rows < 0 or width < 0:
                raise InputError(f"variable {v.name!r}: dims {list(v.dims)} must not be negative")
            where = f"variable {v.name!r} ({v.space}, partitions {_brief(v.partition)}..{_brief(v.partition + rows - 1)}, " \
                    f"bytes {_brief(v.addr)}..{_brief(v.addr + width - 1)})"
            if v.space == "DRAM":
                dram += rows * width
                if dram > dram_limit:
                    raise SIM_DRAM_BYTES.error(total, where, "bytes")
            else:
                per = target.sbuf_bytes_per_partition if v.space == "SB" else PSUM_PARTITION_BYTES
                start = v.addr + (v.bank * 2048 if v.space == "PSUM" else 0)
                if v.partition + rows > target.sbuf_partitions or start + width > per:
                    raise InputError(f"{where} lies outside {v.space} of {target.name} "
                                     f"({target.sbuf_partitions} partitions x {per} bytes)")
            if v.shape is not None:
                n = 1
                for d in v.shape:
                    n *= d
                if n * v.numpy_dtype().itemsize > v.nbytes:
                    raise InputError(f"variable {v.name!r}: shape {v.shape} of {v.dtype} needs "
                                     f"{n * v.numpy_dtype().itemsize} bytes; it has {v.nbytes}")
                if v.space != "DRAM" and not _fits_partitions(v.shape, (rows, width), v.numpy_dtype().itemsize):
                    raise InputError(f"variable {v.name!r}: shape {v.shape} of {v.dtype} does not fit its {v.space} "
                                     f"dims {list(v.dims)} (the first size is partitions, at most {rows}; the rest "
                                     f"must fit {width} bytes of one partition)")


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d = dict(pairs)
    if len(d) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise ValueError(f"duplicate key {k!r}")
            seen.add(k)
    return d


def _show(v: Any) -> str:
    from ..errors import brief_repr

    return brief_repr(v)


def _brief(v: int) -> str:
    from ..io.inputs import brief_int

    return brief_int(v)


def _uint(d: dict[str, Any], key: str, where: str, default: int | None = None, limit: int = 1 << 48) -> int:
    v = d.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < limit:
        raise InputError(f"{where}: {key!r} must be an integer 0..{limit - 1}, got {_show(v)}")
    return v


def _variable(d: Any, where: str) -> Variable:
    """One variable of a memory description, every key checked."""
    if not isinstance(d, dict):
        raise InputError(f"{where}: a variable must be a JSON object, got {_show(d)}")
    unknown = set(d) - {f.name for f in fields(Variable)}
    if unknown:
        raise InputError(f"{where}: unknown key(s) {sorted(unknown)} (known: "
                         f"{', '.join(f.name for f in fields(Variable))})")
    for key in ("name", "var_id", "space"):
        if key not in d:
            raise InputError(f"{where}: missing key {key!r}")
    name = d["name"]
    if not isinstance(name, str) or not name:
        raise InputError(f"{where}: 'name' must be a non-empty string, got {_show(name)}")
    where = f"{where} ({name!r})"
    space = d["space"]
    if space not in SPACES:
        raise InputError(f"{where}: 'space' must be one of {', '.join(SPACES)}, got {_show(space)}")
    dims = d.get("dims") or [1, 0]
    if (not isinstance(dims, (list, tuple)) or len(dims) != 2
            or any(isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < 1 << 48 for x in dims)):
        raise InputError(f"{where}: 'dims' must be [partitions, bytes per partition] (integers >= 0), got {_show(dims)}")
    dtype = d.get("dtype")
    if dtype is not None and (not isinstance(dtype, str) or dtype not in Dtype.__members__):
        raise InputError(f"{where}: 'dtype' must be a BIR dtype name such as \"float32\" or null, got {_show(dtype)}")
    shape = d.get("shape")
    if shape is not None and (not isinstance(shape, list) or len(shape) > 8 or any(
            isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < 1 << 48 for x in shape)):
        raise InputError(f"{where}: 'shape' must be a list of at most 8 integers >= 0 or null, got {_show(shape)}")
    kind = d.get("kind")
    if kind is not None and not isinstance(kind, str):
        raise InputError(f"{where}: 'kind' must be a string or null, got {_show(kind)}")
    return Variable(name, _uint(d, "var_id", where, limit=1 << 32), space, _uint(d, "partition", where, 0),
                    _uint(d, "addr", where, 0), _uint(d, "bank", where, 0), (dims[0], dims[1]), dtype,
                    shape, kind)


def conform_input(v: Variable, array: np.ndarray) -> tuple[np.ndarray, str | None]:
    """The array a ``-i`` input gives variable ``v``, refused unless it fills the variable exactly.

    Its shape must be the variable's logical shape (:meth:`Variable.logical_shape`; a DRAM variable
    without a recorded shape is flat and takes any shape of its element count); its dtype the
    variable's, or another numeric dtype whose every value converts exactly (then the cast array
    and a note saying so are returned). A variable without a dtype takes any numeric array of
    exactly its size in bytes. Anything else (a partial fill, a lossy cast, a struct, string or
    object array) is an InputError naming the variable."""
    arr = np.asarray(array)
    note = None
    if (v.dtype is not None and _is_ml_dtype(v.numpy_dtype()) and arr.dtype.kind == "V" and arr.dtype.names is None
            and arr.dtype.subdtype is None and arr.dtype.itemsize == v.numpy_dtype().itemsize):
        # np.save writes a bfloat16/float8 array as raw |V2 / |V1 items: take them as the dtype's bits
        arr = arr.view(v.numpy_dtype())
        note = f"input for {v.name!r}: raw {arr.dtype.itemsize}-byte items taken as the bits of {v.dtype}"
    if arr.dtype.kind not in "biufc" and not _is_ml_dtype(arr.dtype):
        raise InputError(f"input for {v.name!r}: a {arr.dtype} array is not numbers "
                         "(struct, void, string and object arrays cannot be inputs)")
    if v.dtype is None:
        if arr.nbytes != v.nbytes:
            raise InputError(f"input for {v.name!r}: {arr.nbytes} bytes ({arr.dtype}, shape {arr.shape}); the "
                             f"variable has no dtype and holds exactly {v.nbytes} bytes")
        return arr, None
    want = v.numpy_dtype()
    shape = v.logical_shape()
    if arr.shape != shape and not v.shape and v.space == "DRAM" and arr.size == shape[0]:
        arr = arr.reshape(shape)  # a DRAM variable with no recorded shape is flat: any shape of its size fills it
    if arr.shape != shape:
        raise InputError(f"input for {v.name!r}: shape {arr.shape}; the variable is {v.dtype} of shape {shape} "
                         "(a partial fill is refused)")
    if arr.dtype == want:
        return arr, note
    if arr.dtype.kind == "c" and np.any(np.imag(arr) != 0):
        raise InputError(f"input for {v.name!r}: complex values cannot become {v.dtype}")
    import warnings

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        src = np.real(arr) if arr.dtype.kind == "c" else arr
        cast = src.astype(want)
        back = cast.astype(src.dtype)
    same = back == src
    if src.dtype.kind in "fc" or _is_ml_dtype(src.dtype):
        same |= np.isnan(src.astype(np.float64)) & np.isnan(back.astype(np.float64))
    if not bool(np.all(same)):
        bad = int(np.size(same) - np.count_nonzero(same))
        raise InputError(f"input for {v.name!r}: {arr.dtype} values do not all convert exactly to {v.dtype} "
                         f"({bad} of {arr.size} change); save the array as {v.dtype}")
    return cast, f"input for {v.name!r}: {arr.dtype} array cast to {v.dtype} (every value exact)"


def _is_ml_dtype(dt: np.dtype) -> bool:
    """bfloat16, float8... (ml_dtypes: numpy kind 'V' but numbers)."""
    return dt.kind == "V" and dt.names is None and dt.type.__module__.startswith("ml_dtypes")


def _every_instruction(kernel: Kernel) -> Iterator[Instruction]:
    """Each instruction of the kernel once, in program order, a loop body once (not unrolled: an
    instruction's operands are the same on every iteration)."""
    def walk(items: Iterable[Instruction | Loop]) -> Iterator[Instruction]:
        for x in items:
            if isinstance(x, Loop):
                for b in x.blocks:
                    yield from walk(b.instructions)
            else:
                yield x
    for func in kernel.functions:
        yield from walk(func.instructions())


def _dtypes_used(kernel: Kernel) -> dict[str, str]:
    """Location name → dtype of the first access pattern that touches it (when no allocation dtype)."""
    seen: dict[str, str] = {}
    for inst in _every_instruction(kernel):
        for op in [*inst.ins, *inst.outs]:
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


def _fits_partitions(shape: list[int], dims: tuple[int, ...], size: int) -> bool:
    """An SB/PSUM variable is read partition by partition: its shape's first size is partitions (at
    most its rows) and the rest must fit one partition's bytes (a 1-D [512] on 1 partition does not)."""
    return not shape or (shape[0] <= dims[0] and math.prod(shape[1:]) * size <= dims[1])


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
    # a tensor_shape is kept only when it is a plain list of sizes that fits the location's bytes
    if (isinstance(shape, list) and dtype is not None and len(shape) <= 8
            and all(type(s) is int and s >= 0 for s in shape)):
        size = DTYPE_INFO[Dtype[dtype]].size
        if math.prod(shape) * size > max(dims[0] * dims[1], 0) or (space != "DRAM" and not _fits_partitions(
                shape, dims, size)):
            shape = None
    else:
        shape = None
    return Variable(loc.name, loc.tensor_id if loc.tensor_id is not None else loc.index, space, loc.base, loc.addr,
                    loc.bank, dims, dtype, shape, kind)  # type: ignore[arg-type]

