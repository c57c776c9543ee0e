"""The IR reference interpreter: executes BIR instructions directly, in program order.

It is the independent half of the simulator's self-check: ``simulate(assemble(kernel))``
must equal ``interpret(kernel)`` bit for bit. To make that comparison mean something, nothing here
comes from the bundle path. The interpreter never encodes, decodes or schedules a bundle; it does
not import codegen, decode, text, check or the bundle simulator (``sim.machine``, ``sim.execute``,
``sim.scheduler``, ``sim.run``). It reads the IR:

* addresses come from the memory location (``base``, ``addr``, ``bank``, ``dims``) and the access
  pattern's ``offset`` (SPEC §5), or, for a register AP, from the ADDR4 word in the register (D-5);
* elements are gathered and scattered through explicit byte offsets into its own memory (one byte
  array for SBUF, one for PSUM, one per DRAM location), not through strided views;
* Select runs as ``dst = where(pred != 0, on_true, on_false)`` (no lowering), and Matmult as one
  ``dst = stationary^T @ moving`` (:mod:`.reference.pe`: no Ldweights/Matmul pair, no wire column order);
* every input is read before the first write, and a destination that reaches one element several
  times keeps the last write in access-pattern order (S-19);
* instructions run one after the other in program order (loops unrolled by
  :func:`tongasm.passes.flatten`); sync waits are not needed for that order, they are only
  checked, and a wait that does not hold at its place in program order is reported in
  :attr:`ReferenceResult.unmet_waits` (the engines would then run in another order).

What it shares is the numeric kernels (:mod:`tongasm.sim.numeric`), the S-n decisions
(:mod:`tongasm.isa.decisions.semantics`, cited inline), :func:`tongasm.numeric.bit_pattern` for immediates, the
ISA enum tables and the variable metadata of :mod:`tongasm.ir.memory` (so inputs and outputs use
the same layout as :class:`tongasm.sim.run.RunResult`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Mapping

import numpy as np

from ...errors import TongasmError
from ...isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ...isa.decisions.scalar import DefaultStream
from ...isa.decisions.spec import (
    BitvecOpcode, Int32OverrideGen2, PredicateFlags, SaveTargetsGen2, SelectReduceFill, SharedSyncValue, UpdateModeWire,
)
from ...isa.enums import (
    INT32_BAND,
    ALU_WIRE, DTYPE_INFO, ENGINE_STREAM, INT64_DTYPES, PACKED_DTYPES, VALUELESS_UPDATES, AccType, AluOp,
    Dtype, Engine, MemoryType, MemsetMode, UpdateMode, WaitMode,
)
from ...isa.layouts.tensor import INT32_FORMS_GEN2, MOVESHAPE_DIMS
from ...isa.targets import DEFAULT_TARGET, TARGETS, Target, get_target
from ...ir.instructions import (
    CopyPredicated, Instruction, Kernel, Memset, MoveShape, RegisterAlu, RegisterMove, Select, TensorCopy, TensorLoad,
    TensorSave, TensorTensor,
)
from ...ir.operands import (
    AccessPattern, Immediate, MemoryLocation, Operand, PhysicalAP, Register, RegisterAccess, RegisterAP, SymbolicAP,
)
from ...numeric import NumericError as BitPatternError
from ...numeric import bit_pattern, signed
from ...passes import flatten
from .. import numeric
from ...ir.memory import MemoryDescription, Variable, conform_input, describe_kernel
from . import act, reduce, scalar
from .operands import FamilyInterpretError
from .pe import HANDLERS as PE_HANDLERS

#: The vector families' handlers: IR class → handler, and BIR opcode → handler for the instructions whose
#: class a layout record declares (the interpreter dispatches on the class, then on the opcode).
FAMILY_HANDLERS: dict[type[Instruction], Callable[..., None]] = {**reduce.HANDLERS, **act.HANDLERS, **scalar.HANDLERS}
FAMILY_BY_OPCODE: dict[str, Callable[..., None]] = {**reduce.BY_OPCODE, **act.BY_OPCODE}

#: Engine names, in the order the results list them (the streams of SPEC §5).
ENGINES: tuple[str, ...] = tuple(ENGINE_STREAM.values())

# D-5: the ADDR4 word a register holds for a register access pattern (SPEC §3.3).
_REGMODE = 1 << 31
_MODE_BITS = (1 << 29) | (1 << 30)  # indirect-gather, dynamic/active: no static address
_ADDR_MASK = (1 << 29) - 1
_SBUF_PARTITION_SHIFT = 18
_PSUM_BASE, _PSUM_END = 0x2000000, 0x23FFFFF
_PSUM_PARTITION_SHIFT = 15

_INT32_WIRE = DTYPE_INFO[Dtype.int32].wire
_NARROW = {Dtype.int64: Dtype.int32, Dtype.uint64: Dtype.uint32}  # a 32-bit ALU's immediate (SPEC §4.2)
_MOVE_32 = frozenset({Dtype.float32, Dtype.uint32, Dtype.int32})  # SPEC §4.1
_GEN2_INT32_OPS = frozenset(INT32_FORMS_GEN2)  # D-13
_GEN3_INT32_OPS = frozenset(INT32_BAND)  # D-21


class InterpretError(TongasmError):
    """The kernel asks for something the interpreter cannot give a meaning to (or the machine cannot do)."""


@dataclass
class ShapeState:
    """An engine's shape registers (S-15): byte steps and counts, innermost first, and the is-output flag."""

    steps: tuple[int, ...] = (0, 0, 0, 0)
    counts: tuple[int, ...] = (0, 0, 0, 0)
    is_output: bool = False


def _uint(size: int) -> type:
    return {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size]


def _scalar(bits: int, w: int) -> np.ndarray:
    """A one-element array of wire dtype ``w`` holding the raw bit pattern ``bits`` (cut to its width)."""
    size = numeric.size_of(w)
    return np.array([bits & ((1 << (8 * size)) - 1)], dtype=_uint(size)).view(numeric.element_type(w))


def _dtype(op: Operand, role: str) -> Dtype:
    if isinstance(op.dtype, Dtype):
        return op.dtype
    raise InterpretError(f"{role}: unknown dtype ordinal {op.dtype}")


