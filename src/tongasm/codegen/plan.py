"""Plans: the one encode path, compiled generically from the layout records.

Every instruction reaching codegen becomes one bundle, and a bundle is the OR of its fields. What a
family's codegen decides (the layout, the opcode, the ALU byte, flags...) depends only on the
instruction's op, attributes, engine and on its operands' kinds, dtypes, values and memory
locations, never on their *geometry* (access-pattern pairs and offsets). The geometry reaches the
bundle only through the layout's :class:`~tongasm.isa.layout.Binding`: descriptor slots, the
partition count, element counts. So:

* the **plan key** of an instruction is built generically: its engine, its attributes (by value
  and type), and per operand either its *head* (kind, dtype, location/value/register: everything
  but the geometry) when the operand's role is one the family's bindings place, else the whole
  operand. No family writes a key by hand, so no attribute can be forgotten in one.
* the **plan** for a key is made once: the family's ``select`` gives the layout and its static
  field values; the binding's dtype fields are added; everything static is placed into one
  integer (:meth:`Format.place`). A generated ``build(inst, bits, *operands)`` then ORs in, per
  instruction, each bound operand's contribution: its slot and the range-checked partition and
  element counts of its role, memoised per operand object (a miss costs the ADDR4 word when the
  access pattern's shape is known: :func:`_slot_miss`); any failure re-runs the fields in their
  declared order, so the error is the one an instruction-at-a-time reading gives.
* per IR class and operand counts, generated functions build the key and run the plan: ``encode``
  (layout and bits) and, for the assembler's GENERATE_ISACODE loop, ``emit`` (the sync band added,
  the bundle appended to its stream and logged, the stream id kept with the plan:
  :meth:`Encoder.emitter`, :class:`Sink`).

GENERATE_ISACODE, RUN_ISA_CHECKS and COLLECT_OPCODES all go through :func:`encode` (the checks
decode the resulting bytes), so there is one path with and without the validator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable, Mapping

from ..errors import EncodeError
from ..isa.fields import Format
from ..isa.layout import Binding
from ..ir.instructions import Instruction
from ..ir.operands import Immediate, Operand, PhysicalAP, RegisterAccess, RegisterAP
from .common import (DESC_MEMO_LIMIT, Addr4Rule, Context, addr4_rule, addr4_word, partitions, slot_part, sync_part,
                     wire)

#: A family's choice for one instruction: its layout and the static field values (opcode included).
Selection = tuple[Format, dict[str, int]]
SelectFn = Callable[[Any, Context], Selection]


@dataclass(frozen=True)
class Family:
    """The codegen of one BIR instruction family: ``select`` (layout and static fields, from
    everything but the geometry of the bound operands) and ``opcodes`` (COLLECT_OPCODES).
    ``bir`` names the family as the opcode records do (:attr:`Op.bir`): the layouts it may select
    are those of the opcodes produced by this family."""

    bir: str
    select: SelectFn
    opcodes: Callable[[Any, Context], list[int]]
    #: where an operand's offset reaches a bundle of the layout ``select`` chose other than through
    #: the binding: ``(inst, layout) → {role: (field, scale)}``, the field holding ``offset × scale``
    #: and the offset read for nothing else (instruction templates place such offsets); None: nowhere
    offset_fields: Callable[[Any, Format], Mapping[str, tuple[str, int]]] | None = None


# --- plan keys -----------------------------------------------------------------------------------

def head_key(op: Operand | None) -> tuple[Any, ...]:
    """What codegen may read of an operand *besides* its geometry: its kind and dtype, an
    immediate's value (with its type and sign, so -0.0, 0.0, 1, 1.0 and True differ), a
    register's ids, an access pattern's location or allocation."""
    t = type(op)
    if t is PhysicalAP:
        return (t, op.dtype, op.location)  # type: ignore[union-attr]
    if t is Immediate:
        v = op.value  # type: ignore[union-attr]
        return (t, op.dtype, type(v), v, math.copysign(1.0, v) if isinstance(v, float) else 0)  # type: ignore[union-attr]
    if t is RegisterAccess:
        return (t, op.dtype, op.register)  # type: ignore[union-attr]
    if t is RegisterAP:
        return (t, op.dtype, op.register, op.allocation, op.reg_ap_offset, op.is_regloc_offset,  # type: ignore[union-attr]
                _hashable(op.extra))  # type: ignore[union-attr]
    if op is None:
        return (None,)
    return (t, id(op))  # anything else is its own key (the memo holds the operand)


def full_key(op: Operand | None) -> tuple[Any, ...]:
    """Everything codegen may read of an operand, geometry included."""
    if isinstance(op, (PhysicalAP, RegisterAP)):
        return (*head_key(op), op.ap, getattr(op, "offset", None), _hashable(op.extra))
    return head_key(op)


def _hashable(v: Any) -> Any:
    """A hashable, type-exact stand-in for an attribute or ``extra`` value."""
    if isinstance(v, Mapping):
        return tuple(sorted(((str(k), _hashable(x)) for k, x in v.items()), key=lambda kv: kv[0]))
    if isinstance(v, (list, tuple)):
        return (type(v), tuple(_hashable(x) for x in v))
    if isinstance(v, float):
        return (float, v, math.copysign(1.0, v))
    try:
        hash(v)
    except TypeError:
        return (type(v), repr(v))
    return (type(v), v)


class Interner:
    """Small-int ids for plan-key parts, memoised per object (operands and attribute maps are
    shared by the BIR reader, so a million instructions have a few thousand of them). The memos
    hold the objects, so an id of one is never taken for another's."""

    __slots__ = ("ids", "heads", "fulls", "attrs")

    def __init__(self) -> None:
        self.ids: dict[Any, int] = {}
        self.heads: dict[Any, int] = {}  # operand object → id of its head key
        self.fulls: dict[Any, int] = {}  # operand object → id of its full key
        self.attrs: dict[int, tuple[Any, int]] = {}  # id(attribute map) → (the map, its id)

    def intern(self, key: Any) -> int:
        i = self.ids.get(key)
        if i is None:
            i = self.ids[key] = len(self.ids) + 1
        return i

    def clear(self) -> None:
        for memo in (self.ids, self.heads, self.fulls, self.attrs):
            memo.clear()

    def head(self, op: Operand | None) -> int:
        i = self.heads[op] = self.intern(head_key(op))
        return i

    def full(self, op: Operand | None) -> int:
        i = self.fulls[op] = self.intern(full_key(op))
        return i

    def attr(self, attrs: Mapping[str, Any]) -> int:
        try:  # the common case: scalar values (enums, ints, bools, strings), keyed with their type
            key: Any = tuple([(k, v.__class__, v) if v.__class__ is not float else (k, float, v, math.copysign(1.0, v))
                              for k, v in attrs.items()])
            hash(key)
        except TypeError:
            key = _hashable(attrs)
        i = self.intern(key)
        self.attrs[id(attrs)] = (attrs, i)
        return i


