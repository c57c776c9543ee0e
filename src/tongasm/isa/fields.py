"""Field declarations and the bundle-format machinery that turns them into codecs.

A wire format is declared once, as a list of :class:`Field` objects (name, offset, width, kind,
enum, confidence tag, decision id). :class:`Format` compiles that list into a precompiled
``struct.Struct`` and two generated functions: ``encode`` (field values → 64 bytes, with a range
check on every field) and ``decode`` (bytes → field values). The encoder's hot path composes a
bundle from parts placed once (:meth:`Format.place`, :meth:`Format.place_slot`): a bundle is the
OR of its fields, and each part is range-checked when it is placed. Nothing else in tongasm knows a
byte offset: codegen produces field *names*, decode returns field *names*, checks and explain read
the same declarations.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from types import CodeType
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Mapping, Sequence

from ..errors import FieldRangeError

if TYPE_CHECKING:
    from .layout import Layout, SyncLanes

BUNDLE_SIZE = 64
#: Per format and slot, at most this many packed descriptor slots are memoised (then the memo restarts).
SLOT_MEMO_LIMIT = 100_000


class Conf(str, enum.Enum):
    """Confidence tags of SPEC (top of the file)."""

    C = "C"  # byte-exact from the compiler binary
    H = "H"  # cross-referenced from validator / LUT tables
    I = "I"  # inferred  # noqa: E741
    D = "D"  # a decision made by the spec
    V = "V"  # verified on the real compiled NEFFs (every bundle of the population agrees)

    @property
    def meaning(self) -> str:
        return {
            "V": "verified: seen in every real compiled bundle of the population (../shared/groundtruth)",
            "C": "confirmed: store or compare read byte-exact from the compiler",
            "H": "high: cross-referenced from validator/LUT tables",
            "I": "inferred",
            "D": "decision: the spec chose where sources are silent or disagree",
        }[self.value]


class Kind(str, enum.Enum):
    """How a field's raw value is read."""

    UNSIGNED = "unsigned"
    SIGNED = "signed"
    ENUM = "enum"
    CONSTANT = "constant"
    ADDR4 = "addr4"  # the 32-bit start-address word of a descriptor slot
    REGISTER = "register"  # a register id


@dataclass(frozen=True)
class EnumTable:
    """Names of the wire values of an enum field (for decode, checks and explain)."""

    name: str
    names: Mapping[int, str]

    def name_of(self, value: int) -> str | None:
        return self.names.get(value)


_STRUCT_CODES = {(1, False): "B", (2, False): "H", (4, False): "I", (8, False): "Q",
                 (1, True): "b", (2, True): "h", (4, True): "i", (8, True): "q"}


@dataclass(frozen=True)
class Field:
    """One field of a bundle format.

    ``offset``/``size`` give the carrier bytes (little-endian); ``shift``/``bits`` select a bit
    range inside the carrier (a nibble is ``bits=4``). ``slot`` names the descriptor slot a field
    belongs to (``out.addr``, ``out.step0``... belong to slot ``out``).
    """

    name: str
    offset: int
    size: int
    kind: Kind = Kind.UNSIGNED
    shift: int = 0
    bits: int | None = None
    enum: EnumTable | None = None
    const: int | None = None
    conf: Conf = Conf.C
    decision: str | None = None
    doc: str = ""
    slot: str | None = None

    @property
    def nbits(self) -> int:
        return self.bits if self.bits is not None else self.size * 8

    @property
    def signed(self) -> bool:
        return self.kind is Kind.SIGNED

    @property
    def lo(self) -> int:
        return -(1 << (self.nbits - 1)) if self.signed else 0

    @property
    def hi(self) -> int:
        return (1 << (self.nbits - 1)) - 1 if self.signed else (1 << self.nbits) - 1

    @property
    def is_bitfield(self) -> bool:
        return self.bits is not None and self.bits != self.size * 8

    @property
    def bit_range(self) -> tuple[int, int]:
        """[first, last+1) bit of the bundle this field occupies."""
        start = self.offset * 8 + self.shift
        return start, start + self.nbits

    @property
    def width_text(self) -> str:
        if self.is_bitfield:
            if self.bits == 4:
                return "lo nibble" if self.shift == 0 else "hi nibble"
            return f"bits {self.shift}..{self.shift + self.nbits - 1}"
        return f"{'i' if self.signed else 'u'}{self.size * 8}"

    @property
    def kind_text(self) -> str:
        if self.is_bitfield and self.bits == 4:
            return "nibble" + (f" {self.kind.value}" if self.kind is Kind.ENUM else "")
        return self.kind.value


