"""Codegen of the instructions whose BIR form a layout record declares (:class:`~tongasm.isa.layout.BirForm`).

Such a layout needs no family code: the opcode is the layout's only opcode, each declared attribute
fills its field (through its ``wire`` map, or as its integer value), and the binding places the
dtype fields, descriptor slots, partition count and element counts. Values that do not fit their
field are refused by :meth:`~tongasm.isa.fields.Format.place`, naming the layout, the field, the
value and the limit.
"""

from __future__ import annotations

import enum
from functools import cache
from typing import Any

from ..errors import EncodeError
from ..isa.fields import Format
from ..ir.instructions import DeclaredInstruction
from .common import Context
from .plan import Family


def _layout(inst: DeclaredInstruction, ctx: Context) -> Format:
    fmt = ctx.formats.by_name.get(type(inst).LAYOUT)
    if fmt is None:
        raise EncodeError(f"{inst.opcode}: its layout {type(inst).LAYOUT!r} is not declared under this decision "
                          "selection", field="opcode", value=inst.opcode, check="opcode.supported")
    return fmt


def declared_opcodes(inst: DeclaredInstruction, ctx: Context) -> list[int]:
    form = type(inst).FORM
    n_in = (sum(not r.endswith("?") for r in form.ins), len(form.ins))
    n_out = (sum(not r.endswith("?") for r in form.outs), len(form.outs))
    if not (n_in[0] <= len(inst.ins) <= n_in[1] and n_out[0] <= len(inst.outs) <= n_out[1]):
        shape = f"ins = [{', '.join(form.ins)}] and outs = [{', '.join(form.outs)}]"
        raise EncodeError(f"{form.opcode} needs {shape}; got {len(inst.ins)} input(s) and {len(inst.outs)} "
                          "output(s)", check="operands.shape")
    fmt = _layout(inst, ctx)
    return [next(iter(fmt.opcodes))]


def declared_select(inst: DeclaredInstruction, ctx: Context) -> tuple[Format, dict[str, int]]:
    """The layout and its static fields: the opcode and the declared attributes."""
    opcode = declared_opcodes(inst, ctx)[0]
    fmt = _layout(inst, ctx)
    values: dict[str, int] = {"opcode": opcode}
    for a in type(inst).FORM.attrs:
        v = inst.attr(a.key)
        if a.field not in fmt.field_map:  # the field is not declared under this decision selection (R-27=zero)
            if v is not None and v != a.default:
                raise EncodeError(f"{inst.opcode} {a.key} = {v!r} has no field under this decision selection",
                                  field=a.key, value=v, limit=repr(a.default), check="field.range")
            continue
        if v is None:
            if a.required:
                raise EncodeError(f"{inst.opcode} needs the attribute {a.key!r}", field=a.key, check="operands.shape")
            continue
        values[a.field] = _wire(inst.opcode, a.key, a.field, v, a.wire)
    return fmt, values


def _wire(opcode: str, key: str, field: str, v: Any, wire: Any) -> int:
    if wire is not None:
        if v not in wire:
            known = ", ".join(getattr(k, "name", str(k)) for k in wire)
            raise EncodeError(f"{opcode} {key} {getattr(v, 'name', v)!r} has no wire value (known: {known})",
                              field=field, value=getattr(v, "name", v), limit=known, check="field.range")
        return int(wire[v])
    if isinstance(v, (bool, enum.IntEnum)) or type(v) is int:
        return int(v)
    raise EncodeError(f"{opcode} {key} must be an integer, got {v!r}", field=field, value=v, check="field.range")


@cache
def declared_family(cls: type[DeclaredInstruction]) -> Family:
    """The codegen of a declared instruction class."""
    return Family(cls.FORM.opcode, declared_select, declared_opcodes)
