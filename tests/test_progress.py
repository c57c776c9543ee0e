"""Progress bars (tongasm.progress), --quiet, memory-mapped inputs and atomic outputs of the CLI."""

from __future__ import annotations

import io
import json
import os
import re
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import tongasm.cli as cli
from tongasm import progress as prog
from tongasm.cli import main
from tongasm.errors import InputError
from tongasm.progress import NullProgress, Progress, progress
from tongasm.io.outputs import atomic_write, write_output_dir
from tongasm.io.inputs import read_buffer

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "vector_add.json"


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    """A hand-driven clock that counts how often it is read."""

    def __init__(self, t: float = 0.0) -> None:
        self.t = t
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        return self.t


@pytest.fixture(autouse=True)
def _no_env(monkeypatch):
    monkeypatch.delenv(prog.ENV_DISABLE, raising=False)
    monkeypatch.delenv("COLUMNS", raising=False)


# --- the bar ---------------------------------------------------------------------------------------------

def test_draws_on_a_tty_after_the_delay_and_clears_its_line():
    tty, clock = FakeTTY(), Clock()
    bar = progress("disasm", 200, unit="bundles", stream=tty, clock=clock, width=100)
    assert isinstance(bar, Progress) and bar.hook is not None
    bar.update(10)
    clock.t = 0.4
    bar.update(20)
    assert tty.getvalue() == ""  # quick jobs print nothing
    clock.t = 1.0
    bar.update(100)
    text = tty.getvalue()
    assert text.startswith("\rdisasm [") and "100/200 bundles" in text and " 50%" in text
    assert "100/s" in text and "ETA 0:01" in text and "#" in text
    assert len(text) < 100
    bar.close()
    out = tty.getvalue()
    assert out.endswith("\r" + " " * (len(text) - 1) + "\r")  # the line is blanked, the cursor back at 0
    clock.t = 5.0
    bar.update(150)
    assert tty.getvalue() == out  # nothing after close


def test_throttled_to_about_ten_draws_a_second():
    tty, clock = FakeTTY(), Clock()
    bar = Progress("x", 1000, stream=tty, clock=clock, delay=0.5, interval=0.1)
    for k in range(1000):  # 1000 updates over 2 s of clock time
        clock.t = k * 0.002
        bar.update(k)
    assert 14 <= bar.draws <= 16  # from 0.5 s to 2 s at most one per 0.1 s
    assert tty.getvalue().count("\r") == bar.draws


def test_advance_reads_the_clock_only_every_n_calls():
    tty, clock = FakeTTY(), Clock()
    bar = Progress("x", stream=tty, clock=clock, every=100, interval=0.0)
    clock.t = 1.0
    reads = clock.reads
    for _ in range(1000):
        bar.advance()
    assert bar.done == 1000 and clock.reads - reads == 10
    assert "1,000" in tty.getvalue() and "%" not in tty.getvalue()  # no total: count and rate only


def test_unknown_total_with_a_fraction_shows_percent_and_eta():
    tty, clock = FakeTTY(), Clock()
    bar = Progress("assemble", unit="instructions", stream=tty, clock=clock, width=120)
    clock.t = 2.0  # e.g. after reading the kernel's header: rate and time left count from here
    bar.update(5000, fraction=0.25)
    assert "5,000 instructions" in tty.getvalue() and " 25%" in tty.getvalue() and "ETA" not in tty.getvalue()
    clock.t = 4.0
    bar.update(10000, fraction=0.5)
    line = tty.getvalue().rsplit("\r", 1)[-1]
    assert "10,000 instructions" in line and " 50%" in line and "2.5k/s" in line and "ETA 0:04" in line


def test_phase_switches_label_total_and_rate():
    tty, clock = FakeTTY(), Clock()
    bar = Progress("check a.json", 10, unit="instructions", stream=tty, clock=clock, width=120)
    clock.t = 1.0
    bar.update(10)
    bar.phase("check b.bin", 4096, unit="bundles")
    assert "check b.bin" in tty.getvalue().rsplit("\r", 1)[-1]
    clock.t = 3.0
    bar.update(1024)
    last = tty.getvalue().rsplit("\r", 1)[-1]
    assert "1,024/4,096 bundles" in last and "512/s" in last and "ETA 0:06" in last


@pytest.mark.parametrize("kwargs", [
    {"stream": io.StringIO()},  # not a terminal
    {"stream": FakeTTY(), "quiet": True},  # --quiet
    {"stream": FakeTTY(), "enabled": False},
])
def test_nothing_when_not_a_tty_or_quiet(kwargs):
    clock = Clock()
    bar = progress("x", 10, clock=clock, **kwargs)
    assert isinstance(bar, NullProgress) and not bar.enabled and bar.hook is None
    clock.t = 100.0
    with bar:
        bar.update(5)
        bar.advance()
        bar.phase("y", 3)
        bar(1, 2)
    assert kwargs["stream"].getvalue() == ""