def _wire(op: Operand, role: str) -> int:
    d = _dtype(op, role)
    if d in PACKED_DTYPES:
        raise InterpretError(f"{role}: packed dtype {d.name} has no element representation to compute with")
    return DTYPE_INFO[d].wire


def _alu(v: Any, role: str = "op") -> AluOp:
    if isinstance(v, AluOp) and v in ALU_WIRE:
        return v
    raise InterpretError(f"{role}: ALU op {getattr(v, 'name', v)} has no meaning on the ALU (SPEC §2.2)")


def _register(op: Operand | None, role: str) -> Register:
    if isinstance(op, (RegisterAccess, RegisterAP)) and op.register is not None:
        return op.register
    raise InterpretError(f"{role} must be a register, got {getattr(op, 'kind', 'nothing')}")


def _bits(value: int | float, d: Dtype, role: str) -> int:
    try:
        return bit_pattern(value, d)
    except BitPatternError as e:
        raise InterpretError(f"{role}: {e}") from None


def _idle(v: Any) -> bool:
    return v is None or v == AccType.Idle


@dataclass
class _Tile:
    """An access pattern resolved against the machine: ``count`` partitions from ``partition``, each
    holding the elements at ``byte + offsets`` (byte offsets, C order over the free dims)."""

    space: str  # "sbuf" or "psum"
    partition: int
    count: int
    byte: int
    offsets: np.ndarray  # int64 [n]
    w: int
    what: str

    @property
    def n(self) -> int:
        return int(self.offsets.size)

    @property
    def elements(self) -> int:
        return self.count * self.n


# --- the machine state ----------------------------------------------------------------------------

