"""The machine model of one NeuronCore: SBUF, PSUM, DRAM variables, per-engine register files,
semaphores and events, accumulators, shape registers and RNG states.

Memory is raw bytes (numpy uint8). Access patterns become zero-copy numpy views into those bytes
(``np.ndarray`` with a buffer, an offset and strides), so a dense 128-partition tile costs no
gather. Addresses come from the decoded ADDR4 word exactly as the spec lays it out (D-5).
"""

from __future__ import annotations

import math

from collections import deque

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Iterable, Iterator, Mapping

import numpy as np

from ..errors import TongasmError
from ..io.limits import Limit
from ..isa.descriptors import ADDR4_REGMODE, PSUM_BANK_BYTES, PSUM_PARTITION_BYTES, Addr4, decode_addr4
from ..isa.targets import Target
from . import numeric
from ..ir.memory import MemoryDescription, Variable

ENGINES = ("pool", "act", "pe", "dma", "dve", "sp")  # S-16: scheduling order
N_SEMAPHORES = 256


class SimError(TongasmError):
    """The simulated program did something the machine cannot do (out-of-bounds access...)."""


class SimLimitExceeded(SimError):
    """A program the machine could run but the simulator will not spend the memory on: one access
    pattern or DMA side covering more elements than :func:`check_extent` allows. Exit 2, like every
    limit on hostile input, raised before the memory is spent."""

    exit_code = 2


#: The most elements (or bytes, for a DMA side) one access pattern may cover in the simulator. The
#: whole SBUF holds 24 MiB (128 partitions x 192 KiB): a pattern past 5x that many one-byte elements
#: re-reads its bytes (a step-0 or overlapping pattern) on a scale no real kernel has, and copying it
#: would take gigabytes. ``TONGASM_MAX_SIM_ELEMENTS`` overrides it.
SIM_ELEMENTS = Limit("the pattern size", 1 << 27, "TONGASM_MAX_SIM_ELEMENTS",
                     "134,217,728: five times the whole SBUF in one-byte elements",
                     error_class=SimLimitExceeded, grouped=True,
                     template="{where}: the pattern covers {figure}{unit}, more than the simulator's limit of "
                              "{limit}; refused before the memory is spent ({env} raises it)")
MAX_SIM_ELEMENTS = SIM_ELEMENTS.default
MAX_SIM_ELEMENTS_ENV = SIM_ELEMENTS.env


def check_extent(n: int, what: str, unit: str = "elements") -> None:
    """Refuse (exit 2) an access pattern or DMA side of ``n`` elements past the simulator's limit."""
    SIM_ELEMENTS.check(n, what, unit)


def rewrap(e: Exception, where: str) -> SimError:
    """``e`` prefixed with where it happened, keeping its class (a :class:`SimLimitExceeded` stays a
    refusal, exit 2)."""
    cls = type(e) if isinstance(e, SimError) else SimError
    return cls(f"{where}: {e}")


def _err(what: str, msg: str) -> SimError:
    return SimError(f"{what}: {msg}" if what else msg)


@dataclass
class ShapeRegisters:
    steps: tuple[int, ...] = (0, 0, 0, 0)
    counts: tuple[int, ...] = (0, 0, 0, 0)
    is_output: bool = False


@dataclass
class EngineState:
    """Per-engine state: registers (S-13), accumulators (S-18), shape registers, xorwow (S-12)."""

    name: str
    registers: np.ndarray
    accumulator: np.ndarray
    rng: np.ndarray
    shape: ShapeRegisters = field(default_factory=ShapeRegisters)
    #: the 32-lane mask the last LoadMaskSelect loaded (S-68; None: none yet)
    lane_mask: tuple[int, ...] | None = None
    #: values one bundle latches for the next of the same engine (MatchValueLoad's 8 values per lane for
    #: MatchReplace8, BatchNormParamLoad's coefficients for BatchNormBackProp), by what latched them
    latched: dict[str, Any] = field(default_factory=dict)


@dataclass
class Stationary:
    """The PE's stationary matrix (S-42): ``weights[p][c]`` for p < K, c < M, in its element type."""

    weights: np.ndarray
    wire: int
    transpose: bool
    #: the weights as float32 / float64, made by the first Matmul that needs them (every Ldweights of the real
    #: programs is read by several Matmuls: matmul_large's 8,704 by 33,280)
    cast: dict[np.dtype, np.ndarray] = field(default_factory=dict)

    def as_type(self, t: np.dtype) -> np.ndarray:
        """The [K, M] weights in element type ``t`` (a cached copy; the weights themselves when already ``t``)."""
        v = self.cast.get(t)
        if v is None:
            v = self.cast[t] = self.weights if self.weights.dtype == t else self.weights.astype(t)
        return v


