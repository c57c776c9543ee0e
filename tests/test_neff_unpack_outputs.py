"""``neff unpack``/``pack``/``repack`` outputs, from the command line: ``-o`` checked before the work,
a link to an empty directory followed, write failures exit 1, and no temporary file or directory
left behind by a terminated run (SIGTERM) or kept after a killed one (SIGKILL): the next run removes
what a tongasm left, and only that."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from neff_support import large, small
from tongasm.cli import main
from tongasm.io.outputs import TREE_MARK

SRC = str(Path(__file__).resolve().parent.parent / "src")


def tongasm(*args: object, limit_bytes: int | None = None) -> subprocess.CompletedProcess[str]:
    def limits() -> None:
        if limit_bytes is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run([sys.executable, "-m", "tongasm", *map(str, args)], capture_output=True, text=True,
                          env=env, preexec_fn=limits, timeout=120)


def hidden(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir() if p.name.startswith("."))


def test_unpack_checks_o_before_reading_the_neff(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("x")
    assert main(["neff", "unpack", str(tmp_path / "missing.neff"), "-o", str(tmp_path / "file")]) == 2
    err = capsys.readouterr().err
    assert "-o names a directory" in err and "missing.neff" not in err
    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("mine")
    assert main(["neff", "unpack", str(tmp_path / "missing.neff"), "-o", str(full)]) == 2
    err = capsys.readouterr().err
    assert "not empty" in err and "missing.neff" not in err and [p.name for p in full.iterdir()] == ["keep.txt"]


@pytest.mark.parametrize("command", ["repack", "pack"])
def test_pack_and_repack_check_o_before_the_work(tmp_path: Path, command: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "adir").mkdir()
    src = tmp_path / ("missing.neff" if command == "repack" else "missing-dir")
    assert main(["neff", command, str(src), "-o", str(tmp_path / "adir")]) == 2
    err = capsys.readouterr().err
    assert "adir" in err and "missing" not in err


def test_unpack_into_a_link_to_an_empty_directory(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    assert main(["neff", "unpack", str(small()), "-o", str(link), "-q"]) == 0
    assert link.is_symlink() and (real / "kelf-0.json").is_file() and (real / "sg00" / "PE.bin").is_file()
    assert main(["neff", "pack", str(link), "-o", str(tmp_path / "back.neff"), "-q"]) == 0
    assert (tmp_path / "back.neff").read_bytes() == small().read_bytes()
    assert hidden(tmp_path) == []


def test_leftovers_of_a_killed_unpack_are_removed_by_the_next_and_only_tongasms(tmp_path: Path) -> None:
    stale = tmp_path / ".u.tmp-k1ll3d00"  # what a SIGKILL'd unpack leaves: its marked temporary tree
    (stale / "sg00").mkdir(parents=True)
    (stale / TREE_MARK).touch()
    (stale / "sg00" / "PE.bin").write_bytes(b"half")
    foreign = tmp_path / ".u.tmp-notours0"  # the same name pattern, not marked: someone else's
    foreign.mkdir()
    (foreign / "data").write_text("keep")
    assert main(["neff", "unpack", str(small()), "-o", str(tmp_path / "u"), "-q"]) == 0
    assert not stale.exists() and (foreign / "data").read_text() == "keep"
    assert hidden(tmp_path) == [".u.tmp-notours0"]


def test_a_killed_file_write_leaves_nothing_the_next_write_keeps(tmp_path: Path) -> None:
    stale = tmp_path / ".r.neff.tmp-ab12cd34"  # a SIGKILL'd atomic write's temporary file
    stale.write_bytes(b"partial")
    other = tmp_path / ".r.neff.tmp-long-name-not-mkstemp"
    other.write_bytes(b"not a temporary name tongasm makes")
    assert main(["neff", "repack", str(small()), "-o", str(tmp_path / "r.neff"), "-q"]) == 0
    assert (tmp_path / "r.neff").read_bytes() == small().read_bytes()
    assert hidden(tmp_path) == [other.name]


def _interrupt_while_writing(tmp_path: Path, sig: int) -> subprocess.Popen[bytes]:
    """Start an unpack of the large NEFF; send ``sig`` once its temporary tree appears."""
    env = {**os.environ, "PYTHONPATH": SRC}
    p = subprocess.Popen([sys.executable, "-m", "tongasm", "neff", "unpack", str(large()), "-o", str(tmp_path / "u"),
                          "-q"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while p.poll() is None and time.monotonic() < deadline:
        if any(n.startswith(".u.tmp-") for n in os.listdir(tmp_path)):
            p.send_signal(sig)
            break
        time.sleep(0.002)
    p.wait(60)
    return p


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_an_interrupted_unpack_leaves_nothing_for_the_next(tmp_path: Path, sig: int) -> None:
    p = _interrupt_while_writing(tmp_path, sig)
    if p.returncode == 0:
        pytest.skip("the unpack finished before the signal could be sent")
    if sig == signal.SIGTERM:
        assert p.returncode != 0 and hidden(tmp_path) == [], hidden(tmp_path)  # removed on the way out
        assert b"Traceback" not in (p.stderr.read() if p.stderr else b"")
    assert not (tmp_path / "u").exists()
    r = tongasm("neff", "unpack", large(), "-o", tmp_path / "u", "-q")
    assert r.returncode == 0, r.stderr
    assert hidden(tmp_path) == [] and (tmp_path / "u" / "kelf-0.json").is_file()


def test_a_full_disk_is_exit_1_like_the_other_writers(tmp_path: Path) -> None:
    # a file size limit makes the write of a member past 10 KB fail (EFBIG), as a full disk would
    r = tongasm("neff", "unpack", small(), "-o", tmp_path / "u", limit_bytes=10_000)
    assert r.returncode == 1 and r.stderr.startswith("tongasm: error: cannot write") and "Traceback" not in r.stderr
    assert not (tmp_path / "u").exists() and hidden(tmp_path) == []
    r = tongasm("neff", "repack", large(), "-o", tmp_path / "r.neff", limit_bytes=10_000)
    assert r.returncode == 1 and r.stderr.startswith("tongasm: error: cannot write"), r.stderr
    assert not (tmp_path / "r.neff").exists() and hidden(tmp_path) == []


def test_a_run_killed_before_it_marked_its_tree_leaves_an_empty_directory_the_next_removes(tmp_path: Path) -> None:
    """SIGKILL between making the hidden tree and marking it leaves it empty: the next unpack removes
    it (nothing to lose); an unmarked one with content is not tongasm's to remove."""
    (tmp_path / ".u.tmp-killed01").mkdir()
    (tmp_path / ".u.tmp-someone").mkdir()
    (tmp_path / ".u.tmp-someone" / "keep.txt").write_text("mine")
    r = tongasm("neff", "unpack", small(), "-o", tmp_path / "u", "-q")
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / ".u.tmp-killed01").exists()
    assert (tmp_path / ".u.tmp-someone" / "keep.txt").read_text() == "mine"