def test_env_switch_and_forcing(monkeypatch):
    monkeypatch.setenv(prog.ENV_DISABLE, "1")
    assert not progress("x", stream=FakeTTY()).enabled
    assert progress("x", stream=io.StringIO(), enabled=True).enabled  # forced (e.g. by a test)
    assert not progress("x", stream=FakeTTY(), enabled=True, quiet=True).enabled  # quiet wins
    monkeypatch.setenv(prog.ENV_DISABLE, "")
    assert progress("x", stream=FakeTTY()).enabled


def test_a_broken_stream_never_fails_the_job():
    class Broken(FakeTTY):
        def write(self, s: str) -> int:
            raise OSError("gone")

    clock = Clock(1.0)
    bar = Progress("x", 10, stream=Broken(), clock=clock, delay=0)
    bar.update(1)
    bar.update(2)
    bar.close()


def test_a_narrow_terminal_drops_the_bar_not_the_numbers():
    bar = Progress("check a_rather_long_file_name.bin", 1_000_000, unit="bundles", stream=FakeTTY(),
                   clock=Clock(1.0), width=60)
    line = bar.line()
    assert "[" not in line and line.startswith("check a_rather") and len(line) <= 59


# --- the CLI: progress on a terminal, none with --quiet ----------------------------------------------------

@pytest.fixture
def tty_stderr(monkeypatch):
    """A function that makes stderr a terminal where the bar draws at once (no delay, no throttling);
    called in the test itself (pytest's output capture resets sys.stderr between setup and call)."""
    def install() -> FakeTTY:
        tty = FakeTTY()
        monkeypatch.setattr("sys.stderr", tty)
        monkeypatch.setattr("sys.stdout", io.StringIO())

        def eager(label, total=None, **kw):  # type: ignore[no-untyped-def]
            return progress(label, total, delay=0.0, interval=0.0, width=100, **kw)

        monkeypatch.setattr(cli.common, "progress", eager)
        return tty

    return install


@pytest.fixture
def assembled(tmp_path):
    out = tmp_path / "o"
    assert main(["assemble", str(EXAMPLE), "-o", str(out), "-q"]) == 0
    return out


def _commands(tmp_path: Path, out: Path) -> dict[str, list[str]]:
    bins = sorted(str(p) for p in out.glob("*.bin"))
    return {
        "assemble": ["assemble", str(EXAMPLE), "-o", str(tmp_path / "a")],
        "disasm": ["disasm", *bins, "-o", str(tmp_path / "k.s")],
        "check": ["check", str(EXAMPLE), *bins],
        "run": ["run", *bins, "--memory", str(out / "memory.json"), "-o", str(tmp_path / "r")],
        "run-kernel": ["run", str(EXAMPLE), "-o", str(tmp_path / "rk")],
    }


@pytest.mark.parametrize("name", ["assemble", "disasm", "check", "run", "run-kernel"])
def test_cli_shows_progress_on_a_terminal_and_quiet_silences_it(tmp_path, assembled, tty_stderr, name):
    argv = _commands(tmp_path, assembled)[name]
    tty = tty_stderr()
    assert main(argv) == 0
    assert re.search(r"\r[^\r\n]*\r +\r", tty.getvalue())  # the bar was drawn, then its line cleared
    tty.seek(0)
    tty.truncate()
    assert main([*argv, "--quiet"]) == 0
    assert "\r" not in tty.getvalue()


def test_cli_no_progress_when_piped_or_disabled(tmp_path, assembled, monkeypatch, capsys):
    argv = _commands(tmp_path, assembled)["disasm"]
    assert main(argv) == 0
    assert capsys.readouterr().err == ""  # stderr is not a terminal here
    tty = FakeTTY()
    monkeypatch.setattr("sys.stderr", tty)
    monkeypatch.setenv(prog.ENV_DISABLE, "1")
    monkeypatch.setattr(cli.common, "progress", lambda label, total=None, **kw: progress(label, total, delay=0.0, **kw))
    assert main(argv) == 0
    assert tty.getvalue() == ""


def test_disasm_to_a_terminal_stdout_draws_no_bar(tmp_path, assembled, tty_stderr, monkeypatch):
    tty = tty_stderr()
    monkeypatch.setattr("sys.stdout", FakeTTY())  # the listing itself goes to the terminal
    assert main(["disasm", str(assembled / "dve.bin")]) == 0
    assert tty.getvalue() == ""
    monkeypatch.setattr("sys.stdout", io.StringIO())  # piped: the bar draws
    assert main(["disasm", str(assembled / "dve.bin")]) == 0
    assert "\r" in tty.getvalue()