#: one side of a DMA: a [runs, run bytes] view, or (buffer, [runs, run bytes] byte indices)
DmaSide = np.ndarray | tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class DmaDescriptor:
    """One descriptor of a pre-built DMA block (a NEFF engine sidecar's ``dma`` entry, R-90): from
    ``src`` to ``dst`` (a DRAM var_id, or None for SBUF, addressed partition << 18 | byte), each side
    an offset and (size, step) dims, innermost first, in the units R-100 decides, and its dtype."""

    src: int | None
    src_off: int
    src_dims: tuple[tuple[int, int], ...]
    src_dtype: int
    dst: int | None
    dst_off: int
    dst_dims: tuple[tuple[int, int], ...]
    dst_dtype: int


@dataclass(frozen=True)
class DmaBlockSpec:
    """A descriptor block a 0xC1 PseudoDMATrigger fires: its descriptors and the semaphore its
    completion raises (R-90)."""

    name: str
    semaphore: int
    descriptors: tuple[DmaDescriptor, ...]


class LazyText:
    """A report's text formatted when first read: a run names every bundle that updates a semaphore or
    issues a DMA (for a deadlock report or an error), and reads few of those names, whose BIR labels
    come from the NEFF's ``.dbg`` members, parsed only when a name is wanted."""

    __slots__ = ("_make", "_text")

    def __init__(self, make: Callable[[], str]) -> None:
        self._make: Callable[[], str] | None = make
        self._text = ""

    def __str__(self) -> str:
        if self._make is not None:
            self._text, self._make = self._make(), None
        return self._text

    def __repr__(self) -> str:
        return repr(str(self))


class DmaTransfer:
    """An issued DMA (S-40): what it reads and writes, resolved when it was issued, done by :meth:`complete`."""

    __slots__ = ("engine", "_where", "reads", "writes", "w_in", "w_out", "semaphore", "increments", "issued")

    def __init__(self, engine: str, where: str | LazyText, reads: DmaSide, writes: DmaSide,
                 w_in: int, w_out: int, semaphore: int, increments: list[int]) -> None:
        self.engine, self._where = engine, where
        # a [runs, run bytes] view, or (buffer, the byte index of every byte of every run), runs in transfer order
        self.reads, self.writes = reads, writes
        self.w_in, self.w_out = w_in, w_out
        self.semaphore, self.increments = semaphore, increments
        #: the scheduler's clock when the DMA was issued (for the trace; -1 until set)
        self.issued = -1

    @property
    def where(self) -> str:
        """The issuing bundle as a report names it (formatted on first read)."""
        return self._where if isinstance(self._where, str) else str(self._where)

    @where.setter
    def where(self, text: str | LazyText) -> None:
        self._where = text

    def complete(self, m: Machine) -> None:
        """Move the data (S-44: element-wise conversion) and apply the completion increments (R-15)."""
        if (self.w_in == self.w_out and not isinstance(self.reads, tuple) and not isinstance(self.writes, tuple)
                and self.reads.shape == self.writes.shape and self.reads.size % numeric.size_of(self.w_in) == 0
                and not np.may_share_memory(self.reads, self.writes)):
            self.writes[...] = self.reads  # the same bytes, runs alike, apart (DRAM <-> SBUF): one copy, not two
            self._finish(m)
            return
        # [runs, run bytes], always a copy: the dst may overlap the src
        data = self.reads[0][self.reads[1]] if isinstance(self.reads, tuple) else np.array(self.reads)
        values = data.reshape(-1).view(numeric.element_type(self.w_in))
        out = values if self.w_in == self.w_out else numeric.convert(values, self.w_in, self.w_out)
        raw = np.ascontiguousarray(out).view(np.uint8)
        shape = self.writes[1].shape if isinstance(self.writes, tuple) else self.writes.shape
        if raw.size != shape[0] * shape[1]:
            raise SimError(f"{self.where}: the DMA reads {values.size} elements ({raw.size} bytes as the dst dtype) but "
                           f"writes {shape[0] * shape[1]} bytes")
        if isinstance(self.writes, tuple):
            self.writes[0][self.writes[1]] = raw.reshape(shape)
        else:
            self.writes[...] = raw.reshape(shape)
        self._finish(m)

    def _finish(self, m: Machine) -> None:
        """R-15: the completion increments, and the completion hook."""
        for inc in self.increments:
            m.semaphores[self.semaphore] = _wrap32(int(m.semaphores[self.semaphore]) + inc)
        if self.increments:
            w = self._where
            m.sem_last[self.semaphore] = LazyText(lambda: f"the completion of the DMA at {w}")
        if m.on_dma_complete is not None:
            m.on_dma_complete(self)