@pytest.mark.parametrize("writer", ["tree", "new", "swapped", "in_place"])
def test_a_signal_while_the_temporary_directory_is_made_leaves_nothing(tmp_path: Path, writer: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The window a SIGTERM hit in a fresh-clone suite: the signal arrives while the temporary
    directory is made (held back, raised once it exists, before the writer has its name)."""
    import tempfile

    from tongasm.errors import Terminated
    from tongasm.io import outputs

    real = tempfile.mkdtemp

    def mkdtemp_then_signal(*a: object, **k: object) -> str:
        made = real(*a, **k)  # type: ignore[call-overload]
        outputs._on_signal(signal.SIGTERM, None)  # what the handler does inside the held block
        return made

    out = tmp_path / "d"
    if writer in ("swapped", "in_place"):
        out.mkdir()
        (out / "old.txt").write_text("old")
        if writer == "in_place":
            (out / "sub").mkdir()  # a subdirectory: written in place, not swapped
    monkeypatch.setattr(outputs.tempfile, "mkdtemp", mkdtemp_then_signal)
    with outputs.termination_raises(), pytest.raises(Terminated):
        if writer == "tree":
            outputs.write_new_tree(out, [("a/b.txt", b"x")])
        else:
            outputs.write_output_dir(out, {"new.txt": b"x"})
    assert hidden(tmp_path) == [], hidden(tmp_path)
    if writer != "tree" and writer != "new":
        assert sorted(p.name for p in out.iterdir()) == (["old.txt", "sub"] if writer == "in_place" else ["old.txt"])