# --- plans ---------------------------------------------------------------------------------------

class Plan:
    """A memoised plan: the layout, the static field values, their bits (with the layout's
    constants) and the generated ``build(inst, bits, *operands) -> int`` that ORs in the
    per-instruction bits (the operands: ``inst.ins`` then ``inst.outs``, as the encode function
    has read them)."""

    __slots__ = ("fmt", "static", "bits", "build")

    def __init__(self, fmt: Format, static: dict[str, int], bits: int, build: Callable[..., int]) -> None:
        self.fmt, self.static, self.bits, self.build = fmt, static, bits, build


def make_plan(inst: Instruction, ctx: Context, family: Family) -> Plan:
    """Select the layout and static fields of an instruction and compile its plan."""
    fmt, static = family.select(inst, ctx)
    binding = fmt.layout.binding
    roles = type(inst).ROLES
    values = dict(static)
    for fname, role in binding.dtypes.items():
        if fname not in values:
            values[fname] = wire(_operand(inst, roles, role), role)
    bits = fmt.place(values) | fmt.const_bits
    return Plan(fmt, values, bits, _builder(ctx, fmt, binding, roles, len(inst.ins), len(inst.outs)))


def _operand(inst: Instruction, roles: Mapping[str, tuple[bool, int]], role: str) -> Operand | None:
    out, k = roles[role]
    ops = inst.outs if out else inst.ins
    return ops[k] if k < len(ops) else None