@dataclass(frozen=True)
class Slot:
    """A descriptor slot of a format: where it sits and which descriptor type it holds."""

    name: str
    offset: int
    ndims: int
    type_name: str
    conf: Conf
    decision: str | None
    doc: str
    dtype_field: str | None = None  # the field holding this operand's wire dtype
    write: bool = False  # True for the operand the op writes (its role for the checks)
    #: the decision that says which operand this slot holds (R-7 for TensorTensor...), if any
    role_decision: str | None = None
    # --- added for the PE/DMA layouts ---
    #: the field that holds this operand's partition count (None: no field does)
    parts_field: str | None = "num_partitions"
    #: the (step, count) an unused free dim holds: {1, 1} by D-6, {0, 1} on the PE opcodes (R-9)
    fill: tuple[int, int] = (1, 1)
    #: how an access pattern's free dims become this slot's dims (a name in
    #: :data:`tongasm.isa.descriptors.PACKINGS`): D-6's drop-and-pack by default
    packing: str = "free-dims"
    #: a partition count the layout fixes for an operand with no count field (the cross-lane reduce's
    #: dst has 1): the simulator's view of the slot
    partitions: int | None = None
    #: the widest element, in bytes, of an operand no field gives the dtype of (the Matmul's PSUM
    #: result: fp32, or a transpose's input dtype, R-12): the race check's footprint of the slot
    elem_bytes: int | None = None
    #: the wire dtype of such an operand from the bundle's fields, when a decision says it (the
    #: Matmul's PSUM result: R-12's input dtype for a transpose, else fp32); ``elem_bytes`` bounds it
    elem_wire: Callable[[Mapping[str, int]], int] | None = field(default=None, compare=False, repr=False)

    def partition_count(self, fields: Mapping[str, int]) -> int:
        """This operand's partition count in a decoded bundle: the fixed count, else its count field's."""
        return self.partitions if self.partitions is not None else fields[self.parts_field or "num_partitions"]

    def extent(self, fields: Mapping[str, int], size: int) -> tuple[int, int]:
        """[lowest, highest] byte offset this operand touches relative to its start address, in a
        decoded bundle whose elements are ``size`` bytes (steps are signed: a negative step reaches
        below the start)."""
        lo = hi = 0
        for sk, nk in zip(self.step_keys, self.num_keys):
            num = fields[nk]
            if num > 1:
                span = fields[sk] * (num - 1) * size
                if span < 0:
                    lo += span
                else:
                    hi += span
        return lo, hi + size - 1

    @property
    def size(self) -> int:
        return 4 + 4 * self.ndims

    # the names of the slot's fields (``<slot>.addr``, ``<slot>.step<i>``, ``<slot>.num<i>``), made once
    @cached_property
    def addr_key(self) -> str:
        return f"{self.name}.addr"

    @cached_property
    def step_keys(self) -> tuple[str, ...]:
        return tuple(f"{self.name}.step{i}" for i in range(self.ndims))

    @cached_property
    def num_keys(self) -> tuple[str, ...]:
        return tuple(f"{self.name}.num{i}" for i in range(self.ndims))


@lru_cache(maxsize=1024)
def _compiled(source: str, filename: str) -> CodeType:
    """The code of a generated codec, compiled once per source (every FormatSet of a decision selection
    compiles the same layouts again)."""
    return compile(source, filename, "exec")


