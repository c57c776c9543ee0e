"""BIR JSON reader and writer (SPEC §5).

The reader turns the compiler's JSON (plus tongasm's extensions: a function-level ``registers``
table, a per-instruction ``sync`` object, the ``MoveShape`` opcode) into IR, resolving ``memref``,
``memsetref`` and ``regref`` names. Unknown keys are kept and written back, so
``write(read(text))`` gives the same JSON (up to key order and the canonical spelling of enums).

Every problem is a :class:`~tongasm.errors.BirError` that names the JSON path
(``functions[0].blocks[0].instructions[3].ins[1]``) and, inside an instruction, its name.
"""

from __future__ import annotations

import enum
import json
import math
import re
from pathlib import Path
from typing import Any
from collections.abc import Callable, Iterable, Mapping

from ..errors import BirError, InputError
from ..io.inputs import brief_int
from ..isa.enums import (
    AccType, AluOp, Dtype, Engine, MemoryType, MemsetMode, UpdateMode, WaitMode, enum_by_name_or_ordinal,
)
from ..isa.vector_enums import ENUM_ALIASES, ENUM_REFUSED
from .instructions import (
    Attr, Block, Function, Instruction, Kernel, Loop, LoopAxis, Number, UnknownInstruction, instruction_class,
    enum_text,
)
from .operands import (
    Allocation, APPair, FrozenMap, Immediate, MemoryLocation, Operand, OtherOperand, PhysicalAP, Register, RegisterAccess,
    RegisterAP, SymbolicAP, SyncInfo, SyncUpdate, SyncWait,
)

_REG_LITERAL = re.compile(r"^[rR](\d+)$")

#: Accepted spellings of dtype names besides the canonical BIR ones (written back canonically).
DTYPE_ALIASES: Mapping[str, Dtype] = {
    "float8_e3m4": Dtype.float8e3,
    "float8_e4m3": Dtype.float8e4,
    "float8_e5m2": Dtype.float8e5,
    "fp32": Dtype.float32,
    "bf16": Dtype.bfloat16,
    "fp16": Dtype.float16,
}
ENGINE_ALIASES: Mapping[str, Engine] = {
    "gpsimd": Engine.Pool, "pool": Engine.Pool, "act": Engine.Activation, "activation": Engine.Activation,
    "pe": Engine.PE, "dma": Engine.DMA, "dve": Engine.DVE, "sp": Engine.SP, "all": Engine.ALL,
    "unassigned": Engine.Unassigned,
}


#: The ``extra`` of the many operands and instructions that have none: one shared read-only
#: mapping instead of an empty dict each.
NO_EXTRA: Any = FrozenMap()


_SCALARS = frozenset({int, float, str, bool, type(None)})

#: At most this many distinct values of each kind are remembered for sharing (then that table restarts).
SHARE_LIMIT = 100_000


class _Ctx:
    """Reader state for one function: name tables and the JSON path for messages."""

    def __init__(self, func: Function) -> None:
        self.func = func
        self.locations: dict[str, MemoryLocation] = {}
        self.allocations: dict[str, Allocation] = {}
        # what was read so far, for sharing equal immutable values (see shared): access-pattern
        # pairs, sync infos, operands, attribute maps, operand tuples
        self.aps: dict[tuple[APPair, ...], tuple[APPair, ...]] = {}
        self.syncs: dict[SyncInfo, SyncInfo] = {}
        self.ops: dict[tuple[Any, ...], Operand] = {}
        self.attrs: dict[tuple[Any, ...], Any] = {}
        self.tuples: dict[tuple[Operand, ...], tuple[Operand, ...]] = {}
        #: misspelt-key notes (see _misspelt), and the key sets already looked at
        self.notes: list[str] = []
        self.key_sets: set[tuple[str, frozenset[str]]] = set()

    def note_keys(self, what: str, extra: Mapping[str, Any], known: Iterable[str], where: str) -> None:
        """Notes for the kept keys of ``extra`` that are near misses of ``known`` (see :func:`_misspelt`),
        looked at once per kind of object and set of keys (a big kernel repeats them)."""
        if not extra or len(self.notes) >= MAX_KEY_NOTES:
            return
        seen = (what, frozenset(extra))
        if seen not in self.key_sets:
            self.key_sets.add(seen)
            self.notes += _misspelt(extra, known, where)

    @staticmethod
    def intern(table: dict[Any, Any], x: Any) -> Any:
        """``x``, or the equal immutable value read before (``table`` restarts past SHARE_LIMIT)."""
        hit = table.get(x)
        if hit is None:
            if len(table) >= SHARE_LIMIT:
                table.clear()
            hit = table[x] = x
        return hit

    def shared_tuple(self, ops: tuple[Operand, ...]) -> tuple[Operand, ...]:
        """``ops``, or the equal tuple of the same operand objects read before (operands hash and
        compare by identity)."""
        return self.intern(self.tuples, ops)

    def shared_attrs(self, attrs: dict[str, Any]) -> Any:
        """A read-only view of ``attrs``, one per distinct set of attributes (the many instructions
        with the same op and flags share it). Values are told apart by type and sign (1 is not
        True, -0.0 is not 0.0); attributes with non-scalar values are kept as given."""
        if not all(type(v) in _SCALARS or isinstance(v, enum.Enum) for v in attrs.values()):
            return attrs
        key = tuple((k, type(v), v, math.copysign(1.0, v) if type(v) is float else 0) for k, v in attrs.items())
        hit = self.attrs.get(key)
        if hit is None:
            if len(self.attrs) >= SHARE_LIMIT:
                self.attrs.clear()
            hit = self.attrs[key] = FrozenMap(attrs)
        return hit

    def shared(self, cls: type[Operand], args: tuple[Any, ...], tag: tuple[Any, ...] = ()) -> Operand:
        """``cls(*args)``, or the equal operand read before (operands are immutable, so equal ones
        can be one object: a kernel of a million instructions names a few thousand operands).

        An operand with ``extra`` keys, or with an unhashable value, is not shared. ``tag`` adds
        what equality alone would miss (an immediate's type and the sign of a zero). The tables
        restart past :data:`SHARE_LIMIT` entries, so a streamed kernel stays bounded in memory.
        """
        if args[-1] is not NO_EXTRA:
            return cls(*args)
        key = (cls, *args[:-1], *tag)
        ops = self.ops
        try:
            op = ops.get(key)
        except TypeError:  # e.g. a JSON list where a name belongs: kept as given, not shared
            return cls(*args)
        if op is None:
            if len(ops) >= SHARE_LIMIT:
                ops.clear()
            op = ops[key] = cls(*args)
        return op