def _builder(ctx: Context, fmt: Format, binding: Binding, roles: Mapping[str, tuple[bool, int]],
             n_in: int, n_out: int) -> Callable[..., int]:
    """The generated ``build(inst, bits, *operands)`` of a plan shape (the operands ``inst.ins``
    then ``inst.outs``, ``n_in`` and ``n_out`` of them): the static bits OR each bound slot's bits,
    the range-checked partition count and element counts, each placed where the layout declares it.

    Everything a slot's operand contributes (its slot, and the element and partition counts bound to
    its role) is memoised per operand object, so an operand seen before costs one dict look-up. Any
    failure re-runs :func:`_ordered_builder`'s checks in the declared order, which raise the error
    an instruction-at-a-time reading gives (the first failing field, not the first memo miss)."""
    key = (fmt, tuple(roles.items()), n_in, n_out)  # the binding is the layout's (fmt.layout.binding)
    cache = ctx.builders.get(key)
    if cache is not None:
        return cache
    slow = _ordered_builder(ctx, fmt, binding, roles)
    memos = ctx.op_memo.setdefault(fmt, {name: {} for name in fmt.slots})
    ns: dict[str, Any] = {"err": fmt.range_error, "partitions": partitions, "elements": _elements, "slow": slow}
    params = [f"i{k}" for k in range(n_in)] + [f"o{k}" for k in range(n_out)]
    lines = [f"def build(inst, bits{''.join(', ' + v for v in params)}):", "    try:"]
    terms = ["bits"]

    def var(role: str) -> str:
        out, k = roles[role]
        return f"{'o' if out else 'i'}{k}"

    used = [r for _f, r, _fn in _dynamic(binding)] + [r for n, r in binding.slots.items() if n in fmt.slots]
    if any(var(r) not in params for r in used):  # an operand the layout binds is missing: the ordered path's error
        lines = [f"def build(inst, bits{''.join(', ' + v for v in params)}):", "    return slow(inst, bits)"]
    else:
        slotted = {role for sname, role in binding.slots.items() if sname in fmt.slots}
        for k, (fname, role, fn) in enumerate(_dynamic(binding)):
            if role in slotted:
                continue  # in the role's slot memo
            pos, lo, hi, mask = fmt.placement(fname)
            lines.append(f"        v{k} = {fn}({var(role)}, {role!r})")
            lines.append(f"        if type(v{k}) is not int or not {lo} <= v{k} <= {hi}: raise err({fname!r}, v{k})")
            terms.append(f"((v{k} & {mask}) << {pos})")
        for j, (sname, role) in enumerate(binding.slots.items()):
            if sname not in fmt.slots:  # a decision may drop a slot (D-15): its operand is not encoded
                continue
            ns[f"m{j}"] = memos[sname]
            ns[f"miss{j}"] = _slot_miss(ctx, fmt, sname, role, memos[sname])
            lines += [f"        s{j} = m{j}.get({var(role)})", f"        if s{j} is None: s{j} = miss{j}({var(role)})"]
            terms.append(f"s{j}")
        lines += [f"        return {' | '.join(terms)}", "    except Exception:", "        return slow(inst, bits)"]
    exec(compile("\n".join(lines) + "\n", f"<tongasm plan builder {fmt.name}>", "exec"), ns)
    built: Callable[..., int] = ns["build"]
    ctx.builders[key] = built
    return built


def _dynamic(binding: Binding) -> list[tuple[str, str, str]]:
    """(field, role, function) of the per-instruction counts, in the order they are checked: the
    element counts, then the partition counts (num_partitions, and the PE's K and M)."""
    return ([(f, r, "elements") for f, r in binding.elements.items()]
            + [(f, r, "partitions") for f, r in binding.partition_fields.items()])


def _ordered_builder(ctx: Context, fmt: Format, binding: Binding,
                     roles: Mapping[str, tuple[bool, int]]) -> Callable[[Instruction, int], int]:
    """``build(inst, bits)`` without memos, in the declared order: the operands fetched, then the
    element counts, the partition counts and the slots checked, each raising for its own operand.
    What a failure in the memoised builder re-runs, so its error is the one reading the fields in
    order gives."""
    dynamic = [(fname, role, _elements if fn == "elements" else partitions, fmt.placement(fname))
               for fname, role, fn in _dynamic(binding)]
    slots = [(fmt.slots[sname], role) for sname, role in binding.slots.items() if sname in fmt.slots]
    order = list(dict.fromkeys([role for _f, role, _fn, _p in dynamic] + [role for _s, role in slots]))
    where = [(role, *roles[role]) for role in order]

    def build(inst: Instruction, bits: int) -> int:
        ops = {role: (inst.outs if out else inst.ins)[k] for role, out, k in where}
        for fname, role, fn, (pos, lo, hi, mask) in dynamic:
            v = fn(ops[role], role)
            if type(v) is not int or not lo <= v <= hi:
                raise fmt.range_error(fname, v)
            bits |= (v & mask) << pos
        for s, role in slots:
            bits |= slot_part(ops[role], fmt, s, ctx)[1]
        return bits

    return build


