"""Bytes → fields: decode one bundle or a whole stream with the format tables.

The opcode byte selects the candidate layouts; the first layout whose ``match`` rule holds on
the bytes is used. Unknown opcodes and streams that are not a whole number of bundles are
reported with :class:`~tongasm.errors.DecodeError`; :func:`iter_stream` yields a
:class:`DecodeFailure` instead so that a listing can go on past a bad bundle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from collections.abc import Iterator

from ..errors import DecodeError
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.fields import BUNDLE_SIZE, Format
from ..isa.formats import FormatSet, build_formats
from ..isa.opcodes import ISA_OPCODE_NAMES, opcode_name


@dataclass
class DecodedBundle:
    """One decoded bundle: where it was, its opcode, its layout and its raw field values."""

    offset: int
    opcode: int
    fmt: Format
    fields: dict[str, int]
    raw: bytes

    @property
    def mnemonic(self) -> str:
        return self.fmt.opcodes.get(self.opcode, opcode_name(self.opcode))

    def to_json(self) -> dict[str, Any]:
        return {"offset": self.offset, "opcode": self.opcode, "mnemonic": self.mnemonic, "format": self.fmt.name,
                "fields": dict(self.fields)}


@dataclass
class DecodeFailure:
    """A bundle that could not be decoded, with the reason (listings print it and go on)."""

    offset: int
    raw: bytes
    reason: str

    @property
    def opcode(self) -> int | None:
        return self.raw[0] if self.raw else None

    def to_json(self) -> dict[str, Any]:
        return {"offset": self.offset, "opcode": self.opcode, "error": self.reason, "bytes": self.raw.hex()}


Decoded = DecodedBundle | DecodeFailure


def why_undecodable(raw: bytes | memoryview, formats: FormatSet) -> str:
    """The reason a bundle has no layout (for messages)."""
    op = raw[0]
    if not formats.variants(op):
        if op in ISA_OPCODE_NAMES:
            return (f"opcode {op:#04x} ({ISA_OPCODE_NAMES[op]}) is an ISA opcode tongasm has no layout for "
                    f"(tongasm decodes {', '.join(f'{o:#04x}' for o in sorted(formats.ops))})")
        return f"unknown opcode {op:#04x} (not a live opcode of the ISA)"
    names = []
    for fmt in formats.variants(op):
        vals = fmt.decode(raw)
        names.append(f"{fmt.name} needs " + ", ".join(f"{k}={v!r}" for k, v in fmt.match.items()) +
                     " (got " + ", ".join(f"{k}={vals[k]}" for k in fmt.match) + ")")
    return f"opcode {op:#04x} ({opcode_name(op)}): no layout matches: " + "; ".join(names)


def decode_bundle(buf: bytes | bytearray | memoryview, offset: int = 0, *,
                  formats: FormatSet | None = None, decisions: DecisionSet = DEFAULT_DECISIONS) -> DecodedBundle:
    """Decode the 64-byte bundle at ``offset`` of ``buf``."""
    fs = formats or build_formats(decisions)
    if len(buf) - offset < BUNDLE_SIZE:
        raise DecodeError(f"need {BUNDLE_SIZE} bytes for a bundle, only {max(0, len(buf) - offset)} left", offset)
    raw = bytes(buf[offset:offset + BUNDLE_SIZE])
    sel = fs.select(raw[0], raw)
    if sel is None:
        raise DecodeError(why_undecodable(raw, fs), offset)
    fmt, vals = sel
    return DecodedBundle(offset, raw[0], fmt, vals, raw)


def check_stream_length(n: int, what: str = "stream") -> None:
    if n % BUNDLE_SIZE:
        raise DecodeError(f"{what} has {n} bytes, which is not a whole number of {BUNDLE_SIZE}-byte bundles "
                          f"({n // BUNDLE_SIZE} whole bundle{'s' * (n // BUNDLE_SIZE != 1)} and {n % BUNDLE_SIZE} "
                          f"trailing byte{'s' * (n % BUNDLE_SIZE != 1)})")


def iter_stream(data: bytes | bytearray | memoryview, *, formats: FormatSet | None = None,
                decisions: DecisionSet = DEFAULT_DECISIONS, base: int = 0) -> Iterator[Decoded]:
    """Decode every bundle of a stream; undecodable bundles come out as :class:`DecodeFailure`.

    The length must be a whole number of bundles (checked first).
    """
    check_stream_length(len(data))
    fs = formats or build_formats(decisions)
    mv = memoryview(data)
    # identical bundles (35-53% of a large real NEFF's; every one of a stream that repeats one) are
    # decoded once and share their bytes and field values (read-only: nothing writes a bundle's fields)
    seen: dict[bytes, tuple[bytes, Format, dict[str, int]]] = {}
    for off in range(0, len(data), BUNDLE_SIZE):
        raw = bytes(mv[off:off + BUNDLE_SIZE])
        hit = seen.get(raw)
        if hit is not None:
            yield DecodedBundle(base + off, raw[0], hit[1], hit[2], hit[0])
            continue
        sel = fs.select(raw[0], raw)
        if sel is None:
            yield DecodeFailure(base + off, raw, why_undecodable(raw, fs))
        else:
            seen[raw] = (raw, sel[0], sel[1])
            yield DecodedBundle(base + off, raw[0], sel[0], sel[1], raw)


def decode_all(data: bytes | bytearray | memoryview, *, decisions: DecisionSet = DEFAULT_DECISIONS) -> list[DecodedBundle]:
    """Decode a whole stream; the first undecodable bundle raises :class:`DecodeError`."""
    out = []
    for d in iter_stream(data, decisions=decisions):
        if isinstance(d, DecodeFailure):
            raise DecodeError(d.reason, d.offset)
        out.append(d)
    return out