class _State:
    """Memory (own byte arrays), registers, accumulators, RNG, shape registers, semaphores, events."""

    def __init__(self, kernel: Kernel, target: Target, memory: MemoryDescription, decisions: DecisionSet,
                 seed: int) -> None:
        self.target = target
        self.ds = decisions
        P = target.sbuf_partitions
        self.partitions = P
        self.sbuf = np.zeros((P, target.sbuf_bytes_per_partition), dtype=np.uint8)  # S-17
        self.psum = np.zeros((P, target.psum_bytes_per_partition), dtype=np.uint8)
        self.registers = {e: np.zeros(target.registers, dtype=np.uint32) for e in ENGINES}  # S-13
        self.accumulators = {e: np.full(P, -np.inf, dtype=np.float32) for e in ENGINES}  # S-18
        self.rng = {e: numeric.xorwow_init(P, seed) for e in ENGINES}  # S-12
        self.shapes = {e: ShapeState() for e in ENGINES}
        self.stationary: dict[str, tuple[np.ndarray, int]] = {}  # S-42: the PE's held stationary and its wire dtype
        self.semaphores = np.zeros(target.semaphores, dtype=np.int64)  # S-16
        self.events = np.zeros(target.semaphores, dtype=bool)
        self.memory = memory
        locs = [loc for func in kernel.functions for loc in func.locations()]
        # describe_kernel lists the variables in the same order as the functions' locations.
        assert len(locs) == len(memory.variables)
        self.loc_of: dict[int, MemoryLocation] = {id(v): loc for v, loc in zip(memory.variables, locs)}
        self.dram: dict[int, np.ndarray] = {}
        for loc in locs:
            if loc.type.is_dram:
                rows, width = self._dims(loc)
                self.dram[id(loc)] = np.zeros(max(rows * width, 0), dtype=np.uint8)

    # --- registers (S-13) ---------------------------------------------------------------------

    def reg(self, engine: str, rid: int) -> int:
        regs = self.registers[engine]
        if not 0 <= rid < len(regs):
            raise InterpretError(f"register r{rid} does not exist on {engine} (0..{len(regs) - 1})")
        return int(regs[rid])

    def set_reg(self, engine: str, rid: int, value: int) -> None:
        regs = self.registers[engine]
        if not 0 <= rid < len(regs):
            raise InterpretError(f"register r{rid} does not exist on {engine} (0..{len(regs) - 1})")
        regs[rid] = value & 0xFFFFFFFF

    # --- memory locations -------------------------------------------------------------------

    @staticmethod
    def _dims(loc: MemoryLocation) -> tuple[int, int]:
        return (int(loc.dims[0]), int(loc.dims[1])) if loc.dims and len(loc.dims) >= 2 else (1, 0)

    def region(self, space: str) -> np.ndarray:
        return self.sbuf if space == "sbuf" else self.psum

    def location_rows(self, loc: MemoryLocation) -> np.ndarray:
        """A [rows, bytes per row] uint8 view of a location's storage (DRAM: one row)."""
        if loc.type.is_dram:
            return self.dram[id(loc)].reshape(1, -1)
        if loc.type not in (MemoryType.SB, MemoryType.PSUM):
            raise InterpretError(f"memory location {loc.name!r} has type {loc.type.value}; it has no storage here")
        buf = self.region("sbuf" if loc.type == MemoryType.SB else "psum")
        rows, width = self._dims(loc)
        start = loc.addr + (loc.bank * self.target.psum_bank_bytes if loc.type == MemoryType.PSUM else 0)
        if start < 0 or start + width > buf.shape[1] or loc.base < 0 or loc.base + rows > buf.shape[0]:
            raise InterpretError(f"memory location {loc.name!r} lies outside {loc.type.value}")
        return buf[loc.base:loc.base + rows, start:start + width]

    def write_input(self, v: Variable, array: np.ndarray) -> None:
        """An input array into a variable, row-major (one row per partition for SB/PSUM)."""
        data = np.ascontiguousarray(array.astype(v.numpy_dtype(), copy=False) if v.dtype else array)
        rows_view = self.location_rows(self.loc_of[id(v)])
        raw = data.view(np.uint8).reshape(-1)
        if self.loc_of[id(v)].type.is_dram:
            if raw.size > rows_view.size:
                raise InterpretError(f"input for {v.name!r} has {raw.size} bytes; the variable holds {rows_view.size}")
            rows_view[0, :raw.size] = raw
            return
        rows = data.shape[0] if data.ndim else 1
        per_row = raw.size // max(rows, 1)
        if rows > rows_view.shape[0] or per_row > rows_view.shape[1]:
            raise InterpretError(f"input for {v.name!r} is {rows} x {per_row} bytes; the variable is "
                                 f"{rows_view.shape[0]} x {rows_view.shape[1]}")
        rows_view[:rows, :per_row] = raw.reshape(rows, per_row)

    def read_output(self, v: Variable) -> np.ndarray:
        """A variable as an array of its dtype and logical shape."""
        dt = v.numpy_dtype()
        shape = v.logical_shape()
        rows_view = self.location_rows(self.loc_of[id(v)])
        need = int(np.prod(shape)) * dt.itemsize
        if self.loc_of[id(v)].type.is_dram:
            return rows_view.reshape(-1)[:need].copy().view(dt).reshape(shape)
        rows = shape[0]
        per_row = need // max(rows, 1)
        return np.ascontiguousarray(rows_view[:rows, :per_row]).view(dt).reshape(shape)

    # --- access patterns ------------------------------------------------------------------------

    def decode_address(self, word: int, what: str) -> tuple[str, int, int]:
        """(space, partition, byte) of the ADDR4 word a register holds (D-5)."""
        if word & _REGMODE:
            raise InterpretError(f"{what}: the address register holds a register-mode word {word:#010x}")
        if word & _MODE_BITS:
            raise InterpretError(f"{what}: address {word:#010x} is not a static SBUF/PSUM address")
        a = word & _ADDR_MASK
        if _PSUM_BASE <= a <= _PSUM_END:
            rel = a - _PSUM_BASE
            return "psum", rel >> _PSUM_PARTITION_SHIFT, rel & ((1 << _PSUM_PARTITION_SHIFT) - 1)
        if a >> 25:
            raise InterpretError(f"{what}: address {word:#010x} is neither SBUF nor PSUM")
        return "sbuf", a >> _SBUF_PARTITION_SHIFT, a & ((1 << _SBUF_PARTITION_SHIFT) - 1)

    def start_of(self, op: AccessPattern, engine: str, what: str) -> tuple[str, int, int]:
        """(space, start partition, start byte in the partition) of a tensor access pattern."""
        if isinstance(op, SymbolicAP):
            raise InterpretError(f"{what}: a symbolic access pattern has no address")
        if isinstance(op, RegisterAP):
            if op.is_regloc_offset or op.reg_ap_offset:
                raise InterpretError(f"{what}: a register AP with an offset register has no known meaning")
            return self.decode_address(self.reg(engine, _register(op, what).lo), what)
        if not isinstance(op, PhysicalAP) or op.location is None:
            raise InterpretError(f"{what} must be an access pattern, got {getattr(op, 'kind', 'nothing')}")
        loc = op.location
        if loc.type not in (MemoryType.SB, MemoryType.PSUM):
            raise InterpretError(f"{what} is in {loc.type.value} (memory location {loc.name!r}); tensor operands "
                                 "address SBUF and PSUM only")
        # SPEC §5: offset in elements, row-major over dims.
        off = op.offset * DTYPE_INFO[_dtype(op, what)].size
        part, byte = loc.base, loc.addr
        if off:
            rows, width = self._dims(loc)
            if width <= 0:
                raise InterpretError(f"{what}: memory location {loc.name!r} needs dims to resolve offset {op.offset}")
            part, byte = loc.base + off // width, loc.addr + off % width
        if loc.type == MemoryType.PSUM:
            return "psum", part, byte + loc.bank * self.target.psum_bank_bytes
        return "sbuf", part, byte

    def tile(self, op: Operand | None, engine: str, what: str) -> _Tile:
        if not isinstance(op, (PhysicalAP, RegisterAP, SymbolicAP)):
            raise InterpretError(f"{what} must be an access pattern, got {getattr(op, 'kind', 'nothing')}")
        w = _wire(op, what)
        if not op.ap:
            raise InterpretError(f"{what}: the access pattern has no pairs; it needs at least the partition pair")
        pstep, count = op.ap[0]
        if pstep < 0:
            raise InterpretError(f"{what}: negative partition step {pstep}")
        space, part, byte = self.start_of(op, engine, what)
        size = numeric.size_of(w)
        # The partition pair's step is not used: the engines walk consecutive partitions (SPEC §3.4).
        offsets = np.zeros(1, dtype=np.int64)
        for step, num in op.ap[1:]:
            if num < 1:
                raise InterpretError(f"{what}: access-pattern count {num} (counts start at 1)")
            offsets = (offsets[:, None] + np.arange(num, dtype=np.int64) * (step * size)).reshape(-1)
        limit = self.region(space).shape[1]
        lo, hi = int(offsets.min()), int(offsets.max())
        if byte + lo < 0 or byte + hi + size > limit:
            raise InterpretError(f"{what}: bytes {byte + lo:#x}..{byte + hi + size - 1:#x} fall outside the "
                                 f"{space.upper()} partition ({limit:#x} bytes)")
        if count < 1 or part < 0 or part + count > self.partitions:
            raise InterpretError(f"{what}: partitions {part}..{part + count - 1} do not exist")
        return _Tile(space, part, count, byte, offsets, w, what)

    def _cols(self, t: _Tile) -> np.ndarray:
        size = numeric.size_of(t.w)
        return t.byte + t.offsets[:, None] + np.arange(size, dtype=np.int64)

    def read(self, t: _Tile) -> np.ndarray:
        """The tile's elements as [partitions, elements per partition] of its element type (a copy)."""
        rows = self.region(t.space)[t.partition:t.partition + t.count]
        raw = np.ascontiguousarray(rows[:, self._cols(t)])  # gather: [count, n, size]
        return raw.view(numeric.element_type(t.w)).reshape(t.count, t.n)

    def write(self, t: _Tile, values: np.ndarray) -> None:
        """Scatter values (any shape with the tile's element count) into the tile. S-19: where the
        pattern reaches one element several times, the last one in AP order is the one written."""
        et = numeric.element_type(t.w)
        if values.dtype != et:
            raise InterpretError(f"{t.what}: internal dtype mismatch {values.dtype} vs {et}")
        vals = np.ascontiguousarray(values).reshape(t.count, t.n)
        cols = self._cols(t)
        # Element offsets are multiples of the element size, so two elements either coincide or not.
        _u, first_from_end = np.unique(t.offsets[::-1], return_index=True)
        if first_from_end.size < t.n:
            keep = np.sort(t.n - 1 - first_from_end)  # the last occurrence of each element
            vals, cols = vals[:, keep], cols[keep]
        raw = np.ascontiguousarray(vals).view(np.uint8).reshape(t.count, cols.shape[0], numeric.size_of(t.w))
        self.region(t.space)[t.partition:t.partition + t.count, cols] = raw