def _elements(op: Operand | None, role: str) -> int:
    n = getattr(op, "elements_per_partition", None)
    if n is None:
        got = "nothing" if op is None else op.kind
        raise EncodeError(f"{role} must be an access pattern, got {got}", field=role, check="operands.shape")
    return int(n)


def _slot_miss(ctx: Context, fmt: Format, sname: str, role: str,
               memo: dict[Any, int]) -> Callable[[Operand | None], int]:
    """What an operand not seen before in slot ``sname`` contributes: the slot's bits, and the element
    and partition counts the binding takes from its role, range-checked and placed; memoised.

    A physical access pattern in a D-6 slot whose shape (all but its offset) was seen before costs
    its ADDR4 word only (:func:`~tongasm.codegen.common.addr4_word`, memoised per operand object:
    the word does not depend on the slot): the shape's bits were made, and checked, by the ordinary
    path the first time. Anything else, and any word :func:`addr4_word` cannot vouch for, takes the
    ordinary path (:func:`slot_part`), which raises its exact error. (This is
    :func:`~tongasm.codegen.common.physical_part`'s shape memo again, kept with the counts and
    without the descriptor tuple: going through ``slot_part`` and computing the counts per miss
    costs 4 % more machine instructions per instruction on the wide benchmark kernel, callgrind.)"""
    s = fmt.slots[sname]
    counts = [(fname, _elements if fn == "elements" else partitions, fmt.placement(fname))
              for fname, r, fn in _dynamic(fmt.layout.binding) if r == role]
    shaped = s.packing == "free-dims"
    pos, _lo, hi, mask = fmt.placement(f"{sname}.addr") if shaped else (0, 0, 0, 0)
    clear = ~(mask << pos)
    shapes: dict[tuple[Any, ...], tuple[int, Addr4Rule]] = {}  # (location, dtype, pairs) → (bits but the word, rule)
    words = ctx.addr4_memo

    def miss(op: Operand | None) -> int:
        if len(memo) >= DESC_MEMO_LIMIT:
            memo.clear()
        if shaped and type(op) is PhysicalAP:
            skey = (op.location, op.dtype, op.ap)
            shape = shapes.get(skey)
            if shape is not None:
                word = words.get(op)
                if word is None:
                    word = addr4_word(shape[1], op.offset)
                    if word is not None:
                        if len(words) >= DESC_MEMO_LIMIT:
                            words.clear()
                        words[op] = word
                if word is not None and word <= hi:
                    bits = memo[op] = shape[0] | (word << pos)
                    return bits
        bits = slot_part(op, fmt, s, ctx)[1]
        for fname, fn, (fpos, lo, fhi, fmask) in counts:
            v = fn(op, role)
            if type(v) is not int or not lo <= v <= fhi:
                raise fmt.range_error(fname, v)
            bits |= (v & fmask) << fpos
        if shaped and type(op) is PhysicalAP:
            if len(shapes) >= DESC_MEMO_LIMIT:
                shapes.clear()
            shapes[(op.location, op.dtype, op.ap)] = (bits & clear, addr4_rule(op, fmt, s))
        memo[op] = bits
        return bits

    return miss


# --- the encode path -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Sink:
    """Where an emitter (:meth:`Encoder.emitter`) puts an instruction's bundle: the output streams by
    stream id, the stream id of an instruction (``route``; it depends only on what the plan key
    holds), and the appenders of the bundle log (per bundle its instruction index << 8 | its stream
    id; per instruction its name (the instruction itself when ``retain``) and BIR opcode id)."""

    streams: list[bytearray]
    route: Callable[[Instruction], int]
    log_bundle: Callable[[int], None]  # per bundle: its instruction's index << 8 | its stream id
    log_name: Callable[[Any], None]
    log_bir: Callable[[int], None]
    retain: bool


