#!/usr/bin/env python3
"""Fuzz the bundle decoder: ``decode_bundle``, ``iter_stream``, ``decode_stream`` and the listing.

Input: byte 0 picks the decision readings (bits 0-6) and whether a partial trailing bundle is kept
(bit 7; else the stream is cut to whole bundles), the rest is a bundle stream. Whatever the bytes, every
decoder returns or raises a :class:`tongasm.errors.TongasmError`; on top of that the harness checks
that the vectorised ``decode_stream`` agrees with the scalar decoder bundle by bundle (same layout,
same field values, same undecodable bundles), that the fast listing equals the plain one, and that
the listing assembles back to the very same bytes (bytes -> text -> bytes is the identity, with
undecodable bundles kept as ``.bytes``).

    python fuzz/fuzz_decode.py -max_total_time=600 fuzz/corpus/decode   # atheris
    python fuzz/fuzz_decode.py --replay fuzz/corpus/decode               # no atheris
    python fuzz/fuzz_decode.py --random 2000                             # no atheris
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

try:
    import atheris
except ImportError:  # the --replay / --random fallback modes run without it
    atheris = None

with _common.instrumented(atheris, __name__):
    from tongasm.decode import DecodeFailure, decode_bundle, iter_stream
    from tongasm.decode.batch import decode_stream
    from tongasm.errors import TongasmError
    from tongasm.isa import each_reading
    from tongasm.text import StreamInput, assemble_text, listing
    from tongasm.text.fast import fast_listing

READINGS = each_reading()
BUNDLE = 64


def TestOneInput(data: bytes) -> None:
    if len(data) > _common.MAX_INPUT:
        return
    ds = READINGS[(data[0] & 0x7F) % len(READINGS)] if data else READINGS[0]
    body = data[1:]
    if data and not data[0] & 0x80:
        body = body[:len(body) - len(body) % BUNDLE]

    for off in range(0, max(len(body), 1), BUNDLE):  # every offset, including a short tail
        try:
            d = decode_bundle(body, off, decisions=ds)
        except TongasmError:
            continue
        assert d.offset == off and d.raw == body[off:off + BUNDLE] and d.opcode == body[off]
        d.to_json()
        _ = d.mnemonic

    try:
        scalar = list(iter_stream(body, decisions=ds))
    except TongasmError:
        scalar = None
    try:
        cols = decode_stream(body, decisions=ds)
    except TongasmError:
        cols = None
    assert (scalar is None) == (cols is None) == (len(body) % BUNDLE != 0), "decoders disagree on the length"
    if scalar is None or cols is None:
        return

    # decode_stream agrees with the scalar decoder on every bundle
    assert cols.count == len(scalar)
    bad = [i for i, d in enumerate(scalar) if isinstance(d, DecodeFailure)]
    assert cols.undecodable.tolist() == bad, (cols.undecodable.tolist(), bad)
    where = {}
    for name, g in cols.groups.items():
        for k, i in enumerate(g.index.tolist()):
            where[i] = (name, g, k)
    for i, d in enumerate(scalar):
        if isinstance(d, DecodeFailure):
            assert i not in where
            d.to_json()
            continue
        name, g, k = where[i]
        assert name == d.fmt.name, (i, name, d.fmt.name)
        got = {f: int(col[k]) for f, col in g.fields.items()}
        assert got == {f: int(v) for f, v in d.fields.items()}, (i, name)
    cols.to_json()

    # the listing (plain and fast) and its round trip through the text assembler
    streams = [StreamInput("dve", body)]
    lines = list(listing(streams, decisions=ds))
    assert list(fast_listing(streams, decisions=ds)) == lines
    prog = assemble_text("\n".join(lines), path="<listing>")
    assert bytes(prog.streams["dve"]) == body, "bytes -> text -> bytes is not the identity"


def _atheris_main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    _common.main("decode", TestOneInput, _atheris_main)