class _Queued:
    __slots__ = ("seq", "t", "live")

    def __init__(self, seq: int, t: DmaTransfer) -> None:
        self.seq, self.t, self.live = seq, t, True


class DmaQueue:
    """The issued DMAs not yet completed, oldest first (S-40), with every operation the scheduler needs in
    O(log n) at most: a FIFO of all of them and one per engine (a completed one stays in the other FIFO,
    marked, and is dropped when it reaches the front), and a Fenwick tree of the live ones by issue number
    for the k-th oldest (S-60=random picks one uniformly).

    ``steps`` counts the entries visited and the tree nodes touched, so a test can bound the work."""

    def __init__(self) -> None:
        self._order: deque[_Queued] = deque()
        self._by_engine: dict[str, deque[_Queued]] = {}
        self._by_seq: dict[int, _Queued] = {}
        self._tree: list[int] = [0]  # 1-based Fenwick tree over issue numbers: 1 where that DMA is still queued
        self._live = 0
        #: how many DMAs were ever appended (the next one's issue number)
        self.appended = 0
        self.steps = 0

    def __len__(self) -> int:
        return self._live

    def __bool__(self) -> bool:
        return self._live > 0

    def __iter__(self) -> Iterator[DmaTransfer]:
        """The queued DMAs, oldest first (every entry visited counts as a step)."""
        for q in self._order:
            self.steps += 1
            if q.live:
                yield q.t

    def since(self, mark: int) -> list[DmaTransfer]:
        """The queued DMAs appended since ``appended`` was ``mark``, oldest first (O(their number))."""
        out = []
        for q in reversed(self._order):
            if q.seq < mark:
                break
            if q.live:
                out.append(q.t)
        return out[::-1]

    def append(self, t: DmaTransfer) -> None:
        q = _Queued(self.appended, t)
        self.appended += 1
        self._order.append(q)
        self._by_engine.setdefault(t.engine, deque()).append(q)
        self._by_seq[q.seq] = q
        tree = self._tree
        if len(tree) - 1 < self.appended:  # grow to twice the size; rebuilt in O(size)
            size = 2 * self.appended
            new = [0] * (size + 1)
            for seq in self._by_seq:
                new[seq + 1] = 1
            for i in range(1, size + 1):
                j = i + (i & -i)
                if j <= size:
                    new[j] += new[i]
            self.steps += size
            self._tree = new
        else:
            self._add(q.seq, 1)
        self._live += 1

    def extend(self, ts: Iterable[DmaTransfer]) -> None:
        for t in ts:
            self.append(t)

    def _add(self, seq: int, delta: int) -> None:
        tree, i = self._tree, seq + 1
        while i < len(tree):
            tree[i] += delta
            i += i & -i
            self.steps += 1

    def _take(self, q: _Queued) -> DmaTransfer:
        q.live = False
        del self._by_seq[q.seq]
        self._add(q.seq, -1)
        self._live -= 1
        return q.t

    @staticmethod
    def _front(fifo: deque[_Queued] | None, counter: list[int]) -> _Queued | None:
        while fifo:
            counter[0] += 1
            if fifo[0].live:
                return fifo.popleft()
            fifo.popleft()
        return None

    def popleft(self, engine: str | None = None) -> DmaTransfer | None:
        """Take the oldest queued DMA (of ``engine``, if given); None when there is none."""
        counter = [0]
        q = self._front(self._order if engine is None else self._by_engine.get(engine), counter)
        self.steps += counter[0]
        return None if q is None else self._take(q)

    def _kth(self, k: int) -> _Queued:
        """The k-th oldest queued DMA (0-based): a Fenwick descent, O(log n)."""
        if not 0 <= k < self._live:
            raise IndexError(f"DMA {k} of {self._live} queued")
        tree, pos, rest = self._tree, 0, k + 1
        bit = 1 << (len(tree) - 1).bit_length()
        while bit:
            nxt = pos + bit
            if nxt < len(tree) and tree[nxt] < rest:
                pos, rest = nxt, rest - tree[nxt]
            bit >>= 1
            self.steps += 1
        return self._by_seq[pos]  # tree index pos + 1 holds issue number pos

    def __getitem__(self, k: int) -> DmaTransfer:
        return self._kth(k).t

    def pop_at(self, k: int) -> DmaTransfer:
        """Take the k-th oldest queued DMA (0-based)."""
        return self._take(self._kth(k))


