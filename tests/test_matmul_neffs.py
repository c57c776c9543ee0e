"""The two real matmul NEFFs, bundle by bundle: every bundle of both real NEFFs decodes (0x23 too, since
the activation family's R-21 layout), ``explain`` finds no unexplained non-zero byte in any decoded
bundle, bytes → text → bytes is the identity on every
stream, the real program passes the checks, the golden bundles of ``tests/golden/real/`` decode to
the readings their files give (values written from the bytes and the book, not from tongasm), the
book-only layouts (``tests/golden/book/``) decode, list and assemble back, and the bundle simulator
computes ``x @ y`` from matmul_small's real streams.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from neff_support import large, small
from tongasm.check import check_stream
from tongasm.decode.batch import decode_stream
from tongasm.decode.bundle import decode_bundle
from tongasm.isa import DecisionSet, get_target
from tongasm.neff import Neff, read_neff
from tongasm.ir.memory import MemoryDescription, Variable
from tongasm.sim.run import run_streams
from tongasm.text.assembler import assemble_text
from tongasm.text.explain import explain_bundle
from tongasm.text.fast import fast_listing
from tongasm.text.listing import StreamInput, listing

GOLDEN = Path(__file__).parent / "golden"
REAL = sorted((GOLDEN / "real").glob("*.json"))
BOOK = sorted((GOLDEN / "book").glob("*.json"))
BOOK_LISTING = GOLDEN / "listings" / "book" / "book_only.s"
GEN3 = get_target("gen3")
#: chapter §0.1: the opcode populations of both NEFFs (both cores together)
POPULATION = {
    "small": {0x01: 8, 0x02: 8, 0x23: 2, 0x46: 4, 0xA0: 4, 0xA4: 2, 0xB1: 10, 0xCC: 10, 0xD4: 10},
    "large": {0x01: 8704, 0x02: 33280, 0x23: 2, 0x41: 1024, 0x46: 64, 0x47: 128, 0x49: 128, 0xA0: 7470, 0xA4: 2,
              0xB1: 10, 0xCC: 10, 0xD4: 8768},
}


@cache
def neff(which: str) -> Neff:
    return read_neff(small() if which == "small" else large())


def streams_of(n: Neff) -> list[StreamInput]:
    return [StreamInput(s.name, n.stream_data(s)) for s in n.streams()]


# --- decoding --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("which", ["small", "large"])
def test_every_bundle_of_both_neffs_decodes(which: str) -> None:
    seen: Counter[int] = Counter()
    for s in streams_of(neff(which)):
        cols = decode_stream(s.data)
        assert not cols.undecodable.any(), s.name
        seen.update(cols.opcode.tolist())
        for name, g in cols.groups.items():
            assert all(int(op) in g.fmt.opcodes for op in set(cols.opcode[g.index].tolist())), name
    assert dict(seen) == POPULATION[which]


@pytest.mark.parametrize("which", ["small", "large"])
def test_no_unexplained_byte_in_any_real_bundle(which: str) -> None:
    """Every non-zero bit of every decoded bundle belongs to a field (the mask explain uses), and
    explain reports no unexplained byte, no error and a confidence tag for every field on one bundle
    of each (layout, non-zero bytes) pattern."""
    patterns: dict[tuple[str, bytes], bytes] = {}
    for s in streams_of(neff(which)):
        arr = np.frombuffer(s.data, np.uint8).reshape(-1, 64)
        cols = decode_stream(s.data)
        for name, g in cols.groups.items():
            rows = arr[g.index]
            mask = np.frombuffer(g.fmt.covered_mask(), np.uint8)
            assert not (rows & ~mask).any(), (s.name, name)
            nz = rows != 0
            for k in np.unique(np.packbits(nz, axis=1), axis=0, return_index=True)[1]:
                patterns.setdefault((name, np.packbits(nz[k]).tobytes()), rows[k].tobytes())
    for (name, _p), raw in patterns.items():
        ex = explain_bundle(raw, target=GEN3)
        assert ex.layout == name and not ex.error and ex.unexplained == [], (name, raw.hex())
        assert all(r.conf for r in ex.rows) and not [f for f in ex.findings if f.severity == "error"], (name, raw.hex())


@pytest.mark.parametrize("which", ["small", "large"])
def test_bytes_text_bytes_is_the_identity_on_every_stream(which: str) -> None:
    ins = streams_of(neff(which))
    lines = list(fast_listing(ins, target=GEN3))
    if which == "small":  # the reference listing is the same text (the large file: the property test covers it)
        assert lines == list(listing(ins, target=GEN3))
    prog = assemble_text("\n".join(lines))
    for s in ins:
        assert bytes(prog.streams[s.name]) == bytes(s.data), s.name
    # every bundle prints as an instruction (0x23 as ActivationTableLoad set=0: R-21)
    assert not [line for line in lines if ".bytes" in line]
    assert sum("ActivationTableLoad set=0" in line for line in lines) == 2


@pytest.mark.parametrize("which", ["small", "large"])
def test_the_real_program_passes_the_checks(which: str) -> None:
    n = neff(which)
    for s in n.streams():
        findings = check_stream(n.stream_data(s), name=s.name, target=n.target, stream=s.stream, unmodelled="note")
        assert [f.line() for f in findings if f.severity == "error"] == []
        assert findings == [], [f.line() for f in findings]


# --- the golden real bundles: their readings ----------------------------------------------------------------

def _layout_name(golden: str) -> str:
    return golden.split(" ")[0]  # "TensorTensor (R-7)" is tongasm's TensorTensor under R-7's default


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.stem)
def test_real_golden_bundle_decodes_to_its_readings(path: Path) -> None:
    case = json.loads(path.read_text())
    raw = bytes.fromhex(case["hex"])
    d = decode_bundle(raw)
    assert d.fmt.name == _layout_name(case["layout"])
    named: dict[str, int] = {}
    for f in case["fields"]:
        name, value, off = f["name"], f["value"], int(f["offset"], 16)
        if name in d.fmt.field_map:
            assert d.fields[name] == value, (name, d.fields[name], value)
            named[name] = value
            continue
        # a reserved run the file names as one field: every byte of it is zero and, here, either a
        # constant-zero field or a byte no field explains (which the checker requires to be zero)
        assert f["kind"] in ("reserved-zero", "constant=0") and value == 0, (name, f["kind"])
        width = int(f["width"].removeprefix("bytes")) if f["width"].startswith("bytes") else \
            {"u8": 1, "u16": 2, "u32": 4}[f["width"]]
        assert raw[off:off + width] == bytes(width), name
        covering = [x for x in d.fmt.fields if x.offset < off + width and off < x.offset + x.size]
        assert all(x.const == 0 for x in covering), (name, [x.name for x in covering])
    # the file's values alone rebuild the bundle through tongasm's declarations
    assert d.fmt.encode(named) == raw


# --- the book-only layouts -------------------------------------------------------------------------------------

def _book_lines() -> list[str]:
    out = []
    for path in BOOK:
        raw = bytes.fromhex(json.loads(path.read_text())["hex"])
        out.append(list(listing([StreamInput("book", raw)], target=GEN3))[-1])
    return out


@pytest.mark.parametrize("path", BOOK, ids=lambda p: p.stem)
def test_book_only_layout_decodes_explains_and_assembles_back(path: Path) -> None:
    case = json.loads(path.read_text())
    raw = bytes.fromhex(case["hex"])
    assert decode_bundle(raw).fmt.name == case["layout"]
    ex = explain_bundle(raw, target=GEN3)
    assert ex.unexplained == [] and ex.findings == [], (ex.unexplained, ex.findings)
    assert case["derivation"]
    text = list(listing([StreamInput("book", raw)], target=GEN3))
    assert bytes(assemble_text("\n".join(text)).streams["book"]) == raw


def test_the_book_listing_is_current() -> None:
    """tests/golden/listings/book/book_only.s: the listing of every book-only bundle (the golden-listing
    test requires one line per opcode; these opcodes have no BIR form to make a vector from)."""
    want = "; the book-only layouts (tests/golden/book/*.json), listed\n.target gen3\n.stream book\n" + \
        "\n".join(_book_lines()) + "\n"
    assert BOOK_LISTING.read_text() == want
    assert bytes(assemble_text(want).streams["book"]) == b"".join(
        bytes.fromhex(json.loads(p.read_text())["hex"]) for p in BOOK)


# --- simulation of matmul_small from its real bytes ---------------------------------------------------------------

def run_matmul_small(decisions: tuple[str, ...] = ()) -> tuple[np.ndarray, np.ndarray, dict[str, dict[str, int]]]:
    """Both cores of matmul_small on the bundle simulator (0x23, the activation table load, runs: it
    installs set 0 and has no effect on copies, chapter §4.2). Returns (output, fp16(x @ y), final semaphores per core)."""
    n = neff("small")
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (128, 256)).astype(np.float16)
    y = rng.uniform(-1, 1, (256, 128)).astype(np.float16)
    out = np.zeros((128, 128), np.float16)
    sems = {}
    for core, c0 in (("sg00", 0), ("sg01", 64)):
        streams = {s.stream: n.stream_data(s) for s in n.streams() if s.graph == core}
        # def.json (chapter §1.8): x var 1, y var 2, output0 var 3, the identity var 4; DGETable0 list [1, 2, 3]
        mem = MemoryDescription("gen3", [
            Variable("x", 1, "DRAM", dims=(1, 65536), dtype="float16", shape=[128, 256]),
            Variable("y", 2, "DRAM", dims=(1, 65536), dtype="float16", shape=[256, 128]),
            Variable("output0", 3, "DRAM", dims=(1, 32768), dtype="float16", shape=[128, 128], kind="Output"),
            Variable("identity", 4, "DRAM", dims=(1, 32768), dtype="float16", shape=[128, 128])], [1, 2, 3])
        res = run_streams(streams, mem, {"x": x, "y": y, "identity": np.eye(128, dtype=np.float16)}, target="gen3",
                          decisions=DecisionSet.parse(decisions))
        out[:, c0:c0 + 64] = res.outputs(["output0"])["output0"][:, c0:c0 + 64]
        sems[core] = res.state()["semaphores"]
    return out, (x.astype(np.float32) @ y.astype(np.float32)).astype(np.float16), sems


def test_matmul_small_computes_x_at_y_from_its_real_bytes() -> None:
    """Chapter §4.4/§4.5 (S): the real bundles, R-10/R-11/R-12 and S-40..S-47, give fp16(x @ y); the final
    semaphores are the chapter's (s4 = 2, s5 = 4, s8 = s24..s27 = 16)."""
    out, ref, sems = run_matmul_small()
    assert np.allclose(out.astype(np.float32), ref.astype(np.float32), rtol=1e-3, atol=1e-3)
    assert (out == ref).mean() > 0.99
    want = {"4": 2, "5": 4, "8": 16, "24": 16, "25": 16, "26": 16, "27": 16}
    assert sems == {"sg00": want, "sg01": want}


@pytest.mark.parametrize("reading", ["R-10=natural", "R-11=book-accu", "R-12=fp32"])
def test_the_simulated_result_needs_r10_r11_r12(reading: str) -> None:
    """Chapter §4.5: without the stationary's column reversal (R-10), with the book's ACCU reading of the
    flags (R-11) or with fp32 transposes (R-12) the real program does not compute x @ y."""
    out, ref, _ = run_matmul_small((reading,))
    assert not np.allclose(out.astype(np.float32), ref.astype(np.float32), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("reading", ["S-40=at-issue", "S-41=fp32", "R-16=dim0-outer", "R-15=parts"])
def test_readings_the_real_program_does_not_tell_apart(reading: str) -> None:
    """S-40 (DMA timing), S-41 (summation), R-16 (num1 = 1 everywhere) and R-15 (whole-DMA waits only):
    the real program's result does not depend on them."""
    out, ref, _ = run_matmul_small((reading,))
    assert np.allclose(out.astype(np.float32), ref.astype(np.float32), rtol=1e-3, atol=1e-3)
