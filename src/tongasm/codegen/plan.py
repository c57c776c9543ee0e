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
  integer (:meth:`Format.place`). A generated ``build(inst)`` then ORs in, per instruction, each
  bound slot (memoised per operand object, then per access pattern: :func:`slot_part`), the
  range-checked partition count and element counts.

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
from .common import DESC_MEMO_LIMIT, Context, physical_part, partitions, slot_part, wire

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
    constants) and the generated ``build(inst, bits) -> int`` that ORs in the per-instruction bits."""

    __slots__ = ("fmt", "static", "bits", "build")

    def __init__(self, fmt: Format, static: dict[str, int], bits: int,
                 build: Callable[[Instruction, int], int]) -> None:
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
    return Plan(fmt, values, bits, _builder(ctx, fmt, binding, roles))


def _operand(inst: Instruction, roles: Mapping[str, tuple[bool, int]], role: str) -> Operand | None:
    out, k = roles[role]
    ops = inst.outs if out else inst.ins
    return ops[k] if k < len(ops) else None


def _builder(ctx: Context, fmt: Format, binding: Binding,
             roles: Mapping[str, tuple[bool, int]]) -> Callable[[Instruction, int], int]:
    """The generated ``build(inst)`` of a plan shape: the static bits OR each bound slot's bits
    (memoised per operand object, then per access pattern), the range-checked partition count and
    element counts, each placed where the layout declares it."""
    key = (fmt, tuple(roles.items()))  # the binding is the layout's (fmt.layout.binding)
    cache = ctx.builders.get(key)
    if cache is not None:
        return cache
    memos = ctx.op_memo.setdefault(fmt, {name: {} for name in fmt.slots})
    ns: dict[str, Any] = {"err": fmt.range_error, "partitions": partitions, "EncodeError": EncodeError}
    lines = ["def build(inst, bits):", "    i = inst.ins", "    o = inst.outs"]
    terms = ["bits"]
    fetched: dict[str, str] = {}

    def fetch(role: str) -> str:
        var = fetched.get(role)
        if var is None:
            out, k = roles[role]
            var = fetched[role] = f"x{len(fetched)}"
            lines.append(f"    {var} = {'o' if out else 'i'}[{k}]")
        return var

    # element counts, the partition count, then the slots (each raises for its own operand)
    dynamic: list[tuple[str, str, str]] = []
    for fname, role in binding.elements.items():
        ns["elements"] = _elements
        dynamic.append((fname, role, f"elements({fetch(role)}, {role!r})"))
    for fname, role in binding.partition_fields.items():  # num_partitions, and the PE's K and M
        dynamic.append((fname, role, f"partitions({fetch(role)}, {role!r})"))
    for k, (fname, _role, expr) in enumerate(dynamic):
        pos, lo, hi, mask = fmt.placement(fname)
        lines.append(f"    v{k} = {expr}")
        lines.append(f"    if type(v{k}) is not int or not {lo} <= v{k} <= {hi}: raise err({fname!r}, v{k})")
        terms.append(f"((v{k} & {mask}) << {pos})")
    for j, (sname, role) in enumerate(binding.slots.items()):
        if sname not in fmt.slots:  # a decision may drop a slot (D-15): its operand is not encoded
            continue
        var = fetch(role)
        ns[f"m{j}"] = memos[sname]
        ns[f"miss{j}"] = _slot_miss(ctx, fmt, sname, memos[sname])
        lines += [f"    s{j} = m{j}.get({var})", f"    if s{j} is None: s{j} = miss{j}({var})"]
        terms.append(f"s{j}")
    lines.append(f"    return {' | '.join(terms)}")
    exec(compile("\n".join(lines) + "\n", f"<tongasm plan builder {fmt.name}>", "exec"), ns)
    built: Callable[[Instruction, int], int] = ns["build"]
    ctx.builders[key] = built
    return built


def _elements(op: Operand | None, role: str) -> int:
    n = getattr(op, "elements_per_partition", None)
    if n is None:
        got = "nothing" if op is None else op.kind
        raise EncodeError(f"{role} must be an access pattern, got {got}", field=role, check="operands.shape")
    return int(n)


def _slot_miss(ctx: Context, fmt: Format, sname: str, memo: dict[Any, int]) -> Callable[[Operand | None], int]:
    s = fmt.slots[sname]
    direct = s.packing == "free-dims"  # a physical AP in a D-6 slot: straight to its shape memo

    def miss(op: Operand | None) -> int:
        bits = (physical_part(op, fmt, s, ctx) if direct and type(op) is PhysicalAP else slot_part(op, fmt, s, ctx))[1]
        if len(memo) >= DESC_MEMO_LIMIT:
            memo.clear()
        memo[op] = bits
        return bits

    return miss


# --- the encode path -----------------------------------------------------------------------------

class Encoder:
    """Per context: the plans, and per IR class and operand count a generated ``encode(inst)`` that
    builds the plan key, finds (or makes) the plan and runs its builder."""

    __slots__ = ("ctx", "interner", "plans", "fns", "geometry")

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.interner = Interner()
        self.plans: dict[Any, tuple[Format, Callable[[Instruction, int], int], int]] = {}
        self.fns: dict[tuple[type, int, int], Callable[[Instruction], tuple[Format, int]]] = {}
        self.geometry: dict[str, frozenset[str]] = {}

    def geometry_roles(self, family: Family) -> frozenset[str]:
        """The roles whose geometry reaches the bundle only through the bindings of the layouts
        this family produces (read off the layout records)."""
        hit = self.geometry.get(family.bir)
        if hit is None:
            roles: set[str] = set()
            for fmt in self.ctx.formats:
                if any(o.bir == family.bir for o in fmt.layout.opcodes):
                    roles |= fmt.layout.binding.geometry_roles
            hit = self.geometry[family.bir] = frozenset(roles)
        return hit

    def function(self, cls: type[Instruction], n_in: int, n_out: int,
                 family: Family) -> Callable[[Instruction], tuple[Format, int]]:
        """The generated ``encode(inst) -> (layout, bits)`` of an IR class with this many operands:
        the plan key (engine, attributes, and per operand its head or whole key, interned), then
        the plan's builder."""
        k = (cls, n_in, n_out)
        fn = self.fns.get(k)
        if fn is not None:
            return fn
        geo = self.geometry_roles(family)
        by_pos = {(out, idx): role for role, (out, idx) in cls.ROLES.items()}
        it = self.interner
        ns: dict[str, Any] = {"H": it.heads, "F": it.fulls, "head": it.head, "full": it.full, "A": it.attrs,
                              "attr": it.attr, "P": self.plans, "miss": self._miss, "family": family, "C": cls}
        lines = ["def encode(inst):", "    a = inst.attrs", "    h = A.get(id(a))",
                 "    aid = h[1] if h is not None and h[0] is a else attr(a)"]
        parts = ["C", "inst.engine", "aid"]  # the class too: two instructions alike but for their opcode differ
        if n_in:
            lines.append("    i = inst.ins")
        if n_out:
            lines.append("    o = inst.outs")
        for out, n in ((False, n_in), (True, n_out)):
            for idx in range(n):
                var = f"{'o' if out else 'i'}{idx}"
                lines.append(f"    {var} = {'o' if out else 'i'}[{idx}]")
                memo, make = ("H", "head") if by_pos.get((out, idx)) in geo else ("F", "full")
                lines.append(f"    {var}k = {memo}.get({var}) or {make}({var})")
                parts.append(f"{var}k")
        lines += [f"    key = ({', '.join(parts)},)",
                  "    p = P.get(key)",
                  "    if p is None: p = miss(inst, key, family)",
                  "    return p[0], p[1](inst, p[2])"]
        exec(compile("\n".join(lines) + "\n", f"<tongasm encode {cls.__name__}/{n_in}/{n_out}>", "exec"), ns)
        fn = self.fns[k] = ns["encode"]
        return fn

    def encode(self, inst: Instruction, family: Family) -> tuple[Format, int]:
        """The layout and the bits (without the sync band) of one instruction's bundle."""
        ins, outs = inst.ins, inst.outs
        fn = self.fns.get((type(inst), len(ins), len(outs)))
        if fn is None:
            fn = self.function(type(inst), len(ins), len(outs), family)
        return fn(inst)

    def _miss(self, inst: Instruction, key: Any, family: Family) -> tuple[Format, Callable[[Instruction, int], int], int]:
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
