#!/usr/bin/env python3
"""Fuzz the raw-stream checker ``check_stream`` (what ``tongasm check FILE.bin`` runs).

Input: byte 0 picks the target (bit 0), pedantic checks (bit 1) and the engine the stream is for
(bits 2-4: none, pool, act, pe, dma, dve, sp); byte 1 picks the decision readings; the rest is the
stream. ``check_stream`` returns findings or raises a :class:`tongasm.errors.TongasmError`; the
findings are well formed (known check ids, offsets on bundle boundaries inside the stream, JSON
serialisable) and the undecodable bundles it reports are exactly those ``iter_stream`` reports.

    python fuzz/fuzz_check.py -max_total_time=600 fuzz/corpus/check   # atheris
    python fuzz/fuzz_check.py --replay fuzz/corpus/check              # no atheris
    python fuzz/fuzz_check.py --random 2000                           # no atheris
"""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

try:
    import atheris
except ImportError:  # the --replay / --random fallback modes run without it
    atheris = None

with _common.instrumented(atheris, __name__):
    from tongasm.check import CHECKS, CheckSet, Finding, check_stream
    from tongasm.decode import DecodeFailure, iter_stream
    from tongasm.errors import TongasmError
    from tongasm.isa import GEN2, GEN3, each_reading

READINGS = each_reading()
ENGINES = [None, "pool", "act", "pe", "dma", "dve", "sp"]
BUNDLE = 64


def TestOneInput(data: bytes) -> None:
    if len(data) > _common.MAX_INPUT:
        return
    sel = data[0] if data else 0
    ds = READINGS[data[1] % len(READINGS)] if len(data) > 1 else READINGS[0]
    body = data[2:]
    target = GEN3 if sel & 1 else GEN2
    checks = CheckSet(pedantic=bool(sel & 2))
    engine = ENGINES[(sel >> 2) % len(ENGINES)]
    try:
        out = check_stream(body, name="fuzz.bin", target=target, decisions=ds, checks=checks, stream=engine)
    except TongasmError:
        return
    assert isinstance(out, list)
    n = len(body)
    for f in out:
        assert isinstance(f, Finding)
        assert f.check in CHECKS, f.check
        assert f.stream == "fuzz.bin"
        assert isinstance(f.offset, int) and 0 <= f.offset <= n and f.offset % BUNDLE == 0, f
        assert f.message
        f.line()
        json.dumps(f.to_json())
    lengths = [f for f in out if f.check == "stream.length"]
    assert len(lengths) == (1 if n % BUNDLE else 0)
    whole = body[:n - n % BUNDLE]
    failures = [d.offset for d in iter_stream(whole, decisions=ds) if isinstance(d, DecodeFailure)]
    undecodable = [f.offset for f in out if f.check in ("bundle.opcode", "bundle.layout")]
    assert undecodable == failures, (undecodable, failures)


def _atheris_main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    _common.main("check", TestOneInput, _atheris_main)
