"""The disassembly listing: one bundle per line.

    .target gen2
    .stream dve
    00000000:  |41100000 00000000 00000000 aa0a0480 …|  TensorTensorArithOp op=add, out=sb[p0:128]+0x1000[1x512].float32, ...

Each line is ``OFFSET: |BYTES| INSTRUCTION``. The bytes column shows the first 16 bytes (all 64 with
``full_bytes``); the assembler ignores offsets and the bytes column, the instruction text is
authoritative. A bundle that does not decode prints as ``.bytes <128 hex digits>`` with the reason
as a comment, and the listing goes on. The format is documented in docs/text-format.md and pinned
by the golden listings in tests/golden/listings.
"""

from __future__ import annotations

import re
import json
from dataclasses import dataclass
from typing import Any
from collections.abc import Iterable, Iterator, Sequence

from ..decode.bundle import DecodedBundle, DecodeFailure, iter_stream
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.fields import BUNDLE_SIZE
from ..isa.formats import FormatSet, build_formats
from ..isa.targets import DEFAULT_TARGET, Target, get_target
from .syntax import render

HEAD_BYTES = 16


def mnemonic_of(d: DecodedBundle, fs: FormatSet) -> str:
    """The listing mnemonic: the opcode's name, plus the layout's variant when the opcode has several."""
    return fs.mnemonic(d.fmt, d.opcode)


def bytes_column(raw: bytes, full: bool) -> str:
    words = [raw[i:i + 4].hex() for i in range(0, BUNDLE_SIZE, 4)]
    if full:
        return "|" + " ".join(words) + "|"
    shown = words[:HEAD_BYTES // 4]
    more = any(raw[HEAD_BYTES:])
    return "|" + " ".join(shown) + (" …" if more else "  ") + "|"


def instruction_text(d: DecodedBundle, fs: FormatSet, decisions: DecisionSet) -> str:
    return render(d.fmt, d.fields, d.raw, decisions, mnemonic_of(d, fs))


def line_of(d: DecodedBundle | DecodeFailure, fs: FormatSet, decisions: DecisionSet, full_bytes: bool = False) -> str:
    if isinstance(d, DecodeFailure):
        return f"{d.offset:08x}:  .bytes {d.raw.hex()}  ; {d.reason}"
    return f"{d.offset:08x}:  {bytes_column(d.raw, full_bytes)}  {instruction_text(d, fs, decisions)}"


@dataclass
class StreamInput:
    """A stream to list: its name (the engine, e.g. ``dve``; ``sg00.pe`` for a NEFF's), its bytes and,
    when known (a NEFF's ``.dbg`` members), the BIR instruction each bundle came from."""

    name: str
    data: bytes | bytearray | memoryview
    bir_names: Sequence[str | None] | None = None  # one per bundle; None entries print nothing


def bir_comment(name: str | None) -> str:
    """The end-of-line comment naming a bundle's BIR instruction (``  ; I-87-0``), or ``""``. The
    assembler ignores it, so a listing with names still assembles to the same bytes."""
    return f"  ; {name}" if name else ""


def _name_at(s: StreamInput, i: int) -> str | None:
    return s.bir_names[i] if s.bir_names is not None and i < len(s.bir_names) else None


#: A stream name the ``.stream`` directive takes bare; any other (a graph name from a NEFF may hold
#: spaces or other characters) is written as a JSON string, which the assembler reads back.
BARE_STREAM_NAME = re.compile(r"[A-Za-z0-9_.-]+")


def stream_directive(name: str) -> str:
    """``.stream NAME``: bare when the name allows it, else JSON-quoted (``.stream "my graph.pe"``)."""
    return f".stream {name}" if BARE_STREAM_NAME.fullmatch(name) else f".stream {json.dumps(name)}"


def header_lines(target: Target, decisions: DecisionSet) -> list[str]:
    lines = [f".target {target.name}"]
    lines += [f".decision {d}" for d in decisions.describe()]
    return lines


def listing(streams: Iterable[StreamInput], *, decisions: DecisionSet = DEFAULT_DECISIONS,
            target: Target | str = DEFAULT_TARGET, full_bytes: bool = False) -> Iterator[str]:
    """The lines of the listing of several streams (directives, then each stream's bundles).
    ``target`` is a :class:`Target` or its name."""
    target = get_target(target)
    fs = build_formats(decisions)
    yield from header_lines(target, decisions)
    for s in streams:
        yield stream_directive(s.name)
        for i, d in enumerate(iter_stream(s.data, formats=fs)):
            yield line_of(d, fs, decisions, full_bytes) + bir_comment(_name_at(s, i))


def listing_json(streams: Iterable[StreamInput], *, decisions: DecisionSet = DEFAULT_DECISIONS,
                 target: Target | str = DEFAULT_TARGET) -> dict[str, Any]:
    """The JSON form: per stream, per bundle its offset, bytes, mnemonic, text and fields (or the error)."""
    target = get_target(target)
    fs = build_formats(decisions)
    out: dict[str, Any] = {"target": target.name, "decisions": decisions.describe(), "streams": []}
    for s in streams:
        rows = []
        for i, d in enumerate(iter_stream(s.data, formats=fs)):
            if isinstance(d, DecodeFailure):
                rows.append({"offset": d.offset, "bytes": d.raw.hex(), "error": d.reason})
            else:
                rows.append({"offset": d.offset, "bytes": d.raw.hex(), "opcode": d.opcode,
                             "mnemonic": mnemonic_of(d, fs), "format": d.fmt.name,
                             "text": instruction_text(d, fs, decisions), "fields": d.fields})
            if s.bir_names is not None:
                rows[-1]["bir"] = _name_at(s, i)
        out["streams"].append({"stream": s.name, "bundles": rows})
    return out
