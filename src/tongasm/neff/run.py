"""Running a real NEFF on the simulator: ``tongasm run FILE.neff -i x=x.npy -o OUT``.

The machine model comes from the NEFF alone (chapter §4.1):

* each graph's ``def.json`` ``var`` table gives the DRAM variables by ``var_id`` (S-63): the inputs
  and outputs (named as the user names them with ``-i`` and as the output files are named; their
  dtypes and shapes from ``neff.json``), the ``file`` constants (loaded from the NEFF's own ``.npy``
  members), the ``virtual`` spill buffers, the state buffer (var 0 = SBUF) and the DGE table (R-17);
* its ``dma_queue`` table says which engine owns which queue and which semaphores the queue's DMAs
  signal (S-64: checked before the run; the trace shows each DMA on its queue's track);
* the graphs (cores) run one after the other on their own machines, sharing the input and output
  buffers (S-61); an output that ``neff.json`` says must alias an input *is* that input's buffer (S-113).

Nothing outside the NEFF and the given inputs is read. :func:`run_neff` returns a
:class:`NeffRunResult` with the outputs, each core's machine and statistics; a deadlock ends the run
with a :class:`~tongasm.sim.Deadlock` naming, per waiting engine, the bundle, the semaphore, the
value it needs, the value it has and who last changed it.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import numpy as np

from ..decode.bundle import DecodedBundle, DecodeFailure
from ..errors import InputError
from ..ir.memory import SIM_DRAM_BYTES, MemoryDescription, Variable, conform_input
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.decisions.semantics import ActTableLoadStandIn, DmaQueues
from ..isa.enums import Dtype
from ..isa.formats import FormatSet, build_formats
from ..isa.layout import Sem
from ..isa.layouts.control import NOP
from ..isa.opcodes import ISA_OPCODE_NAMES
from ..isa.targets import Target
from ..numeric import numpy_dtype
from ..isa.enums import WireDtype
from ..sim.machine import DmaBlockSpec, DmaDescriptor, Machine
from ..isa.fields import BUNDLE_SIZE
from ..sim.scheduler import RunStats, Scheduler, Stream, load_streams
from ..sim.trace import Timeline
from .errors import NeffError
from .members import load_json
from .neff import EngineStream, Graph, Neff

#: def.json variable types that are DRAM variables the DMAs name by var_id
_SHARED_TYPES = ("input", "output")
_DRAM_TYPES = ("input", "output", "file", "virtual")
_KNOWN_TYPES = (*_DRAM_TYPES, "pointer", "state-buffer", "dge-table")
#: the ActivationTableLoad opcode, by its name in the ISA's opcode table (S-62)
_ACT_TABLE_LOAD = {name: byte for byte, name in ISA_OPCODE_NAMES.items()}["ActivationTableLoad"]


@dataclass(frozen=True)
class Declared:
    """A dtype and shape the user gives for a variable the NEFF records none for (``--declare``)."""

    dtype: str
    shape: tuple[int, ...]

    @classmethod
    def parse(cls, text: str) -> tuple[str, Declared]:
        """``NAME=DTYPE:D0xD1...`` (``output0=float16:128x128``)."""
        name, eq, rest = text.partition("=")
        dtype, colon, dims = rest.partition(":")
        if not eq or not name or not colon or dtype not in Dtype.__members__:
            raise InputError(f"--declare expects NAME=DTYPE:D0xD1... with a BIR dtype (float16, float32, ...), "
                             f"got {text!r}")
        try:
            shape = tuple(int(d) for d in dims.split("x"))
        except ValueError:
            shape = ()
        if not shape or any(d < 0 for d in shape):
            raise InputError(f"--declare {text!r}: the shape must be sizes joined by 'x' (128x128)")
        return name, cls(dtype, shape)


@dataclass
class CoreProgram:
    """One graph of the NEFF, ready to run: its memory, file constants, streams and queue names."""

    graph: Graph
    memory: MemoryDescription
    files: dict[int, np.ndarray]  # var_id -> flat bytes of a `file` variable
    streams: dict[str, bytes]
    #: each stream's BIR instruction names (its .dbg members, parsed on first read; empty without debug info)
    labels: dict[str, Sequence[str | None]]
    queues: dict[str, str]  # engine -> its DMA queue's name (the trace's track)
    queue_sems: dict[str, frozenset[int]]  # engine -> the semaphores its queues signal
    #: the descriptor blocks of the engines' sidecars, by (engine, queue, block id) (R-90)
    blocks: dict[tuple[str, str, int], DmaBlockSpec] = field(default_factory=dict)
    #: the DRAM address of each variable (S-100) and each engine's indirect_memcpy semaphore (R-101)
    dram_bases: dict[int, int] = field(default_factory=dict)
    indirect_sems: dict[str, int] = field(default_factory=dict)


def _npy_payload(data: bytes, where: str) -> tuple[np.ndarray, np.dtype, tuple[int, ...]]:
    """The data of a ``.npy`` member (S-63: without its header) as flat bytes, with its dtype and shape."""
    from numpy.lib import format as npf

    fh = io.BytesIO(data)
    try:
        version = npf.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = npf.read_array_header_1_0(fh)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = npf.read_array_header_2_0(fh)
        else:
            raise ValueError(f"unsupported .npy version {version}")
    except (ValueError, TypeError, SyntaxError, OverflowError) as e:
        raise NeffError(f"{where}: not a usable .npy member: {e}") from None
    if dtype.hasobject or dtype.names is not None or fortran:
        raise NeffError(f"{where}: a {'Fortran-order ' if fortran else ''}{dtype} .npy member is not a plain "
                        "constant array")
    raw = np.frombuffer(data, dtype=np.uint8, offset=fh.tell()).copy()
    return raw, dtype, tuple(shape)


def _dtype_name(dt: Any) -> str | None:
    """A dtype as a BIR dtype name (None if it is not one)."""
    name = str(np.dtype(dt).name) if not isinstance(dt, str) else dt
    return name if name in Dtype.__members__ else None


class LazyLabels(Sequence[str | None]):
    """A stream's BIR instruction names (:meth:`Neff.bir_names`), parsed from its ``.dbg`` members on
    first read: a run reads them only for a report, an error or a trace, and the parse costs more than
    the run of many graphs (~18 % of a yolox graph's CPU time). Empty when the NEFF has none that fit."""

    def __init__(self, neff: Neff, stream: EngineStream) -> None:
        self._neff, self._stream = neff, stream
        self._names: list[str | None] | None = None

    def _get(self) -> list[str | None]:
        if self._names is None:
            self._names = self._neff.bir_names(self._stream) or []
        return self._names

    def __len__(self) -> int:
        return len(self._get())

    @overload
    def __getitem__(self, i: int) -> str | None: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[str | None]: ...

    def __getitem__(self, i: int | slice) -> str | None | Sequence[str | None]:
        return self._get()[i]


def core_program(neff: Neff, graph: str, declared: Mapping[str, Declared] = {},
                 decisions: DecisionSet = DEFAULT_DECISIONS) -> CoreProgram:
    """The memory description (S-63), file constants, streams and DMA queues of one graph."""
    g = neff.graph(graph)
    d = g.definition
    where = d.path
    entries = {e.name: e for e in neff.graph_json.entries} if neff.graph_json is not None else {}
    mem = MemoryDescription(neff.target.name)
    files: dict[int, np.ndarray] = {}
    seen: dict[int, str] = {}
    tables = []
    pointers: dict[int, tuple[int, str]] = {}  # var_id -> (referenced var_id, what)
    for name, v in d.variables.items():
        what = f"{where}: variable {name!r} ({v.type}, var_id {v.var_id})"
        if v.type not in _KNOWN_TYPES:
            raise NeffError(f"{what}: the simulator does not know this variable type (known: "
                            f"{', '.join(_KNOWN_TYPES)}; S-63)")
        if v.type == "state-buffer":
            if v.var_id != 0:
                raise NeffError(f"{what}: the state buffer must be var_id 0 (R-17: a DMA names SBUF by var 0)")
            continue
        if v.var_id in seen or v.var_id == 0:
            raise NeffError(f"{what}: var_id {v.var_id} is also {seen.get(v.var_id, 'the state buffer')!r}")
        seen[v.var_id] = name
        if v.type == "dge-table":
            lst = v.raw.get("list")
            if not isinstance(lst, list) or not all(isinstance(e, int) and not isinstance(e, bool) for e in lst):
                raise NeffError(f"{what}: 'list' should be a list of var_ids")
            tables.append(lst)
            continue
        if v.size is None or v.size < 0:
            raise NeffError(f"{what}: no 'size' (bytes) recorded")
        dtype: str | None = None
        shape: list[int] | None = None
        kind = {"input": "Input", "output": "Output"}.get(v.type, "Internal")
        if v.type == "pointer":  # S-100: 8 bytes holding the address of the variable it references
            ref = v.raw.get("referenced_var_id")
            if v.size != 8 or not isinstance(ref, int) or isinstance(ref, bool):
                raise NeffError(f"{what}: a pointer should be 8 bytes with a referenced_var_id")
            pointers[v.var_id] = (ref, what)
            dtype, shape = "uint64", [1]
        elif v.type == "file":
            member = g.directory + (v.file_name or "")
            if not v.file_name or member not in neff.members:
                raise NeffError(f"{what}: its file {v.file_name!r} is not a member of the NEFF")
            raw, dt, shp = _npy_payload(neff.members[member], member)
            if raw.size != v.size:
                raise NeffError(f"{what}: {member} holds {raw.size} bytes of data, the variable {v.size} (S-63)")
            files[v.var_id] = raw
            dtype, shape = _dtype_name(dt), list(shp)
        elif v.type in _SHARED_TYPES:
            if name in declared:
                dtype, shape = declared[name].dtype, list(declared[name].shape)
            elif name in entries and entries[name].dtype and entries[name].shape is not None:
                dtype, shape = _dtype_name(entries[name].dtype), list(entries[name].shape or ())
        if dtype is None:
            shape = None
        elif shape is not None and math.prod(shape) * numpy_dtype(Dtype[dtype]).itemsize != v.size:
            raise NeffError(f"{what}: shape {shape} of {dtype} is not its {v.size} bytes")
        mem.variables.append(Variable(name, v.var_id, "DRAM", dims=(1, v.size), dtype=dtype, shape=shape, kind=kind))
    if len(tables) > 1:
        raise NeffError(f"{where}: {len(tables)} dge-table variables; the simulator models one DGE table (R-17)")
    from ..isa.decisions.dma import DramAddresses

    bases = decisions.get(DramAddresses).bases({x.var_id: x.nbytes for x in mem.variables})
    for vid, (ref, what) in pointers.items():
        if ref not in bases or ref in pointers:
            raise NeffError(f"{what}: it references var_id {ref}, which is not a DRAM variable of the graph")
        files[vid] = np.array([bases[ref]], dtype="<u8").view(np.uint8).copy()
    if tables:
        mem.dge_table = list(tables[0])
    streams: dict[str, bytes] = {}
    labels: dict[str, Sequence[str | None]] = {}
    for s in g.streams.values():
        streams[s.stream] = neff.stream_data(s)
        labels[s.stream] = LazyLabels(neff, s)
    queues: dict[str, str] = {}
    sems: dict[str, set[int]] = {}
    for q in d.dma_queues.values():
        queues.setdefault(q.owner, q.name)
        sems.setdefault(q.owner, set()).update(q.semaphore_set)
    indirect: dict[str, int] = {}
    for q in d.dma_queues.values():
        if q.raw.get("indirect_memcpy") is True:
            if len(q.semaphore_set) != 1 or q.owner in indirect:
                raise NeffError(f"{where}: indirect_memcpy queue {q.name!r}: the simulator models one queue of one "
                                f"semaphore per engine (R-101); {q.owner} has {len(q.semaphore_set)} here")
            indirect[q.owner] = q.semaphore_set[0]
    var_ids = {v.name: v.var_id for v in mem.variables}
    return CoreProgram(g, mem, files, streams, labels, queues, {k: frozenset(v) for k, v in sems.items()},
                       descriptor_blocks(neff, g, var_ids), bases, indirect)


def _wire(name: Any, where: str) -> int:
    if not isinstance(name, str) or name.upper() not in WireDtype.__members__:
        raise NeffError(f"{where}: dtype {name!r} is not one the simulator knows")
    return int(WireDtype[name.upper()])


def _dims(sizes: Any, steps: Any, where: str) -> tuple[tuple[int, int], ...]:
    if not (isinstance(sizes, list) and isinstance(steps, list) and sizes and len(sizes) == len(steps)
            and all(isinstance(x, int) and not isinstance(x, bool) for x in sizes + steps)
            and all(n >= 0 for n in sizes)):
        raise NeffError(f"{where}: sizes {sizes!r} and steps {steps!r} are not one whole number of each per dim")
    return tuple(zip(sizes, steps))


def descriptor_blocks(neff: Neff, g: Graph, var_ids: Mapping[str, int]) -> dict[tuple[str, str, int], DmaBlockSpec]:
    """The ``dma`` blocks of each engine's sidecar (R-90), their sides resolved: ``SB`` is SBUF, any other
    name a DRAM variable of ``def.json``."""
    out: dict[tuple[str, str, int], DmaBlockSpec] = {}
    for s in g.streams.values():
        side = neff.sidecar(s)
        for b in side.dma if side is not None else ():
            if not isinstance(b, dict):
                raise NeffError(f"{s.sidecar}: a dma entry that is not an object ({b!r})")
            where = f"{s.sidecar} dma block {b.get('#comment', b.get('id'))!s}"
            descs = []
            try:
                for k, e in enumerate(b["desc"]):
                    at = f"{where} descriptor {k}"
                    sides = []
                    for end in ("from", "to"):
                        name = e[end]
                        if name == "SB":
                            vid = None
                        elif name in var_ids:
                            vid = var_ids[name]
                        else:
                            raise NeffError(f"{at}: {end} {name!r} is neither SB nor a DRAM variable of def.json")
                        sides.append((vid, int(e[f"{end}_off"]), _dims(e[f"{end}_sizes"], e[f"{end}_steps"], at),
                                      _wire(e[f"{end}_dtype"], at)))
                    descs.append(DmaDescriptor(*sides[0], *sides[1]))
                key = (s.stream, str(b["queue"]), int(b["id"]))
                out[key] = DmaBlockSpec(str(b.get("#comment", f"block {b['id']}")), int(b["semaphore"]), tuple(descs))
            except (KeyError, TypeError, ValueError) as e:
                raise NeffError(f"{where}: not a descriptor block tongasm can read ({type(e).__name__}: {e})") from None
    return out


def custom_functions(neff: Neff, graph: Graph) -> dict[int, str]:
    """The custom-op functions a graph's ``ucode_lib.json`` lists for opcode 133 (0x85), by sub_opcode
    (empty when the graph has none): the simulator names the one a CustomOpHeader starts (S-77)."""
    member = graph.directory + "ucode_lib.json"
    if member not in neff.members:
        return {}
    j = load_json(member, neff.members[member])
    out: dict[int, str] = {}
    libs = j.get("ucode_lib") if isinstance(j, dict) else None
    for lib in libs if isinstance(libs, list) else []:
        for f in lib.get("functions", []) if isinstance(lib, dict) else []:
            if isinstance(f, dict) and f.get("opcode") == 133 and isinstance(f.get("sub_opcode"), int) \
                    and isinstance(f.get("name"), str):
                out.setdefault(f["sub_opcode"], f["name"])
    return out


def custom_cpus(neff: Neff, graph: Graph) -> int | None:
    """The ``total_cpus`` a graph's ``ucode_lib.json`` states (the Pool engine's CPUs a multicore custom
    op runs on: 8 in every real one), or None when it has none or its libraries disagree (S-121)."""
    member = graph.directory + "ucode_lib.json"
    if member not in neff.members:
        return None
    j = load_json(member, neff.members[member])
    libs = j.get("ucode_lib") if isinstance(j, dict) else None
    seen = {lib.get("total_cpus") for lib in libs if isinstance(lib, dict)} if isinstance(libs, list) else set()
    if len(seen) != 1:
        return None
    n = seen.pop()
    return n if isinstance(n, int) and n > 0 else None


def _stand_in(fs: FormatSet, decisions: DecisionSet) -> Callable[[DecodeFailure], DecodedBundle | None]:
    """S-62: an undecodable ActivationTableLoad read through the Nop layout (its header sync band)."""
    nop = next(f for f in fs.variants(NOP.byte) if f.layout.sem is Sem.NONE)

    def stand_in(d: DecodeFailure) -> DecodedBundle | None:
        if d.opcode != _ACT_TABLE_LOAD or not decisions.get(ActTableLoadStandIn).stands_in:
            return None
        return DecodedBundle(d.offset, d.raw[0], nop, nop.decode(d.raw), d.raw)

    return stand_in


def check_queues(streams: list[Stream], core: CoreProgram) -> None:
    """S-64: every 0xD4's completion semaphore belongs to a queue its engine owns."""
    for s in streams:
        owned = core.queue_sems.get(s.engine, frozenset())
        for pc, d in enumerate(s.bundles):
            if d.fmt.layout.sem is Sem.DMA_2D and d.fields["dma_semaphore"] not in owned:
                queues = ", ".join(f"{e}: {n}" for e, n in core.queues.items()) or "none"
                raise NeffError(f"{s.where(pc)}: the DMA signals semaphore {d.fields['dma_semaphore']}, which no "
                                f"DMA queue of {s.engine!r} owns (def.json dma_queue: {queues}; S-64)")


@dataclass
class CoreRun:
    """One graph's run: its machine and statistics."""

    graph: str
    machine: Machine
    memory: MemoryDescription
    stats: RunStats
    streams: list[Stream]


def output_aliases(neff: Neff, decisions: DecisionSet = DEFAULT_DECISIONS) -> dict[str, str]:
    """input name -> the output bound to its buffer (neff.json's ``must_alias``, S-113); empty under
    S-113=separate."""
    from ..isa.decisions.semantics import NeffOutputAlias

    if neff.graph_json is None or not decisions.get(NeffOutputAlias).shared:
        return {}
    out: dict[str, str] = {}
    seen: dict[str, str] = {}
    for name, sig in neff.graph_json.inputs.items():
        names = sig.get("must_alias") or []
        if not isinstance(names, list) or not all(isinstance(x, str) for x in names) or len(names) > 1:
            raise NeffError(f"neff.json: input {name!r}: must_alias should list at most one output name, got "
                            f"{names!r} (S-113)")
        for o in names:
            if o in seen:
                raise NeffError(f"neff.json: output {o!r} must alias both {seen[o]!r} and {name!r} (S-113)")
            seen[o] = name
            out[name] = o
    return out


@dataclass
class NeffRunResult:
    """The outputs (shared DRAM buffers) and each core's run."""

    neff: Neff
    shared: dict[str, Variable]  # name -> the variable (as the first graph declares it)
    buffers: dict[str, np.ndarray]  # name -> flat bytes
    cores: list[CoreRun] = field(default_factory=list)

    @property
    def executed(self) -> int:
        return sum(c.stats.executed for c in self.cores)

    def output_names(self) -> list[str]:
        return [n for n, v in self.shared.items() if v.kind == "Output"]

    def outputs(self, names: list[str] | None = None) -> dict[str, np.ndarray]:
        """The named variables (default: every output) as arrays of their dtype and shape; a variable
        whose dtype the NEFF does not record is refused with a message asking for ``--declare``."""
        out = {}
        for n in names or self.output_names():
            v = self.shared.get(n)
            if v is None:
                raise InputError(f"no input or output named {n!r} (known: {', '.join(self.shared)})")
            if v.dtype is None or v.shape is None:
                raise InputError(f"the NEFF records no dtype and shape for {n!r} ({v.nbytes} bytes): give them with "
                                 f"--declare {n}=DTYPE:D0xD1... (e.g. float16:128x128)")
            out[n] = self.buffers[n].view(v.numpy_dtype()).reshape(v.logical_shape()).copy()
        return out

    def state(self) -> dict[str, Any]:
        """Per core: bundles run (per engine), DMAs completed, the non-zero semaphores."""
        return {"executed": self.executed, "cores": {
            c.graph: {"executed": c.stats.executed, "per_engine": c.stats.per_engine, "dmas": c.stats.dmas,
                      "semaphores": {str(i): int(v) for i, v in enumerate(c.machine.semaphores) if v}}
            for c in self.cores}}


def run_neff(neff: Neff, inputs: Mapping[str, np.ndarray], *, graphs: list[str] | None = None,
             decisions: DecisionSet = DEFAULT_DECISIONS, seed: int = 0, declared: Mapping[str, Declared] = {},
             timeline: Timeline | None = None, progress: Callable[[int, int | None], None] | None = None,
             note: Callable[[str], None] | None = None, copy_inputs: bool = True,
             log: Callable[[str, DecodedBundle, int, str | None], None] | None = None,
             outputs: Sequence[str] | None = None, schedule_seed: int | None = None) -> NeffRunResult:
    """Run the NEFF's graphs (default: all, S-61) on ``inputs`` (by the NEFF's variable names).
    ``outputs``: the variables the caller will read from the result, refused before the run when the
    NEFF has no such variable or records no dtype and shape for it. ``schedule_seed`` seeds the
    random schedule (S-60=random) apart from ``seed`` (Memset Random, S-12); by default ``seed`` both.

    Every input variable must be given, exactly its dtype and shape (or an exact cast, reported
    through ``note``); an output cannot be given. ``copy_inputs=False`` lets the DRAM buffer of an
    input *be* the caller's array (no copy; the program could write it): the CLI's arrays are its own.
    """
    target: Target = neff.target
    names = graphs or list(neff.graphs)
    cores = [core_program(neff, g, declared, decisions) for g in names]
    shared: dict[str, Variable] = {}
    for core in cores:
        for v in core.memory.variables:
            if v.kind not in ("Input", "Output"):
                continue
            first = shared.setdefault(v.name, v)
            if (first.kind, first.nbytes) != (v.kind, v.nbytes):
                raise NeffError(f"{v.name!r} is a {first.kind.lower() if first.kind else '?'} of {first.nbytes} bytes in "
                                f"{cores[0].graph.name} but a {v.kind.lower()} of {v.nbytes} bytes in {core.graph.name}")
    for n in outputs or ():  # what the caller will ask the result for is checked before the run
        want = shared.get(n)
        if want is None:
            raise InputError(f"no input or output named {n!r} (known: {', '.join(shared)})")
        if want.dtype is None or want.shape is None:
            raise InputError(f"the NEFF records no dtype and shape for {n!r} ({want.nbytes} bytes): give them with "
                             f"--declare {n}=DTYPE:D0xD1... (e.g. float16:128x128)")
    for n in inputs:
        given = shared.get(n)
        if given is None:
            raise InputError(f"the NEFF has no input named {n!r} (inputs: "
                             f"{', '.join(k for k, x in shared.items() if x.kind == 'Input') or 'none'})")
        if given.kind != "Input":
            raise InputError(f"{n!r} is an output of the NEFF; only its inputs take -i")
    missing = [n for n, v in shared.items() if v.kind == "Input" and n not in inputs]
    if missing:
        raise InputError(f"the NEFF needs input{'s' * (len(missing) > 1)} {', '.join(repr(n) for n in missing)} "
                         f"(-i NAME=FILE.npy)")
    # what the simulator allocates (outputs, file constants, virtual buffers) is bounded; inputs are the caller's
    alloc = sum(v.nbytes for v in shared.values() if v.kind == "Output") + sum(
        v.nbytes for c in cores for v in c.memory.variables if v.kind == "Internal")
    SIM_DRAM_BYTES.check(alloc, f"{neff.path or 'NEFF'}: its outputs and private DRAM variables", "bytes")
    buffers: dict[str, np.ndarray] = {}
    for n, v in shared.items():
        if v.kind == "Input":
            if v.dtype is None:
                arr = np.asarray(inputs[n])
                if arr.nbytes != v.nbytes:
                    raise InputError(f"input for {n!r}: {arr.nbytes} bytes; the NEFF's variable holds {v.nbytes} "
                                     f"and records no dtype or shape (give them with --declare {n}=DTYPE:SHAPE)")
                why = None
            else:
                arr, why = conform_input(v, inputs[n])
            if why and note is not None:
                note(why)
            flat = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
            buffers[n] = flat.copy() if copy_inputs and np.shares_memory(flat, np.asarray(inputs[n])) else flat
        else:
            buffers[n] = np.zeros(v.nbytes, dtype=np.uint8)
    for n, out in output_aliases(neff, decisions).items():  # S-113: the output is the input's buffer
        src, dst = shared.get(n), shared.get(out)
        if src is None or dst is None or src.kind != "Input" or dst.kind != "Output":
            raise NeffError(f"neff.json: input {n!r} must alias {out!r}, but the graphs declare no such input and "
                            f"output (S-113)")
        if src.nbytes != dst.nbytes:
            raise NeffError(f"neff.json: input {n!r} ({src.nbytes} bytes) must alias output {out!r} of "
                            f"{dst.nbytes} bytes (S-113)")
        buffers[out] = buffers[n]
    from ..passes.program import max_instructions

    for core in cores:  # as check and disasm refuse it: an unusable NEFF (exit 2), before the run
        for e, data in core.streams.items():
            if len(data) % BUNDLE_SIZE:
                raise NeffError(f"{neff.path or 'NEFF'}: {core.graph.name}/{e} has {len(data)} bytes, not a whole "
                                f"number of {BUNDLE_SIZE}-byte bundles")
    static = sum(len(data) // BUNDLE_SIZE for core in cores for data in core.streams.values())
    cap = max_instructions()
    if static > cap:
        raise InputError(f"the NEFF's graphs hold {static} bundles; tongasm runs at most {cap} "
                         "(TONGASM_MAX_INSTRUCTIONS raises the cap)")
    result = NeffRunResult(neff, shared, buffers)
    fs = build_formats(decisions)
    stand_in = _stand_in(fs, decisions)
    loaded = []
    for core in cores:
        streams = load_streams(core.streams, decisions, stand_in=stand_in,
                               names={e: f"{core.graph.name}.{e}" for e in core.streams})
        for s in streams:
            s.labels = core.labels.get(s.engine)
        if decisions.get(DmaQueues).checked:
            check_queues(streams, core)
        loaded.append(streams)
    total = sum(len(s.bundles) for streams in loaded for s in streams)
    done = 0
    for core, streams in zip(cores, loaded):
        dram = dict(core.files)
        for v in core.memory.variables:
            if v.name in buffers and v.kind in ("Input", "Output"):
                dram[v.var_id] = buffers[v.name]
        m = Machine(target, core.memory, seed=seed, dram=dram)
        m.custom_functions = custom_functions(neff, core.graph)
        m.custom_cpus = custom_cpus(neff, core.graph)
        m.dma_blocks = dict(core.blocks)
        m.dram_bases = dict(core.dram_bases)
        m.indirect_semaphores = dict(core.indirect_sems)
        if timeline is not None:
            k = len(result.cores)
            timeline.core(core.graph.name, None if len(cores) == 1 else
                          f"core {k + 1} of {len(cores)}, simulated "
                          + ("first" if k == 0 else f"after {', '.join(c.graph.name for c in cores[:k])}")
                          + " (on the device the cores run at the same time)")
        hook = None if progress is None else (lambda n, _t, base=done: progress(base + n, total))
        sched = Scheduler(m, streams, decisions, log, progress=hook, timeline=timeline, dma_queues=core.queues,
                          seed=seed if schedule_seed is None else schedule_seed)
        stats = sched.run()
        if timeline is not None:
            timeline.offset += sched.clock + 1
        done += stats.executed
        result.cores.append(CoreRun(core.graph.name, m, core.memory, stats, streams))
    return result


__all__ = ["CoreProgram", "CoreRun", "Declared", "NeffRunResult", "check_queues", "core_program", "run_neff"]
