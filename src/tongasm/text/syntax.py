"""The text form of a bundle: how its fields are written as operands, and how they are read back.

One instruction is ``MNEMONIC operand, operand, ..., [wait ... / upd ...]``:

* access patterns: ``sb[p0:128]+0x1000[64x4][1x512].float32`` — space (``sb``, ``psum.bN``, a register
  ``r7``, or a raw ``addr(0x...)`` word), start partition and partition count, byte offset, the
  free dims outermost first as ``[STEPxNUM]`` (decimal, elements), then the wire dtype;
* registers ``r5``, register pairs ``r10:r11``; immediates ``1.5:float32`` (a ``0x`` value is the raw
  bit pattern); enums by name (``op=add``, ``acc=ZeroAccumulate``);
* sync ``wait sem3>=5 / upd sem4+=1`` (``sem3>=r4``, ``evt3``; ``sem4-=2``, ``sem4++``, ``sem4--``,
  ``sem4=7``, ``evt4``);
* any field the operands do not cover, when it differs from its default, as ``field=value``; bytes
  that no field explains as ``@+0x3c=55aa``.

The printer writes every field whose value differs from what the parser would assume, so
bytes → text → bytes is the identity for every bundle tongasm can decode. Each format's operand
list (its *template*) is declared once below; the field offsets come from the format tables.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from typing import Any
from dataclasses import dataclass, field
from collections.abc import Callable, Iterable, Iterator, Mapping

from ..errors import TongasmError, brief_int
from ..isa.decisions import DecisionSet
from ..isa.decisions.dma import Addr8Modes
from ..isa.decisions.spec import FreeDimOrder, UpdateModeWire
from ..isa.descriptors import PSUM_BANK_BYTES, PSUM_PARTITION_SHIFT, SBUF_PARTITION_SHIFT, addr4_psum, addr4_register, addr4_sbuf, decode_addr4
from ..isa.enums import VALUELESS_UPDATES, WAIT_WIRE, UpdateMode, WaitMode, WireDtype
from ..isa.fields import BUNDLE_SIZE, NONZERO, EnumTable, Field, Format, Slot
from ..isa.layout import (
    HEADER_SYNC, Addr8Text, AsciiText, LanesText, SyncLanes, ApText, DtypeText, EnumText, ImmText, IntText, M2dText, PairText,
    RegText, ScalarText, ShapeText, TextOp, VarText,
)

# --- value spellings ---------------------------------------------------------------------------------

DTYPE_TEXT = {w.value: w.name.lower() for w in WireDtype}
TEXT_DTYPE = {v: k for k, v in DTYPE_TEXT.items()}
#: BIR names a person may type; each maps to its wire tag.
TEXT_DTYPE.update({"float8e3": 13, "float8e4": 14, "float8e5": 15, "float8_e4m3fn": 14, "float8_e5m2": 15,
                   "float8_e3m4": 13})
_INT_WIRE = {1: (8, False), 2: (1, True), 3: (1, False), 4: (2, True), 5: (2, False), 8: (4, True), 9: (4, False),
             12: (8, True)}
#: Float wire tags and the BIR dtype whose element type reads them (0x0E as e4m3fn, like the simulator's S-3).
_FLOAT_WIRE = {6: "bfloat16", 7: "float16", 10: "float32", 11: "float32", 13: "float8e3", 14: "float8_e4m3fn",
               15: "float8e5"}


class ParseError(TongasmError):
    """A text error at a column of the instruction (the assembler adds the file and line)."""

    def __init__(self, message: str, col: int = 0) -> None:
        self.col = col
        self.detail = message
        super().__init__(message)


def dtype_text(w: int) -> str:
    return DTYPE_TEXT.get(w, f"dt({w})")


def parse_dtype(text: str, col: int = 0) -> int:
    t = text.strip().lower()
    if t in TEXT_DTYPE:
        return TEXT_DTYPE[t]
    m = re.fullmatch(r"dt\((\d+)\)", t)
    if m:
        return int(m.group(1))
    raise ParseError(f"unknown dtype {text!r} (wire names: {', '.join(DTYPE_TEXT.values())}; or dt(N))", col)


def parse_int(text: str, col: int = 0) -> int:
    try:
        return int(text.strip(), 0)
    except ValueError:
        raise ParseError(f"expected an integer, got {text!r}", col) from None


def _float_from_bits(bits: int, w: int) -> float:
    import numpy as np

    from ..numeric import numpy_dtype
    from ..isa.enums import Dtype

    size = {6: 2, 7: 2, 10: 4, 11: 4, 13: 1, 14: 1, 15: 1}[w]
    dt = numpy_dtype(Dtype[_FLOAT_WIRE[w]]) if w not in (10, 11) else np.dtype(np.float32)
    arr = np.array([bits], dtype={1: np.uint8, 2: np.uint16, 4: np.uint32}[size]).view(dt)
    with np.errstate(invalid="ignore"):  # a NaN payload (bfloat16 0x7f81) is a NaN, not a warning
        return float(arr.astype(np.float64)[0])


def _bits_from_float(v: float, w: int) -> int:
    import numpy as np

    from ..numeric import numpy_dtype
    from ..isa.enums import Dtype

    size = {6: 2, 7: 2, 10: 4, 11: 4, 13: 1, 14: 1, 15: 1}[w]
    dt = numpy_dtype(Dtype[_FLOAT_WIRE[w]]) if w not in (10, 11) else np.dtype(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        arr = np.array([v], dtype=np.float64).astype(dt)
    return int(arr.view({1: np.uint8, 2: np.uint16, 4: np.uint32}[size])[0])


def value_text(bits: int, w: int, width: int) -> str:
    """An immediate's bits as ``value:dtype``; raw ``0x`` bits when the value would not read back."""
    if w in _INT_WIRE:
        size, signed = _INT_WIRE[w]
        if bits < (1 << (8 * size)):
            v = bits - (1 << (8 * size)) if signed and bits >> (8 * size - 1) else bits
            return f"{v}:{dtype_text(w)}"
    elif w in _FLOAT_WIRE:
        size = {6: 2, 7: 2, 10: 4, 11: 4, 13: 1, 14: 1, 15: 1}[w]
        if bits < (1 << (8 * size)):
            f = _float_from_bits(bits, w)
            if not math.isnan(f):
                text = repr(f) if math.isfinite(f) else ("inf" if f > 0 else "-inf")
                if _bits_from_float(float(text), w) == bits:
                    return f"{text}:{dtype_text(w)}"
    return f"{bits:#x}:{dtype_text(w)}"


