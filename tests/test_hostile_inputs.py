"""Hostile and broken inputs: one must-fail test (or more) for every class of defect listed below.

1 nothing written outside ``-o``; 2 output directories change as a whole (swap, lock, signals);
3 stale-file cleanup removes only what the manifest lists; 4 ``-o`` targets that cannot be replaced
are refused; 5 refusals come before any work; 6 one instruction cap, checked before loops expand;
7 non-regular and huge inputs in bounded memory; 8 no internal error on absurd numbers, malformed
``memory.json``, wrong ``.npy`` inputs or a full stdout; 9 exit code 2 for unusable input everywhere;
10 duplicate JSON keys refused by both readers; 11 no silent last-wins or lossy cast; and the user
experience items (repeated warnings summarised, wording, the assemble summary).
"""

from __future__ import annotations

import io
import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import load_file, time_limit

import tongasm.cli as cli
import tongasm.io.inputs as inputs
import tongasm.io.outputs as util
from tongasm.cli import main
from tongasm.errors import (
    BirError,
    InputError,
    OutputError,
    Terminated,
    TongasmError,
    UsageError,
)
from tongasm.ir import read_bir
from tongasm.ir.stream_reader import stream_bir
from tongasm.passes import program
from tongasm.ir.memory import MemoryDescription
from tongasm.text import TextSyntaxError, assemble_text
from tongasm.io.outputs import check_output_name, output_name, write_output_dir

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "vector_add.json"
EXAMPLE_K = json.loads(EXAMPLE.read_text())


def run(*args: Any) -> int:
    return main([str(a) for a in args])


def tree(p: Path) -> set[str]:
    """Every path under ``p`` (relative), hidden ones included."""
    return {str(q.relative_to(p)) for q in p.rglob("*")}


def leftovers(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir() if ".tmp-" in p.name or "tongasm-lock" in p.name)


def renamed(old: str, new: str) -> dict[str, Any]:
    """The example kernel with memory location ``old`` renamed ``new`` (every reference too)."""
    text = json.dumps(EXAMPLE_K).replace(json.dumps(old), json.dumps(new))
    return json.loads(text)


def write_kernel(path: Path, k: Any) -> Path:
    path.write_text(json.dumps(k))
    return path


@pytest.fixture
def assembled(tmp_path: Path) -> Path:
    out = tmp_path / "o"
    assert run("assemble", EXAMPLE, "-o", out, "-q") == 0
    return out


# --- 1. nothing is written outside -o -------------------------------------------------------------

ESCAPING_NAMES = ["../escaped", "/tmp/abs_escape", "a\x00b", "\ud800x", "..", ".", ".hidden", "a/b", "a\\b",
                  "%41", "é ü", "\x1b[31m"]


@pytest.mark.parametrize("name", ESCAPING_NAMES)
def test_run_writes_every_output_inside_o(tmp_path: Path, name: str, capsys: Any) -> None:
    work = tmp_path / "w"
    work.mkdir()
    src = write_kernel(work / "k.json", renamed("sum", name))
    before = tree(tmp_path)
    assert run("run", src, "-o", work / "out", "-q") == 0, capsys.readouterr().err
    new = tree(tmp_path) - before
    assert all(p.startswith("w/out") for p in new), new
    files = {p.name for p in (work / "out").iterdir()}
    state = json.loads((work / "out" / "state.json").read_text())
    fname = state["outputs"][name]["file"]
    assert fname in files and fname == output_name(name, ".npy")
    assert check_output_name(fname) == fname and not fname.startswith(".") and "/" not in fname
    assert np.load(work / "out" / fname).shape == (128, 512)


def test_a_name_too_long_for_a_file_is_refused(tmp_path: Path, capsys: Any) -> None:
    src = write_kernel(tmp_path / "k.json", renamed("sum", "s" * 300))
    assert run("run", src, "-o", tmp_path / "out", "-q") == 2
    err = capsys.readouterr().err
    assert "cannot be a file name" in err and "at most 255" in err
    assert not (tmp_path / "out").exists()


def test_memory_json_names_are_encoded_too(tmp_path: Path, assembled: Path) -> None:
    mem = json.loads((assembled / "memory.json").read_text())
    for v in mem["variables"]:
        if v["name"] == "sum":
            v["name"] = "../../../x"
    (tmp_path / "m.json").write_text(json.dumps(mem))
    before = tree(tmp_path)
    bins = sorted(assembled.glob("*.bin"))
    assert run("run", *bins, "--memory", tmp_path / "m.json", "-o", tmp_path / "r", "-q") == 0
    assert {p for p in tree(tmp_path) - before if not p.startswith("r")} == set()
    assert (tmp_path / "r" / "%2E.%2F..%2F..%2Fx.npy").is_file()


@pytest.mark.parametrize("name", ["..", ".", ".hidden", "a/b", "x" * 300])
def test_stream_names_in_text_assembly_are_plain_file_names(name: str) -> None:
    with pytest.raises(TextSyntaxError, match="stream"):
        assemble_text(f".stream {name}\n.bytes {'00' * 64}\n", path="k.s")


@pytest.mark.parametrize("name", ["", ".", "..", "../x", "a/b", "/abs", "a\x00b", "\ud800", ".hidden", "é" * 200])
def test_write_output_dir_refuses_names_that_are_not_plain(tmp_path: Path, name: str) -> None:
    with pytest.raises(InputError, match="cannot be a file name"):
        write_output_dir(tmp_path / "o", {name: b"x"})
    assert not (tmp_path / "o").exists() and leftovers(tmp_path) == []


def test_output_names_are_injective_and_plain() -> None:
    names = ["a", "A", "a/b", "a%2Fb", "%", ".a", "%2Ea", "\ud800", "\udfff", "a\x00"]
    encoded = [output_name(n) for n in names]
    assert len(set(encoded)) == len(names)
    assert output_name("plain_name-1.x") == "plain_name-1.x"  # ordinary names stay as they are


# --- 2. output directories change as a whole --------------------------------------------------------

def test_rewriting_swaps_the_directory_and_keeps_foreign_files(tmp_path: Path, assembled: Path) -> None:
    notes = assembled / "notes.txt"
    notes.write_text("mine")
    ino = notes.stat().st_ino
    only_sp = {"functions": [{"name": "f", "registers": {"x": 1}, "blocks": [{"name": "b", "instructions": [
        {"opcode": "RegisterMove", "name": "m", "ins": [{"kind": "imm_value", "dtype": "int32", "value": 1}],
         "outs": [{"kind": "register_access", "dtype": "int32", "regref": "x"}]}]}]}]}
    src = write_kernel(tmp_path / "k.json", only_sp)
    assert run("assemble", src, "-o", assembled, "-q") == 0
    assert sorted(p.name for p in assembled.iterdir()) == ["manifest.json", "memory.json", "notes.txt", "sp.bin"]
    assert notes.read_text() == "mine" and notes.stat().st_ino == ino  # carried over (a hard link), not copied
    assert leftovers(tmp_path) == []