# --- the result ---------------------------------------------------------------------------------

@dataclass
class ReferenceResult:
    """What :func:`interpret` leaves: memory (read through :meth:`outputs`) and the engines' state."""

    memory: MemoryDescription
    registers: dict[str, np.ndarray]  # engine → uint32 [62]
    accumulators: dict[str, np.ndarray]  # engine → float32 [128]
    shapes: dict[str, ShapeState]
    semaphores: np.ndarray  # int64 [256], int32 values
    events: np.ndarray  # bool [256]
    executed: int
    unmet_waits: list[str] = field(default_factory=list)
    _state: _State | None = field(default=None, repr=False)

    def outputs(self, names: list[str] | None = None) -> dict[str, np.ndarray]:
        """Output tensors: the named variables, else those of kind Output, else every variable
        (the convention of :meth:`tongasm.sim.run.RunResult.outputs`)."""
        assert self._state is not None
        vs = self.memory.variables
        if names:
            chosen = [self.memory.by_name(n) for n in names]
        else:
            chosen = [v for v in vs if v.is_output] or list(vs)
        return {v.name: self._state.read_output(v) for v in chosen if v.nbytes > 0}

    def state(self) -> dict[str, Any]:
        """Registers (non-zero), semaphores (non-zero), events set, accumulators (finite), shape registers."""
        out: dict[str, Any] = {"executed": self.executed,
                               "semaphores": {str(i): int(v) for i, v in enumerate(self.semaphores) if v},
                               "events": [int(i) for i in np.flatnonzero(self.events)], "engines": {}}
        if self.unmet_waits:
            out["unmet_waits"] = list(self.unmet_waits)
        for name in ENGINES:
            entry: dict[str, Any] = {}
            regs = {f"r{i}": int(v) for i, v in enumerate(self.registers[name]) if v}
            acc = {str(i): float(v) for i, v in enumerate(self.accumulators[name]) if np.isfinite(v)}
            sh = self.shapes[name]
            if regs:
                entry["registers"] = regs
            if acc:
                entry["accumulator"] = acc
            if any(sh.counts):
                entry["shape"] = {"steps": list(sh.steps), "counts": list(sh.counts), "is_output": sh.is_output}
            if entry:
                out["engines"][name] = entry
        return out


# --- the interpreter ------------------------------------------------------------------------------

