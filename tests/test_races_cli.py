"""``tongasm check`` and ``check --races`` on NEFFs and raw streams, from the command line: the race
check is on by default for a whole graph, reports both bundles of a race (offset, mnemonic, BIR name,
source line), the region and the nearest semaphore, and exits 1; user errors exit 2 in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from corpus_support import corpus_dir
from tongasm.isa.fields import BUNDLE_SIZE

SRC = str(Path(__file__).resolve().parent.parent / "src")


def tongasm(*args: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run([sys.executable, "-m", "tongasm", *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=300)


def _matmul_small() -> Path:
    p = corpus_dir().parent / "matmul_small.neff"
    if not p.is_file():
        pytest.skip("the real matmul_small.neff is not beside the corpus")
    return p


def _without_pe_wait(tmp_path: Path) -> Path:
    """matmul_small with PE's Ldweights (bundle 3) no longer waiting sem8 >= 16 (SP's DMA of x), in sg00."""
    from tongasm.neff.neff import Neff

    n = Neff.read(_matmul_small())
    data = bytearray(n.stream_data(n.graph("sg00").streams["pe"]))
    o = 3 * BUNDLE_SIZE
    assert (data[o + 4], data[o + 5]) == (0x05, 8)  # wait sem_ge_imm on sem8
    data[o + 4:o + 6] = b"\0\0"  # no wait: mode, index and the value dword cleared (sync.unused stays quiet)
    data[o + 8:o + 12] = b"\0" * 4
    n.replace_stream("sg00", "pe", bytes(data))
    out = tmp_path / "racy.neff"
    out.write_bytes(n.to_bytes())
    return out


def test_check_of_a_real_neff_runs_the_race_check_and_is_clean() -> None:
    p = tongasm("check", _matmul_small())
    assert p.returncode == 0, p.stderr
    assert "matmul_small.neff:sg00 (races): 29 bundles, 5 DMAs, 18 pairs examined: clean" in p.stderr
    r = tongasm("checks")
    assert any(line.startswith("races.unordered") and "isa" in line for line in r.stdout.splitlines())


def test_a_removed_wait_is_reported_with_both_bundles_region_and_semaphore(tmp_path: Path) -> None:
    racy = _without_pe_wait(tmp_path)
    p = tongasm("check", "--races", racy)
    assert p.returncode == 1
    lines = [x for x in p.stdout.splitlines() if "races.unordered" in x]
    assert len(lines) == 2, p.stdout
    first = lines[0]
    # the DMA SP issued (bundle 2) and PE's Matmul (bundle 4, +0x100), the SBUF bytes of x, the semaphore
    assert first.startswith(f"{racy}:sg00.pe+0x100: error[races.unordered]")
    assert "sg00.sp DMA issued by bundle 2" in first and "sg00.pe bundle 4 (" in first and "Matmul" in first
    assert "sbuf partitions" in first and "0x37b00" in first and "nearest semaphore sem8" in first
    assert "sg00 (races)" in p.stderr and "2 findings" in p.stderr and "sg01 (races)" in p.stderr
    # --races runs only the race check: no per-stream summaries
    assert "sg00/pe:" not in p.stderr
    # the default check of the NEFF finds them too, as one of its isa checks
    d = tongasm("check", racy)
    assert d.returncode == 1 and d.stdout.count("races.unordered") == 2
    # and --disable turns it off
    off = tongasm("check", "--disable", "races.unordered", racy)
    assert off.returncode == 0 and "races" not in off.stderr


def test_race_report_as_json(tmp_path: Path) -> None:
    p = tongasm("check", "--races", "--format", "json", _without_pe_wait(tmp_path))
    assert p.returncode == 1
    doc = json.loads(p.stdout)
    g = next(i for i in doc["inputs"] if i["input"].endswith("sg00 (races)"))
    assert g["kind"] == "races" and g["pairs"] > 0 and len(g["races"]) == 2
    r = g["races"][0]
    assert r["first"]["stream"] == "sg00.sp" and r["first"]["dma"] is True
    assert r["second"]["mnemonic"] == "Matmul" and r["second"]["bir"]
    assert r["region"]["space"] == "sbuf" and r["region"]["bytes"][0] == 0x37B00
    assert r["semaphore"] == 8
    assert doc["clean"] is False


def test_races_over_raw_streams_given_together(tmp_path: Path) -> None:
    """The streams of sg00 written as pe.bin, sp.bin...: checked together (no 0xC1 blocks known; the
    0xD4 DMAs of matmul_small are in the bytes), the removed wait found as in the NEFF."""
    from tongasm.neff.neff import Neff

    n = Neff.read(_without_pe_wait(tmp_path))
    paths = []
    for s in n.graph("sg00").streams.values():
        f = tmp_path / f"{s.stream}.bin"
        f.write_bytes(n.stream_data(s))
        paths.append(f)
    p = tongasm("check", "--races", "--target", "gen3", *paths)
    assert p.returncode == 1, p.stderr
    lines = [x for x in p.stdout.splitlines() if "races.unordered" in x]
    sbuf = [x for x in lines if "sbuf partitions 0..127 bytes 0x37b00" in x]
    assert len(sbuf) == 2 and sbuf[0].startswith("streams:pe+0x100") and "sp DMA issued by bundle 2" in sbuf[0]
    # and one more than in the NEFF: without its DGE table the DMA writing the output (Pool's, mode 0x20)
    # may write any DRAM variable, the input SP's DMA reads among them
    assert len(lines) == 3 and "DRAM (any variable)" in (set(lines) - set(sbuf)).pop()


def test_races_user_errors_exit_2_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "pe.bin"
    bad.write_bytes(b"\0" * 65)
    p = tongasm("check", "--races", bad)
    assert p.returncode == 2 and "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1
    q = tongasm("check", "--races", "--disable", "races.unordered", _matmul_small())
    assert q.returncode == 2 and "contradict" in q.stderr and "Traceback" not in q.stderr


def _inputs(tmp_path: Path) -> list[str]:
    import numpy as np

    r = np.random.default_rng(1)
    np.save(tmp_path / "x.npy", (r.standard_normal((128, 256)) / 8).astype(np.float16))
    np.save(tmp_path / "y.npy", (r.standard_normal((256, 128)) / 8).astype(np.float16))
    return ["-i", f"x={tmp_path / 'x.npy'}", "-i", f"y={tmp_path / 'y.npy'}"]


def test_run_schedules_agree_on_the_real_neff_and_disagree_on_the_racy_one(tmp_path: Path) -> None:
    """The dynamic cross-check: the real NEFF's outputs are the same under 3 random schedules; with PE's
    wait removed (the race check's two races) the Matmuls read x before its DMA lands in some schedule."""
    ok = tongasm("run", _matmul_small(), *_inputs(tmp_path), "-o", tmp_path / "a", "--schedules", "3")
    assert ok.returncode == 0, ok.stderr
    assert "3 random schedules" in ok.stdout and "every output agreed bit for bit" in ok.stdout
    bad = tongasm("run", _without_pe_wait(tmp_path), *_inputs(tmp_path), "-o", tmp_path / "b", "--schedules", "4",
                  "--format", "json")
    assert bad.returncode == 1, bad.stderr
    doc = json.loads(bad.stdout)
    assert doc["schedules"]["runs"] == 4 and doc["schedules"]["seeds"] == [1, 2, 3, 4]
    assert doc["schedules"]["disagreed"] and all(d["output"] == "output0" for d in doc["schedules"]["disagreed"])


def test_run_schedules_user_errors(tmp_path: Path) -> None:
    p = tongasm("run", _matmul_small(), "-o", tmp_path / "c", "--schedules", "0")
    assert p.returncode == 2 and "1..10000" in p.stderr and "Traceback" not in p.stderr


def test_explain_shows_the_footprint_and_a_blocks_dma(tmp_path: Path) -> None:
    """explain of a real bundle: its footprint (text and JSON, the exact pattern of a strided operand);
    a NEFF's 0xC1 trigger: the DMA block it fires (R-90, bytes)."""
    f = corpus_dir() / "yolox-trn1/MODULE_7566293729687800478.neff"
    j = tongasm("explain", "--format", "json", f"{f}:sg00/sp:1")
    assert j.returncode == 0, j.stderr
    doc = json.loads(j.stdout)
    assert doc["mnemonic"] == "PseudoDMATrigger" and doc["footprint"] == {"reads": [], "writes": []}
    assert doc["dma"]["reads"] == [{"space": "dram", "var": 1, "bytes": [0, 2400]}]
    assert doc["dma"]["writes"] == [{"space": "sbuf", "partitions": [0, 120], "bytes": [0x2FFE8, 0x2FFE8 + 20]}]
    t = tongasm("explain", f"{_matmul_small()}:sg00/pe:4")
    assert t.returncode == 0, t.stderr
    assert "footprint:" in t.stdout and "reads: sbuf partitions 0..127 bytes 0x37b00" in t.stdout
    assert "writes: psum partitions" in t.stdout


def _dma_stream(tmp_path: Path, n: int, distinct: bool) -> Path:
    """matmul_small with its sg00 SP stream replaced by ``n`` copies of its first DMA (x: DRAM var 4 to
    SBUF 0x37b00 of 128 partitions, 256 bytes each), none waiting, and its other engines' streams empty; ``distinct``: copy j writes SBUF byte
    j * 0x100 instead (no two overlap: no race, but every pair is unordered and must be compared)."""
    from tongasm.neff.neff import Neff

    n_ = Neff.read(_matmul_small())
    sp = n_.stream_data(n_.graph("sg00").streams["sp"])
    o = 2 * BUNDLE_SIZE
    one = bytearray(sp[o:o + BUNDLE_SIZE])
    assert one[0] == 0xD4 and int.from_bytes(one[0x28:0x2C], "little") == 0x37B00  # dst.addr
    out = bytearray()
    for j in range(n):
        if distinct:
            one[0x28:0x2C] = (j * 0x100).to_bytes(4, "little")
        out += one
    n_.replace_stream("sg00", "sp", bytes(out))
    for other in ("act", "pe", "pool", "dve"):  # the other engines' streams empty: only these DMAs
        n_.replace_stream("sg00", other, b"")
    p = tmp_path / ("distinct.neff" if distinct else "repeated.neff")
    p.write_bytes(n_.to_bytes())
    return p


def test_race_work_past_its_limit_stops_the_check_with_no_verdict(tmp_path: Path) -> None:
    """600 DMAs on distinct SBUF bytes, none ordered: 600 * 599 / 2 = 179,700 pairs, each compared. Under a
    limit of 50,000 comparisons the check stops (exit 2), names the graph, where it stopped and the
    variable, and claims no verdict; at the default limit it is clean."""
    p = _dma_stream(tmp_path, 600, distinct=True)
    env = {**os.environ, "PYTHONPATH": SRC, "TONGASM_MAX_RACE_COMPARISONS": "50000"}
    cut = subprocess.run([sys.executable, "-m", "tongasm", "check", "--races", str(p)], capture_output=True,
                         text=True, env=env, timeout=300)
    assert cut.returncode == 2, cut.stderr
    err = cut.stderr.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in cut.stderr, cut.stderr
    assert f"{p}:sg00: at sg00.sp bundle " in err[0] and "more than the limit of 50,000" in err[0]
    assert "cut there" in err[0] and "TONGASM_MAX_RACE_COMPARISONS raises the limit" in err[0]
    assert "clean" not in cut.stderr + cut.stdout
    ok = tongasm("check", "--races", p)
    assert ok.returncode == 0 and "sg00 (races): 600 bundles, 600 DMAs, 179700 pairs examined: clean" in ok.stderr


def test_repeated_identical_dmas_are_compared_once_per_access(tmp_path: Path) -> None:
    """600 copies of one DMA, none ordered: every two of them write the same SBUF bytes, 179,700 races (the
    first 100 kept, in issue order). An open run of identical transfers is one comparison per access,
    so it stays under a limit of 1,000 comparisons while every pair is still counted."""
    p = _dma_stream(tmp_path, 600, distinct=False)
    env = {**os.environ, "PYTHONPATH": SRC, "TONGASM_MAX_RACE_COMPARISONS": "1000"}
    r = subprocess.run([sys.executable, "-m", "tongasm", "check", "--races", "--format", "json", str(p)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stdout)
    (g,) = [x for x in doc["inputs"] if x["input"].endswith(":sg00 (races)")]
    assert g["pairs"] == 600 * 599 // 2 and len(g["races"]) == 100
    # the kept races: the second DMA against the first, then the third against the first and second ...
    got = [(x["first"]["index"], x["second"]["index"]) for x in g["races"][:4]]
    assert got == [(0, 1), (0, 2), (1, 2), (0, 3)]
    assert "and 179600 more unordered conflicting pairs" in r.stdout


def test_a_race_check_of_more_bundles_than_its_limit_is_refused_before_decoding(tmp_path: Path) -> None:
    p = _dma_stream(tmp_path, 300, distinct=False)
    env = {**os.environ, "PYTHONPATH": SRC, "TONGASM_MAX_RACE_BUNDLES": "200"}
    r = subprocess.run([sys.executable, "-m", "tongasm", "check", "--races", str(p)], capture_output=True,
                       text=True, env=env, timeout=300)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"{p}:sg00: the race check would hold 300 bundles, more than the limit of 200" in r.stderr
    assert "TONGASM_MAX_RACE_BUNDLES raises the limit" in r.stderr