class Encoder:
    """Per context: the plans, and per IR class and operand count a generated ``encode(inst)`` that
    builds the plan key, finds (or makes) the plan and runs its builder."""

    __slots__ = ("ctx", "interner", "plans", "fns", "geometry", "shapes", "emit_memos")

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.interner = Interner()
        self.plans: dict[Any, tuple[Format, Callable[..., int], int]] = {}
        self.fns: dict[tuple[type, int, int], Any] = {}
        self.geometry: dict[str, frozenset[str]] = {}
        self.shapes: dict[tuple[type, int, int], int] = {}  # (IR class, operand counts) → the plan keys' first part
        self.emit_memos: list[dict[Any, Any]] = []  # the emitters' plan memos (keyed like the plans)

    def geometry_roles(self, family: Family) -> frozenset[str]:
        """The roles whose geometry reaches the bundle only through the bindings of the layouts
        this family produces (read off the layout records)."""
        hit = self.geometry.get(family.bir)
        if hit is None:
            roles: set[str] = set()
            for layout in self.ctx.formats.layouts.values():  # the records: no codec is compiled here
                if any(o.bir == family.bir for o in layout.opcodes):
                    roles |= layout.binding.geometry_roles
            hit = self.geometry[family.bir] = frozenset(roles)
        return hit

    def function(self, cls: type[Instruction], n_in: int, n_out: int,
                 family: Family) -> Callable[[Instruction], tuple[Format, int]]:
        """The generated ``encode(inst) -> (layout, bits)`` of an IR class with this many operands:
        the plan key (engine, attributes, and per operand its head or whole key, interned), then
        the plan's builder."""
        k = (cls, n_in, n_out)
        fn = self.fns.get(k)
        if fn is None:
            fn = self.fns[k] = self._generate(cls, n_in, n_out, family, "encode")
        return fn

    def emitter(self, cls: type[Instruction], n_in: int, n_out: int, family: Family, sink: Sink, bid: int,
                other: Callable[[Instruction, int], None]) -> Callable[[Instruction, int], None]:
        """The generated ``emit(inst, index)`` of the assembler's GENERATE_ISACODE loop: the bundle of
        :meth:`function`'s bits and the instruction's sync band (:func:`~tongasm.codegen.common.sync_part`)
        appended to the instruction's stream and logged in ``sink`` (BIR opcode id ``bid``), the
        stream id kept with the plan. An instruction with other operand counts is passed to ``other``."""
        return self._generate(cls, n_in, n_out, family, "emit", sink, bid, other)

    def _generate(self, cls: type[Instruction], n_in: int, n_out: int, family: Family, mode: str,
                  sink: Sink | None = None, bid: int = 0, other: Any = None) -> Any:
        geo = self.geometry_roles(family)
        by_pos = {(out, idx): role for role, (out, idx) in cls.ROLES.items()}
        it = self.interner
        # the plan key's first part: one small int per IR class and operand counts (two instructions
        # alike but for their opcode differ; the plan's builder takes the operands as arguments)
        shape = self.shapes.setdefault((cls, n_in, n_out), len(self.shapes) + 1)
        ns: dict[str, Any] = {"H": it.heads, "F": it.fulls, "head": it.head, "full": it.full, "A": it.attrs,
                              "attr": it.attr, "P": self.plans, "miss": self._miss, "family": family,
                              "sync_part": sync_part, "ctx": self.ctx, "S": {}, "LIMIT": DESC_MEMO_LIMIT}
        ops = [f"i{k}" for k in range(n_in)] + [f"o{k}" for k in range(n_out)]
        if mode == "emit":
            # the operands by unpacking: other counts raise ValueError (before anything is logged)
            lines = ["def encode(inst, index):", "    try:"]
            lines.append(f"        {''.join(v + ', ' for v in ops[:n_in])}= inst.ins" if n_in else
                         "        if inst.ins: raise ValueError")
            lines.append(f"        {''.join(v + ', ' for v in ops[n_in:])}= inst.outs" if n_out else
                         "        if inst.outs: raise ValueError")
            lines += ["    except ValueError:", "        return other(inst, index)"]
        else:
            lines = ["def encode(inst):"]
            if n_in:
                lines.append("    i = inst.ins")
            if n_out:
                lines.append("    o = inst.outs")
            lines += [f"    {v} = {v[0]}[{v[1:]}]" for v in ops]
        lines += ["    a = inst.attrs", "    h = A.get(id(a))", "    aid = h[1] if h is not None and h[0] is a else attr(a)"]
        for var in ops:
            memo, make = ("H", "head") if by_pos.get((var[0] == "o", int(var[1:]))) in geo else ("F", "full")
            lines.append(f"    {var}k = {memo}.get({var}) or {make}({var})")
        lines.append(f"    key = ({', '.join([str(shape), 'inst.engine', 'aid'] + [v + 'k' for v in ops])},)")
        args = "".join(", " + v for v in ops)
        if mode == "encode":
            lines += ["    p = P.get(key)", "    if p is None: p = miss(inst, key, family)",
                      f"    return p[0], p[1](inst, p[2]{args})"]
        else:
            assert sink is not None
            emo: dict[Any, Any] = {}
            self.emit_memos.append(emo)
            ns.update(E=emo, emiss=self._emit_miss(emo, family, sink), other=other, BID=bid,
                      LG=sink.log_bundle, LN=sink.log_name, LB=sink.log_bir)
            # the sync band: memoised here on the sync object (the reader shares equal ones) and the
            # layout, the memo holding both so an id stays its own; else sync_part
            lines += ["    p = E.get(key)",
                      "    if p is None: p = emiss(inst, key)",
                      f"    b = p[1](inst, p[2]{args})",
                      "    s = inst.sync",
                      "    if s is not None:",
                      "        f = p[0]",
                      "        h = S.get(id(s))",
                      "        if h is not None and h[0] is s and h[1] is f:",
                      "            b |= h[2]",
                      "        else:",
                      f"            u = sync_part(ctx, f, s, sp_op={cls.FAMILY == 'sp'})",
                      "            if len(S) >= LIMIT: S.clear()",
                      "            S[id(s)] = (s, f, u)",
                      "            b |= u",
                      f"    LN(inst{'' if sink.retain else '.name'})",
                      "    LB(BID)",
                      "    st = p[4]",
                      "    st += b.to_bytes(64, 'little')",
                      "    LG(index << 8 | p[3])"]
        exec(compile("\n".join(lines) + "\n", f"<tongasm {mode} {cls.__name__}/{n_in}/{n_out}>", "exec"), ns)
        return ns["encode"]

    def _emit_miss(self, memo: dict[Any, Any], family: Family,
                   sink: Sink) -> Callable[[Instruction, Any], tuple[Any, ...]]:
        """An emitter's plan look-up on a miss: the instruction's stream (its errors first, as when
        the stream is chosen before encoding), then the plan, kept with the stream id and stream."""
        def emiss(inst: Instruction, key: Any) -> tuple[Any, ...]:
            sid = sink.route(inst)
            p = self.plans.get(key)
            if p is None:
                p = self._miss(inst, key, family)
            entry = (*p, sid, sink.streams[sid])
            if len(memo) >= DESC_MEMO_LIMIT:
                memo.clear()
            if key in self.plans:  # (not when the miss restarted the ids: the key is stale)
                memo[key] = entry
            return entry

        return emiss

    def encode(self, inst: Instruction, family: Family) -> tuple[Format, int]:
        """The layout and the bits (without the sync band) of one instruction's bundle."""
        ins, outs = inst.ins, inst.outs
        fn = self.fns.get((type(inst), len(ins), len(outs)))
        if fn is None:
            fn = self.function(type(inst), len(ins), len(outs), family)
        return fn(inst)

    def _miss(self, inst: Instruction, key: Any, family: Family) -> tuple[Format, Callable[..., int], int]:
        plan = make_plan(inst, self.ctx, family)
        entry = (plan.fmt, plan.build, plan.bits)
        if len(self.plans) >= DESC_MEMO_LIMIT or len(self.interner.ids) >= 4 * DESC_MEMO_LIMIT:
            self.reset()  # the key's ids are the old interner's: this plan is not stored, the next one will be
        else:
            self.plans[key] = entry
        return entry

    def reset(self) -> None:
        """Drop every memo (bounded memory on kernels with no repetition). The memos are cleared in
        place, so the generated functions (which hold them) stay valid and ids restart together."""
        self.interner.clear()
        self.plans.clear()
        for memo in self.emit_memos:
            memo.clear()