class _Interpreter:
    def __init__(self, state: _State) -> None:
        self.s = state
        self.ds = state.ds
        self.unmet: list[str] = []
        self.handlers: dict[type[Instruction], Callable[[Instruction, str], None]] = {
            TensorTensor: self.tensor_tensor,  # type: ignore[dict-item]
            CopyPredicated: self.copy_predicated,  # type: ignore[dict-item]
            Select: self.select,  # type: ignore[dict-item]
            TensorCopy: self.tensor_copy,  # type: ignore[dict-item]
            Memset: self.memset,  # type: ignore[dict-item]
            MoveShape: self.move_shape,  # type: ignore[dict-item]
            RegisterMove: self.register_move,  # type: ignore[dict-item]
            RegisterAlu: self.register_alu,  # type: ignore[dict-item]
            TensorLoad: self.tensor_load_save,  # type: ignore[dict-item]
            TensorSave: self.tensor_load_save,  # type: ignore[dict-item]
        }
        # the vector families (.reference.act, .reduce, .scalar) and the PE (.reference.pe)
        for cls, fam in {**FAMILY_HANDLERS, **PE_HANDLERS}.items():
            self.handlers[cls] = (lambda f: lambda inst, engine: f(self, inst, engine))(fam)

    # --- engines and sync (S-16) ------------------------------------------------------------------

    def engine_of(self, inst: Instruction) -> str:
        e = inst.engine
        if not isinstance(e, Engine):
            raise InterpretError(f"unknown engine ordinal {e}")
        if e == Engine.ALL:
            raise InterpretError("engine ALL: an instruction runs on one engine (D-25)")
        if e == Engine.Unassigned:  # SPEC §5: an Unassigned SP op runs on sp, any other on dve (N-16 refines it)
            return self.ds.get(DefaultStream).stream(inst.stream_family())
        return ENGINE_STREAM[e]

    def check_wait(self, inst: Instruction, engine: str, where: str) -> None:
        """Record a wait that does not hold at this point of program order (the engines would reorder)."""
        if not inst.sync:
            return
        for w in inst.sync.waits:
            sem = self.s.semaphores
            if w.mode == WaitMode.evt_set_clear:
                ok, need = bool(self.s.events[w.index]), f"event {w.index} set"
            elif w.mode in (WaitMode.sem_ge_imm, WaitMode.sem_ge_reg):
                # The shared dword: the threshold (sem_ge_imm) or the register id (sem_ge_reg) ...
                if w.mode == WaitMode.sem_ge_imm or w.register is None:
                    dword = w.value or 0
                else:
                    dword = w.register.lo
                if (inst.sync.updates and not self.ds.get(SharedSyncValue).refuses
                        and inst.sync.updates[0].mode not in VALUELESS_UPDATES):
                    dword = inst.sync.updates[0].value or 0  # ... which D-4=update-wins overwrites
                need_v = signed(dword if w.mode == WaitMode.sem_ge_imm else self.s.reg(engine, dword), 32)
                ok, need = int(sem[w.index]) >= need_v, f"sem{w.index} >= {need_v} (sem{w.index} = {int(sem[w.index])})"
            else:
                raise InterpretError(f"unknown wait mode {w.mode}")
            if not ok:
                self.unmet.append(f"{where}: waits for {need}")

    def apply_sync(self, inst: Instruction) -> None:
        if not inst.sync:
            return
        for w in inst.sync.waits:
            if w.mode == WaitMode.evt_set_clear:
                self.s.events[w.index] = False  # the waiter consumes the event
        for u in inst.sync.updates:
            if not isinstance(u.mode, UpdateMode):
                raise InterpretError(f"unknown update mode {u.mode}")
            value = signed(u.value or 0, 32)
            if u.mode == UpdateMode.evt_set and not self.ds.get(UpdateModeWire).zero_is_none and u.index == 0:
                # D-2=raw writes evt_set as mode 0, so "set event 0" is an all-zero update band: it
                # reads as no update unless the shared dword carries its value (and no sem_ge wait's).
                sem_wait = any(w.mode in (WaitMode.sem_ge_imm, WaitMode.sem_ge_reg) for w in inst.sync.waits)
                if value == 0 or sem_wait:
                    continue
            sem = self.s.semaphores
            if u.mode == UpdateMode.evt_set:
                self.s.events[u.index] = True
            elif u.mode == UpdateMode.sem_add_imm:
                sem[u.index] = signed(int(sem[u.index]) + value, 32)
            elif u.mode == UpdateMode.sem_sub_imm:
                sem[u.index] = signed(int(sem[u.index]) - value, 32)
            elif u.mode == UpdateMode.sem_inc:
                sem[u.index] = signed(int(sem[u.index]) + 1, 32)
            elif u.mode == UpdateMode.sem_dec:
                sem[u.index] = signed(int(sem[u.index]) - 1, 32)
            elif u.mode == UpdateMode.sem_wr_imm:
                sem[u.index] = value

    def run(self, kernel: Kernel) -> int:
        n = 0
        for item in flatten(kernel):
            inst = item.inst
            where = f"instruction {inst.name!r} (#{item.index}, {inst.opcode})"
            try:
                engine = self.engine_of(inst)
                handler = next((self.handlers[c] for c in type(inst).__mro__ if c in self.handlers), None)
                if handler is None and inst.opcode in FAMILY_BY_OPCODE:  # declared by a layout record
                    handler = (lambda f: lambda i, e: f(self, i, e))(FAMILY_BY_OPCODE[inst.opcode])
                if handler is None:
                    raise InterpretError(f"no semantics for opcode {inst.opcode!r}")
                self.check_wait(inst, engine, where)
                handler(inst, engine)
                self.apply_sync(inst)
            except (InterpretError, numeric.NumericError, FamilyInterpretError) as e:
                raise InterpretError(f"{where}: {e}") from None
            n += 1
        return n

    # --- helpers -------------------------------------------------------------------------------

    @staticmethod
    def same_partitions(*tiles: _Tile) -> None:
        counts = {t.count for t in tiles}
        if len(counts) > 1:
            raise InterpretError("operands have different partition counts (" +
                                 ", ".join(f"{t.what}={t.count}" for t in tiles) + ")")

    @staticmethod
    def same_elements(*tiles: _Tile) -> None:
        sizes = {t.elements for t in tiles}
        if len(sizes) > 1:
            raise InterpretError("operands have different element counts (" +
                                 ", ".join(f"{t.what}={t.elements}" for t in tiles) + ")")

    # --- TensorTensor (S-4..S-9) -------------------------------------------------------------------

    def tensor_tensor(self, inst: TensorTensor, engine: str) -> None:
        op = _alu(inst.attr("op"))
        if not _idle(inst.attr("acc")):
            raise InterpretError("TensorTensor acc other than Idle has no meaning here")
        a = self.s.tile(inst.in0, engine, "in0")
        b = self.s.tile(inst.in1, engine, "in1")
        o = self.s.tile(inst.out, engine, "out")
        self.same_partitions(a, b, o)
        self.same_elements(a, b, o)
        dts = [_dtype(x, r) for x, r in ((inst.in0, "in0"), (inst.in1, "in1"), (inst.out, "out"))]  # type: ignore[arg-type]
        all_int32 = all(d == Dtype.int32 for d in dts)
        # The GPSIMD int32 forms (D-13 on gen2, D-21 on gen3) compute in integers (S-4).
        if self.s.target.name == "gen2":
            gate = self.ds.get(Int32OverrideGen2).gate(engine == "pool")
            gpsimd = gate and all_int32 and op in _GEN2_INT32_OPS
        else:
            gpsimd = engine == "pool" and all_int32 and op in _GEN3_INT32_OPS
        all_int = numeric.is_int(a.w) and numeric.is_int(b.w) and numeric.is_int(o.w)
        int_path = gpsimd or (engine == "pool" and all_int)  # S-4
        # D-12: bypass is arithmetic unless the bit-vector reading is selected.
        bitvec = not gpsimd and self.ds.get(BitvecOpcode).is_bitvec(op, ALU_WIRE[op][1])
        A, B = self.s.read(a), self.s.read(b)
        self.s.write(o, numeric.tensor_tensor(op, A, a.w, B, b.w, o.w, int_path=int_path, bitvec=bitvec))

    # --- the predicated family (S-10, S-11) ------------------------------------------------------

    def polarity_true(self, reverse_pred: bool) -> bool:
        """D-14: whether CopyPredicatedScalar writes where the predicate is non-zero (flag 1)."""
        return bool(self.ds.get(PredicateFlags).polarity(reverse_pred))

    def scalar_value(self, imm: Immediate, w_dst: int, role: str) -> Any:
        """An immediate as one element of the dst wire dtype: its bits in its own dtype, converted (S-10)."""
        sd = _dtype(imm, role)
        bits = _bits(imm.value, sd, role)
        if bits > 0xFFFFFFFF:
            raise InterpretError(f"{role}: {imm.value!r} ({sd.name}) does not fit the 32-bit scalar field")
        ws = _wire(imm, role)
        return numeric.convert(_scalar(bits, ws), ws, w_dst)[0]

    def copy_predicated(self, inst: CopyPredicated, engine: str) -> None:
        op = _alu(inst.attr("op"))
        if op != AluOp.bypass:
            self.select_reduce(inst, engine)
            return
        mask = self.s.tile(inst.mask, engine, "mask")
        dst = self.s.tile(inst.dst, engine, "dst")
        if not _idle(inst.attr("acc")) or inst.fill is not None:
            raise InterpretError("a copy-predicated acc or fill operand has no meaning without a reduce op")
        rev = bool(inst.attr("reverse_pred"))
        src_op = inst.src
        sel = numeric.predicate(self.s.read(mask))  # S-10: true iff the bits are non-zero
        D = self.s.read(dst)
        if isinstance(src_op, Immediate):
            self.same_elements(mask, dst)
            self.same_partitions(mask, dst)
            if not self.polarity_true(rev):  # 0xE8 (D-14)
                sel = ~sel
            D[sel.reshape(D.shape)] = self.scalar_value(src_op, dst.w, "src")
        else:
            src = self.s.tile(src_op, engine, "src")
            self.same_partitions(mask, src, dst)
            self.same_elements(mask, src, dst)
            if rev:
                sel = ~sel  # reverse_pred on a tensor src: not encodable (BIR218); the IR meaning
            S = self.s.read(src).reshape(D.shape)
            # 0x72 (same BIR dtype) copies bits; 0x99 converts through fp32 (S-1/S-2).
            new = S if _dtype(src_op, "src") == _dtype(inst.dst, "dst") else numeric.convert(S, src.w, dst.w)  # type: ignore[arg-type]
            m = sel.reshape(D.shape)
            D[m] = new[m]
        self.s.write(dst, D)

    def select_reduce(self, inst: CopyPredicated, engine: str) -> None:
        if isinstance(inst.src, Immediate):
            raise InterpretError("a reduce op needs a tensor src, not a scalar")
        mask = self.s.tile(inst.mask, engine, "mask")
        src = self.s.tile(inst.src, engine, "src")
        dst = self.s.tile(inst.dst, engine, "dst")
        self.same_partitions(mask, src, dst)
        self.same_elements(mask, src, dst)
        rev = bool(inst.attr("reverse_pred"))
        fill_op = inst.fill
        # D-14: the +0x26 flag is "a fill is given" (default) or reverse_pred (alternative); the
        # bundle reads it as use-false-fill either way.
        d14 = self.ds.get(PredicateFlags)
        if rev and d14.reverse_pred_has_no_field:
            raise InterpretError("SelectReduce: reverse_pred has no known field (D-14)")
        use_fill = bool(d14.use_fill(fill_op is not None, rev))
        D = self.s.read(dst)
        sel = numeric.predicate(self.s.read(mask)).reshape(D.shape)
        S = self.s.read(src).reshape(D.shape)
        D[sel] = numeric.convert(S, src.w, dst.w)[sel]  # S-11
        if use_fill:
            if fill_op is None:
                raise InterpretError("SelectReduce: the use-fill flag is set but there is no fill operand")
            D[~sel] = self.fill_value(fill_op, dst.w, engine)
        self.s.write(dst, D)
        acc = inst.attr("acc")
        if not isinstance(acc, AccType) or acc == AccType.Accumulate:
            raise InterpretError(f"SelectReduce accumulation {getattr(acc, 'name', acc)} has no meaning")
        if acc == AccType.Idle:
            return
        state = self.s.accumulators[engine]
        lanes = slice(dst.partition, dst.partition + dst.count)
        if acc == AccType.Zero:
            state[lanes] = -np.inf
            return
        row = numeric.to_fp32(D, dst.w).max(axis=1)
        state[lanes] = np.maximum(state[lanes], row) if acc == AccType.AddAccumulate else row

    def fill_value(self, fill: Operand, w_dst: int, engine: str) -> Any:
        wf = _wire(fill, "fill")
        if isinstance(fill, Immediate):
            bits = _bits(fill.value, _dtype(fill, "fill"), "fill")
            if self.ds.get(SelectReduceFill).one_byte and bits > 0xFF:
                raise InterpretError(f"SelectReduce fill {fill.value!r}: only a one-byte bit pattern survives (D-16)")
            if bits > 0xFFFFFFFF:
                raise InterpretError(f"SelectReduce fill {fill.value!r} needs more than 32 bits")
        elif isinstance(fill, (RegisterAccess, RegisterAP)):
            bits = self.s.reg(engine, _register(fill, "fill").lo)  # the register's value (IR meaning)
        else:
            raise InterpretError(f"SelectReduce fill from {getattr(fill, 'kind', fill)} has no known meaning")
        return numeric.convert(_scalar(bits, wf), wf, w_dst)[0]

    def select(self, inst: Select, engine: str) -> None:
        """``dst = where(pred != 0, on_true, on_false)``, with the dtype rules of its lowering (SPEC §4.6)."""
        if len(inst.ins) != 3 or len(inst.outs) != 1:
            raise InterpretError("Select needs ins = [predicate, on_true, on_false] and outs = [dst]")
        pred_op, true_op, false_op = inst.ins
        dst = self.s.tile(inst.dst, engine, "dst")
        pred = self.s.tile(pred_op, engine, "predicate")
        dd = _dtype(inst.outs[0], "dst")
        self.same_partitions(pred, dst)
        self.same_elements(pred, dst)
        sel = numeric.predicate(self.s.read(pred)).reshape(dst.count, dst.n)
        # on_false: a scalar is its bit pattern in the dst dtype (D-17b); a tensor is copied (same
        # dtype: bits) or cast through fp32 (GenericCopy = TensorCopy, D-17).
        if isinstance(false_op, Immediate):
            base = np.empty((dst.count, dst.n), dtype=numeric.element_type(dst.w))
            base[...] = _scalar(_bits(false_op.value, dd, "on_false"), dst.w)[0]
        else:
            f = self.s.tile(false_op, engine, "on_false")
            self.same_partitions(f, dst)
            self.same_elements(f, dst)
            F = self.s.read(f).reshape(dst.count, dst.n)
            base = F if _dtype(false_op, "on_false") == dd else numeric.convert(F, f.w, dst.w)
        # on_true: by the CopyPredicated rules (0x72 bits, 0x99 cast, 0xE8 scalar with D-14 polarity).
        if isinstance(true_op, Immediate):
            if not self.polarity_true(False):
                sel = ~sel
            out = base.copy()
            out[sel] = self.scalar_value(true_op, dst.w, "on_true")
        else:
            t = self.s.tile(true_op, engine, "on_true")
            self.same_partitions(t, dst)
            self.same_elements(t, dst)
            T = self.s.read(t).reshape(dst.count, dst.n)
            new = T if _dtype(true_op, "on_true") == dd else numeric.convert(T, t.w, dst.w)
            out = np.where(sel, new, base)
        self.s.write(dst, out)

    # --- TensorCopy, Memset, MoveShape ---------------------------------------------------------------

    def tensor_copy(self, inst: TensorCopy, engine: str) -> None:
        if len(inst.ins) != 1 or len(inst.outs) != 1:
            raise InterpretError(f"{inst.opcode} needs ins = [src] and outs = [dst]")
        src = self.s.tile(inst.src, engine, "src")
        dst = self.s.tile(inst.dst, engine, "dst")
        self.same_partitions(src, dst)
        self.same_elements(src, dst)
        S = self.s.read(src)
        # Same BIR dtype: a bit copy; else a cast through fp32 (S-1/S-2; D-18: reinterpret = identity).
        same = _dtype(inst.src, "src") == _dtype(inst.dst, "dst")  # type: ignore[arg-type]
        self.s.write(dst, S if same else numeric.convert(S, src.w, dst.w))

    def memset(self, inst: Memset, engine: str) -> None:
        mode = inst.attr("mode")
        if not isinstance(mode, MemsetMode):
            raise InterpretError(f"Memset mode {mode} has no meaning")
        dst = self.s.tile(inst.dst, engine, "dst")
        try:
            constant = inst.fill_bits(self.ds)  # D-29: a value in the dst dtype, or constant_bits as given
        except TongasmError as e:
            raise InterpretError(str(e)) from None
        size = numeric.size_of(dst.w)
        limit = 0xFFFFFFFF if size >= 4 else (1 << (8 * size)) - 1
        if not 0 <= constant <= limit:
            raise InterpretError(f"Memset constant bits {constant:#x} do not fit the dtype's raw bits 0..{limit:#x}")
        if mode == MemsetMode.Const:
            values = np.empty((dst.count, dst.n), dtype=numeric.element_type(dst.w))
            values[...] = _scalar(constant, dst.w)[0]  # the raw bit pattern (SPEC §4.8)
            self.s.write(dst, values)
            return
        if constant != 0:
            raise InterpretError("Memset Random requires constant 0")
        # S-12: the engine's xorwow state of each partition, one draw per element in AP order.
        states = self.s.rng[engine][dst.partition:dst.partition + dst.count]
        draws = numeric.xorwow_draw(states, dst.n)
        self.s.write(dst, draws.astype(_uint(size)).view(numeric.element_type(dst.w)))

    def move_shape(self, inst: MoveShape, engine: str) -> None:
        if len(inst.ins) + len(inst.outs) != 1:
            raise InterpretError("MoveShape needs exactly one access pattern")
        ap = inst.ap
        if not isinstance(ap, AccessPattern):
            raise InterpretError(f"MoveShape needs an access pattern, got {getattr(ap, 'kind', ap)}")
        if "indirect_dim" in getattr(ap, "extra", {}):
            raise InterpretError("shape registers do not take an indirect access pattern")
        if not ap.ap or len(ap.ap) > MOVESHAPE_DIMS + 1:
            raise InterpretError(f"MoveShape takes 1..{MOVESHAPE_DIMS + 1} access-pattern pairs, got {len(ap.ap)}")
        d = _dtype(ap, "ap")
        size = DTYPE_INFO[d].size
        free = list(ap.ap[1:])[::-1]  # innermost first (SPEC §4.9)
        steps, counts = [], []
        for i in range(MOVESHAPE_DIMS):
            if i < len(free):
                step, num = free[i]
                if step < 0 or num < 1:
                    raise InterpretError(f"MoveShape: step {step} / count {num} of a free dim is not allowed")
                steps.append(step * size)
                counts.append(num)
            else:
                steps.append(size)
                counts.append(1)
        self.s.shapes[engine] = ShapeState(tuple(steps), tuple(counts), inst.is_output)  # S-15

    # --- SP register-lane ops (S-13, S-14) ------------------------------------------------------------

    def register_move(self, inst: RegisterMove, engine: str) -> None:
        if len(inst.ins) != 1 or len(inst.outs) != 1 or not isinstance(inst.dst, RegisterAccess):
            raise InterpretError("RegisterMove needs ins = [src] and outs = [dst register_access]")
        dst, src = inst.dst, inst.src
        dd = _dtype(dst, "dst")
        if dd == Dtype.int64:
            if not isinstance(src, Immediate):
                raise InterpretError("a 64-bit RegisterMove needs an immediate source")
            lo, hi = dst.register.pair()
            bits = _bits(src.value, Dtype.int64, "imm")
            self.s.set_reg(engine, lo, bits & 0xFFFFFFFF)
            self.s.set_reg(engine, hi, bits >> 32)
            return
        if dd not in _MOVE_32:
            raise InterpretError(f"RegisterMove dst dtype {dd.name}: only float32/uint32/int32/int64")
        if isinstance(src, Immediate):
            # D-23: the value's bit pattern in the dst dtype.
            self.s.set_reg(engine, dst.register.lo, _bits(src.value, dd, "imm"))
        else:
            self.s.set_reg(engine, dst.register.lo, self.s.reg(engine, _register(src, "src").lo))

    def _pair_value(self, engine: str, reg: Register) -> int:
        lo, hi = reg.pair()
        return self.s.reg(engine, lo) | self.s.reg(engine, hi) << 32

    def register_alu(self, inst: RegisterAlu, engine: str) -> None:
        if len(inst.ins) != 2 or len(inst.outs) != 1:
            raise InterpretError("RegisterAlu needs ins = [src1, src2] and outs = [dst]")
        for key in ("acc", "reduce_cmd"):
            if not _idle(inst.attrs.get(key)):
                raise InterpretError(f"RegisterAlu {key} has no known meaning")
        if inst.attr("dge_type") not in (None, "None"):
            raise InterpretError("RegisterAlu dge_type has no known meaning")
        op = _alu(inst.attr("op"))
        src1, src2, dst = inst.src1, inst.src2, inst.dst
        r1, rd = _register(src1, "src1"), _register(dst, "dst")
        d1 = _dtype(src1, "src1")  # type: ignore[arg-type]
        if inst.attr("is_64bit"):
            a = self._pair_value(engine, r1)
            # SPEC §4.2: the immediate is the value's bit pattern in src1's dtype, 64 bits wide.
            b = _bits(src2.value, d1, "imm") if isinstance(src2, Immediate) else \
                self._pair_value(engine, _register(src2, "src2"))
            r = numeric.register_alu(op, a, b, 64)  # S-13
            lo, hi = rd.pair()
            self.s.set_reg(engine, lo, r & 0xFFFFFFFF)
            self.s.set_reg(engine, hi, r >> 32)
            return
        a = self.s.reg(engine, r1.lo)
        b = _bits(src2.value, _NARROW.get(d1, d1), "imm") if isinstance(src2, Immediate) else \
            self.s.reg(engine, _register(src2, "src2").lo)
        self.s.set_reg(engine, rd.lo, numeric.register_alu(op, a, b, 32))  # S-13

    def tensor_load_save(self, inst: TensorLoad | TensorSave, engine: str) -> None:
        save = isinstance(inst, TensorSave)
        mem, reg_op, offset = inst.memory, inst.reg, inst.offset
        n_in, n_out = len(inst.ins), len(inst.outs)
        if (save and (n_in != 1 or n_out not in (1, 2))) or (not save and (n_in not in (1, 2) or n_out != 1)):
            raise InterpretError(f"{inst.opcode}: wrong operand counts")
        if not isinstance(mem, (PhysicalAP, RegisterAP)):
            raise InterpretError(f"{inst.opcode}: the memory operand must be a physical or register access pattern")
        md = _dtype(mem, "memory")
        reg = _register(reg_op, "register")
        if _dtype(reg_op, "register") != md:  # type: ignore[arg-type]
            raise InterpretError("the register's dtype must equal the memory access pattern's dtype")
        is64 = md in INT64_DTYPES
        if save:
            self._check_save_target(mem)
        pairs = mem.ap
        if len(pairs) not in (1, 2) or any(s < 0 or not 1 <= n <= 255 for s, n in pairs):
            raise InterpretError("the memory access pattern needs one or two pairs with steps >= 0 and counts 1..255")
        inner_step = pairs[-1][0]
        # S-14: the pattern counts lanes of its wire dtype; 64-bit data is two int32 lanes, lo first.
        lane = numeric.size_of(_INT32_WIRE if is64 else DTYPE_INFO[md].wire)
        shift = 0
        if offset is not None:
            if is64:
                raise InterpretError("an offset register cannot be used with 64-bit data")
            shift = signed(self.s.reg(engine, _register(offset, "offset").lo), 32) * lane  # in elements
        regs = list(reg.pair()) if is64 else [reg.lo]
        for k, rid in enumerate(regs):
            rel = k * inner_step * lane + shift
            view = self._ls_bytes(mem, md, rel, lane, engine)
            if save:
                view[:] = np.frombuffer(self.s.reg(engine, rid).to_bytes(4, "little")[:lane].ljust(lane, b"\0"),
                                        dtype=np.uint8)
            else:
                self.s.set_reg(engine, rid, int.from_bytes(bytes(view[:4]).ljust(4, b"\0"), "little"))

    def _check_save_target(self, mem: PhysicalAP | RegisterAP) -> None:
        if isinstance(mem, PhysicalAP):
            types = {mem.location.type} if mem.location is not None else set()
        else:
            types = mem.allocation.memory_types if mem.allocation is not None else set()
        if MemoryType.PSUM in types:
            raise InterpretError("TensorSave cannot store into PSUM")
        if self.s.target.arch_level == 20:
            why = self.ds.get(SaveTargetsGen2).refusal(types)
            if why is not None:
                raise InterpretError(why)

    def _ls_bytes(self, mem: PhysicalAP | RegisterAP, md: Dtype, rel: int, n: int, engine: str) -> np.ndarray:
        """A writable view of the ``n`` bytes a TensorLoad/Save lane touches."""
        if isinstance(mem, PhysicalAP):
            loc = mem.location
            assert loc is not None
            byte = mem.offset * DTYPE_INFO[md].size + rel  # D-8: var_offset = offset x size
            rows = self.s.location_rows(loc)
            if loc.type.is_dram:
                flat = rows.reshape(-1)
                if byte < 0 or byte + n > flat.size:
                    raise InterpretError(f"bytes {byte}..{byte + n - 1} outside variable {loc.name!r} "
                                         f"({flat.size} bytes)")
                return flat[byte:byte + n]
            width = rows.shape[1]
            row, col = divmod(byte, width) if width else (0, 0)
            if byte < 0 or row >= rows.shape[0] or col + n > width:
                raise InterpretError(f"bytes {byte}..{byte + n - 1} outside variable {loc.name!r}")
            return rows[row, col:col + n]
        word = self.s.reg(engine, _register(mem, "memory").lo)
        space, part, start = self.s.decode_address(word, "memory address register")
        buf = self.s.region(space)
        byte = start + rel
        if byte < 0 or byte + n > buf.shape[1]:
            raise InterpretError(f"register address + {rel} is outside the {space.upper()} partition")
        return buf[part, byte:byte + n]


