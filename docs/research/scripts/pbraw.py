"""Minimal raw protobuf wire-format reader (no schema) for the NEFF .dbg members.

Reusable helper (checks nothing by itself): parse(buf) -> list of (field_no, wire_type, value),
where a length-delimited value is kept as bytes (callers may re-parse it as a message).
"""
from __future__ import annotations


def varint(b: bytes, i: int) -> tuple[int, int]:
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return r, i


def parse(b: bytes) -> list[tuple[int, int, object]]:
    out = []
    i = 0
    n = len(b)
    while i < n:
        key, i = varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v = b[i:i + 8]; i += 8
        elif wt == 2:
            ln, i = varint(b, i)
            v = b[i:i + ln]; i += ln
        elif wt == 5:
            v = b[i:i + 4]; i += 4
        else:
            raise ValueError(f"wire type {wt} at {i}")
        out.append((f, wt, v))
    return out


def try_msg(v: bytes):
    """Parse v as a message if it parses cleanly, else None."""
    try:
        r = parse(v)
        return r if r else None
    except Exception:
        return None


def dump(b: bytes, depth: int = 0, maxdepth: int = 6) -> str:
    lines = []
    for f, wt, v in parse(b):
        pad = "  " * depth
        if wt == 2:
            s = None
            try:
                s = v.decode("utf-8")
                if not s.isprintable():
                    s = None
            except UnicodeDecodeError:
                pass
            sub = try_msg(v) if depth < maxdepth else None
            if s is not None and (sub is None or len(s) < 80):
                lines.append(f"{pad}{f}: {s!r}")
            elif sub is not None:
                lines.append(f"{pad}{f}: {{")
                lines.append(dump(v, depth + 1, maxdepth))
                lines.append(f"{pad}}}")
            else:
                lines.append(f"{pad}{f}: bytes {v.hex()}")
        else:
            lines.append(f"{pad}{f}: {v if wt == 0 else v.hex()}")
    return "\n".join(lines)