def _wrap32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


class Machine:
    """One NeuronCore's state."""

    def __init__(self, target: Target, memory: MemoryDescription | None = None, *, seed: int = 0,
                 dram: Mapping[int, np.ndarray] | None = None) -> None:
        """``dram`` gives the byte buffers (flat uint8) of some DRAM variables by var_id: a NEFF's
        cores share their inputs and outputs, and its ``file`` constants come from its members; the
        others are allocated zeroed (S-17)."""
        self.target = target
        self.sbuf = np.zeros(target.sbuf_partitions * target.sbuf_bytes_per_partition, dtype=np.uint8)  # S-17
        self.psum = np.zeros(target.sbuf_partitions * PSUM_PARTITION_BYTES, dtype=np.uint8)
        self.sbuf_stride = target.sbuf_bytes_per_partition
        self.psum_stride = PSUM_PARTITION_BYTES
        #: S-99: 1 on a PSUM element (its first byte) that a Matmul group's START left not yet written
        self.psum_unwritten = np.zeros_like(self.psum)
        self.semaphores = np.zeros(N_SEMAPHORES, dtype=np.int64)  # int32 counters, kept wide and wrapped
        #: who last changed each semaphore (a bundle's update or a DMA's completion), for deadlock reports
        self.sem_last: dict[int, str | LazyText] = {}
        #: called with each DMA as it completes (the trace's DMA slices)
        self.on_dma_complete: Callable[[DmaTransfer], None] | None = None
        self.events = np.zeros(N_SEMAPHORES, dtype=bool)
        self.engines = {e: EngineState(e, np.zeros(target.registers, dtype=np.uint32),
                                       np.full(target.sbuf_partitions, -np.inf, dtype=np.float32),
                                       numeric.xorwow_init(target.sbuf_partitions, seed))
                        for e in ENGINES}
        self.memory = memory or MemoryDescription(target.name)
        # --- the PE, DMA and control state ---
        #: the stationary matrix each PE engine holds (S-42), loaded by 0x01
        self.stationary: dict[str, Stationary] = {}
        #: issued DMAs not yet completed, oldest first (S-40); the scheduler completes them
        self.dma_pending = DmaQueue()
        #: the descriptor blocks 0xC1 triggers fire, by (engine, queue name, block id) (R-90)
        self.dma_blocks: dict[tuple[str, str, int], DmaBlockSpec] = {}
        #: the DRAM address of each variable (S-100), by var_id: what a 0xC4's index rows point into
        self.dram_bases: dict[int, int] = {}
        #: the semaphore of each engine's indirect_memcpy queue (R-101)
        self.indirect_semaphores: dict[str, int] = {}
        #: the last 0xD6 range check of each engine (S-101): its slot_a word and which rows are in range
        self.range_checks: dict[str, tuple[int, np.ndarray]] = {}
        #: the DGE table (R-17): entry → var_id
        self.dge_table: list[int | None] = list(self.memory.dge_table)
        #: the last DGE register-mode (0x28) DMA side of each engine (R-104): its var_id, one past the last
        #: byte it read and where it is; the PseudoExtension after it checks that end against its bound (R-105)
        self.dge_register_reads: dict[str, tuple[int, int, str]] = {}
        #: custom-op functions by sub_opcode (a NEFF's ucode_lib.json, opcode 133), for the simulator's stop message
        self.custom_functions: dict[int, str] = {}
        #: the ucode_lib.json's total_cpus: how many runs a multicore custom op sorts (S-121); None when unknown
        self.custom_cpus: int | None = None
        #: the custom op being gathered per engine (S-121): its header's where, sub_opcode, payload count and
        #: the payloads' fields so far; it runs when the last payload arrives
        self.custom_calls: dict[str, tuple[str, int, int, list[dict[str, int]]]] = {}
        #: the pool buffer a PoolBufferLoad (0x67) filled, per engine: (start partition, [P, n] values, wire
        #: dtype, index mask), read by the Gather (0x68) after it (S-78)
        self.pool_buffers: dict[str, tuple[int, np.ndarray, int, int]] = {}
        #: engines whose stream a Halt (or Exit) ended (S-46)
        self.halted: set[str] = set()
        self._views: dict[tuple, np.ndarray] = {}
        #: (id(fields), slot) -> (fields, its [partitions, elements] view): a PE bundle's tiles at a static
        #: address, by its field dict (one per distinct bundle; kept so that a reused id is told apart), for
        #: :mod:`.semantics.pe`
        self.pe_tiles: dict[tuple[int, str], tuple[Any, np.ndarray]] = {}
        self.dram: dict[int, np.ndarray] = {}
        self.vars_by_id: dict[int, Variable] = {}
        for v in self.memory.variables:
            self.vars_by_id.setdefault(v.var_id, v)
            if v.space == "DRAM":
                given = None if dram is None else dram.get(v.var_id)
                if given is not None and (given.dtype != np.uint8 or given.ndim != 1 or given.size != v.nbytes):
                    raise SimError(f"variable {v.name!r}: the buffer given for it is not {v.nbytes} flat bytes")
                self.dram[v.var_id] = given if given is not None else np.zeros(max(v.nbytes, 0), dtype=np.uint8)

    # --- DMAs (S-40) ---------------------------------------------------------------------------------

    def complete_dmas(self, engine: str | None = None, count: int | None = None) -> int:
        """Complete queued DMAs, oldest first: those of ``engine`` (all engines by default), at most
        ``count`` of them. Returns how many completed. Each costs O(log queued) (:class:`DmaQueue`)."""
        done = 0
        while count is None or done < count:
            t = self.dma_pending.popleft(engine)
            if t is None:
                break
            t.complete(self)
            done += 1
        return done

    # --- registers --------------------------------------------------------------------------------

    def reg(self, engine: str, rid: int) -> int:
        regs = self.engines[engine].registers
        if not 0 <= rid < len(regs):
            raise SimError(f"{engine}: register r{rid} does not exist (0..{len(regs) - 1})")
        return int(regs[rid])

    def set_reg(self, engine: str, rid: int, value: int) -> None:
        regs = self.engines[engine].registers
        if not 0 <= rid < len(regs):
            raise SimError(f"{engine}: register r{rid} does not exist (0..{len(regs) - 1})")
        regs[rid] = value & 0xFFFFFFFF

    # --- access patterns -----------------------------------------------------------------------------

    def region(self, space: str) -> tuple[np.ndarray, int]:
        return (self.sbuf, self.sbuf_stride) if space == "sbuf" else (self.psum, self.psum_stride)

    def tensor_view(self, engine: str, word: int, count: int, dims_outer_first: Iterable[tuple[int, int]],
                    w: int, what: str = "") -> np.ndarray:
        """A view of ``count`` partitions x the free dims (outermost first) at an ADDR4 address.

        Views are memoised on the resolved address, count, dims and dtype: a stream that touches the
        same tiles again (every loop body does) gets its views without re-deriving them.
        """
        if word & ADDR4_REGMODE:
            a = decode_addr4(word)
            if a.space == "register":
                word = self.reg(engine, a.register or 0)
                if word & ADDR4_REGMODE:
                    raise _err(what, "the address register holds a register-mode word")
        dims = tuple(dims_outer_first)
        key = (word, count, dims, w)
        view = self._views.get(key)
        if view is None:
            view = self._make_view(decode_addr4(word), count, dims, w, what)
            if len(self._views) >= 4096:
                self._views.clear()
            self._views[key] = view
        return view

    def _make_view(self, a: Addr4, count: int, dims: tuple[tuple[int, int], ...], w: int, what: str) -> np.ndarray:
        word = a.word
        if a.space not in ("sbuf", "psum") or a.indirect or a.active:
            raise _err(what, f"address {word:#010x} is not a static SBUF/PSUM address")
        buf, pstride = self.region(a.space)
        size = numeric.size_of(w)
        lo = hi = 0
        for step, num in dims:
            span = step * (num - 1) * size
            lo, hi = lo + min(span, 0), hi + max(span, 0)
        assert a.byte is not None and a.partition is not None
        limit = self.sbuf_stride if a.space == "sbuf" else self.psum_stride
        if a.byte + lo < 0 or a.byte + hi + size > limit:
            raise _err(what, f"bytes {a.byte + lo:#x}..{a.byte + hi + size - 1:#x} fall outside the "
                           f"{a.space.upper()} partition ({limit:#x} bytes)")
        if count < 1 or a.partition + count > len(buf) // pstride:
            raise _err(what, f"partitions {a.partition}..{a.partition + count - 1} do not exist")
        shape = (count, *[n for _s, n in dims])
        check_extent(math.prod(shape), what or f"{a.space.upper()} {word:#010x}")
        strides = (pstride, *[s * size for s, _n in dims])
        return np.ndarray(shape, dtype=numeric.element_type(w), buffer=buf,
                          offset=a.partition * pstride + a.byte, strides=strides)

    # --- variables (inputs and outputs) ----------------------------------------------------------------

    def variable_bytes(self, v: Variable) -> np.ndarray:
        """A [rows, bytes per row] uint8 view of a variable's storage."""
        if v.space == "DRAM":
            return self.dram[v.var_id].reshape(1, -1)
        buf, pstride = self.region("sbuf" if v.space == "SB" else "psum")
        start = v.addr + (v.bank * PSUM_BANK_BYTES if v.space == "PSUM" else 0)
        rows, width = v.dims
        if start + width > pstride or v.partition + rows > len(buf) // pstride:
            raise SimError(f"variable {v.name!r} lies outside {v.space}")
        return np.ndarray((rows, width), dtype=np.uint8, buffer=buf, offset=v.partition * pstride + start,
                          strides=(pstride, 1))

    def write_variable(self, v: Variable, array: np.ndarray) -> None:
        """Store an input array into a variable, row-major (partition rows first for SB/PSUM)."""
        data = np.ascontiguousarray(array.astype(v.numpy_dtype(), copy=False) if v.dtype else array)
        view = self.variable_bytes(v)
        raw = data.view(np.uint8).reshape(-1)
        if v.space == "DRAM":
            if raw.size > view.size:
                raise SimError(f"input for {v.name!r} has {raw.size} bytes; the variable holds {view.size}")
            view[0, :raw.size] = raw
            return
        rows = data.shape[0] if data.ndim else 1
        per_row = raw.size // max(rows, 1)
        if rows > view.shape[0] or per_row > view.shape[1]:
            raise SimError(f"input for {v.name!r} is {rows} x {per_row} bytes; the variable is "
                           f"{view.shape[0]} x {view.shape[1]}")
        view[:rows, :per_row] = raw.reshape(rows, per_row)

    def read_variable(self, v: Variable) -> np.ndarray:
        """A variable's contents as an array of its dtype and logical shape."""
        dt = v.numpy_dtype()
        shape = v.logical_shape()
        view = self.variable_bytes(v)
        need = int(np.prod(shape)) * dt.itemsize
        if v.space == "DRAM":
            return view.reshape(-1)[:need].copy().view(dt).reshape(shape)
        rows = shape[0]
        per_row = need // max(rows, 1)
        return np.ascontiguousarray(view[:rows, :per_row]).view(dt).reshape(shape)

    def var_bytes(self, var_id: int, byte: int, nbytes: int, what: str) -> np.ndarray:
        """A writable view of ``nbytes`` bytes at logical byte ``byte`` of variable ``var_id``.

        DRAM variables are flat; SB/PSUM variables are row-major over their dims (one row per
        partition), like the spec's ``offset`` resolution. An element may not straddle two rows.
        """
        v = self.vars_by_id.get(var_id)
        if v is None:
            raise SimError(f"{what}: no variable with id {var_id} in the memory description")
        if v.space == "DRAM":
            buf = self.dram[var_id]
            if byte < 0 or byte + nbytes > buf.size:
                raise SimError(f"{what}: bytes {byte}..{byte + nbytes - 1} outside variable {v.name!r} "
                               f"({buf.size} bytes)")
            return buf[byte:byte + nbytes]
        rows = self.variable_bytes(v)
        width = rows.shape[1]
        row, col = divmod(byte, width) if width else (0, 0)
        if byte < 0 or row >= rows.shape[0] or col + nbytes > width:
            raise SimError(f"{what}: bytes {byte}..{byte + nbytes - 1} outside variable {v.name!r}")
        return rows[row, col:col + nbytes]