def test_a_directory_with_subdirectories_is_updated_in_place(tmp_path: Path, assembled: Path) -> None:
    (assembled / "sub").mkdir()
    (assembled / "sub" / "f").write_text("kept")
    assert run("assemble", EXAMPLE, "-o", assembled, "-q", "--census") == 0
    assert (assembled / "sub" / "f").read_text() == "kept" and (assembled / "census.bin").is_file()
    assert leftovers(tmp_path) == [] and not [p for p in assembled.iterdir() if p.name.startswith(".")]


def test_sigterm_while_writing_cleans_up_in_process(tmp_path: Path, assembled: Path) -> None:
    old = {p.name: p.read_bytes() for p in assembled.iterdir()}

    def killed(fh: Any) -> None:
        fh.write(b"partial")
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(1)  # the handler raises before this ends

    with pytest.raises(Terminated):
        write_output_dir(assembled, {"dve.bin": killed})
    assert {p.name: p.read_bytes() for p in assembled.iterdir()} == old and leftovers(tmp_path) == []
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # the handler is gone again
    with pytest.raises(Terminated):
        util.atomic_write(tmp_path / "k.s", killed)
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_a_signal_during_the_write_exits_128_plus_n_and_leaves_nothing(tmp_path: Path, assembled: Path,
                                                                       sig: str) -> None:
    old = {p.name: p.read_bytes() for p in assembled.iterdir()}
    script = textwrap.dedent(f"""
        import os, signal, sys, time
        import tongasm.codegen.assembler as a
        from tongasm.cli import main
        signal.signal(signal.{sig}, signal.SIG_DFL)  # as from a terminal (under nohup SIGHUP is ignored)
        def slow(self, fh, *written):
            fh.write(b"{{")
            os.kill(os.getpid(), signal.{sig})
            time.sleep(5)
        a.Assembly.write_manifest = slow
        sys.exit(main(["assemble", {str(EXAMPLE)!r}, "-o", {str(assembled)!r}, "-q", "--census"]))
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert r.returncode == 128 + getattr(signal, sig), r.stderr
    assert "interrupted" in r.stderr and "Traceback" not in r.stderr
    assert {p.name: p.read_bytes() for p in assembled.iterdir()} == old and leftovers(tmp_path) == []


def test_signals_are_held_back_while_committing() -> None:
    with util.termination_raises():
        with pytest.raises(Terminated):
            with util.signals_held():
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.05)
                reached = True  # not interrupted inside the block
            time.sleep(1)
    assert reached


def test_a_second_writer_waits_for_the_lock_then_refuses(tmp_path: Path, monkeypatch: Any) -> None:
    out = tmp_path / "o"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from tongasm.io import outputs as util
        with util._locked(Path({str(tmp_path / '.o.tongasm-lock')!r}), Path({str(out)!r})):
            print("locked", flush=True)
            sys.stdin.readline()  # held until the test says so
    """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        monkeypatch.setattr(util, "LOCK_WAIT", 0.2)
        with pytest.raises(OutputError, match="another tongasm is writing"):
            write_output_dir(out, {"a.bin": b"1"})
        assert not out.exists()
        monkeypatch.setattr(util, "LOCK_WAIT", 10.0)
        assert holder.stdin is not None
        holder.stdin.write("go\n")
        holder.stdin.flush()
        write_output_dir(out, {"a.bin": b"2"})  # waits until the holder is done
        assert (out / "a.bin").read_bytes() == b"2"
    finally:
        holder.kill() if holder.poll() is None else None
        holder.wait(10)
    assert leftovers(tmp_path) == []


def test_concurrent_assembles_into_one_directory_stay_consistent(tmp_path: Path) -> None:
    kernels = [write_kernel(tmp_path / f"k{i}.json", renamed("sum", f"sum{i}")) for i in range(2)]
    small = {"functions": [{"name": "f", "registers": {"x": 1}, "blocks": [{"name": "b", "instructions": [
        {"opcode": "RegisterMove", "name": "m", "ins": [{"kind": "imm_value", "dtype": "int32", "value": 1}],
         "outs": [{"kind": "register_access", "dtype": "int32", "regref": "x"}]}]}]}]}
    kernels.append(write_kernel(tmp_path / "k2.json", small))
    out = tmp_path / "o"
    procs = [subprocess.Popen([sys.executable, "-m", "tongasm", "assemble", str(k), "-o", str(out), "-q"],
                              stderr=subprocess.PIPE, text=True) for k in [*kernels, kernels[0]]]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode in (0, 1), err
        assert "internal error" not in err
    man = json.loads((out / "manifest.json").read_text())
    listed = {e["file"] for e in man["streams"].values()} | {"manifest.json", "memory.json"}
    assert {p.name for p in out.iterdir()} == listed
    for e in man["streams"].values():
        assert (out / e["file"]).stat().st_size == 64 * e["bundles"]
    assert leftovers(tmp_path) == []


def test_leftovers_of_a_killed_writer_are_removed_by_the_next(tmp_path: Path, assembled: Path) -> None:
    dead = tmp_path / ".o.tmp-deadbeef"
    dead.mkdir()
    (dead / "dve.bin").write_bytes(b"x")
    assert run("assemble", EXAMPLE, "-o", assembled, "-q") == 0
    assert leftovers(tmp_path) == []


def test_writing_into_the_working_directory_keeps_it(tmp_path: Path, assembled: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(assembled)
    ino = os.stat(".").st_ino
    assert run("assemble", EXAMPLE, "-o", ".", "-q", "--census") == 0
    assert os.stat(".").st_ino == ino and "census.bin" in os.listdir(".")  # updated in place, not swapped
    assert run("assemble", EXAMPLE, "-o", ".", "-q") == 0
    assert "census.bin" not in os.listdir(".") and leftovers(tmp_path) == [] and leftovers(assembled) == []


def test_a_removed_working_directory_is_a_clear_error(tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    assert run("assemble", EXAMPLE, "-o", "out") == 2
    assert "the current directory is gone" in capsys.readouterr().err


# --- 3. stale-file cleanup removes only what the manifest lists ----------------------------------

def test_disasm_edit_asm_run_loop_keeps_memory_json(tmp_path: Path, assembled: Path) -> None:
    (assembled / "notes.txt").write_text("mine")
    (assembled / "pool.bin").write_bytes(bytes(64))  # not listed by any manifest: not ours
    listing = tmp_path / "k.s"
    bins = sorted(str(p) for p in assembled.glob("*.bin") if p.name != "pool.bin")
    assert run("disasm", *bins, "-o", listing) == 0
    text = listing.read_text()
    text = text[:text.index(".stream sp")]  # edit: drop the sp stream
    listing.write_text(text)
    assert run("asm", listing, "-o", assembled, "-q") == 0
    names = sorted(p.name for p in assembled.iterdir())
    assert names == ["act.bin", "dve.bin", "manifest.json", "memory.json", "notes.txt", "pool.bin"]
    assert run("run", assembled / "act.bin", assembled / "dve.bin", "--memory", assembled / "memory.json",
               "-o", tmp_path / "r", "-q") == 0


def test_a_census_from_an_earlier_assemble_is_dropped(assembled: Path) -> None:
    assert run("assemble", EXAMPLE, "-o", assembled, "-q", "--census") == 0
    assert (assembled / "census.bin").exists()
    assert run("assemble", EXAMPLE, "-o", assembled, "-q") == 0
    assert not (assembled / "census.bin").exists()


def test_a_forged_manifest_cannot_make_tongasm_delete_outside(tmp_path: Path, assembled: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    man = json.loads((assembled / "manifest.json").read_text())
    man["streams"]["evil"] = {"file": "../victim.txt"}
    man["census"] = {"file": "/etc/passwd"}
    (assembled / "manifest.json").write_text(json.dumps(man))
    assert run("assemble", EXAMPLE, "-o", assembled, "-q") == 0
    assert victim.read_text() == "keep"


def test_run_drops_only_the_npy_files_its_last_run_wrote(tmp_path: Path) -> None:
    out = tmp_path / "r"
    assert run("run", EXAMPLE, "-o", out, "-q") == 0
    (out / "mine.npy").write_bytes(b"x")
    assert run("run", EXAMPLE, "-o", out, "-q", "--outputs", "n") == 0
    assert sorted(p.name for p in out.iterdir()) == ["mine.npy", "n.npy", "state.json"]


# --- 4. -o targets that cannot be replaced --------------------------------------------------------------

@pytest.mark.parametrize("target", ["", "/"])
@pytest.mark.parametrize("cmd", ["assemble", "run"])
def test_empty_and_root_outputs_are_refused(cmd: str, target: str, capsys: Any) -> None:
    assert run(cmd, EXAMPLE, "-o", target) == 2
    assert "tongasm: error:" in capsys.readouterr().err


def test_disasm_refuses_an_empty_output(assembled: Path) -> None:
    assert run("disasm", assembled / "dve.bin", "-o", "") == 2


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_fifo_device_and_directory_targets_are_refused(tmp_path: Path, assembled: Path, capsys: Any) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    dve = assembled / "dve.bin"
    for argv in (["disasm", dve, "-o", fifo], ["disasm", dve, "-o", "/dev/null"], ["disasm", dve, "-o", tmp_path],
                 ["assemble", EXAMPLE, "-o", fifo], ["assemble", EXAMPLE, "-o", "/dev/null"],
                 ["assemble", EXAMPLE, "-o", dve], ["run", EXAMPLE, "-o", fifo]):
        assert run(*argv) == 2, argv
        err = capsys.readouterr().err
        assert "tongasm: error:" in err and ("FIFO" in err or "device" in err or "directory" in err
                                             or "a file" in err), err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_read_only_targets_are_refused(tmp_path: Path, assembled: Path, capsys: Any) -> None:
    ro = tmp_path / "ro.s"
    ro.write_text("keep")
    ro.chmod(0o444)
    assert run("disasm", assembled / "dve.bin", "-o", ro) == 2
    assert "read-only" in capsys.readouterr().err and ro.read_text() == "keep"
    (assembled / "dve.bin").chmod(0o444)
    assert run("assemble", EXAMPLE, "-o", assembled, "-q") == 2
    assert "read-only" in capsys.readouterr().err
    (assembled / "dve.bin").chmod(0o644)
    assembled.chmod(0o555)
    try:
        assert run("assemble", EXAMPLE, "-o", assembled, "-q") == 2
        assert "read-only" in capsys.readouterr().err
    finally:
        assembled.chmod(0o755)


def test_entries_that_are_not_files_are_never_replaced(assembled: Path, capsys: Any) -> None:
    (assembled / "dve.bin").unlink()
    (assembled / "dve.bin").mkdir()
    (assembled / "dve.bin" / "x").write_text("keep")
    assert run("assemble", EXAMPLE, "-o", assembled, "-q") == 2
    assert "directory" in capsys.readouterr().err and (assembled / "dve.bin" / "x").read_text() == "keep"


def test_symlinks_are_followed_and_dangling_ones_refused(tmp_path: Path, assembled: Path) -> None:
    real = tmp_path / "real"
    link = tmp_path / "link"
    link.symlink_to(real)
    assert run("assemble", EXAMPLE, "-o", link, "-q") == 2  # dangling: refused
    assert not real.exists() and link.is_symlink()
    real.mkdir()
    assert run("assemble", EXAMPLE, "-o", link, "-q") == 0
    assert link.is_symlink() and (real / "manifest.json").is_file()
    target = tmp_path / "t.s"
    target.write_text("old")
    flink = tmp_path / "f.s"
    flink.symlink_to(target)
    assert run("disasm", assembled / "dve.bin", "-o", flink) == 0
    assert flink.is_symlink() and ".stream dve" in target.read_text()


# --- 5. refusals before any work ------------------------------------------------------------------------

def _no_work(monkeypatch: Any) -> None:
    def boom(*a: Any, **k: Any) -> None:
        raise AssertionError("work was done before the refusal")

    import tongasm.codegen as codegen
    import tongasm.sim.run as simrun
    monkeypatch.setattr(codegen, "assemble", boom)
    monkeypatch.setattr(simrun, "run_kernel", boom)
    monkeypatch.setattr(simrun, "run_streams", boom)


def test_run_refuses_its_arguments_before_any_work(tmp_path: Path, assembled: Path, monkeypatch: Any,
                                                   capsys: Any) -> None:
    bins = sorted(assembled.glob("*.bin"))
    mem = assembled / "memory.json"
    np.save(tmp_path / "a.npy", np.zeros((2, 2), np.float32))
    _no_work(monkeypatch)
    out = tmp_path / "r"
    cases = [
        ["run", *bins, "--memory", mem, "--reference", "-o", out],
        ["run", EXAMPLE, "--memory", mem, "-o", out],
        ["run", *bins, "-o", out],
        ["run", assembled / "dve.bin", assembled / "dve.bin", "--memory", mem, "-o", out],
        ["run", EXAMPLE, "--outputs", "nope", "-o", out],
        ["run", EXAMPLE, "--outputs", "sum,,n", "-o", out],
        ["run", EXAMPLE, "-i", f"nope={tmp_path / 'a.npy'}", "-o", out],
        ["run", EXAMPLE, "-i", f"a={tmp_path / 'a.npy'}", "-o", out],
        ["run", EXAMPLE, "-i", f"a={tmp_path / 'missing.npy'}", "-o", out],
        ["run", EXAMPLE, "-o", assembled / "dve.bin"],
        ["assemble", EXAMPLE, "-o", assembled / "dve.bin"],
    ]
    for argv in cases:
        assert run(*argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("tongasm: error:") and "internal error" not in err, (argv, err)
    assert not out.exists()


# --- 6. one instruction cap, before expansion ----------------------------------------------------------

def _loop(ub: Any, body: list[Any], name: str = "i") -> dict[str, Any]:
    return {"opcode": "Loop", "LoopAxis": {"name": name, "lb": 0, "ub": ub, "stride": 1},
            "blocks": [{"name": "b", "instructions": body}]}


def _looped(body: Any) -> dict[str, Any]:
    k = json.loads(json.dumps(EXAMPLE_K))
    k["functions"][0]["blocks"][0]["instructions"] = [body]
    return k


NESTED = _loop(10**4, [_loop(10**4, [_loop(10**4, [EXAMPLE_K["functions"][0]["blocks"][0]["instructions"][0]])])])


@pytest.mark.parametrize("body,count", [(NESTED, "1000000000000"),
                                        (_loop(10**400, [EXAMPLE_K["functions"][0]["blocks"][0]["instructions"][0]]),
                                         "(401 digits)")])
@pytest.mark.parametrize("cmd", ["assemble", "opcodes", "check", "run"])
def test_nested_and_huge_loops_are_refused_before_expansion(tmp_path: Path, cmd: str, body: Any, count: str,
                                                            capsys: Any) -> None:
    src = write_kernel(tmp_path / "k.json", _looped(body))
    argv = [cmd, src] + (["-o", tmp_path / "o"] if cmd in ("assemble", "run") else [])
    with time_limit(10, cmd):
        assert run(*argv) == 2
    err = capsys.readouterr().err
    assert count in err and str(program.MAX_INSTRUCTIONS) in err and "TONGASM_MAX_INSTRUCTIONS" in err


def test_the_cap_counts_straight_code_and_loops_together(tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    inst = EXAMPLE_K["functions"][0]["blocks"][0]["instructions"][0]
    k = json.loads(json.dumps(EXAMPLE_K))
    k["functions"][0]["blocks"][0]["instructions"] = [inst] * 5 + [_loop(6, [inst])]
    src = write_kernel(tmp_path / "k.json", k)
    monkeypatch.setenv("TONGASM_MAX_INSTRUCTIONS", "10")
    for cmd in ("assemble", "run", "check", "opcodes"):
        argv = [cmd, src] + (["-o", tmp_path / "o"] if cmd in ("assemble", "run") else [])
        assert run(*argv) == 2, cmd
        assert "at most 10" in capsys.readouterr().err
    monkeypatch.setenv("TONGASM_MAX_INSTRUCTIONS", "11")
    assert run("opcodes", src) == 0
    monkeypatch.setenv("TONGASM_MAX_INSTRUCTIONS", "-3")
    assert run("opcodes", src) == 2
    assert "must be a positive integer" in capsys.readouterr().err


def test_run_of_streams_is_capped_too(tmp_path: Path, assembled: Path, monkeypatch: Any, capsys: Any) -> None:
    monkeypatch.setattr(program, "MAX_INSTRUCTIONS", 3)
    assert run("run", assembled / "dve.bin", "--memory", assembled / "memory.json", "-o", tmp_path / "r", "-q") == 0
    assert run("run", assembled / "sp.bin", "--memory", assembled / "memory.json", "-o", tmp_path / "s") == 2
    assert "the streams hold 4 bundles; tongasm runs at most 3" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


def test_loop_size_is_exact_for_any_bounds() -> None:
    from tongasm.ir.instructions import LoopAxis

    for lb, ub, stride in [(0, 10, 3), (10, 0, -3), (5, 5, 1), (0, -5, 1), (-7, 7, 2), (3, 4, 10), (9, 0, -1)]:
        assert program.iterations(LoopAxis("i", lb, ub, stride)) == len(range(lb, ub, stride))
    assert program.iterations(LoopAxis("i", 0, 10**400, 1)) == 10**400
    with pytest.raises(BirError, match="stride 0"):
        program.iterations(LoopAxis("i", 0, 1, 0))


# --- 7. non-regular and huge inputs ---------------------------------------------------------------------

@pytest.mark.parametrize("argv", [["decode", "/dev/zero"], ["disasm", "/dev/zero"], ["disasm", "/dev/zero", "--format",
                                  "json"], ["check", "/dev/zero"], ["explain", "/dev/zero:3"],
                                  ["assemble", "/dev/zero", "-o", "{o}"], ["asm", "/dev/zero", "-o", "{o}"],
                                  ["opcodes", "/dev/zero"], ["run", "/dev/zero.json", "-o", "{o}"],
                                  ["check", "/dev/zero.json"]])
def test_endless_inputs_are_refused_in_bounded_memory(tmp_path: Path, argv: list[str], monkeypatch: Any,
                                                      capsys: Any) -> None:
    monkeypatch.setattr(inputs, "PIPE_LIMIT", 1 << 20)
    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")
    argv = [str(link) if a == "/dev/zero.json" else a.format(o=tmp_path / "o") for a in argv]
    with time_limit(10, argv[0]):
        assert main(argv) == 2
    assert "more than 1048576 bytes" in capsys.readouterr().err


def test_npy_inputs_must_be_regular_files(tmp_path: Path, capsys: Any) -> None:
    assert run("run", EXAMPLE, "-i", "a=/dev/zero", "-o", tmp_path / "r") == 2
    assert "must be a regular file" in capsys.readouterr().err


def _undecodable(n: int) -> bytes:
    return b"\xff" * (64 * n)


def test_check_decode_and_disasm_json_work_in_pieces(tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    """Pieces of 4 bundles give the same output as one piece (offsets, JSON text), and the failures
    decode keeps for its error lines are bounded."""
    p = tmp_path / "dve.bin"
    data = _undecodable(5)
    assembled = tmp_path / "o"
    assert run("assemble", EXAMPLE, "-o", assembled, "-q") == 0
    p.write_bytes((assembled / "dve.bin").read_bytes() + data + (assembled / "dve.bin").read_bytes())
    outs = {}
    for chunk in (1 << 15, 4):
        monkeypatch.setattr(cli.common, "DISASM_CHUNK", chunk)
        got = []
        for argv in (["check", p, "--format", "json"], ["check", p], ["decode", p, "--format", "json"],
                     ["disasm", p, "--format", "json"]):
            rc = run(*argv)
            io_ = capsys.readouterr()
            got.append((rc, io_.out, io_.err))
        outs[chunk] = got
    assert outs[4] == outs[1 << 15]
    from tongasm.text.listing import StreamInput, listing_json
    assert json.loads(outs[4][3][1]) == listing_json([StreamInput("dve", p.read_bytes())])
    assert outs[4][3][1] == json.dumps(listing_json([StreamInput("dve", p.read_bytes())]), indent=1) + "\n"
    report = json.loads(outs[4][0][1])
    assert not report["clean"] and [f["offset"] for f in report["inputs"][0]["findings"]] == \
        [64 * k for k in range(3, 8)]
    monkeypatch.setattr(cli.common._Failures, "SHOWN", 2)
    assert run("decode", p) == 1
    err = capsys.readouterr().err
    assert err.count("tongasm: error:") == 3 and "... and 3 more undecodable bundles" in err


def test_checking_a_large_undecodable_stream_keeps_memory_bounded(tmp_path: Path, monkeypatch: Any) -> None:
    """4,000 findings held at once peak at ~1.9 MB; made and printed piece by piece, at ~0.3 MB."""
    p = tmp_path / "dve.bin"
    p.write_bytes(_undecodable(4000))
    monkeypatch.setattr(cli.common, "DISASM_CHUNK", 256)
    with open(os.devnull, "w") as sink:
        monkeypatch.setattr(sys, "stdout", sink)
        assert main(["check", str(tmp_path / "dve.bin"), "-q"]) == 1  # warm-up: imports and tables
        for argv in (["check", str(p), "-q"], ["check", str(p), "--format", "json", "-q"]):
            tracemalloc.start()
            try:
                assert main(argv) == 1
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            assert peak < 900_000, (argv, peak)


# --- 8. no internal errors --------------------------------------------------------------------------

def _no_internal_error(err: str) -> None:
    assert "internal error" not in err and "Traceback" not in err, err
    assert err.startswith("tongasm: error:") or "error:" in err, err


def _kernel_with(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    k = json.loads(json.dumps(EXAMPLE_K))
    node = k
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return k


ABSURD = [
    (("functions", 0, "allocations", 6, "memorylocations", 0, "dims", 1), 10**18, "run"),
    (("functions", 0, "allocations", 6, "memorylocations", 0, "dims", 0), 10**19, "run"),
    (("functions", 0, "allocations", 0, "memorylocations", 0, "dims", 0), -5, "run"),
    (("functions", 0, "allocations", 2, "tensor_shape", 0), -10**18, "run"),
    (("functions", 0, "allocations", 2, "tensor_shape", 1), 10**18, "run"),
    (("functions", 0, "registers", "count"), 10**30, "assemble"),
    (("functions", 0, "registers", "count"), [10**30, 10**30 + 1], "run"),
]


@pytest.mark.parametrize("path,value,cmd", ABSURD)
def test_absurd_numbers_in_a_kernel_are_clear_errors(tmp_path: Path, path: Any, value: Any, cmd: str,
                                                     capsys: Any) -> None:
    src = write_kernel(tmp_path / "k.json", _kernel_with(path, value))
    for c in {cmd, "check", "run"}:
        rc = run(c, src, *(["-o", tmp_path / "o"] if c in ("assemble", "run") else []))
        err = capsys.readouterr().err
        assert "internal error" not in err and "Traceback" not in err, err
        if rc and c != "check":  # check reports findings (exit 1) without an error line
            _no_internal_error(err)
            assert rc in (1, 2)


def test_a_float_immediate_written_as_a_400_digit_integer(tmp_path: Path, capsys: Any) -> None:
    k = json.loads((ROOT / "tests/golden/vectors/sp/004_mv_imm_float32_1p5.json").read_text())["kernel"]
    text = json.dumps(k).replace('"value": 1.5', '"value": 1' + "0" * 400)
    src = tmp_path / "k.json"
    src.write_text(text)
    for argv in (["assemble", src, "-o", tmp_path / "o"], ["check", src], ["run", src, "-o", tmp_path / "r"],
                 ["opcodes", src]):
        assert run(*argv) == 2
        err = capsys.readouterr().err
        _no_internal_error(err)
        assert "too large for any dtype" in err and "10000000000000000... (401 digits)" in err


def test_huge_numbers_in_text_assembly_and_explain(tmp_path: Path, assembled: Path, capsys: Any) -> None:
    digits = "9" * 5000
    hexd = "f" * 100_000
    for line in [f"Move.imm dst=r4, imm=0x{hexd}:int32", f"Move.imm dst=r{digits}, imm=1:int32",
                 f"Move.imm dst=r4, imm=1:int32, wait sem{digits}>=1", f"Move.imm dst=r4, imm={digits}:int32"]:
        src = tmp_path / "k.s"
        src.write_text(f".stream sp\n{line}\n")
        assert run("asm", src, "-o", tmp_path / "o") == 1
        err = capsys.readouterr().err
        _no_internal_error(err)
        assert "too long" in err and len(err) < 2000
    for spec in [f"{assembled / 'dve.bin'}:{digits}", f"{assembled / 'dve.bin'}@{digits}",
                 f"{assembled / 'dve.bin'}@0x{hexd}", hexd, "x" * 100_000]:
        assert run("explain", spec) == 2
        err = capsys.readouterr().err
        _no_internal_error(err)
        assert len(err) < 2000


@pytest.mark.parametrize("argv,needle", [
    (["run", str(EXAMPLE), "--seed", "-1"], "--seed"),
    (["run", str(EXAMPLE), "--seed", "9" * 5000], "--seed"),
    (["run", str(EXAMPLE), "--seed", str(1 << 32)], "--seed"),
    (["assemble", str(EXAMPLE), "-D", "D-" + "9" * 5000 + "=x"], "unknown decision"),
    (["assemble", str(EXAMPLE), "-D", "\u00b9D-4=update-wins"], "unknown decision"),  # a digit int() refuses
    (["assemble", str(EXAMPLE), "-D", "D-6=" + "x" * 5000], "D-6"),
])
def test_absurd_option_values(tmp_path: Path, argv: list[str], needle: str, capsys: Any) -> None:
    try:
        rc = main(argv + ["-o", str(tmp_path / "o")])
    except SystemExit as e:  # argparse
        rc = e.code  # type: ignore[assignment]
    assert rc == 2
    err = capsys.readouterr().err
    assert needle in err and "internal error" not in err and len(err) < 4000
    assert not (tmp_path / "o").exists()


MEMORY_CASES = {
    "missing key": {"variables": [{"name": "x"}]},
    "a list": [1, 2],
    "variables an object": {"variables": {"a": 1}},
    "dims a string": {"variables": [{"name": "x", "var_id": 1, "space": "SB", "dims": "ab"}]},
    "dims huge": {"variables": [{"name": "x", "var_id": 1, "space": "SB", "dims": [10**30, 5]}]},
    "negative": {"variables": [{"name": "x", "var_id": 1, "space": "SB", "partition": -5, "dims": [1, 4]}]},
    "var_id huge": {"variables": [{"name": "x", "var_id": 2**40, "space": "DRAM", "dims": [1, 4]}]},
    "bad dtype": {"variables": [{"name": "x", "var_id": 1, "space": "SB", "dims": [1, 4], "dtype": "nope"}]},
    "bad space": {"variables": [{"name": "x", "var_id": 1, "space": "HBM", "dims": [1, 4]}]},
    "extra key": {"variables": [{"name": "x", "var_id": 1, "space": "SB", "dims": [1, 4], "bogus": 1}]},
    "huge shape": {"variables": [{"name": "x", "var_id": 1, "space": "SB", "dims": [1, 4], "dtype": "float32",
                                  "shape": [10**9, 10**9]}]},
    "outside SB": {"variables": [{"name": "x", "var_id": 1, "space": "SB", "dims": [200, 4]}]},
    "huge DRAM": {"variables": [{"name": "x", "var_id": 1, "space": "DRAM", "dims": [1 << 20, 1 << 20]}]},
    "name a number": {"variables": [{"name": 5, "var_id": 1, "space": "SB", "dims": [1, 4]}]},
    "twice": {"variables": [{"name": "x", "var_id": 1, "space": "SB", "dims": [1, 4]}] * 2},
    "target a number": {"target": 2, "variables": []},
    "unknown target": {"target": "gen9", "variables": []},
    "bool dims": {"variables": [{"name": "x", "var_id": 1, "space": "SB", "dims": [True, 4]}]},
}


@pytest.mark.parametrize("case", sorted(MEMORY_CASES))
def test_malformed_memory_json_is_refused(tmp_path: Path, assembled: Path, case: str, capsys: Any) -> None:
    m = tmp_path / "m.json"
    m.write_text(json.dumps(MEMORY_CASES[case]))
    assert run("run", assembled / "dve.bin", "--memory", m, "-o", tmp_path / "r", "-q") == 2
    _no_internal_error(capsys.readouterr().err)
    assert not (tmp_path / "r").exists()


def test_memory_json_not_json_or_with_duplicate_keys(tmp_path: Path, assembled: Path, capsys: Any) -> None:
    m = tmp_path / "m.json"
    for text in ["{not json", '{"variables": [], "variables": []}', "9" * 5000, "[" * 100_000]:
        m.write_text(text)
        assert run("run", assembled / "dve.bin", "--memory", m, "-o", tmp_path / "r") == 2
        _no_internal_error(capsys.readouterr().err)


def _npy_cases(tmp: Path) -> dict[str, Path]:
    cases: dict[str, Any] = {
        "struct": np.zeros((128, 512), dtype=[("a", "i4"), ("b", "f4")]),
        "void": np.zeros((128, 512), dtype="V4"),
        "str": np.array([["ab"] * 512] * 128),
        "bytes": np.array([[b"ab"] * 512] * 128),
        "datetime": np.zeros((128, 512), dtype="datetime64[s]"),
        "inexact": np.full((128, 512), 0.1),
        "small": np.zeros((2, 2), np.float32),
        "big": np.zeros((128, 1024), np.float32),
        "flat": np.zeros(128 * 512, np.float32),
        "nan-to-int": np.full((128, 512), np.nan),
    }
    out = {}
    for name, arr in cases.items():
        out[name] = tmp / f"{name}.npy"
        np.save(out[name], arr)
    out["object"] = tmp / "object.npy"
    np.save(out["object"], np.array([1, "a"], dtype=object), allow_pickle=True)
    buf = io.BytesIO()
    np.save(buf, np.zeros(4, np.float32))
    out["fake-huge"] = tmp / "fake.npy"
    out["fake-huge"].write_bytes(buf.getvalue().replace(b"(4,)", b"(100000000000,)"))
    out["truncated"] = tmp / "trunc.npy"
    out["truncated"].write_bytes(buf.getvalue()[:-4])
    out["not npy"] = tmp / "text.npy"
    out["not npy"].write_text("hello")
    return out


def test_wrong_kinds_of_npy_inputs_are_refused(tmp_path: Path, capsys: Any) -> None:
    for name, path in _npy_cases(tmp_path).items():
        for var in ("a", "n") if name != "nan-to-int" else ("n",):  # NaN is a float32 value, not an int32 one
            assert run("run", EXAMPLE, "-i", f"{var}={path}", "-o", tmp_path / "r", "-q") == 2, (name, var)
            _no_internal_error(capsys.readouterr().err)
    assert not (tmp_path / "r").exists()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("argv", [["disasm", "{dve}"], ["check", "{k}", "--format", "json"]])
def test_a_full_stdout_is_a_clear_error(assembled: Path, argv: list[str]) -> None:
    argv = [a.format(dve=assembled / "dve.bin", k=EXAMPLE) for a in argv]
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "tongasm", *argv], stdout=full, stderr=subprocess.PIPE, text=True,
                           timeout=60)
    assert r.returncode == 1 and r.stderr.strip() == \
        "tongasm: error: cannot write to standard output: No space left on device"


def test_a_reader_that_closes_stdout_early_gets_no_error(assembled: Path) -> None:
    """``tongasm disasm F | head``: like cat and objdump, no message; the exit status is 128 + SIGPIPE."""
    big = assembled / "big.bin"
    big.write_bytes((assembled / "dve.bin").read_bytes() * 4000)
    p = subprocess.Popen([sys.executable, "-m", "tongasm", "disasm", str(big)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    assert p.stdout is not None and p.stdout.readline().startswith(".target")
    p.stdout.close()
    err = p.stderr.read() if p.stderr else ""
    assert p.wait(60) == 128 + 13
    assert err == ""


def test_names_with_lone_surrogates_print(tmp_path: Path) -> None:
    k = json.loads(json.dumps(EXAMPLE_K))
    k["functions"][0]["blocks"][0]["instructions"][0]["name"] = "\ud800bad"
    src = write_kernel(tmp_path / "k.json", k)
    r = subprocess.run([sys.executable, "-m", "tongasm", "opcodes", str(src)], capture_output=True, timeout=60)
    assert r.returncode == 0 and b"\\ud800bad" in r.stdout, r.stderr


# --- 9. exit code 2 for unusable input everywhere --------------------------------------------------------

def test_unusable_input_exits_2_in_every_command(tmp_path: Path, assembled: Path, capsys: Any) -> None:
    missing = tmp_path / "missing"
    notjson = tmp_path / "bad.json"
    notjson.write_text("{not json")
    notkernel = tmp_path / "nk.json"
    notkernel.write_text('{"arch": "gen2"}')
    ragged = tmp_path / "dve.bin"
    ragged.write_bytes(bytes(65))
    binary = tmp_path / "b.s"
    binary.write_bytes(b"\xff\xfe\x00")
    o = tmp_path / "out"
    cases = []
    for k in (f"{missing}.json", notjson, notkernel, tmp_path):
        cases += [["assemble", k, "-o", o], ["check", k], ["opcodes", k], ["run", k, "-o", o]]
    for s in (f"{missing}.bin", ragged):
        cases += [["disasm", s], ["decode", s], ["run", s, "--memory", assembled / "memory.json", "-o", o]]
    cases += [["explain", f"{missing}.bin:0"], ["explain", f"{ragged}:1"]]
    cases += [["asm", f"{missing}.s", "-o", o], ["asm", binary, "-o", o], ["asm", tmp_path, "-o", o],
              ["run", assembled / "dve.bin", "--memory", f"{missing}.json", "-o", o],
              ["run", assembled / "dve.bin", "--memory", notjson, "-o", o],
              ["check", f"{missing}.bin"]]
    for argv in cases:
        assert run(*argv) == 2, argv
        _no_internal_error(capsys.readouterr().err)
        assert not o.exists(), argv


# --- 10. duplicate JSON keys ----------------------------------------------------------------------------

DUPLICATES = [
    ('"functions": [', '"functions": [], "functions": [', "", "'functions'"),
    ('"instructions": [', '"instructions": [], "instructions": [', "functions[0].blocks[0]", "'instructions'"),
    ('"opcode": "TensorTensor"', '"opcode": "TensorCopy", "opcode": "TensorTensor"',
     "functions[0].blocks[0].instructions[0]", "'opcode'"),
    ('"kind": "physical_ap", "dtype": "float32"', '"kind": "physical_ap", "dtype": "int32", "dtype": "float32"',
     "functions[0].blocks[0].instructions[0].ins[0]", "'dtype'"),
    ('"memorylocations": [', '"name": "z", "memorylocations": [', "functions[0].allocations[0]", "'name'"),
    ('"registers": {', '"registers": {"count": 1, ', "functions[0].registers", "'count'"),
]


@pytest.mark.parametrize("old,new,path,key", DUPLICATES)
def test_duplicate_keys_are_refused_by_both_readers_with_their_path(tmp_path: Path, old: str, new: str, path: str,
                                                                    key: str, capsys: Any) -> None:
    text = json.dumps(EXAMPLE_K)
    assert old in text
    text = text.replace(old, new, 1)
    src = tmp_path / "k.json"
    src.write_text(text)
    for read in (lambda: read_bir(text), lambda: read_bir(src), lambda: list(stream_bir(src).instructions())):
        with pytest.raises(BirError, match=f"duplicate key {key}") as e:
            read()
        assert path in str(e.value)
    for argv in (["assemble", src, "-o", tmp_path / "o"], ["check", src], ["run", src, "-o", tmp_path / "o"],
                 ["opcodes", src]):
        assert run(*argv) == 2
        assert "duplicate key" in capsys.readouterr().err


# --- 11. no silent last-wins, no silent cast ---------------------------------------------------------

@pytest.mark.parametrize("line,name", [
    ("Move.imm dst=r4, dst=r5, imm=1:int32", "dst"),
    ("Move.imm dst=r4, imm=1:int32, imm=2:int32", "imm"),
    ("Move.imm dst=r4, imm=1:int32, wait sem1>=1, wait sem2>=2", "wait"),
    ("Move.imm dst=r4, imm=1:int32, wait sem1>=1 / wait sem2>=2", "wait"),
    ("Move.imm dst=r4, imm=1:int32, upd sem1++, upd sem2++", "upd"),
])
def test_an_operand_given_twice_is_refused(line: str, name: str) -> None:
    with pytest.raises(TextSyntaxError, match=f"operand '{name}' is given twice"):
        assemble_text(f".stream sp\n{line}\n", path="k.s")


def test_conflicting_decisions_are_refused(tmp_path: Path, capsys: Any) -> None:
    with pytest.raises(TextSyntaxError, match="given twice"):
        assemble_text(".decision D-6=outermost-first\n.decision D-6=innermost-first\n.stream sp\n")
    assemble_text(".decision D-6=outermost-first\n.decision D-6=outermost-first\n.stream sp\n")  # the same: fine
    assert run("assemble", EXAMPLE, "-o", tmp_path / "o", "-D", "D-6=outermost-first", "-D",
               "D-6=innermost-first") == 2
    assert "given twice" in capsys.readouterr().err and not (tmp_path / "o").exists()
    assert run("assemble", EXAMPLE, "-o", tmp_path / "o", "-q", "-D", "D-6=outermost-first", "-D",
               "D-6=outermost-first") == 0


def test_two_streams_of_one_engine_are_refused(tmp_path: Path, assembled: Path, capsys: Any) -> None:
    other = tmp_path / "x"
    other.mkdir()
    (other / "dve.bin").write_bytes((assembled / "dve.bin").read_bytes())
    assert run("run", assembled / "dve.bin", other / "dve.bin", "--memory", assembled / "memory.json",
               "-o", tmp_path / "r") == 2
    assert "both the 'dve' stream" in capsys.readouterr().err


def test_inputs_must_fill_their_variable_exactly(tmp_path: Path, capsys: Any) -> None:
    a = np.arange(128 * 512, dtype=np.float32).reshape(128, 512)
    np.save(tmp_path / "f32.npy", a)
    np.save(tmp_path / "f64.npy", a.astype(np.float64))
    np.save(tmp_path / "i16.npy", a.astype(np.int16) * 0 + 7)
    np.save(tmp_path / "part.npy", a[:64])
    np.save(tmp_path / "lossy.npy", a.astype(np.float64) + 0.1)
    np.save(tmp_path / "n64.npy", np.array([1, 2, 3, 2**40], np.int64))
    np.save(tmp_path / "n64ok.npy", np.array([1, 2, 3, 4], np.int64))
    out = tmp_path / "r"
    assert run("run", EXAMPLE, "-i", f"a={tmp_path / 'f32.npy'}", "-o", out, "-q") == 0
    # an exact fit is silent; only the variables not given are named (they start as zeros)
    assert capsys.readouterr().err == "tongasm: note: inputs b, mask, n not given (-i NAME=FILE.npy): they start as zeros\n"
    for exact in ("f64", "i16", "n64ok"):
        var = "n" if exact.startswith("n") else "a"
        assert run("run", EXAMPLE, "-i", f"{var}={tmp_path / exact}.npy", "-o", out, "-q") == 0
        err = capsys.readouterr().err
        assert err.startswith("tongasm: note: input for ") and "(every value exact)" in err, err
    for bad, var, needle in (("part", "a", "partial fill"), ("lossy", "a", "do not all convert exactly"),
                             ("n64", "n", "do not all convert exactly")):
        assert run("run", EXAMPLE, "-i", f"{var}={tmp_path / bad}.npy", "-o", out, "-q", "--reference") == 2
        assert needle in capsys.readouterr().err
    # the reference interpreter applies the same rule
    from tongasm.sim.reference import interpret
    with pytest.raises(InputError, match="partial fill"):
        interpret(read_bir(EXAMPLE), {"a": a[:64]})


def test_raw_void_items_are_the_bits_of_an_ml_dtype(tmp_path: Path) -> None:
    import ml_dtypes

    from tongasm.ir.memory import Variable, conform_input
    v = Variable("x", 1, "SB", 0, 0, 0, (2, 4), "bfloat16", [2, 2])
    bits = np.array([[1.5, 2.0], [3.0, -1.0]], dtype=ml_dtypes.bfloat16)
    arr, note = conform_input(v, bits.view("V2"))
    assert arr.dtype == bits.dtype and np.array_equal(arr, bits) and "bits of bfloat16" in (note or "")
    with pytest.raises(InputError, match="not numbers"):
        conform_input(Variable("y", 1, "SB", 0, 0, 0, (2, 8), "float32", [2, 2]), np.zeros((2, 2), "V4"))


# --- user experience --------------------------------------------------------------------------------------

def test_repeated_identical_warnings_are_summarised(tmp_path: Path, capsys: Any) -> None:
    kernels = load_file(ROOT / "benchmarks" / "kernels.py", "tongasm_bench_kernels")
    src = tmp_path / "bench.json"
    kernels.write_kernel(src, 400)
    # the DRAM table takes var_id 3, which the uint8 tensor 'm' has too: one lint warning per TensorLoad
    src.write_text(src.read_text().replace('"tensor_id": 5', '"tensor_id": 3', 1))
    assert run("assemble", src, "-o", tmp_path / "o", "-q") == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2, err
    assert "lint.var_id_collision" in err[0]
    assert "... and 24 more identical lint.var_id_collision findings (the last at instruction 'i398'" in err[1]
    assert run("check", src, "-q") == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and "24 more identical" in out[1]
    assert run("check", src, "-q", "--format", "json") == 0
    assert len(json.loads(capsys.readouterr().out)["inputs"][0]["findings"]) == 25  # JSON lists each


def test_the_assemble_summary_lists_every_file(tmp_path: Path, capsys: Any) -> None:
    assert run("assemble", EXAMPLE, "-o", tmp_path / "o", "--census") == 0
    out = capsys.readouterr().out
    for name in ("dve.bin", "act.bin", "sp.bin", "census.bin", "memory.json", "manifest.json"):
        assert name in out
    assert "1 bundle " in out and "1 bundles" not in out and "4 bundles" in out


def test_wording_of_counts_and_limits(tmp_path: Path, capsys: Any) -> None:
    p = tmp_path / "dve.bin"
    p.write_bytes(bytes(65))
    assert run("decode", p) == 2
    err = capsys.readouterr().err
    assert "1 whole bundle and 1 trailing byte)" in err and "1 bundles" not in err
    from tongasm.check.runner import check_stream
    from tongasm.decode import decode_bundle
    raw = bytes(assemble_text(".stream dve\nCopy src=sb[p0:128][1x64].float32, dst=sb[p0:128]+0x200[1x64].float32\n")
                .streams["dve"])
    d = decode_bundle(raw)
    bad = d.fmt.encode({**d.fields, "num_partitions": 200})
    parts = [f for f in check_stream(bad, stream="dve") if f.check == "geometry.partitions"]
    assert parts and all("..-" not in f.line() and "none: the count exceeds 128" in f.line() for f in parts)


def test_readme_documents_the_schema_outputs_and_builder() -> None:
    readme = (ROOT / "README.md").read_text()
    for needle in ("## BIR JSON", "--outputs", "KernelBuilder", "TONGASM_MAX_INSTRUCTIONS", "memory.json",
                   "symbolic link", "percent-encoded"):
        assert needle in readme, needle
    from tongasm.isa.enums import AluOp
    for op in AluOp:
        assert f"`{op.name}`" in readme, op.name


def test_errors_are_tongasm_errors() -> None:
    assert issubclass(OutputError, TongasmError) and OutputError.exit_code == 1
    assert InputError.exit_code == 2 and UsageError.exit_code == 2
    assert issubclass(Terminated, KeyboardInterrupt)
    with pytest.raises(InputError, match="regular file"):
        inputs.input_size("/dev/null", ".npy input")
    with pytest.raises(InputError, match="cannot read"):
        MemoryDescription.load("/nonexistent/memory.json")


def test_the_readme_kernel_builder_example_runs(tmp_path: Path, monkeypatch: Any) -> None:
    readme = (ROOT / "README.md").read_text()
    code = readme.split("To write a kernel in Python instead", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    scope: dict[str, Any] = {}
    exec(compile(code, "README.md", "exec"), scope)
    k = read_bir(scope["text"])
    assert [loc.name for f in k.functions for loc in f.locations()] == ["x", "y"]


# --- a manifest tongasm did not write deletes nothing; outputs never overwrite inputs -------------

def test_a_foreign_manifest_makes_nothing_deletable(tmp_path: Path) -> None:
    out = tmp_path / "o"
    out.mkdir()
    (out / "thesis.tex").write_text("years of work")
    (out / "data.npy").write_bytes(b"precious")
    # a manifest of another tool that happens to use the same key names
    (out / "manifest.json").write_text(json.dumps({"streams": {"x": {"file": "thesis.tex"}},
                                                   "census": {"file": "data.npy"}}))
    assert run("assemble", EXAMPLE, "-o", out, "-q") == 0
    assert (out / "thesis.tex").read_text() == "years of work" and (out / "data.npy").read_bytes() == b"precious"
    (out / "state.json").write_text(json.dumps({"outputs": {"x": {"file": "data.npy"}}}))
    assert run("run", EXAMPLE, "-o", out, "-q") == 0
    assert (out / "data.npy").read_bytes() == b"precious"


def test_a_forged_tool_key_without_matching_digests_deletes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "o"
    out.mkdir()
    (out / "mine.bin").write_bytes(b"mine")
    (out / "manifest.json").write_text(json.dumps({"tool": "tongasm", "streams": {"x": {"file": "mine.bin"}},
                                                   "written": {"mine.bin": "0" * 32}}))
    assert run("assemble", EXAMPLE, "-o", out, "-q") == 0
    assert (out / "mine.bin").read_bytes() == b"mine"


def test_a_file_edited_since_tongasm_wrote_it_is_kept(assembled: Path) -> None:
    assert run("assemble", EXAMPLE, "-o", assembled, "-q", "--census") == 0
    (assembled / "census.bin").write_bytes(b"edited by hand")
    assert run("assemble", EXAMPLE, "-o", assembled, "-q") == 0
    assert (assembled / "census.bin").read_bytes() == b"edited by hand"


def test_outputs_that_name_an_input_are_refused(tmp_path: Path, assembled: Path, capsys: Any) -> None:
    dve = assembled / "dve.bin"
    before = dve.read_bytes()
    assert run("disasm", dve, "-o", dve) == 2
    assert "is the input" in capsys.readouterr().err and dve.read_bytes() == before
    kernel = tmp_path / "k.json"
    kernel.write_bytes(EXAMPLE.read_bytes())
    assert run("run", kernel, "--trace", kernel, "-o", tmp_path / "r") == 2
    assert "is the input" in capsys.readouterr().err and kernel.read_bytes() == EXAMPLE.read_bytes()
    assert not (tmp_path / "r").exists()