def parse_value(text: str, width_bits: int, col: int = 0) -> tuple[int, int]:
    """``value:dtype`` → (bits, wire dtype). A ``0x`` value is the raw bit pattern."""
    val, sep, dt = text.strip().rpartition(":")
    if not sep:
        raise ParseError(f"an immediate needs its dtype, like 1.5:float32 (got {text!r})", col)
    w = parse_dtype(dt, col + len(val) + 1)
    val = val.strip()
    if re.fullmatch(r"[+-]?0[xX][0-9a-fA-F]+", val):
        bits = int(val, 16)
        if bits < 0:
            raise ParseError(f"raw bits cannot be negative: {val!r}", col)
        return bits, w
    if w in _INT_WIRE:
        size, signed = _INT_WIRE[w]
        v = parse_int(val, col)
        lo, hi = (-(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1) if signed else (0, (1 << (8 * size)) - 1)
        if not lo <= v <= hi:
            raise ParseError(f"{brief_int(v)} does not fit {dtype_text(w)} ({lo}..{hi})", col)
        return v & ((1 << (8 * size)) - 1), w
    if w in _FLOAT_WIRE:
        try:
            f = float(val)
        except ValueError:
            raise ParseError(f"expected a number, got {val!r}", col) from None
        return _bits_from_float(f, w), w
    raise ParseError(f"give a raw 0x value for dtype {dt.strip()!r}", col)


def enum_text(table: EnumTable, v: int) -> str:
    return table.names.get(v, f"{v:#x}")


def parse_enum(table: EnumTable, text: str, col: int = 0) -> int:
    t = text.strip()
    for k, name in table.names.items():
        if name.lower() == t.lower():
            return k
    if re.fullmatch(r"[+-]?(0[xX][0-9a-fA-F]+|\d+)", t):
        return parse_int(t, col)
    raise ParseError(f"unknown {table.name} {t!r} (known: {', '.join(table.names.values())}; or a number)", col)


def reg_text(v: int) -> str:
    return f"r{v}"


def parse_reg(text: str, col: int = 0) -> int:
    m = re.fullmatch(r"[rR](\d+)", text.strip())
    if not m:
        raise ParseError(f"expected a register like r5, got {text!r}", col)
    return int(m.group(1))


# --- templates ------------------------------------------------------------------------------------------

@dataclass
class Ctx:
    """State shared by the operands of one instruction while printing or parsing."""

    fmt: Format
    decisions: DecisionSet
    values: dict[str, int]
    ap_counts: dict[str, tuple[int, int, str]] = field(default_factory=dict)  # AP name → (count, column, field)
    set_by: dict[str, str] = field(default_factory=dict)
    cols: dict[str, int] = field(default_factory=dict)  # field → column of the text that set it


class Operand:
    """One ``name=value`` operand: the fields it stands for, how it prints and parses."""

    name: str = ""
    claims: tuple[str, ...] = ()
    optional: bool = False  # left out of the text when every field it claims has its default value

    def opt(self) -> Operand:
        self.optional = True
        return self

    def render(self, c: Ctx) -> str | None:  # None: not representable, leave the fields to key=value
        raise NotImplementedError

    def parse(self, text: str, c: Ctx, col: int) -> None:
        raise NotImplementedError


def _set(c: Ctx, name: str, value: int, by: str, col: int) -> None:
    if name in c.values and c.set_by.get(name) not in (None, by) and c.values[name] != value:
        raise ParseError(f"{by} sets {name} to {value}, but {c.set_by[name]} already set it to {c.values[name]}",
                         col)
    c.values[name] = value
    c.set_by[name] = by
    c.cols[name] = col


class RegOp(Operand):
    def __init__(self, name: str, fld: str) -> None:
        self.name, self.fld, self.claims = name, fld, (fld,)

    def render(self, c: Ctx) -> str:
        return reg_text(c.values[self.fld])

    def parse(self, text: str, c: Ctx, col: int) -> None:
        _set(c, self.fld, parse_reg(text, col), self.name, col)


class RegDtypeOp(Operand):
    """``r1.uint32``: a register id field and a dtype field."""

    def __init__(self, name: str, fld: str, dtype_fld: str) -> None:
        self.name, self.fld, self.dt, self.claims = name, fld, dtype_fld, (fld, dtype_fld)

    def render(self, c: Ctx) -> str:
        return f"{reg_text(c.values[self.fld])}.{dtype_text(c.values[self.dt])}"

    def parse(self, text: str, c: Ctx, col: int) -> None:
        reg, dot, dt = text.strip().partition(".")
        if not dot:
            raise ParseError(f"{self.name} needs a dtype, like r1.uint32", col)
        _set(c, self.fld, parse_reg(reg, col), self.name, col)
        _set(c, self.dt, parse_dtype(dt, col), self.name, col)


class PairOp(Operand):
    """``r10:r11``: a lo field (and copies of it) and a hi field."""

    def __init__(self, name: str, lo: Iterable[str], hi: str) -> None:
        self.lo = tuple(lo)
        self.name, self.hi, self.claims = name, hi, (*self.lo, hi)

    def render(self, c: Ctx) -> str:
        return f"{reg_text(c.values[self.lo[0]])}:{reg_text(c.values[self.hi])}"

    def parse(self, text: str, c: Ctx, col: int) -> None:
        lo, sep, hi = text.partition(":")
        if not sep:
            raise ParseError(f"{self.name} needs a register pair like r10:r11", col)
        for f in self.lo:
            _set(c, f, parse_reg(lo, col), self.name, col)
        _set(c, self.hi, parse_reg(hi, col + len(lo) + 1), self.name, col)


class EnumOp(Operand):
    def __init__(self, name: str, fld: str, table: EnumTable) -> None:
        self.name, self.fld, self.table, self.claims = name, fld, table, (fld,)

    def render(self, c: Ctx) -> str:
        return enum_text(self.table, c.values[self.fld])

    def parse(self, text: str, c: Ctx, col: int) -> None:
        _set(c, self.fld, parse_enum(self.table, text, col), self.name, col)


class DtypeOp(Operand):
    def __init__(self, name: str, fld: str) -> None:
        self.name, self.fld, self.claims = name, fld, (fld,)

    def render(self, c: Ctx) -> str:
        return dtype_text(c.values[self.fld])

    def parse(self, text: str, c: Ctx, col: int) -> None:
        _set(c, self.fld, parse_dtype(text, col), self.name, col)


class ImmOp(Operand):
    """``1.5:float32``: an immediate field and the dtype field that gives its type (if any)."""

    def __init__(self, name: str, fld: str, dtype_fld: str | None, fixed_dtype: int | None = None,
                 claim_dtype: bool = True) -> None:
        self.name, self.fld, self.dt, self.fixed, self.claim_dt = name, fld, dtype_fld, fixed_dtype, claim_dtype
        self.claims = (fld,) + ((dtype_fld,) if dtype_fld and claim_dtype else ())

    def _width(self, c: Ctx) -> int:
        return c.fmt.field_map[self.fld].nbits

    def render(self, c: Ctx) -> str:
        w = c.values[self.dt] if self.dt else (self.fixed or 0)
        return value_text(c.values[self.fld], w, self._width(c))

    def parse(self, text: str, c: Ctx, col: int) -> None:
        bits, w = parse_value(text, self._width(c), col)
        _set(c, self.fld, bits, self.name, col)
        if self.dt and self.claim_dt:
            _set(c, self.dt, w, self.name, col)


class ApOp(Operand):
    """An access pattern: the descriptor slot, its dtype field and (for one AP) the partition count."""

    def __init__(self, slot: Slot, parts_here: bool) -> None:
        self.slot = slot
        self.name = slot.name
        self.parts_here = parts_here
        fields = [f"{slot.name}.addr"] + [f"{slot.name}.{k}{i}" for i in range(slot.ndims) for k in ("step", "num")]
        if slot.dtype_field:
            fields.append(slot.dtype_field)
        if parts_here and slot.parts_field:
            fields.append(slot.parts_field)
        self.claims = tuple(fields)

    def _dims(self, c: Ctx) -> list[tuple[int, int]]:
        s = self.slot
        slots = [(c.values[f"{s.name}.step{i}"], c.values[f"{s.name}.num{i}"]) for i in range(s.ndims)]
        while slots and slots[-1] == s.fill:  # unused dims hold the slot's fill ({1,1}; {0,1} on PE, R-9)
            slots.pop()
        # D-6: slots hold free dims innermost first; print outermost first.
        return c.decisions.get(FreeDimOrder).from_slots(slots)

    def render(self, c: Ctx) -> str:
        s = self.slot
        word = c.values[f"{s.name}.addr"]
        # the operand's partition count, when a field holds it (":N"; a slot without one prints none)
        count = f":{c.values.get(s.parts_field, 0)}" if s.parts_field else ""
        a = decode_addr4(word)
        if a.indirect or a.active or a.space == "invalid":
            base = f"addr({word:#010x})[{count}]"
        elif a.space == "register":
            base = f"{reg_text(a.register or 0)}[{count}]"
        elif a.space == "sbuf":
            base = f"sb[p{a.partition}{count}]" + (f"+{a.byte:#x}" if a.byte else "")
        else:
            bank, off = divmod(a.byte or 0, PSUM_BANK_BYTES)
            base = f"psum.b{bank}[p{a.partition}{count}]" + (f"+{off:#x}" if off else "")
        dims = "".join(f"[{st}x{n}]" for st, n in self._dims(c))
        dt = f".{dtype_text(c.values[s.dtype_field])}" if s.dtype_field else ""
        return base + dims + dt

    _RE = re.compile(r"""^(?P<base>sb|psum\.b(?P<bank>\d+)|[rR](?P<reg>\d+)|addr\((?P<word>0[xX][0-9a-fA-F]+)\))
                        \[(?:p(?P<part>\d+))?(?::(?P<count>\d+))?\]
                        (?:\+(?P<off>0[xX][0-9a-fA-F]+|\d+))?
                        (?P<dims>(?:\[-?\d+x\d+\])*)
                        (?:\.(?P<dtype>[A-Za-z0-9_()]+))?$""", re.X)

    def parse(self, text: str, c: Ctx, col: int) -> None:
        s = self.slot
        m = self._RE.match(text.strip())
        if not m:
            raise ParseError(f"{s.name}: not an access pattern: {text.strip()!r} (like sb[p0:128]+0x100[1x512].float32, "
                             "psum.b2[p0:64][1x64].float32, r7[:128][1x512].float32)", col)
        base, part, off = m.group("base"), m.group("part"), parse_int(m.group("off") or "0", col)
        if (m.group("count") is None) != (s.parts_field is None):
            raise ParseError(f"{s.name}: " + ("give the partition count, like sb[p0:128]" if s.parts_field else
                                              "this operand has no partition-count field: write sb[p0], not "
                                              f"sb[p0:{m.group('count')}]"), col)
        count = int(m.group("count") or 0)
        if base == "sb" or base.startswith("psum"):
            if part is None:
                raise ParseError(f"{s.name}: give the start partition, like sb[p0:128]", col)
            p = int(part)
            if base == "sb":
                if p > 127 or off >= 1 << SBUF_PARTITION_SHIFT:
                    raise ParseError(f"{s.name}: SBUF partition {brief_int(p)} / byte {brief_int(off, hexa=True)} do not fit an ADDR4 word", col)
                word = addr4_sbuf(p, off)
            else:
                bank = int(m.group("bank"))
                byte = bank * PSUM_BANK_BYTES + off
                if p > 127 or byte >= 1 << PSUM_PARTITION_SHIFT or off >= PSUM_BANK_BYTES:
                    raise ParseError(f"{s.name}: PSUM partition {brief_int(p)} / bank {brief_int(bank)} / byte {brief_int(off, hexa=True)} do not fit an "
                                     "ADDR4 word", col)
                word = addr4_psum(p, byte)
        else:
            if part is not None or off:
                raise ParseError(f"{s.name}: a register or raw address takes only the partition count, like r7[:128]",
                                 col)
            word = addr4_register(int(m.group("reg"))) if m.group("reg") is not None else int(m.group("word"), 16)
        _set(c, f"{s.name}.addr", word, s.name, col)
        dims = [(int(a), int(b)) for a, b in re.findall(r"\[(-?\d+)x(\d+)\]", m.group("dims") or "")]
        if len(dims) > s.ndims:
            raise ParseError(f"{s.name}: {len(dims)} free dims, but a {s.type_name} holds {s.ndims}", col)
        slots = c.decisions.get(FreeDimOrder).to_slots(dims)
        slots += [s.fill] * (s.ndims - len(slots))
        for i, (st, n) in enumerate(slots):
            _set(c, f"{s.name}.step{i}", st, s.name, col)
            _set(c, f"{s.name}.num{i}", n, s.name, col)
        if s.dtype_field:
            if not m.group("dtype"):
                raise ParseError(f"{s.name}: the access pattern needs its dtype, like .float32", col)
            _set(c, s.dtype_field, parse_dtype(m.group("dtype"), col), s.name, col)
        if s.parts_field:
            c.ap_counts[s.name] = (count, col, s.parts_field)
            if self.parts_here:
                _set(c, s.parts_field, count, s.name, col)


class M2dOp(Operand):
    """TensorLoad/Save memory pattern: ``[STEP1xNUM1][STEP0xNUM0].dtype`` (outer pair first)."""

    name = "m2d"
    claims = ("step_elem1", "num_elem1", "step_elem0", "num_elem0", "dtype")

    def render(self, c: Ctx) -> str:
        v = c.values
        return (f"[{v['step_elem1']}x{v['num_elem1']}][{v['step_elem0']}x{v['num_elem0']}]"
                f".{dtype_text(v['dtype'])}")

    def parse(self, text: str, c: Ctx, col: int) -> None:
        m = re.fullmatch(r"\[(\d+)x(\d+)\]\[(\d+)x(\d+)\]\.([A-Za-z0-9_()]+)", text.strip())
        if not m:
            raise ParseError(f"m2d: expected [STEP1xNUM1][STEP0xNUM0].dtype, got {text.strip()!r}", col)
        for f, g in zip(("step_elem1", "num_elem1", "step_elem0", "num_elem0"), m.groups()[:4]):
            _set(c, f, int(g), "m2d", col)
        _set(c, "dtype", parse_dtype(m.group(5), col), "m2d", col)


class VarOp(Operand):
    """``var=7+0x8``: DRAM variable id and byte offset (D-8)."""

    name = "var"
    claims = ("var_id", "var_offset")

    def render(self, c: Ctx) -> str:
        off = c.values["var_offset"]
        return f"{c.values['var_id']}" + (f"+{off:#x}" if off else "")

    def parse(self, text: str, c: Ctx, col: int) -> None:
        vid, sep, off = text.strip().partition("+")
        _set(c, "var_id", parse_int(vid, col), "var", col)
        _set(c, "var_offset", parse_int(off, col) if sep else 0, "var", col)


class ShapeOp(Operand):
    """MoveShape: ``[STEPxCOUNT]`` per shape dim, outermost first, byte steps (all dims written)."""

    def __init__(self, name: str, dims: int) -> None:
        self.name, self.dims = name, dims
        self.claims = tuple(f"{k}{i}" for i in range(dims) for k in ("step", "count"))

    def render(self, c: Ctx) -> str:
        return "".join(f"[{c.values[f'step{i}']}x{c.values[f'count{i}']}]" for i in reversed(range(self.dims)))

    def parse(self, text: str, c: Ctx, col: int) -> None:
        dims = re.findall(r"\[(\d+)x(\d+)\]", text)
        if len(dims) != self.dims or "".join(f"[{a}x{b}]" for a, b in dims) != text.strip():
            raise ParseError(f"shape: expected {self.dims} [STEPxCOUNT] dims, outermost first", col)
        for i, (st, n) in zip(reversed(range(self.dims)), dims):
            _set(c, f"step{i}", int(st), "shape", col)
            _set(c, f"count{i}", int(n), "shape", col)


class IntOp(Operand):
    """A plain integer field under its own name (hex when ``hexa``)."""

    def __init__(self, name: str, fld: str, hexa: bool = False) -> None:
        self.name, self.fld, self.hexa, self.claims = name, fld, hexa, (fld,)

    def render(self, c: Ctx) -> str:
        v = c.values[self.fld]
        return f"{v:#x}" if self.hexa else str(v)

    def parse(self, text: str, c: Ctx, col: int) -> None:
        _set(c, self.fld, parse_int(text, col), self.name, col)


class ScalarOp(Operand):
    """A scalar operand of the next families (:class:`~tongasm.isa.layout.ScalarText`): kind byte
    (codes: N-2), value word and dtype. ``1.5:float32``, ``r5``, ``ptr(0x00008000)``; ``imm``,
    ``reg``, ``ptr`` when the layout has no value word (N-5); ``:dtype`` follows a register or a
    pointer when the layout has a dtype field for the operand."""

    def __init__(self, name: str, kind: str, value: str | None, dtype_fld: str | None, fixed: int | None) -> None:
        self.name, self.kind, self.value, self.dt, self.fixed = name, kind, value, dtype_fld, fixed
        self.claims = (kind,) + ((value,) if value else ()) + ((dtype_fld,) if dtype_fld else ())

    def _codes(self, c: Ctx) -> Mapping[Any, int]:
        """The codes of this operand's kind byte, from the layout's kind field (N-2 gives each byte its set)."""
        from ..isa.decisions.scalar import kinds_of_names

        table = c.fmt.field_map[self.kind].enum
        assert table is not None, f"{c.fmt.name}.{self.kind} is a scalar kind byte without its enum table"
        return kinds_of_names(table.names)

    def render(self, c: Ctx) -> str:
        codes = {v: k for k, v in self._codes(c).items()}
        code = c.values[self.kind]
        kind = codes.get(code)
        w = c.values[self.dt] if self.dt else (self.fixed or 0)
        suffix = f":{dtype_text(w)}" if self.dt else ""
        name = getattr(kind, "value", "")
        if kind is None:  # a code no reading gives: kN(value)
            return f"k{code}" + (f"({c.values[self.value]:#010x})" if self.value else "") + suffix
        if self.value is None:
            return {"immediate": "imm", "register": "reg", "pointer": "ptr"}[name] + suffix
        v = c.values[self.value]
        if name == "immediate":
            return value_text(v, w, 32)
        if name == "register":
            return f"r{v}{suffix}"
        return f"ptr({v:#010x}){suffix}"

    _RE = re.compile(r"^(?:(?P<bare>imm|reg|ptr)|ptr\((?P<ptr>0[xX][0-9a-fA-F]+|\d+)\)|[rR](?P<reg>\d+)"
                     r"|k(?P<code>\d+)(?:\((?P<kval>0[xX][0-9a-fA-F]+|\d+)\))?)"
                     r"(?::(?P<dt>[A-Za-z0-9_()]+))?$")

    def parse(self, text: str, c: Ctx, col: int) -> None:
        from ..isa.vector_enums import ScalarKind

        codes = self._codes(c)
        t = text.strip()
        m = self._RE.match(t)
        if m is None:  # an immediate: value:dtype
            bits, w = parse_value(t, 32, col)
            if self.value is None:
                raise ParseError(f"{self.name}: this layout has no value word for the scalar; write imm, reg or ptr",
                                 col)
            if self.dt:
                _set(c, self.dt, w, self.name, col)
            elif self.fixed is not None and w != self.fixed:
                raise ParseError(f"{self.name}: an immediate here is {dtype_text(self.fixed)}", col)
            _set(c, self.kind, codes[ScalarKind.IMMEDIATE], self.name, col)
            _set(c, self.value, bits, self.name, col)
            return
        if m.group("dt"):
            if not self.dt:
                raise ParseError(f"{self.name}: no dtype field for this scalar; leave out the :dtype", col)
            _set(c, self.dt, parse_dtype(m.group("dt"), col), self.name, col)
        elif self.dt and m.group("bare") != "imm":
            raise ParseError(f"{self.name}: give the scalar's dtype, like r5:float32 or ptr(0x8000):float32", col)
        if m.group("code") is not None:  # an unknown code, kept as it was
            _set(c, self.kind, int(m.group("code")), self.name, col)
            if (m.group("kval") is None) != (self.value is None):
                raise ParseError(f"{self.name}: k{m.group('code')} needs its value word exactly when the layout has "
                                 "one", col)
            if self.value is not None:
                _set(c, self.value, parse_int(m.group("kval"), col), self.name, col)
            return
        bare = m.group("bare")
        if bare is not None:
            if self.value is not None:
                raise ParseError(f"{self.name}: give the scalar's value (1.0:float32, r5, ptr(0x8000))", col)
            kind = {"imm": ScalarKind.IMMEDIATE, "reg": ScalarKind.REGISTER, "ptr": ScalarKind.POINTER}[bare]
            _set(c, self.kind, codes[kind], self.name, col)
            return
        if self.value is None:
            raise ParseError(f"{self.name}: this layout has no value word for the scalar; write imm, reg or ptr", col)
        if m.group("reg") is not None:
            _set(c, self.kind, codes[ScalarKind.REGISTER], self.name, col)
            _set(c, self.value, int(m.group("reg")), self.name, col)
        else:
            _set(c, self.kind, codes[ScalarKind.POINTER], self.name, col)
            _set(c, self.value, parse_int(m.group("ptr"), col), self.name, col)


# --- operands of the PE, DMA and sync/control layouts ---------------------------------------

_HEX = r"-?0[xX][0-9a-fA-F]+|-?\d+"


class Addr8Op(Operand):
    """One side of a DMA (R-17, R-16): ``var4+0x80[4096x128]/0x100.float16``.

    The address is ``sb[pP]+0xB`` (mode 0x10, variable 0: the SBUF word ``P << 18 | B``),
    ``varN+0xB`` (mode 0x10, DRAM variable N), ``dgeN+0xB`` (mode 0x20, DGE-table entry N) or
    ``a8(0xMODE:N)+0xB`` (any other mode); then dim 1 and dim 0, ``[STEPxNUM]`` as every access pattern
    writes them (decimal step, ``x``, decimal count), the steps in bytes (dim 1 left out when it is the
    {1, 1} of every real DMA; under R-16's default dim 1 is the outer), ``/`` the run size in bytes, and
    the side's dtype. The parser also reads the hex steps listings wrote before (``[0x1000x128]``: a
    ``0x`` number followed by ``x`` and the count); ``[0x128]`` is step 0, count 128 in both forms."""

    _RE = re.compile(rf"""^(?:sb\[p(?P<part>\d+)\]|var(?P<var>\d+)|dge(?P<dge>\d+)|a8\((?P<mode>0[xX][0-9a-fA-F]+):(?P<avar>\d+)\))
                         (?:\+(?P<off>0[xX][0-9a-fA-F]+|\d+))?
                         (?P<dims>(?:\[(?:{_HEX})x\d+\])*)
                         /(?P<elem>0[xX][0-9a-fA-F]+|\d+)
                         \.(?P<dtype>[A-Za-z0-9_()]+)$""", re.X)
    _DIM = re.compile(rf"\[({_HEX})x(\d+)\]")

    def __init__(self, name: str, side: str, dtype_fld: str) -> None:
        self.name, self.side, self.dt = name, side, dtype_fld
        self.keys = {k: f"{side}.{k}" for k in ("addr", "var", "var_hi", "addr_mode", "step0", "step1", "num0", "num1",
                                                 "elem_size")}
        self.claims = (*self.keys.values(), dtype_fld)

    def render(self, c: Ctx) -> str:
        v = {k: c.values[f] for k, f in self.keys.items()}
        var = v["var"] | v["var_hi"] << 16
        mode, word = v["addr_mode"], v["addr"]
        off = f"+{word:#x}" if word else ""
        if mode == Addr8Modes.PHYSICAL and var == Addr8Modes.SBUF_VAR and not word >> 25:
            a = decode_addr4(word)
            where = f"sb[p{a.partition}]" + (f"+{a.byte:#x}" if a.byte else "")
        elif mode == Addr8Modes.PHYSICAL:
            where = f"var{var}{off}"
        elif mode == Addr8Modes.DGE_IMMEDIATE:
            where = f"dge{var}{off}"
        else:
            where = f"a8({mode:#04x}:{var}){off}"
        dims = "" if (v["step1"], v["num1"]) == (1, 1) else f"[{v['step1']}x{v['num1']}]"
        dims += f"[{v['step0']}x{v['num0']}]"
        return f"{where}{dims}/{v['elem_size']:#x}.{dtype_text(c.values[self.dt])}"

    def parse(self, text: str, c: Ctx, col: int) -> None:
        m = self._RE.match(text.strip())
        if not m:
            raise ParseError(f"{self.name}: not a DMA side: {text.strip()!r} (like var4+0x80[256x128]/0x100.float16, "
                             "dge1[512x128]/0x200.float16, sb[p0]+0x4000[262144x128]/0x100.float32)", col)
        off = parse_int(m.group("off") or "0", col)
        if m.group("part") is not None:
            p = int(m.group("part"))
            if p > 127 or off >= 1 << SBUF_PARTITION_SHIFT:
                raise ParseError(f"{self.name}: SBUF partition {brief_int(p)} / byte {brief_int(off, hexa=True)} do not fit the address word", col)
            mode, var, word = Addr8Modes.PHYSICAL, Addr8Modes.SBUF_VAR, p << SBUF_PARTITION_SHIFT | off
        elif m.group("var") is not None:
            mode, var, word = Addr8Modes.PHYSICAL, int(m.group("var")), off
        elif m.group("dge") is not None:
            mode, var, word = Addr8Modes.DGE_IMMEDIATE, int(m.group("dge")), off
        else:
            mode, var, word = int(m.group("mode"), 16), int(m.group("avar")), off
        dims = [(int(a, 0), int(b)) for a, b in self._DIM.findall(m.group("dims") or "")]
        if not 1 <= len(dims) <= 2:
            raise ParseError(f"{self.name}: a DMA side has one or two dims [STEPxCOUNT] (outermost first)", col)
        (step1, num1), (step0, num0) = ((1, 1), dims[0]) if len(dims) == 1 else (dims[0], dims[1])
        values = {"addr": word, "var": var & 0xFFFF, "var_hi": var >> 16, "addr_mode": mode, "step0": step0,
                  "step1": step1, "num0": num0, "num1": num1, "elem_size": parse_int(m.group("elem"), col)}
        for k, val in values.items():
            _set(c, self.keys[k], val, self.name, col)
        _set(c, self.dt, parse_dtype(m.group("dtype"), col), self.name, col)


class AsciiOp(Operand):
    """A NUL-padded ASCII name over consecutive fields: ``queue="qPoolDynamic"`` (JSON string syntax)."""

    def __init__(self, name: str, fields: tuple[str, ...]) -> None:
        self.name, self.claims = name, fields

    def _sizes(self, c: Ctx) -> list[int]:
        return [c.fmt.field_map[f].size for f in self.claims]

    def render(self, c: Ctx) -> str:
        raw = b"".join(c.values[f].to_bytes(n, "little") for f, n in zip(self.claims, self._sizes(c)))
        # the trailing NUL padding left out; any other byte written as a JSON escape (\u00XX)
        return json.dumps(raw.rstrip(b"\0").decode("latin-1"))

    def parse(self, text: str, c: Ctx, col: int) -> None:
        try:
            name = json.loads(text.strip())
            raw = name.encode("latin-1") if isinstance(name, str) else None
        except (ValueError, UnicodeEncodeError):
            raw = None
        sizes = self._sizes(c)
        if raw is None:
            raise ParseError(f"{self.name}: expected a quoted name of bytes, like \"qPoolDynamic\"", col)
        if len(raw) > sum(sizes):
            raise ParseError(f"{self.name}: {len(raw)} bytes do not fit the {sum(sizes)}-byte name field", col)
        raw = raw.ljust(sum(sizes), b"\0")
        pos = 0
        for f, n in zip(self.claims, sizes):
            _set(c, f, int.from_bytes(raw[pos:pos + n], "little"), self.name, col)
            pos += n


class LanesOp(Operand):
    """One-byte lane fields as ``[0*5,-*27]``: lane order, ``value*count`` for a run, ``-`` for 0xFF."""

    KEEP = 0xFF

    def __init__(self, name: str, fields: tuple[str, ...]) -> None:
        self.name, self.claims = name, fields

    def render(self, c: Ctx) -> str | None:
        vals = [c.values[f] for f in self.claims]
        if any(c.fmt.field_map[f].size != 1 for f in self.claims):
            return None
        runs: list[str] = []
        for v, grp in itertools.groupby(vals):
            n = len(list(grp))
            item = "-" if v == self.KEEP else str(v)
            runs.append(item if n == 1 else f"{item}*{n}")
        return "[" + ",".join(runs) + "]"

    def parse(self, text: str, c: Ctx, col: int) -> None:
        t = text.strip()
        if not (t.startswith("[") and t.endswith("]")):
            raise ParseError(f"{self.name}: expected [lane bytes], like [0*5,-*27] ('-' = 0xFF, v*n = n lanes of v)",
                             col)
        vals: list[int] = []
        for item in t[1:-1].split(","):
            item = item.strip()
            v_text, _, n_text = item.partition("*")
            v = self.KEEP if v_text.strip() == "-" else parse_int(v_text.strip(), col)
            n = parse_int(n_text.strip(), col) if n_text else 1
            if not 0 <= v <= 0xFF:
                raise ParseError(f"{self.name}: lane byte {v} is not in 0..255", col)
            if n < 1:
                raise ParseError(f"{self.name}: a run of {n} lanes", col)
            vals += [v] * n
        if len(vals) != len(self.claims):
            raise ParseError(f"{self.name}: {len(vals)} lane bytes given, the mask has {len(self.claims)}", col)
        for f, v in zip(self.claims, vals):
            _set(c, f, v, self.name, col)


@dataclass
class Template:
    """The operands of one format, and the defaults the parser assumes for fields left out."""

    operands: list[Operand]
    derived: dict[str, Callable[[Mapping[str, int]], int]] = field(default_factory=dict)

    def by_name(self) -> dict[str, Operand]:
        return {o.name: o for o in self.operands}


def operand_of(t: TextOp, fmt: Format) -> Operand:
    """The implementation of one declared text operand (by its kind, :mod:`tongasm.isa.layout`)."""
    op: Operand
    if isinstance(t, RegText):
        op = RegOp(t.name, t.field)
    elif isinstance(t, PairText):
        op = PairOp(t.name, t.lo, t.hi)
    elif isinstance(t, EnumText):
        table = fmt.field_map[t.field].enum
        assert table is not None, f"{fmt.name}: {t.field} is not an enum field"
        op = EnumOp(t.name, t.field, table)
    elif isinstance(t, DtypeText):
        op = DtypeOp(t.name, t.field)
    elif isinstance(t, ImmText):
        op = ImmOp(t.name, t.field, t.dtype_field, t.fixed_dtype, t.claim_dtype)
    elif isinstance(t, ApText):
        op = ApOp(fmt.slots[t.slot], t.parts)
    elif isinstance(t, IntText):
        op = IntOp(t.name, t.field, t.hexa)
    elif isinstance(t, M2dText):
        op = M2dOp()
    elif isinstance(t, VarText):
        op = VarOp()
    elif isinstance(t, ShapeText):
        op = ShapeOp(t.name, t.dims)
    elif isinstance(t, ScalarText):
        op = ScalarOp(t.name, t.kind, t.value, t.dtype_field, t.fixed_dtype)
    elif isinstance(t, Addr8Text):
        op = Addr8Op(t.name, t.side, t.dtype_field)
    elif isinstance(t, AsciiText):
        op = AsciiOp(t.name, t.fields)
    elif isinstance(t, LanesText):
        op = LanesOp(t.name, t.fields)
    else:
        raise TypeError(f"{fmt.name}: no text implementation for {type(t).__name__}")
    op.optional = t.optional
    return op


_TEMPLATES: dict[Format, Template] = {}


def template_for(fmt: Format) -> Template:
    """The operand list of a format, from its layout record's text template (built once per format)."""
    tpl = _TEMPLATES.get(fmt)
    if tpl is None:
        layout = fmt.layout
        tpl = _TEMPLATES[fmt] = Template([operand_of(t, fmt) for t in layout.text], dict(layout.implied))
    return tpl


# --- sync clause -------------------------------------------------------------------------------------

_WAIT_BY_WIRE = {w: m for m, w in WAIT_WIRE.items()}


def _update_by_wire(ds: DecisionSet) -> dict[int, UpdateMode]:
    return ds.get(UpdateModeWire).by_wire()


def _update_wire(ds: DecisionSet, m: UpdateMode) -> int:
    return ds.get(UpdateModeWire).wire(m)


def render_sync(v: Mapping[str, int], ds: DecisionSet, lanes: SyncLanes = HEADER_SYNC) -> tuple[str | None, set[str]]:
    """The ``wait ... / upd ...`` clause and the fields it claims (unknown bytes are left over).

    One ``wait`` per used wait lane and one ``upd`` per used update lane, in lane order (the header
    band has one of each; EventSemaphore two waits and an update)."""
    parts: list[str] = []
    claimed: set[str] = set()
    used_values: set[str] = set()
    # the text assembler gives the n-th ``wait`` (``upd``) item to the n-th lane: once a lane is not an
    # item (empty, or left to key=value), the later lanes of its kind are left to key=value too
    gap = False
    for lane in lanes.waits:
        wm, wi, value = v[lane.mode], v[lane.index], v[lane.value]
        if wm == 0:
            if wi == 0:
                claimed |= {lane.mode, lane.index}
            gap = True
            continue
        mode = _WAIT_BY_WIRE.get(wm)
        if mode is None or gap:
            gap = True
            continue
        claimed |= {lane.mode, lane.index}
        if mode == WaitMode.evt_set_clear:
            parts.append(f"wait evt{wi}")
        elif mode == WaitMode.sem_ge_imm:
            parts.append(f"wait sem{wi}>={value}")
            used_values.add(lane.value)
        else:
            parts.append(f"wait sem{wi}>=r{value}")
            used_values.add(lane.value)
    ubw = _update_by_wire(ds)
    gap = False
    for ulane in lanes.updates:
        um, ui, value = v[ulane.mode], v[ulane.index], v[ulane.value]
        if um == 0 and ui == 0:
            claimed |= {ulane.mode, ulane.index}
            gap = True
            continue
        umode = ubw.get(um)
        if umode is None or gap:
            gap = True
            continue
        claimed |= {ulane.mode, ulane.index}
        sym = {UpdateMode.sem_add_imm: "+=", UpdateMode.sem_sub_imm: "-=", UpdateMode.sem_wr_imm: "="}
        if umode in VALUELESS_UPDATES:
            parts.append(f"upd sem{ui}{'++' if umode == UpdateMode.sem_inc else '--'}")
        elif umode == UpdateMode.evt_set:
            parts.append(f"upd evt{ui}" + (f"={value}" if value else ""))
            used_values.add(ulane.value)
        else:
            parts.append(f"upd sem{ui}{sym[umode]}{value}")
            used_values.add(ulane.value)
    for name in lanes.values:
        if name in used_values or v[name] == 0:
            claimed.add(name)
    return (" / ".join(parts) or None), claimed


_WAIT_RE = re.compile(r"^(?:evt(?P<evt>\d+)|sem(?P<sem>\d+)>=(?:(?P<reg>[rR]\d+)|(?P<val>0[xX][0-9a-fA-F]+|\d+)))$")
_UPD_RE = re.compile(r"^(?:evt(?P<evt>\d+)(?:=(?P<evtval>0[xX][0-9a-fA-F]+|\d+))?|"
                     r"sem(?P<sem>\d+)(?P<op>\+\+|--|\+=|-=|=)(?P<val>0[xX][0-9a-fA-F]+|\d+)?)$")


def parse_sync(text: str, c: Ctx, col: int) -> None:
    """Parse ``wait ... / upd ...`` into the sync lane fields: the k-th ``wait`` fills the k-th wait
    lane, the k-th ``upd`` the k-th update lane."""
    ds = c.decisions
    lanes = c.fmt.sync
    if lanes is None:
        raise ParseError(f"{c.fmt.name} carries no sync fields under this decision selection (D-3)", col)
    n_wait = n_upd = 0
    for part in text.split("/"):
        p = part.strip()
        pcol = col + text.find(part) + (len(part) - len(part.lstrip()))
        kw, _, rest = p.partition(" ")
        rest = rest.replace(" ", "")
        if kw == "wait":
            m = _WAIT_RE.match(rest)
            if not m:
                raise ParseError(f"bad wait {rest!r} (like sem3>=5, sem3>=r4, evt3)", pcol)
            if n_wait >= len(lanes.waits):
                raise ParseError(f"{c.fmt.name} has {len(lanes.waits)} wait lane(s); this is wait {n_wait + 1}", pcol)
            w = lanes.waits[n_wait]
            n_wait += 1
            if m.group("evt") is not None:
                _set(c, w.mode, WAIT_WIRE[WaitMode.evt_set_clear], "wait", pcol)
                _set(c, w.index, int(m.group("evt")), "wait", pcol)
            else:
                _set(c, w.index, int(m.group("sem")), "wait", pcol)
                if m.group("reg"):
                    _set(c, w.mode, WAIT_WIRE[WaitMode.sem_ge_reg], "wait", pcol)
                    _set_value(c, lanes, w.value, parse_reg(m.group("reg"), pcol), pcol)
                else:
                    _set(c, w.mode, WAIT_WIRE[WaitMode.sem_ge_imm], "wait", pcol)
                    _set_value(c, lanes, w.value, parse_int(m.group("val"), pcol), pcol)
        elif kw == "upd":
            m = _UPD_RE.match(rest)
            if not m:
                raise ParseError(f"bad update {rest!r} (like sem4+=1, sem4-=2, sem4++, sem4--, sem4=7, evt4)", pcol)
            if n_upd >= len(lanes.updates):
                raise ParseError(f"{c.fmt.name} has {len(lanes.updates)} update lane(s); this is update {n_upd + 1}",
                                 pcol)
            u = lanes.updates[n_upd]
            n_upd += 1
            if m.group("evt") is not None:
                _set(c, u.mode, _update_wire(ds, UpdateMode.evt_set), "upd", pcol)
                _set(c, u.index, int(m.group("evt")), "upd", pcol)
                if m.group("evtval"):
                    _set_value(c, lanes, u.value, parse_int(m.group("evtval"), pcol), pcol)
            else:
                op, val = m.group("op"), m.group("val")
                mode = {"++": UpdateMode.sem_inc, "--": UpdateMode.sem_dec, "+=": UpdateMode.sem_add_imm,
                        "-=": UpdateMode.sem_sub_imm, "=": UpdateMode.sem_wr_imm}[op]
                if (mode in VALUELESS_UPDATES) != (val is None):
                    raise ParseError(f"bad update {rest!r}: ++/-- take no value, +=, -= and = need one", pcol)
                _set(c, u.mode, _update_wire(ds, mode), "upd", pcol)
                _set(c, u.index, int(m.group("sem")), "upd", pcol)
                if val is not None:
                    _set_value(c, lanes, u.value, parse_int(val, pcol), pcol)
        else:
            raise ParseError(f"expected 'wait ...' or 'upd ...', got {p!r}", pcol)


def _set_value(c: Ctx, lanes: SyncLanes, name: str, value: int, col: int) -> None:
    if name in c.values and c.values[name] != value:
        if lanes.shared_value(name):
            raise ParseError(f"the wait and the update share one value dword (+0x08): {c.values[name]} vs {value}",
                             col)
        raise ParseError(f"{name} set twice: {c.values[name]} vs {value}", col)
    c.values[name] = value
    c.set_by[name] = "sync"


# --- printing and parsing one instruction ------------------------------------------------------------------

def default_value(fmt: Format, f: Field, values: dict[str, int], tpl: Template) -> int:
    """What the parser assumes for a field the text leaves out."""
    if f.const is not None:
        return f.const
    m = fmt.match.get(f.name)
    if isinstance(m, int) and m is not NONZERO:
        return m
    if f.name in tpl.derived:
        return tpl.derived[f.name](values)
    return 0


def generic_text(f: Field, v: int) -> str:
    if f.enum is not None and v in f.enum.names:
        return f"{f.name}={f.enum.names[v]}"
    return f"{f.name}={v:#x}" if v > 9 else f"{f.name}={v}"


def render(fmt: Format, fields: dict[str, int], raw: bytes, ds: DecisionSet, mnemonic: str) -> str:
    """The text of one decoded bundle (mnemonic and operands)."""
    tpl = template_for(fmt)
    c = Ctx(fmt, ds, dict(fields))
    items: list[str] = []
    claimed: set[str] = {"opcode"}
    for op in tpl.operands:
        if op.optional and all(fields[f] == default_value(fmt, fmt.field_map[f], fields, tpl) for f in op.claims):
            claimed.update(op.claims)
            continue
        text = op.render(c)
        if text is None:
            continue
        items.append(f"{op.name}={text}")
        claimed.update(op.claims)
    # fields that match the parser's default need not be written (and claimed ones are written)
    lanes = fmt.sync
    sync_names = lanes.fields if lanes is not None else ()
    for f in fmt.fields:
        if f.name in claimed or f.name in sync_names:
            continue
        v = fields[f.name]
        if v != default_value(fmt, f, fields, tpl):
            items.append(generic_text(f, v))
    if lanes is not None:
        sync, sync_claimed = render_sync(fields, ds, lanes)
        for name in sync_names:
            if name not in sync_claimed:
                items.append(generic_text(fmt.field_map[name], fields[name]))
        if sync:
            items.append(sync)
    items.extend(patch_text(fmt, raw))
    return mnemonic + (" " + ", ".join(items) if items else "")


def patch_text(fmt: Format, raw: bytes) -> list[str]:
    """``@+0xNN=hex`` for runs of bytes with bits no field explains."""
    mask = fmt.covered_mask()
    out, i = [], 0
    while i < BUNDLE_SIZE:
        if raw[i] & ~mask[i] & 0xFF:
            j = i
            while j + 1 < BUNDLE_SIZE and raw[j + 1] & ~mask[j + 1] & 0xFF:
                j += 1
            out.append(f"@+{i:#04x}={bytes(raw[k] & ~mask[k] & 0xFF for k in range(i, j + 1)).hex()}")
            i = j + 1
        else:
            i += 1
    return out


def top_level(text: str) -> Iterator[int]:
    """The indexes of ``text``'s top-level characters: outside brackets, parentheses and "..." names
    (an AsciiOp name may hold commas, brackets, ``;`` and ``#``; ``\\"`` escapes a quote)."""
    depth = 0
    quoted = escaped = False
    for i, ch in enumerate(text):
        if quoted:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = False
            continue
        if ch == '"':
            quoted = True
        elif ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif depth == 0:
            yield i


def split_operands(text: str) -> list[tuple[str, int]]:
    """Split on top-level commas (not inside brackets, parentheses or quotes); keep each item's column."""
    items, start = [], 0
    for i in top_level(text):
        if text[i] == ",":
            items.append((text[start:i], start))
            start = i + 1
    items.append((text[start:], start))
    out = []
    for item, col in items:
        lead = len(item) - len(item.lstrip())
        if item.strip():
            out.append((item.strip(), col + lead))
    return out


def _once(seen: dict[str, int], name: str, col: int) -> None:
    if name in seen:
        shown = name.split("#")[0]
        raise ParseError(f"operand {shown!r} is given {'twice' if shown == name else 'more often than the layout has lanes'}"
                         f" (first at column {seen[name] + 1})", col)
    seen[name] = col


def _lane_key(fmt: Format, seen: dict[str, int], kind: str) -> str:
    """The duplicate-check key of the next ``wait``/``upd`` item: a layout with several lanes of a kind
    (EventSemaphore) takes that many, one more is refused like a repeated operand."""
    lanes = 1 if fmt.sync is None else len(fmt.sync.waits if kind == "wait" else fmt.sync.updates)
    k = sum(1 for key in seen if key == kind or key.startswith(kind + "#"))
    if lanes <= 1:
        return kind
    return f"{kind}#{min(k, lanes - 1)}"


def parse_operands(fmt: Format, opcode: int, text: str, ds: DecisionSet, col0: int) -> bytes:
    """Operands (after the mnemonic) → the 64 bytes of the bundle."""
    tpl = template_for(fmt)
    named = tpl.by_name()
    c = Ctx(fmt, ds, {"opcode": opcode})
    patches: list[tuple[int, bytes, int]] = []
    seen: dict[str, int] = {}  # operand name -> column: each may be given once (no silent last-wins)
    for item, col in split_operands(text):
        col += col0
        if item.startswith(("wait ", "upd ", "wait\t", "upd\t")):
            for part in item.split("/"):
                kind = part.split(None, 1)[0] if part.strip() else part
                _once(seen, _lane_key(fmt, seen, kind), col)
            parse_sync(item, c, col)
            continue
        if item.startswith("@+"):
            m = re.fullmatch(r"@\+(0[xX][0-9a-fA-F]+|\d+)=([0-9a-fA-F]+)", item)
            if not m or len(m.group(2)) % 2:
                raise ParseError(f"bad raw patch {item!r} (like @+0x3c=55aa)", col)
            off, data = parse_int(m.group(1), col), bytes.fromhex(m.group(2))
            if off + len(data) > BUNDLE_SIZE:
                raise ParseError(f"raw patch {item!r} runs past the 64-byte bundle", col)
            patches.append((off, data, col))
            continue
        name, eq, value = item.partition("=")
        name = name.strip()
        if not eq:
            raise ParseError(f"expected name=value, 'wait ...' or 'upd ...', got {item!r}", col)
        _once(seen, name, col)
        vcol = col + item.index("=") + 1 + (len(value) - len(value.lstrip()))
        if name in named:
            named[name].parse(value, c, vcol)
        elif name in fmt.field_map:
            f = fmt.field_map[name]
            v = parse_enum(f.enum, value, vcol) if f.enum is not None else parse_int(value, vcol)
            _set(c, name, v, name, vcol)
        else:
            known = ", ".join(list(named) + [f.name for f in fmt.fields if f.name != "opcode"])
            raise ParseError(f"{fmt.name} has no operand {name!r} (known: {known})", col)
    for ap, (count, col, pfield) in c.ap_counts.items():
        parts = c.values.get(pfield)
        if parts is not None and count != parts:
            raise ParseError(f"{ap}: partition count {brief_int(count)} differs from {parts}; the bundle has one partition-count "
                             f"byte for it ({pfield})", col)
    values = dict(c.values)
    for f in fmt.fields:
        if f.name not in values:
            values[f.name] = default_value(fmt, f, values, tpl)
    try:
        raw = bytearray(fmt.encode(values))
    except TongasmError as e:
        raise ParseError(str(e), c.cols.get(getattr(e, "field", "") or "", col0)) from None
    for off, data, _col in patches:
        for k, b in enumerate(data):
            raw[off + k] |= b
    return bytes(raw)