def _path_join(path: str, key: str | int) -> str:
    return f"{path}[{key}]" if isinstance(key, int) else (f"{path}.{key}" if path else key)


def _obj(v: Any, path: str, what: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise BirError(f"{what} must be a JSON object, got {type(v).__name__}", path)
    return v


def _list(v: Any, path: str, what: str) -> list[Any]:
    if not isinstance(v, list):
        raise BirError(f"{what} must be a JSON array, got {type(v).__name__}", path)
    return v


def _int(v: Any, path: str, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise BirError(f"{what} must be an integer, got {v!r}", path)
    return v


def _enum(cls: type[enum.IntEnum], v: Any, path: str, what: str,
          aliases: Mapping[str, Any] | None = None) -> Any:
    """Resolve an enum by name (case-sensitive, then aliases, then case-insensitive) or ordinal."""
    try:
        return enum_by_name_or_ordinal(cls, v)
    except KeyError:
        pass
    if isinstance(v, str):
        if aliases and v.lower() in aliases:
            return aliases[v.lower()]
        if aliases and v in aliases:
            return aliases[v]
        for m in cls:
            if m.name.lower() == v.lower():
                return m
        names = ", ".join(m.name for m in cls)
        raise BirError(f"unknown {what} {v!r} (known: {names}; an integer ordinal is also accepted)", path)
    raise BirError(f"{what} must be a name or an integer ordinal, got {v!r}", path)


def _dtype(v: Any, path: str) -> Dtype | int:
    return _enum(Dtype, v, path, "dtype", DTYPE_ALIASES)


def _number(v: Any, path: str) -> int | float:
    if isinstance(v, bool):
        raise BirError(f"immediate value must be a number, got {v!r}", path)
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, str):
        special = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "+inf": math.inf}
        if v.lower() in special:
            return special[v.lower()]
    raise BirError(f"immediate value must be a number (or \"nan\", \"inf\", \"-inf\"), got {v!r}", path)


# --- reading --------------------------------------------------------------------------------

#: The key a duplicate-aware object hook adds to an object in which a key repeats (never a JSON key:
#: JSON keys are strings).
_DUPLICATE = object()


class UniqueKeysHook:
    """An ``object_pairs_hook`` for :mod:`json` that builds each object as a dict and marks one in
    which a key repeats (and sets :attr:`found`). JSON lets the last value win silently, and the
    streaming reader, which walks the outer structure itself, would see the first as well, so both
    readers refuse such a file (:func:`refuse_duplicates`)."""

    __slots__ = ("found",)

    def __init__(self) -> None:
        self.found = False

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        d = dict(pairs)
        if len(d) != len(pairs):
            seen: set[str] = set()
            for k, _ in pairs:
                if k in seen:
                    break
                seen.add(k)
            d[_DUPLICATE] = k  # type: ignore[index]
            self.found = True
        return d


def unique_keys_hook() -> UniqueKeysHook:
    """A fresh :class:`UniqueKeysHook`."""
    return UniqueKeysHook()