def test_check_quiet_also_drops_the_summary(tmp_path, assembled, capsys):
    assert main(["check", str(assembled / "dve.bin")]) == 0
    assert "clean" in capsys.readouterr().err
    assert main(["check", str(assembled / "dve.bin"), "-q"]) == 0
    assert capsys.readouterr().err == ""


# --- large inputs: memory-mapped streams ------------------------------------------------------------------

def test_read_buffer_maps_regular_files_and_reads_the_rest(tmp_path):
    p = tmp_path / "s.bin"
    p.write_bytes(bytes(range(256)) * 2)
    buf = read_buffer(p)
    assert isinstance(buf, memoryview) and buf.readonly and bytes(buf) == p.read_bytes()
    e = tmp_path / "e.bin"
    e.write_bytes(b"")
    assert read_buffer(e) == b""
    with pytest.raises(InputError, match="No such file"):
        read_buffer(tmp_path / "missing.bin")
    with pytest.raises(InputError, match="directory"):
        read_buffer(tmp_path)  # a directory


def _fifo_with(path: Path, data: bytes) -> threading.Thread:
    """A named pipe at ``path`` that one reader gets ``data`` from (a non-regular file: read, not mapped)."""
    os.mkfifo(path)

    def feed() -> None:
        with open(path, "wb") as fh:
            fh.write(data)

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    return t


def _stream_bytes(assembled: Path) -> bytes:
    return (assembled / "dve.bin").read_bytes() * 3 + (assembled / "sp.bin").read_bytes()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("argv", [
    ["disasm", "{}"], ["disasm", "{}", "--format", "json"], ["disasm", "{}", "--bytes"],
    ["decode", "{}"], ["decode", "{}", "--format", "json"], ["check", "{}", "--format", "json"],
    ["explain", "{}:5"],
])
def test_mapped_and_read_streams_give_identical_output(tmp_path, assembled, argv):
    """A regular file is memory-mapped, a named pipe is read: the output is the same. (In a
    subprocess with a timeout: a command that opened the pipe twice would wait forever.)"""
    data = _stream_bytes(assembled)
    (tmp_path / "m").mkdir()
    (tmp_path / "p").mkdir()
    mapped, piped = tmp_path / "m" / "dve.bin", tmp_path / "p" / "dve.bin"
    mapped.write_bytes(data)

    def tongasm(path: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "tongasm", *[a.format(path) for a in argv]],
                              capture_output=True, text=True, timeout=120)

    r1 = tongasm(mapped)
    t = _fifo_with(piped, data)
    r2 = tongasm(piped)
    t.join(5)
    assert r1.returncode == r2.returncode == 0, r1.stderr + r2.stderr
    assert r1.stdout.replace(str(mapped), "F") == r2.stdout.replace(str(piped), "F") and r1.stdout
    assert "\r" not in r1.stderr + r2.stderr  # piped stderr: no bar


def test_chunked_listing_is_the_whole_listing(tmp_path, assembled, capsys, monkeypatch):
    from tongasm.text.fast import fast_listing
    from tongasm.text.listing import StreamInput, listing_json

    data = _stream_bytes(assembled) + bytes([0xFF]) + bytes(63)  # an undecodable bundle at the end too
    p = tmp_path / "dve.bin"
    p.write_bytes(data)
    q = tmp_path / "sp.bin"
    q.write_bytes((assembled / "sp.bin").read_bytes())
    streams = [StreamInput("dve", data), StreamInput("sp", q.read_bytes())]
    monkeypatch.setattr(cli.common, "DISASM_CHUNK", 3)  # many pieces, a short last one
    assert main(["disasm", str(p), str(q), "-o", str(tmp_path / "k.s")]) == 0
    assert (tmp_path / "k.s").read_text() == "\n".join(fast_listing(streams)) + "\n"
    assert main(["disasm", str(p), str(q), "--format", "json"]) == 0
    assert capsys.readouterr().out == json.dumps(listing_json(streams), indent=1) + "\n"


def test_empty_stream(tmp_path, capsys):
    p = tmp_path / "dve.bin"
    p.write_bytes(b"")
    assert main(["disasm", str(p)]) == 0
    assert capsys.readouterr().out == ".target gen2\n.stream dve\n"
    assert main(["decode", str(p), "--format", "json"]) == 0
    assert capsys.readouterr().out == "[]\n"
    assert main(["decode", str(p)]) == 0
    assert capsys.readouterr().out == ""
    assert main(["check", str(p)]) == 0
    err = capsys.readouterr().err  # the assumed target is said, then the verdict
    assert err.endswith(f"{p}: 0 bundles: clean\n") and "assuming gen2" in err


