#!/usr/bin/env python3
"""Fuzz the text assembler ``assemble_text`` (what ``tongasm asm FILE.s`` runs).

Input: the bytes of a listing, read as UTF-8 (undecodable bytes replaced, as no file reader would
hand the assembler anything but text). ``assemble_text`` returns streams or raises a
:class:`tongasm.text.TextSyntaxError` (a :class:`tongasm.errors.TongasmError`) whose line and
column lie inside the text; no other exception. What it accepts re-lists and re-assembles to the
same bytes (text -> bytes -> text -> bytes is stable), and an operand given twice is refused
(no silent last-wins).

    python fuzz/fuzz_asm_text.py -max_total_time=600 fuzz/corpus/asm_text   # atheris
    python fuzz/fuzz_asm_text.py --replay fuzz/corpus/asm_text              # no atheris
    python fuzz/fuzz_asm_text.py --random 2000                              # no atheris
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
    from tongasm.errors import TongasmError
    from tongasm.text import StreamInput, TextSyntaxError, assemble_text, listing
    from tongasm.text.syntax import split_operands


def TestOneInput(data: bytes) -> None:
    if len(data) > _common.MAX_INPUT:
        return
    text = data.decode("utf-8", "replace")
    try:
        prog = assemble_text(text, path="fuzz.s")
    except TextSyntaxError as e:
        lines = text.splitlines()
        assert 1 <= e.line <= len(lines), (e.line, len(lines))
        assert 0 <= e.col <= len(lines[e.line - 1]), (e.col, lines[e.line - 1])
        assert str(e).startswith(f"fuzz.s:{e.line}:{e.col + 1}: ")
        return
    except TongasmError as e:  # every text error must point at a line and column
        raise AssertionError(f"assemble_text raised {type(e).__name__}, not a TextSyntaxError: {e}") from None
    streams = {n: bytes(d) for n, d in prog.streams.items()}
    for d in streams.values():
        assert len(d) % 64 == 0
    relisted = "\n".join(listing([StreamInput(n, d) for n, d in streams.items()], decisions=prog.decisions,
                                 target=prog.target))
    again = assemble_text(relisted, path="relisted.s")
    assert {n: bytes(d) for n, d in again.streams.items()} == streams, "re-listing changed the bytes"
    assert again.target == prog.target and again.decisions == prog.decisions
    refuses_repeated_operands(relisted)


def refuses_repeated_operands(relisted: str) -> None:
    """No silent last-wins: each listed instruction with one of its operands given again (its value
    unchanged; a ``wait``/``upd`` item more times than its layout has lanes) is refused, naming it."""
    lines = relisted.splitlines()
    head = [line for line in lines if line.startswith((".target", ".decision"))]
    for line in lines:
        if "|" not in line or ".bytes" in line:  # an instruction line: OFFSET:  |BYTES|  MNEMONIC OPERANDS
            continue
        body = line.split("|", 2)[-1].strip()
        mnemonic, _, ops = body.partition(" ")
        items = split_operands(ops)
        if mnemonic == ".bytes" or not items:
            continue
        item = items[0][0]
        text = "\n".join([*head, ".stream s", f"{mnemonic} {ops}" + f", {item}" * 4])
        try:
            assemble_text(text, path="twice.s")
        except TextSyntaxError as e:
            assert "is given " in str(e), str(e)
        else:
            raise AssertionError(f"an operand given twice was accepted: {item!r} in {body!r}")
        return  # one line per input is enough


def _atheris_main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    _common.main("asm_text", TestOneInput, _atheris_main)
