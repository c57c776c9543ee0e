"""Whole-stream decoding into numpy columns: ``decode_stream(buffer)``.

The stream is viewed once as 64-byte records; bundles are grouped by opcode (a stable argsort of
the opcode column), each group is matched to its layout variant with vectorised ``match`` tests,
and every field becomes a numpy column extracted through a structured dtype built from the same
field declarations as the scalar codec. Nothing is decoded bundle by bundle in Python.

    cols = decode_stream(data)             # bytes, bytearray, memoryview or a numpy uint8 array
    cols.opcode                            # uint8[n]
    cols.layout_names[cols.layout[i]]      # layout of bundle i ("" when undecodable)
    cols.groups["TensorTensor"].fields["out.addr"]   # the column of one layout
    cols.column("num_partitions")          # one column over all bundles (0 where absent)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from ..errors import DecodeError
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.fields import BUNDLE_SIZE, NONZERO, Format
from ..isa.formats import FormatSet, build_formats

_NP = {(1, False): "u1", (2, False): "<u2", (4, False): "<u4", (8, False): "<u8",
       (1, True): "i1", (2, True): "<i2", (4, True): "<i4", (8, True): "<i8"}


@cache
def record_dtype(fmt: Format) -> np.dtype:
    """A structured dtype over the 64-byte record with one member per carrier of the layout."""
    names, formats, offsets, seen = [], [], [], set()
    for f in fmt.fields:
        key = f"@{f.offset}" if f.is_bitfield else f.name
        if key in seen:
            continue
        seen.add(key)
        names.append(key)
        formats.append(_NP[(f.size, f.signed and not f.is_bitfield)])
        offsets.append(f.offset)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": BUNDLE_SIZE})


@dataclass
class LayoutGroup:
    """The bundles of one layout: their positions in the stream and their field columns."""

    fmt: Format
    index: np.ndarray  # positions (bundle numbers) in the stream, ascending
    fields: dict[str, np.ndarray]

    def __len__(self) -> int:
        return len(self.index)


@dataclass
class StreamColumns:
    """A decoded stream: per-bundle opcode and layout, and per-layout field columns."""

    count: int
    opcode: np.ndarray
    layout: np.ndarray  # int16 index into layout_names; -1 where no layout matches
    layout_names: list[str]
    groups: dict[str, LayoutGroup] = field(default_factory=dict)

    @property
    def undecodable(self) -> np.ndarray:
        """Positions of bundles that have no layout (unknown opcode or no variant matches)."""
        return np.flatnonzero(self.layout < 0)

    def column(self, name: str, fill: int = 0) -> np.ndarray:
        """One field over the whole stream; ``fill`` where a bundle's layout has no such field."""
        cols = [g.fields[name] for g in self.groups.values() if name in g.fields]
        if not cols:
            raise KeyError(f"no layout in this stream has a field {name!r}")
        dtype = np.result_type(*cols)
        out = np.full(self.count, fill, dtype=dtype)
        for g in self.groups.values():
            if name in g.fields:
                out[g.index] = g.fields[name]
        return out

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "layouts": {k: len(g) for k, g in self.groups.items()},
                "undecodable": self.undecodable.tolist()}


def as_uint8(buffer: Any) -> np.ndarray:
    if isinstance(buffer, np.ndarray):
        return buffer.reshape(-1).view(np.uint8)
    return np.frombuffer(buffer, dtype=np.uint8)


#: Bundles per chunk when extracting columns: each chunk's 512 KiB stays in cache while every field
#: of every layout is gathered from it (a whole-stream pass per field would reread every cache line).
CHUNK = 8192