def test_stream_not_a_whole_number_of_bundles(tmp_path, assembled, capsys):
    p = tmp_path / "dve.bin"
    p.write_bytes((assembled / "dve.bin").read_bytes() + bytes(10))
    out = tmp_path / "k.s"
    assert main(["disasm", str(p), "-o", str(out)]) == 2  # not a stream: unusable input
    err = capsys.readouterr().err
    assert f"{p} has 202 bytes" in err and "not a whole number of 64-byte bundles" in err
    assert "Traceback" not in err
    assert not out.exists() and _leftovers(tmp_path) == []
    assert main(["disasm", str(p)]) == 2
    assert capsys.readouterr().out == ""  # nothing printed before the error
    assert main(["decode", str(p)]) == 2
    assert "not a whole number" in capsys.readouterr().err
    assert main(["check", str(p)]) == 1
    assert "stream.length" in capsys.readouterr().out
    assert main(["run", str(p), "--memory", str(assembled / "memory.json"), "-o", str(tmp_path / "r")]) == 2
    assert "not a whole number" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_numpy_views_of_a_mapped_stream_are_not_copies(tmp_path, assembled):
    import numpy as np

    from tongasm.decode.batch import as_uint8
    from tongasm.text.fast import stream_lines

    data = _stream_bytes(assembled)
    p = tmp_path / "dve.bin"
    p.write_bytes(data)
    buf = read_buffer(p)
    arr = as_uint8(buf)
    assert not arr.flags.owndata and not arr.flags.writeable and np.shares_memory(arr, as_uint8(buf[64:]))
    assert stream_lines(buf) == stream_lines(data)
    n = len(data) // 64
    assert stream_lines(buf[64 * 3:], base=64 * 3) == stream_lines(data)[3:]
    with pytest.raises(ValueError):
        stream_lines(buf, base=10)
    assert n > 3


# --- atomic outputs ----------------------------------------------------------------------------------------

def _leftovers(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir() if ".tmp-" in p.name)


def test_atomic_write_failure_keeps_the_old_file(tmp_path):
    p = tmp_path / "k.s"
    p.write_text("old")

    def boom(fh) -> None:  # type: ignore[no-untyped-def]
        fh.write(b"partial")
        raise InputError("stop")

    with pytest.raises(InputError):
        atomic_write(p, boom)
    assert p.read_text() == "old" and _leftovers(tmp_path) == []
    atomic_write(p, lambda fh: fh.write(b"new"))
    assert p.read_text() == "new"
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(p.stat().st_mode) == 0o666 & ~mask  # not mkstemp's private 0600


def test_write_output_dir_failure_leaves_nothing(tmp_path):
    def boom(fh) -> None:  # type: ignore[no-untyped-def]
        raise InputError("stop")

    out = tmp_path / "o"
    with pytest.raises(InputError):
        write_output_dir(out, {"a.bin": b"x", "b.bin": boom})
    assert not out.exists() and _leftovers(tmp_path) == []
    write_output_dir(out, {"a.bin": b"1"})
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o777 & ~mask
    with pytest.raises(InputError):
        write_output_dir(out, {"a.bin": b"2", "b.bin": boom})
    assert [p.name for p in out.iterdir()] == ["a.bin"] and (out / "a.bin").read_bytes() == b"1"
    assert _leftovers(tmp_path) == []
    write_output_dir(out, {"a.bin": b"3", "c.bin": b"c"}, stale=["a.bin", "b.bin"])
    assert sorted(p.name for p in out.iterdir()) == ["a.bin", "c.bin"]


def test_failing_asm_writes_nothing(tmp_path, capsys):
    src = tmp_path / "k.s"
    src.write_text(".target gen2\n.stream dve\nNoSuchMnemonic x=1\n")
    out = tmp_path / "o"
    assert main(["asm", str(src), "-o", str(out)]) == 1
    assert "Traceback" not in capsys.readouterr().err
    assert not out.exists() and _leftovers(tmp_path) == []


def test_failing_run_writes_nothing(tmp_path, assembled, capsys):
    bad = tmp_path / "dve.bin"
    bad.write_bytes(bytes([0xFF]) + bytes(63))  # an undecodable bundle cannot run
    out = tmp_path / "r"
    assert main(["run", str(bad), "--memory", str(assembled / "memory.json"), "-o", str(out)]) == 1
    assert "undecodable" in capsys.readouterr().err
    assert not out.exists() and _leftovers(tmp_path) == []


def test_failing_disasm_keeps_the_old_listing(tmp_path, assembled):
    out = tmp_path / "k.s"
    out.write_text("old")
    bad = tmp_path / "x.bin"
    bad.write_bytes(bytes(65))
    assert main(["disasm", str(assembled / "dve.bin"), str(bad), "-o", str(out)]) == 2
    assert out.read_text() == "old" and _leftovers(tmp_path) == []