def refuse_duplicates(data: Any, path: str = "") -> None:
    """Raise a BirError naming the JSON path of the first object (in document order) that a
    :func:`unique_keys_hook` marked, and its repeated key."""
    todo: list[tuple[Any, str]] = [(data, path)]
    while todo:
        node, at = todo.pop()
        if isinstance(node, dict):
            if _DUPLICATE in node:
                raise BirError(f"duplicate key {node[_DUPLICATE]!r} (JSON would keep only the last value; a key may "
                               "appear once in an object)", at)
            todo.extend((v, _path_join(at, k)) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            todo.extend((v, _path_join(at, i)) for i, v in reversed(list(enumerate(node))))


def loads(text: str | bytes, where: str | None = None) -> Any:
    """JSON text → Python values, with duplicate keys refused (with their path); an InputError
    prefixed by ``where`` (the file) for text that is not JSON."""
    prefix = f"{where}: " if where else ""
    hook = unique_keys_hook()
    try:
        data = json.loads(text, object_pairs_hook=hook)
    except ValueError as e:  # JSONDecodeError, UnicodeDecodeError, an int past the digit limit
        raise InputError(f"{prefix}not valid JSON: {e}") from None
    except RecursionError:
        raise InputError(f"{prefix}JSON nested too deeply to read") from None
    if hook.found:
        try:
            refuse_duplicates(data)
        except BirError as e:
            raise BirError(e.detail, f"{where}: {e.path}" if where and e.path else (where or e.path)) from None
    return data


def read_bir(source: str | bytes | Path | Mapping[str, Any]) -> Kernel:
    """Read a BIR JSON kernel from a path (``Path`` or a ``str`` that is not JSON text), JSON
    text/bytes, or an already-parsed object. A key repeated in an object is refused."""
    if isinstance(source, str) and not source.lstrip().startswith(("{", "[")):
        source = Path(source)
    if isinstance(source, Path):
        from ..io.inputs import read_input

        data = loads(read_input(source), str(source))
    elif isinstance(source, (str, bytes)):
        data = loads(source)
    else:
        data = source
    return kernel_from_json(data)


def kernel_from_json(data: Any) -> Kernel:
    """Build the IR of a parsed BIR JSON module."""
    top = _obj(data, "", "the BIR module")
    if "functions" not in top:
        raise BirError("missing key 'functions' (a BIR module is {\"arch\", \"functions\": [...]})", "")
    arch = top.get("arch")
    if arch is not None and not isinstance(arch, str):
        raise BirError(f"'arch' must be a string such as \"gen2\", got {arch!r}", "arch")
    notes: list[str] = []
    funcs = [_function(f, f"functions[{i}]", notes)
             for i, f in enumerate(_list(top["functions"], "functions", "'functions'"))]
    extra = {k: v for k, v in top.items() if k not in ("functions", "arch", "version", "attributes")}
    notes += _misspelt(extra, ("functions", "arch", "version", "attributes"), "the BIR module")
    return Kernel(funcs, arch, top.get("version"), top.get("attributes"), extra, notes)


#: at most this many misspelt-key notes are collected from one module
MAX_KEY_NOTES = 20


def _misspelt(extra: Mapping[str, Any], known: Iterable[str], where: str) -> list[str]:
    """A note for each kept key that is a near miss of a key the reader knows here (``ouputs`` for
    ``outputs``): unknown keys are kept for the round trip, so a typo would otherwise vanish silently.
    Keys far from every known one (the compiler writes many tongasm does not interpret) say nothing."""
    if not extra:
        return []
    import difflib

    known = list(known)
    out = []
    for k in extra:
        close = difflib.get_close_matches(k, known, n=1, cutoff=0.75)
        if close:
            out.append(f"{where}: unknown key {k!r} kept as it is; did you mean {close[0]!r}?")
    return out


#: the keys the reader knows in a function, an allocation (besides name and memorylocations: those
#: ``run`` and the checks read), a memory location, a block and a Loop's axis
_FUNCTION_KEYS = ("name", "attributes", "allocations", "registers", "blocks")
_ALLOCATION_KEYS = ("kind", "dtype", "tensor_shape")
_LOCATION_KEYS = ("name", "type", "addr", "base", "bank", "dims", "tensor_id")
_BLOCK_KEYS = ("name", "instructions")
_AXIS_KEYS = ("name", "lb", "ub", "stride")


def _function(f: Any, path: str, notes: list[str] | None = None) -> Function:
    f = _obj(f, path, "a function")
    name = f.get("name", "")
    func = Function(str(name), attributes=f.get("attributes", []))
    ctx = _Ctx(func)
    if notes is not None:
        ctx.notes = notes
    index = 0
    for ai, a in enumerate(_list(f.get("allocations", []), _path_join(path, "allocations"), "'allocations'")):
        apath = f"{path}.allocations[{ai}]"
        a = _obj(a, apath, "an allocation")
        alloc = Allocation(str(a.get("name", "")), extra={k: v for k, v in a.items()
                                                           if k not in ("name", "memorylocations")})
        ctx.note_keys("allocation", {k: v for k, v in alloc.extra.items() if k not in _ALLOCATION_KEYS},
                      ("name", "memorylocations", *_ALLOCATION_KEYS), apath)
        if "memorylocations" in a:
            alloc.extra["__has_memorylocations__"] = True
        for li, loc in enumerate(_list(a.get("memorylocations", []), f"{apath}.memorylocations",
                                       "'memorylocations'")):
            ml = _location(loc, f"{apath}.memorylocations[{li}]", index)
            lpath = f"{apath}.memorylocations[{li}]"
            misplaced = [k for k in _ALLOCATION_KEYS if k in ml.extra]
            if misplaced and ("location", frozenset(misplaced)) not in ctx.key_sets and len(ctx.notes) < MAX_KEY_NOTES:
                ctx.key_sets.add(("location", frozenset(misplaced)))
                ctx.notes.append(f"{lpath}: {', '.join(repr(k) for k in misplaced)} "
                                 f"{'is' if len(misplaced) == 1 else 'are'} read on the allocation ({apath}), not on "
                                 "its memory location; kept as it is, unused")
            ctx.note_keys("location", {k: v for k, v in ml.extra.items() if k not in _ALLOCATION_KEYS},
                          (*_LOCATION_KEYS, "dge_entry"), lpath)
            ml.allocation = alloc
            if ml.name in ctx.locations:
                raise BirError(f"memory location {ml.name!r} is declared twice", f"{apath}.memorylocations[{li}]")
            ctx.locations[ml.name] = ml
            alloc.locations.append(ml)
            index += 1
        if alloc.name:
            ctx.allocations[alloc.name] = alloc
        func.allocations.append(alloc)
    regs = f.get("registers", {})
    rpath = _path_join(path, "registers")
    for rname, rid in _obj(regs, rpath, "'registers'").items():
        if isinstance(rid, list):
            if len(rid) not in (1, 2):
                raise BirError(f"register {rname!r} must be an id or a [lo, hi] pair, got {rid!r}", rpath)
            ids = tuple(_int(x, f"{rpath}.{rname}", f"register {rname!r} id") for x in rid)
        else:
            ids = (_int(rid, f"{rpath}.{rname}", f"register {rname!r} id"),)
        if any(i < 0 for i in ids):
            raise BirError(f"register {rname!r} id must not be negative, got {rid!r}", rpath)
        func.registers[rname] = Register(rname, ids)
    for bi, b in enumerate(_list(f.get("blocks", []), _path_join(path, "blocks"), "'blocks'")):
        func.blocks.append(_block(b, f"{path}.blocks[{bi}]", ctx))
    func.extra = {k: v for k, v in f.items() if k not in _FUNCTION_KEYS}
    ctx.note_keys("function", func.extra, _FUNCTION_KEYS, path)
    if "registers" in f:
        func.extra["__has_registers__"] = True
    return func


def _location(loc: Any, path: str, index: int) -> MemoryLocation:
    loc = _obj(loc, path, "a memory location")
    if "name" not in loc:
        raise BirError("memory location has no 'name'", path)
    t = loc.get("type")
    try:
        mtype = MemoryType(t)
    except ValueError:
        known = ", ".join(m.value for m in MemoryType)
        raise BirError(f"memory location {loc['name']!r}: unknown type {t!r} (known: {known})", path) from None
    dims = loc.get("dims")
    if dims is not None:
        dims = tuple(_int(d, f"{path}.dims", "dims entry") for d in _list(dims, f"{path}.dims", "'dims'"))
    tid = loc.get("tensor_id")
    known_keys = _LOCATION_KEYS
    ml = MemoryLocation(
        name=str(loc["name"]), type=mtype,
        addr=_int(loc.get("addr", 0), f"{path}.addr", "'addr'"),
        base=_int(loc.get("base", 0), f"{path}.base", "'base'"),
        bank=_int(loc.get("bank", 0), f"{path}.bank", "'bank'"),
        dims=dims,
        tensor_id=None if tid is None else _int(tid, f"{path}.tensor_id", "'tensor_id'"),
        index=index,
        extra={k: v for k, v in loc.items() if k not in known_keys},
        given=frozenset(loc),
    )
    for k in ("addr", "base", "bank"):
        if getattr(ml, k) < 0:
            raise BirError(f"memory location {ml.name!r}: {k!r} must not be negative", path)
    return ml


def _block(b: Any, path: str, ctx: _Ctx) -> Block:
    b = _obj(b, path, "a block")
    insts = _list(b.get("instructions", []), f"{path}.instructions", "'instructions'")
    block = Block(str(b.get("name", "")), extra={k: v for k, v in b.items() if k not in _BLOCK_KEYS})
    ctx.note_keys("block", block.extra, _BLOCK_KEYS, path)
    for ii, inst in enumerate(insts):
        block.instructions.append(_instruction(inst, f"{path}.instructions[{ii}]", ctx))
    return block


def _instruction(d: Any, path: str, ctx: _Ctx) -> Instruction | Loop:
    d = _obj(d, path, "an instruction")
    opcode = d.get("opcode")
    if not isinstance(opcode, str):
        raise BirError(f"instruction has no string 'opcode' (got {opcode!r})", path)
    if opcode == "Loop":
        return _loop(d, path, ctx)
    name = d.get("name", "")
    if not isinstance(name, str):
        raise BirError(f"instruction 'name' must be a string, got {name!r}", path)
    where = f"{path} ({opcode} {name!r})" if name else f"{path} ({opcode})"
    cls = instruction_class(opcode)
    engine = _enum(Engine, d.get("engine", "Unassigned"), f"{where}.engine", "engine", ENGINE_ALIASES)
    ins = ctx.shared_tuple(tuple(_operand(a, f"{where}.ins[{i}]", ctx)
                                 for i, a in enumerate(_list(d.get("ins", []), f"{where}.ins", "'ins'"))))
    outs = ctx.shared_tuple(tuple(_operand(a, f"{where}.outs[{i}]", ctx)
                                  for i, a in enumerate(_list(d.get("outs", []), f"{where}.outs", "'outs'"))))
    sync = _sync(d["sync"], f"{where}.sync", ctx) if "sync" in d else None
    attrs_spec: tuple[Attr, ...] = cls.ATTRS if cls else ()
    attrs: dict[str, Any] = {}
    for a in attrs_spec:
        if a.key not in d:
            if a.required:
                raise BirError(f"{opcode} needs the key {a.key!r}", where)
            continue
        attrs[a.key] = _attr(a, d[a.key], f"{where}.{a.key}")
    for group in (cls.ONE_OF if cls else ()):
        given = [k for k in group if k in attrs]
        if len(given) != 1:
            keys = " or ".join(repr(k) for k in group)
            raise BirError(f"{opcode} needs exactly one of the keys {keys}, got "
                           f"{' and '.join(repr(k) for k in given) or 'neither'}", where)
    attrs = ctx.shared_attrs(attrs)
    consumed = {"opcode", "name", "engine", "ins", "outs", "sync", *(a.key for a in attrs_spec)}
    extra = {k: v for k, v in d.items() if k not in consumed} or NO_EXTRA
    if extra and len(ctx.notes) < MAX_KEY_NOTES:
        seen = (opcode, frozenset(extra))
        if seen not in ctx.key_sets:  # a 100k-instruction kernel repeats its key sets
            ctx.key_sets.add(seen)
            ctx.notes += _misspelt(extra, consumed, where)
    if cls is None:
        return UnknownInstruction(name, engine, ins, outs, attrs, sync, extra, raw_opcode=opcode)
    return cls(name, engine, ins, outs, attrs, sync, extra)


def _attr(a: Attr, v: Any, path: str) -> Any:
    if a.type is bool:
        if not isinstance(v, bool):
            raise BirError(f"{a.key!r} must be true or false, got {v!r}", path)
        return v
    if a.type is int:
        return _int(v, path, repr(a.key))
    if a.type is str:
        if not isinstance(v, str):
            raise BirError(f"{a.key!r} must be a string, got {v!r}", path)
        return v
    if a.type is Number:  # an int or a float, kept as given (its meaning depends on a dtype)
        if isinstance(v, bool) or not isinstance(v, (int, float, str)):
            raise BirError(f"{a.key!r} must be a number (or \"nan\", \"inf\", \"-inf\"), got {v!r}", path)
        return _number(v, path)
    if a.type is float:  # (next families: Activation scale/alpha, TensorScalar const0/const1)
        return float(_number(v, path))
    if a.type is list:  # (next families: Iota pattern) kept as given; codegen reads it
        return _list(v, path, repr(a.key))
    whats: dict[type, str] = {AluOp: "ALU op", AccType: "accumulation type", MemsetMode: "Memset mode"}
    what = whats.get(a.type, a.key)
    # the next families' enums: NKI aliases and refused old spellings (N-26, isa.vector_enums)
    refused = ENUM_REFUSED.get(a.type, {})
    if isinstance(v, str) and v.lower() in refused:
        raise BirError(refused[v.lower()], path)
    return _enum(a.type, v, path, what, ENUM_ALIASES.get(a.type))


def _loop(d: dict[str, Any], path: str, ctx: _Ctx) -> Loop:
    ax = _obj(d.get("LoopAxis", {}), f"{path}.LoopAxis", "'LoopAxis'")
    axis = LoopAxis(
        str(ax.get("name", "")),
        _int(ax.get("lb", 0), f"{path}.LoopAxis.lb", "'lb'"),
        _int(ax.get("ub", 0), f"{path}.LoopAxis.ub", "'ub'"),
        _int(ax.get("stride", 0), f"{path}.LoopAxis.stride", "'stride'"),
        extra={k: v for k, v in ax.items() if k not in _AXIS_KEYS},
    )
    ctx.note_keys("LoopAxis", axis.extra, _AXIS_KEYS, f"{path}.LoopAxis")
    blocks = [_block(b, f"{path}.blocks[{i}]", ctx)
              for i, b in enumerate(_list(d.get("blocks", []), f"{path}.blocks", "'blocks'"))]
    extra = {k: v for k, v in d.items() if k not in ("opcode", "LoopAxis", "blocks")}
    ctx.note_keys("Loop", extra, ("opcode", "LoopAxis", "blocks"), path)
    return Loop(axis, blocks, extra=extra)


def _register(ref: Any, path: str, ctx: _Ctx) -> Register:
    if not isinstance(ref, str):
        raise BirError(f"'regref' must be a register name, got {ref!r}", path)
    reg = ctx.func.registers.get(ref)
    if reg is not None:
        return reg
    m = _REG_LITERAL.match(ref)
    if m:
        return Register(ref, (int(m.group(1)),))
    declared = ", ".join(ctx.func.registers) or "none"
    raise BirError(f"unknown register {ref!r} (declared in 'registers': {declared}; or write r<N>)", path)


def _ap_pairs(v: Any, path: str) -> tuple[APPair, ...]:
    pairs = []
    for i, p in enumerate(_list(v, path, "'ap'")):
        if isinstance(p, dict) and "step" in p and "num" in p:
            p = [p["step"], p["num"]]
        if not isinstance(p, list) or len(p) != 2:
            raise BirError(f"access-pattern pair {i} must be [step, num], got {p!r}", path)
        pairs.append((_int(p[0], f"{path}[{i}]", "step"), _int(p[1], f"{path}[{i}]", "num")))
    return tuple(pairs)


_AP_KEYS = {
    "physical_ap": ("kind", "ap", "dtype", "offset", "memref", "memsetref"),
    "register_ap": ("kind", "ap", "dtype", "memsetref", "regref", "reg_ap_offset", "is_regloc_offset"),
    "symbolic_ap": ("kind", "ap", "dtype", "memsetref"),
    "register_access": ("kind", "dtype", "regref"),
    "imm_value": ("kind", "dtype", "value"),
}


def _operand(a: Any, path: str, ctx: _Ctx) -> Operand:
    a = _obj(a, path, "an operand")
    kind = a.get("kind")
    if not isinstance(kind, str):
        raise BirError(f"operand has no string 'kind' (got {kind!r})", path)
    if kind not in _AP_KEYS:
        return OtherOperand(dict(a))
    extra = {k: v for k, v in a.items() if k not in _AP_KEYS[kind]} or NO_EXTRA
    if extra:
        ctx.note_keys(kind, extra, _AP_KEYS[kind], path)
    if "dtype" not in a:
        raise BirError(f"{kind} operand has no 'dtype'", path)
    dtype = _dtype(a["dtype"], f"{path}.dtype")
    if kind == "imm_value":
        if "value" not in a:
            raise BirError("imm_value has no 'value'", path)
        v = _number(a["value"], f"{path}.value")
        if isinstance(v, int) and not -(1 << 1023) < v < 1 << 1023:  # no dtype holds it, and no float converts it
            raise BirError(f"immediate {brief_int(v)} is too large for any dtype", f"{path}.value")
        return ctx.shared(Immediate, (dtype, v, extra), (type(v), math.copysign(1.0, v) if isinstance(v, float) else 0))
    if kind == "register_access":
        return ctx.shared(RegisterAccess, (dtype, _register(a.get("regref"), f"{path}.regref", ctx), str(a.get("regref")),
                                           extra))
    if "ap" not in a:
        raise BirError(f"{kind} operand has no 'ap'", path)
    ap = _ap_pairs(a["ap"], f"{path}.ap")
    ap = ctx.intern(ctx.aps, ap)
    memsetref = a.get("memsetref")
    if kind == "physical_ap":
        memref = a.get("memref")
        if not isinstance(memref, str):
            raise BirError("physical_ap has no string 'memref' (the memory location name)", path)
        loc = ctx.locations.get(memref)
        if loc is None:
            known = ", ".join(ctx.locations) or "none"
            raise BirError(f"unknown memory location {memref!r} (declared: {known})", f"{path}.memref")
        offset = _int(a.get("offset", 0), f"{path}.offset", "'offset'")
        if offset < 0:
            raise BirError(f"'offset' must not be negative, got {offset}", f"{path}.offset")
        return ctx.shared(PhysicalAP, (dtype, ap, loc, memref, memsetref, offset, extra))
    if kind == "register_ap":
        reg = _register(a.get("regref"), f"{path}.regref", ctx)
        alloc = None
        if memsetref is not None:
            alloc = ctx.allocations.get(memsetref) if isinstance(memsetref, str) else None
            if alloc is None:
                known = ", ".join(ctx.allocations) or "none"
                raise BirError(f"unknown memory-location set {memsetref!r} (declared: {known})", f"{path}.memsetref")
        off = a.get("reg_ap_offset")
        iro = a.get("is_regloc_offset", False)
        if not isinstance(iro, bool):
            raise BirError(f"'is_regloc_offset' must be true or false, got {iro!r}", path)
        return ctx.shared(RegisterAP, (dtype, ap, reg, str(a.get("regref")), memsetref, alloc,
                                       off if off is None else str(off), iro, extra))
    return ctx.shared(SymbolicAP, (dtype, ap, memsetref, extra))


def sync_from_json(value: Any, path: str, ctx: _Ctx) -> SyncInfo:
    """The :class:`SyncInfo` of an instruction's parsed ``sync`` value (as the reader reads it)."""
    return _sync(value, path, ctx)


def _sync(s: Any, path: str, ctx: _Ctx) -> SyncInfo:
    s = _obj(s, path, "'sync'")
    unknown = set(s) - {"wait", "update"}
    if unknown:
        import difflib

        hints = [f"{k!r} -> {c[0]!r}" for k in sorted(unknown)
                 if (c := difflib.get_close_matches(k, ("wait", "update"), n=1, cutoff=0.6))]
        raise BirError(f"unknown key(s) {sorted(unknown)} in 'sync' (expected 'wait' and/or 'update'"
                       + (f"; did you mean {', '.join(hints)}?" if hints else "") + ")", path)

    def items(key: str) -> list[tuple[dict[str, Any], str]]:
        v = s.get(key)
        if v is None:
            return []
        if isinstance(v, list):
            return [(_obj(x, f"{path}.{key}[{i}]", f"a sync {key}"), f"{path}.{key}[{i}]") for i, x in enumerate(v)]
        return [(_obj(v, f"{path}.{key}", f"a sync {key}"), f"{path}.{key}")]

    waits = []
    for w, wpath in items("wait"):
        mode = _enum(WaitMode, w.get("mode"), f"{wpath}.mode", "wait mode")
        index = _int(w.get("index"), f"{wpath}.index", "wait 'index'")
        value = w.get("value")
        reg = None
        if mode == WaitMode.sem_ge_reg:
            if isinstance(value, str):
                reg = _register(value, f"{wpath}.value", ctx)
                value = None
            elif value is not None:
                value = _int(value, f"{wpath}.value", "wait 'value'")
        elif value is not None:
            value = _int(value, f"{wpath}.value", "wait 'value'")
        waits.append(SyncWait(mode, index, value, reg))
    updates = []
    for u, upath in items("update"):
        mode = _enum(UpdateMode, u.get("mode"), f"{upath}.mode", "update mode")
        index = _int(u.get("index"), f"{upath}.index", "update 'index'")
        value = u.get("value")
        if value is not None:
            value = _int(value, f"{upath}.value", "update 'value'")
        updates.append(SyncUpdate(mode, index, value))
    si = SyncInfo(tuple(waits), tuple(updates))
    return ctx.intern(ctx.syncs, si)  # equal sync infos share one (frozen) object


# --- writing --------------------------------------------------------------------------------

def kernel_to_json(k: Kernel) -> dict[str, Any]:
    """The BIR JSON object of a kernel (inverse of :func:`kernel_from_json`)."""
    out: dict[str, Any] = {}
    if k.arch is not None:
        out["arch"] = k.arch
    if k.version is not None:
        out["version"] = k.version
    if k.attributes is not None:
        out["attributes"] = k.attributes
    out["functions"] = [_function_json(f) for f in k.functions]
    out.update(k.extra)
    return out


def write_bir(k: Kernel, indent: int | None = 1) -> str:
    """Serialise a kernel to BIR JSON text."""
    return json.dumps(kernel_to_json(k), indent=indent, allow_nan=False)


def _function_json(f: Function) -> dict[str, Any]:
    out: dict[str, Any] = {"name": f.name, "attributes": f.attributes}
    out["allocations"] = [_allocation_json(a) for a in f.allocations]
    if f.registers or f.extra.get("__has_registers__"):
        out["registers"] = {n: (list(r.ids) if len(r.ids) > 1 else r.ids[0]) for n, r in f.registers.items()}
    out["blocks"] = [_block_json(b) for b in f.blocks]
    out.update({k: v for k, v in f.extra.items() if not k.startswith("__")})
    return out


def _allocation_json(a: Allocation) -> dict[str, Any]:
    out: dict[str, Any] = {k: v for k, v in a.extra.items() if not k.startswith("__")}
    out["name"] = a.name
    if a.locations or a.extra.get("__has_memorylocations__"):
        out["memorylocations"] = [_location_json(m) for m in a.locations]
    return out


def _location_json(m: MemoryLocation) -> dict[str, Any]:
    out: dict[str, Any] = dict(m.extra)
    out.update({"name": m.name, "type": m.type.value})
    for key in ("addr", "base", "bank"):
        if m.given is None or key in m.given or getattr(m, key):
            out[key] = getattr(m, key)
    if m.dims is not None:
        out["dims"] = list(m.dims)
    if m.tensor_id is not None:
        out["tensor_id"] = m.tensor_id
    return out


def _block_json(b: Block) -> dict[str, Any]:
    out: dict[str, Any] = {"name": b.name}
    out.update(b.extra)
    out["instructions"] = [_loop_json(i) if isinstance(i, Loop) else instruction_to_json(i) for i in b.instructions]
    return out


def _loop_json(lp: Loop) -> dict[str, Any]:
    ax: dict[str, Any] = {"name": lp.axis.name, "lb": lp.axis.lb, "ub": lp.axis.ub, "stride": lp.axis.stride}
    ax.update(lp.axis.extra)
    out: dict[str, Any] = {"opcode": "Loop", "LoopAxis": ax}
    out.update(lp.extra)
    out["blocks"] = [_block_json(b) for b in lp.blocks]
    return out


def instruction_to_json(i: Instruction) -> dict[str, Any]:
    """The BIR JSON object of one instruction."""
    out: dict[str, Any] = {"opcode": i.opcode, "name": i.name, "engine": enum_text(i.engine)}
    for a in type(i).ATTRS:
        if a.key in i.attrs:
            out[a.key] = _num(i.attrs[a.key]) if a.type is Number else enum_text(i.attrs[a.key])
    for k, v in i.attrs.items():  # attrs of unknown opcodes
        out.setdefault(k, enum_text(v))
    out["ins"] = [operand_to_json(o) for o in i.ins]
    out["outs"] = [operand_to_json(o) for o in i.outs]
    if i.sync is not None:
        out["sync"] = _sync_json(i.sync)
    out.update(i.extra)
    return out


def _num(v: int | float) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def operand_to_json(o: Operand) -> dict[str, Any]:
    """The BIR JSON object of one operand."""
    if isinstance(o, OtherOperand):
        return dict(o.raw)
    out: dict[str, Any] = {"kind": o.kind, "dtype": enum_text(o.dtype)}
    if isinstance(o, Immediate):
        out["value"] = _num(o.value)
    elif isinstance(o, RegisterAccess):
        out["regref"] = o.regref or o.register.name
    elif isinstance(o, PhysicalAP):
        out["ap"] = [list(p) for p in o.ap]
        out["offset"] = o.offset
        out["memref"] = o.memref or (o.location.name if o.location else "")
        if o.memsetref is not None:
            out["memsetref"] = o.memsetref
    elif isinstance(o, RegisterAP):
        out["ap"] = [list(p) for p in o.ap]
        if o.memsetref is not None:
            out["memsetref"] = o.memsetref
        out["regref"] = o.regref or (o.register.name if o.register else "")
        if o.reg_ap_offset is not None:
            out["reg_ap_offset"] = o.reg_ap_offset
        if o.is_regloc_offset:
            out["is_regloc_offset"] = True
    elif isinstance(o, SymbolicAP):
        out["ap"] = [list(p) for p in o.ap]
        if o.memsetref is not None:
            out["memsetref"] = o.memsetref
    out.update(getattr(o, "extra", {}))
    return out


def _sync_json(s: SyncInfo) -> dict[str, Any]:
    def wait(w: SyncWait) -> dict[str, Any]:
        d: dict[str, Any] = {"mode": enum_text(w.mode), "index": w.index}
        if w.register is not None:
            d["value"] = w.register.name
        elif w.value is not None:
            d["value"] = w.value
        return d

    def update(u: SyncUpdate) -> dict[str, Any]:
        d: dict[str, Any] = {"mode": enum_text(u.mode), "index": u.index}
        if u.value is not None:
            d["value"] = u.value
        return d

    out: dict[str, Any] = {}
    if s.waits:
        out["wait"] = wait(s.waits[0]) if len(s.waits) == 1 else [wait(x) for x in s.waits]
    if s.updates:
        out["update"] = update(s.updates[0]) if len(s.updates) == 1 else [update(x) for x in s.updates]
    return out


Reader = Callable[[Any], Kernel]