def _layouts(fs: FormatSet, data: np.ndarray, opcode: np.ndarray, n: int,
             names: list[str]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Per bundle: the index of its layout (-1: none); per layout: the positions of its bundles."""
    layout = np.full(n, -1, dtype=np.int16)
    present = np.flatnonzero(np.bincount(opcode, minlength=256)).tolist()
    for op in present:
        variants = fs.variants(op)
        if not variants:
            continue
        left = np.arange(n) if len(present) == 1 else np.flatnonzero(opcode == op)
        for fmt in variants:
            if fmt.match:
                m = _match(fmt, data.view(record_dtype(fmt)), left)
                layout[left[m]] = names.index(fmt.name)
                left = left[~m]
            else:
                layout[left] = names.index(fmt.name)
                left = left[:0]
            if len(left) == 0:
                break
    counts = np.bincount(layout[layout >= 0], minlength=len(names))
    positions = {}
    if (counts > 0).sum() == 1 and (layout >= 0).all():
        positions[names[int(np.argmax(counts))]] = np.arange(n)
    else:
        order = np.argsort(layout, kind="stable")
        sorted_layout = layout[order]
        for li in np.flatnonzero(counts).tolist():
            lo, hi = np.searchsorted(sorted_layout, [li, li + 1])
            positions[names[li]] = order[lo:hi]
    return layout, positions


def _match(fmt: Format, full: np.ndarray, idx: np.ndarray) -> np.ndarray:
    mask = np.ones(len(idx), dtype=bool)
    for name, exp in fmt.match.items():
        f = fmt.field_map[name]
        col = full[f"@{f.offset}" if f.is_bitfield else name][idx]
        if f.is_bitfield:
            col = (col >> f.shift) & ((1 << f.nbits) - 1)
        if exp is NONZERO:
            mask &= col != 0
        elif isinstance(exp, frozenset):
            mask &= np.isin(col, list(exp))
        else:
            mask &= col == exp
    return mask


class LazyFields(dict):
    """The field columns of one layout group, each extracted from the stream when first read
    (``fields[name]``; ``take(name, rows)`` extracts a few rows only). What a reader that needs few
    of a layout's fields (the fast listing) gets instead of every column up front."""

    def __init__(self, fmt: Format, full: np.ndarray, index: np.ndarray, dense: bool) -> None:
        super().__init__()
        self.fmt, self.full, self.index, self.dense = fmt, full, index, dense

    def _extract(self, name: str, rows: np.ndarray | None) -> np.ndarray:
        f = self.fmt.field_map[name]
        carrier = self.full[f"@{f.offset}" if f.is_bitfield else name]
        if rows is not None:
            col = carrier[self.index[rows]]
        elif self.dense:
            col = carrier[int(self.index[0]):int(self.index[0]) + len(self.index)] if len(self.index) else carrier[:0]
        else:
            col = carrier[self.index]
        if f.is_bitfield:
            mask = (1 << f.nbits) - 1
            return (col >> f.shift) & mask if f.shift else col & mask
        return np.ascontiguousarray(col)

    def __missing__(self, name: str) -> np.ndarray:
        col = self[name] = self._extract(name, None)
        return col

    def take(self, name: str, rows: np.ndarray) -> np.ndarray:
        """Column ``name`` at ``rows`` (positions in the group), without extracting the whole column."""
        col = dict.get(self, name)
        return col[rows] if col is not None else self._extract(name, rows)


def group_stream(buffer: Any, *, decisions: DecisionSet = DEFAULT_DECISIONS) -> StreamColumns:
    """:func:`decode_stream`'s grouping (each bundle's layout, each layout's bundles) with the field
    columns extracted when first read (:class:`LazyFields`): the same values, for readers that
    need few of them."""
    data = as_uint8(buffer)
    if data.size % BUNDLE_SIZE:
        raise DecodeError(f"stream has {data.size} bytes, which is not a whole number of {BUNDLE_SIZE}-byte bundles")
    fs = build_formats(decisions)
    n = data.size // BUNDLE_SIZE
    opcode = np.ascontiguousarray(data[0::BUNDLE_SIZE])
    names = list(fs.by_name)
    if n == 0:
        return StreamColumns(0, opcode, np.zeros(0, dtype=np.int16), names)
    layout, positions = _layouts(fs, data, opcode, n, names)
    cols = StreamColumns(n, opcode, layout, names)
    for name, pos in positions.items():
        fmt = fs.by_name[name]
        dense = len(pos) > 0 and int(pos[-1]) - int(pos[0]) == len(pos) - 1
        cols.groups[name] = LayoutGroup(fmt, pos, LazyFields(fmt, data.view(record_dtype(fmt)), pos, dense))
    return cols


def decode_stream(buffer: Any, *, decisions: DecisionSet = DEFAULT_DECISIONS) -> StreamColumns:
    """Decode a whole stream into per-field numpy columns (see the module docstring)."""
    data = as_uint8(buffer)
    if data.size % BUNDLE_SIZE:
        raise DecodeError(f"stream has {data.size} bytes, which is not a whole number of {BUNDLE_SIZE}-byte bundles")
    fs = build_formats(decisions)
    n = data.size // BUNDLE_SIZE
    opcode = np.ascontiguousarray(data[0::BUNDLE_SIZE])
    names = list(fs.by_name)
    if n == 0:
        return StreamColumns(0, opcode, np.zeros(0, dtype=np.int16), names)
    layout, positions = _layouts(fs, data, opcode, n, names)
    cols = StreamColumns(n, opcode, layout, names)
    plans = []
    for name, pos in positions.items():
        fmt = fs.by_name[name]
        full = data.view(record_dtype(fmt))
        out = {f.name: np.empty(len(pos), dtype=np.dtype(_NP[(f.size, f.signed and not f.is_bitfield)]))
               for f in fmt.fields}
        cuts = np.searchsorted(pos, np.arange(0, n + CHUNK, CHUNK))
        plans.append((fmt, full, pos, out, cuts))
        cols.groups[name] = LayoutGroup(fmt, pos, out)
    for c in range((n + CHUNK - 1) // CHUNK):
        for fmt, full, pos, out, cuts in plans:
            a, b = int(cuts[c]), int(cuts[c + 1])
            if a == b:
                continue
            idx = pos[a:b]
            dense = idx[-1] - idx[0] == b - a - 1  # a contiguous run: slice instead of gather
            lo = int(idx[0])
            carriers: dict[int, np.ndarray] = {}
            for f in fmt.fields:
                key = f"@{f.offset}" if f.is_bitfield else f.name
                if f.is_bitfield:
                    src = carriers.get(f.offset)
                    if src is None:
                        src = carriers[f.offset] = full[key][lo:lo + b - a] if dense else full[key][idx]
                    mask = (1 << f.nbits) - 1
                    out[f.name][a:b] = (src >> f.shift) & mask if f.shift else src & mask
                else:
                    out[f.name][a:b] = full[key][lo:lo + b - a] if dense else full[key][idx]
    return cols
