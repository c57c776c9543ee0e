"""Golden listings: the disassembly of every positive golden vector, kept in tests/golden/listings.

Any change to the listing format shows up as a diff here. Each stored listing also assembles back
to the vector's expected bytes — bytes that were derived by hand from the spec — so the listing of
every opcode and variant is tied to an independent source, not just to tongasm's own output.
Regenerate after an intended format change with TONGASM_UPDATE_GOLDEN=1.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tongasm.isa import DecisionSet, build_formats
from tongasm.text import StreamInput, assemble_text, listing

ROOT = Path(__file__).parent / "golden"
VECTORS = [p for p in sorted((ROOT / "vectors").glob("**/*.json")) if "streams" in json.loads(p.read_text())["expect"]]
UPDATE = os.environ.get("TONGASM_UPDATE_GOLDEN") == "1"


def expected_listing(case: dict) -> str:
    ds = DecisionSet.parse(case.get("decisions") or [])
    from tongasm.isa.targets import get_target

    target = get_target(case.get("target") or case["kernel"].get("arch") or "gen2")
    streams = [StreamInput(n, bytes.fromhex("".join(b))) for n, b in case["expect"]["streams"].items()]
    return "\n".join(listing(streams, decisions=ds, target=target)) + "\n"


def listing_path(vector: Path) -> Path:
    return ROOT / "listings" / vector.parent.name / (vector.stem + ".s")


@pytest.mark.parametrize("vector", VECTORS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_listing_matches_the_stored_golden(vector: Path) -> None:
    case = json.loads(vector.read_text())
    text = expected_listing(case)
    path = listing_path(vector)
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"; listing of {vector.parent.name}/{vector.name}: {case.get('description', '')}\n" + text)
    stored = path.read_text()
    assert stored.split("\n", 1)[1] == text, f"listing format changed for {path.name}"
    prog = assemble_text(stored, path=str(path))
    want = {n: bytes.fromhex("".join(b)) for n, b in case["expect"]["streams"].items()}
    assert {n: bytes(s) for n, s in prog.streams.items()} == want


def test_every_opcode_and_variant_has_a_golden_listing() -> None:
    fs = build_formats(DecisionSet())
    listed = "\n".join(p.read_text() for p in (ROOT / "listings").glob("**/*.s"))
    for op, fmts in fs.by_opcode.items():
        for fmt in fmts:
            m = fmt.opcodes[op] + ("." + fmt.name.split(".", 1)[1] if len(fmts) > 1 else "")
            assert re.search(rf"  {re.escape(m)}( |$)", listed, re.M), f"no golden listing shows {m}"
