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