class _Nonzero:
    def __repr__(self) -> str:
        return "NONZERO"


#: A ``match`` value meaning "any non-zero value" (used to tell variants apart on decode).
NONZERO: Any = _Nonzero()

MatchValue = int | frozenset | _Nonzero


def _matches(expected: MatchValue, got: int) -> bool:
    if expected is NONZERO:
        return got != 0
    if isinstance(expected, frozenset):
        return got in expected
    return got == expected


@dataclass
class _Carrier:
    offset: int
    size: int
    signed: bool
    fields: list[Field] = field(default_factory=list)


class Format:
    """A complete 64-byte bundle layout, compiled into a fast codec.

    ``opcodes`` maps each opcode byte that uses this layout to its mnemonic. ``match`` tells this
    layout apart from sibling variants of the same opcode on decode (field → expected value).
    """

    def __init__(
        self,
        name: str,
        opcodes: Mapping[int, str],
        fields: Sequence[Field],
        *,
        match: Mapping[str, MatchValue] | None = None,
        slots: Sequence[Slot] = (),
        doc: str = "",
    ) -> None:
        self.name = name
        self.opcodes = dict(opcodes)
        self.fields: tuple[Field, ...] = tuple(sorted(fields, key=lambda f: f.bit_range))
        self.field_map: dict[str, Field] = {}
        for f in self.fields:
            if f.name in self.field_map:
                raise ValueError(f"{name}: field {f.name!r} declared twice")
            self.field_map[f.name] = f
        self.match: dict[str, MatchValue] = dict(match or {})
        for m in self.match:
            if m not in self.field_map:
                raise ValueError(f"{name}: match on unknown field {m!r}")
        self.slots: dict[str, Slot] = {s.name: s for s in slots}
        self.doc = doc
        #: the layout record this codec was compiled from (set by :func:`tongasm.isa.formats.compile_layout`)
        self.layout: Layout = None  # type: ignore[assignment]
        #: where the bundle's sync lanes are (the header band, or the layout's own lanes; None: no sync
        #: fields at all), set by :func:`tongasm.isa.formats.compile_layout`
        self.sync: SyncLanes | None = None
        self._check_layout()
        self._carriers = self._build_carriers()
        self.struct = struct.Struct(self._struct_format())
        self.encode_source, self.decode_source = self._generate()
        ns: dict[str, Any] = {"_pack": self.struct.pack, "_unpack_from": self.struct.unpack_from,
                              "_err": self._range_error, "_StructError": struct.error}
        exec(_compiled(self.encode_source, f"<tongasm format {name} encode>"), ns)
        exec(_compiled(self.decode_source, f"<tongasm format {name} decode>"), ns)
        self._encode: Callable[[Mapping[str, int]], bytes] = ns["encode"]
        self.slot_fields: dict[str, tuple[str, ...]] = {
            s: tuple(f.name for f in sorted((f for f in self.fields if f.slot == s), key=lambda f: f.offset))
            for s in self.slots}
        self._decode: Callable[[Any, int], dict[str, int]] = ns["decode"]
        # composition: each non-slot field as (first bit, lo, hi, mask); placed values are OR-ed
        # into one little-endian integer of the bundle (fields never overlap: _check_layout)
        # (a constant field accepts only its constant here: compose ORs the constants in itself)
        self._places: dict[str, tuple[int, int, int, int]] = {
            f.name: (f.bit_range[0], f.lo if f.const is None else f.const, f.hi if f.const is None else f.const,
                     (1 << f.nbits) - 1) for f in self.fields}
        self._slot_bits: dict[str, dict[tuple[int, ...], int]] = {s: {} for s in self.slots}

    # -- layout ------------------------------------------------------------------------------

    def _check_layout(self) -> None:
        taken: dict[int, str] = {}
        for f in self.fields:
            if f.offset < 0 or f.offset + f.size > BUNDLE_SIZE:
                raise ValueError(f"{self.name}: field {f.name} lies outside the 64-byte bundle")
            if f.shift + f.nbits > f.size * 8:
                raise ValueError(f"{self.name}: field {f.name} bits exceed its carrier")
            lo, hi = f.bit_range
            for bit in range(lo, hi):
                if bit in taken:
                    raise ValueError(f"{self.name}: field {f.name} overlaps {taken[bit]}")
                taken[bit] = f.name

    def _build_carriers(self) -> list[_Carrier]:
        carriers: dict[tuple[int, int], _Carrier] = {}
        for f in self.fields:
            key = (f.offset, f.size)
            c = carriers.get(key)
            if c is None:
                c = carriers[key] = _Carrier(f.offset, f.size, f.signed and not f.is_bitfield)
            elif f.signed or c.signed:
                raise ValueError(f"{self.name}: signed field {f.name} shares a carrier")
            c.fields.append(f)
        out = sorted(carriers.values(), key=lambda c: c.offset)
        for a, b in zip(out, out[1:]):
            if a.offset + a.size > b.offset:
                raise ValueError(f"{self.name}: carriers at {a.offset:#x} and {b.offset:#x} overlap")
        return out

    def _struct_format(self) -> str:
        parts = ["<"]
        pos = 0
        for c in self._carriers:
            if c.offset > pos:
                parts.append(f"{c.offset - pos}x")
            parts.append(_STRUCT_CODES[(c.size, c.signed)])
            pos = c.offset + c.size
        if pos < BUNDLE_SIZE:
            parts.append(f"{BUNDLE_SIZE - pos}x")
        return "".join(parts)

    def _generate(self) -> tuple[str, str]:
        # encode_checked: every field range-checked (names the field on failure).
        # encode: struct.pack checks whole carriers itself; only bit fields are checked here; on
        # struct.error the checked version runs and reports which field does not fit.
        enc = ["def encode_checked(v):", "    g = v.get"]
        fast = ["def encode(v):", "    g = v.get"]
        fast_args = []
        args = []
        dec_items = []
        for i, c in enumerate(self._carriers):
            terms = []
            fterms = []
            for j, f in enumerate(c.fields):
                var = f"a{i}_{j}"
                default = f.const if f.const is not None else 0
                enc.append(f"    {var} = g({f.name!r}, {default})")
                enc.append(f"    if not {f.lo} <= {var} <= {f.hi}: raise _err({f.name!r}, {var})")
                terms.append(f"({var} << {f.shift})" if f.shift else var)
                if f.is_bitfield:
                    fast.append(f"    {var} = g({f.name!r}, {default})")
                    fast.append(f"    if not {f.lo} <= {var} <= {f.hi}: return encode_checked(v)")
                    fterms.append(f"({var} << {f.shift})" if f.shift else var)
                else:
                    fterms.append(f"g({f.name!r}, {default})")
                if f.is_bitfield:
                    mask = (1 << f.nbits) - 1
                    expr = f"(t[{i}] >> {f.shift}) & {mask}" if f.shift else f"t[{i}] & {mask}"
                else:
                    expr = f"t[{i}]"
                dec_items.append(f"{f.name!r}: {expr}")
            args.append(" | ".join(terms))
            fast_args.append(" | ".join(fterms))
        enc.append(f"    return _pack({', '.join(args)})")
        fast.append("    try:")
        fast.append(f"        return _pack({', '.join(fast_args)})")
        fast.append("    except _StructError:")
        fast.append("        return encode_checked(v)")
        dec = ["def decode(buf, off=0):", "    t = _unpack_from(buf, off)",
               "    return {" + ", ".join(dec_items) + "}"]
        return "\n".join(enc) + "\n\n" + "\n".join(fast) + "\n", "\n".join(dec) + "\n"

    def _range_error(self, name: str, value: Any, lo: int | None = None, hi: int | None = None) -> Exception:
        f = self.field_map[name]
        if not isinstance(value, int) or isinstance(value, bool):
            return TypeError(f"{self.name}: field {name!r} needs an integer, got {value!r}")
        return FieldRangeError(self.name, name, value, f.lo if lo is None else lo, f.hi if hi is None else hi)

    # -- codec -------------------------------------------------------------------------------

    def encode(self, values: Mapping[str, int]) -> bytes:
        """Field values → 64 bytes. Unnamed fields are 0, constants take their value.

        Raises :class:`FieldRangeError` naming the field, the value and the allowed range when a
        value does not fit; nothing is truncated or wrapped.
        """
        return self._encode(values)

    # -- composition (the encoder's hot path) -------------------------------------------------
    #
    # A bundle is the OR of its fields' bits, so the parts that recur — a plan's static fields, a
    # packed descriptor slot — can be placed once and reused. Every part is range-checked when it
    # is placed; nothing is truncated or wrapped.

    def place(self, values: Mapping[str, int]) -> int:
        """Named field values → their bits in the bundle, as a little-endian integer.

        Unlike :meth:`encode`, an unknown name is an error (KeyError), constants are not filled in
        (only what ``values`` names is placed) and a constant field accepts only its constant.
        """
        x = 0
        places = self._places
        for name, v in values.items():
            pos, lo, hi, mask = places[name]
            if type(v) is not int or not lo <= v <= hi:
                raise self._range_error(name, v, lo, hi)
            x |= (v & mask) << pos
        return x

    def placement(self, name: str) -> tuple[int, int, int, int]:
        """Where :meth:`place` puts field ``name``: (first bit, lowest value, highest value, bit mask)."""
        return self._places[name]

    def range_error(self, name: str, value: Any) -> Exception:
        """The error for a value that does not fit field ``name`` (a TypeError if it is no integer)."""
        return self._range_error(name, value)

    def place_slot(self, name: str, tup: tuple[int, ...]) -> int:
        """A descriptor slot given as its ``(addr, steps..., counts...)`` tuple → its bits (memoised)."""
        memo = self._slot_bits[name]
        hit = memo.get(tup)
        if hit is None:
            if len(memo) >= SLOT_MEMO_LIMIT:
                memo.clear()
            fields = self.slot_fields[name]
            if len(tup) != len(fields):
                raise ValueError(f"{self.name}: slot {name!r} has {len(fields)} fields, got {len(tup)} values")
            hit = memo[tup] = self.place(dict(zip(fields, tup)))
        return hit

    def compose(self, base: int, values: Mapping[str, int] | None = None,
                slots: Mapping[str, tuple[int, ...]] | None = None) -> bytes:
        """The 64 bytes of ``base`` (bits placed earlier, see :meth:`place`) OR the named
        ``values`` OR the descriptor ``slots``, with the format's constants filled in."""
        x = base | self.const_bits
        if values:
            x |= self.place(values)
        if slots:
            for name, tup in slots.items():
                x |= self.place_slot(name, tup)
        return x.to_bytes(BUNDLE_SIZE, "little")

    @cached_property
    def const_bits(self) -> int:
        """The bits of the format's constant fields (placed)."""
        return self.place({f.name: f.const for f in self.fields if f.const is not None})

    def decode(self, buf: Any, offset: int = 0) -> dict[str, int]:
        """64 bytes at ``offset`` of ``buf`` → raw field values (every declared field)."""
        return self._decode(buf, offset)

    def matches(self, values: Mapping[str, int]) -> bool:
        """Whether decoded values select this variant (all ``match`` entries hold)."""
        return all(_matches(exp, values[name]) for name, exp in self.match.items())

    def covered_mask(self) -> bytes:
        """64 bytes, 0xFF where some field owns the bit range, per byte (bit-exact per byte)."""
        mask = bytearray(BUNDLE_SIZE)
        for f in self.fields:
            lo, hi = f.bit_range
            for bit in range(lo, hi):
                mask[bit // 8] |= 1 << (bit % 8)
        return bytes(mask)

    def __repr__(self) -> str:
        ops = ", ".join(f"{o:#04x}" for o in self.opcodes)
        return f"<Format {self.name} [{ops}] {len(self.fields)} fields>"