def _resolve_target(kernel: Kernel, target: str | Target | None) -> Target:
    if target is not None:
        return get_target(target)
    if kernel.arch is None:
        return DEFAULT_TARGET
    t = TARGETS.get(kernel.arch)
    if t is None:
        raise InterpretError(f"unknown arch {kernel.arch!r} in the kernel; known: {', '.join(TARGETS)}")
    return t


def interpret(kernel: Kernel, inputs: Mapping[str, np.ndarray] = {}, *, target: str | Target | None = None,
              decisions: DecisionSet = DEFAULT_DECISIONS, seed: int = 0) -> ReferenceResult:
    """Execute a kernel's BIR instructions directly, in program order, on a fresh machine.

    ``inputs`` maps variable names to arrays, stored as :func:`tongasm.sim.run.run_kernel` stores
    them; ``target`` overrides the kernel's ``arch`` (else gen2); ``decisions`` selects the D-n
    readings whose effect reaches the semantics (D-12, D-13, D-14, D-16, D-2...); ``seed`` seeds the
    xorwow states (S-12). Raises :class:`InterpretError` for an instruction with no meaning here.
    """
    tgt = _resolve_target(kernel, target)
    memory = describe_kernel(kernel, tgt.name)
    memory.validate(tgt)
    state = _State(kernel, tgt, memory, decisions, seed)
    for name, arr in inputs.items():
        v = memory.by_name(name)
        state.write_input(v, conform_input(v, arr)[0])  # the same exact-fit rule as the bundle run
    interp = _Interpreter(state)
    executed = interp.run(kernel)
    return ReferenceResult(memory, state.registers, state.accumulators, state.shapes, state.semaphores,
                           state.events, executed, interp.unmet, state)


__all__ = ["ENGINES", "InterpretError", "ReferenceResult", "ShapeState", "interpret"]
