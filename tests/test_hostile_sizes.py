"""Sizes taken from hostile input must not decide how much memory tongasm spends: each case is a small
file asking for gigabytes, run as a real command under a 4 GB address-space limit (``ulimit -v
4000000``), and must be refused (exit 2, one line naming what, the figure, the limit and the
variable that raises it) before the memory is spent, quickly and without growing.

Measured before the limits here (same commands, same 4 GB limit):

| case | before | after |
|---|---|---|
| kernel JSON, one DRAM allocation of 4 GiB - 64 (run) | exit 1, "out of memory" | exit 2, TONGASM_MAX_SIM_DRAM_BYTES |
| kernel JSON, three DRAM allocations of 1.3 GB (run) | exit 1, "out of memory" | exit 2, TONGASM_MAX_SIM_DRAM_BYTES |
| streams + memory.json with a 4 GiB DRAM variable (run) | exit 2 (past the old 4 GiB total) | exit 2 |
| NEFF whose two outputs declare 4 GiB (run) | exit 1, "out of memory" | exit 2, TONGASM_MAX_SIM_DRAM_BYTES |
| NEFF whose JSON members hold 20 M empty lists each (60 MB of ``[],``; 2 MB NEFF) (info) | killed after 60 s, 1.7 GB and growing | exit 2 in 1.6 s, TONGASM_MAX_NEFF_JSON_VALUES |

Already refused before (kept here as must-fail cases): a ``.npy`` header declaring 40 GB, a NEFF
variable size that does not match its shape, ``--declare`` of a shape larger than the variable.
"""

from __future__ import annotations

import json
import os
import re
import resource
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from neff_support import neff_of_members, small
from tongasm.neff.neff import Neff

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "vector_add.json"
ADDRESS_SPACE = 4_000_000 * 1024  # ulimit -v 4000000


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def hostile(*args: Any, env: dict[str, str] | None = None, timeout: float = 120) -> str:
    """Run ``tongasm ARGS`` in a process limited to 4 GB of address space: it must exit 2 with one
    error line (no traceback, no out-of-memory). Returns stderr."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("TONGASM_MAX")}
    full.update(env or {}, PYTHONPATH=str(ROOT / "src"), TONGASM_NO_PROGRESS="1")
    p = subprocess.run([sys.executable, "-m", "tongasm", *map(str, args)], capture_output=True, text=True,
                       timeout=timeout, env=full, preexec_fn=_limited)
    err = p.stderr
    assert p.returncode == 2, (p.returncode, err[-2000:])
    assert "Traceback" not in err and "internal error" not in err and "out of memory" not in err, err
    assert "tongasm: error: " in err, err
    return err


def _kernel(tmp_path: Path, *sizes: int, kind: str = "Internal") -> Path:
    k = json.loads(EXAMPLE.read_text())
    allocs = k["functions"][0]["allocations"]
    for i, n in enumerate(sizes):
        allocs.append({"name": f"big{i}_set", "kind": kind, "dtype": "uint8", "tensor_shape": [n],
                       "memorylocations": [{"name": f"big{i}", "type": "DRAM", "addr": 0, "base": 0, "dims": [1, n]}]})
    p = tmp_path / "k.json"
    p.write_text(json.dumps(k))
    return p


def _npy(path: Path, shape: str, descr: str, data: bytes = b"") -> Path:
    h = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    h += " " * (63 - (len(h) + 10) % 64) + "\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + data)
    return path


def _neff(tmp_path: Path, edits: dict[str, Any]) -> Path:
    n = Neff.read(str(small()))
    members = []
    for m in n.members:
        data = bytes(n.members[m])
        if m in edits:
            data = edits[m](data)
        members.append((m, data))
    p = tmp_path / "hostile.neff"
    p.write_bytes(neff_of_members(members))
    return p


def _json_edit(fn: Any) -> Any:
    def edit(data: bytes) -> bytes:
        j = json.loads(data)
        fn(j)
        return json.dumps(j).encode()
    return edit


def _inputs(tmp_path: Path) -> list[str]:
    return ["-i", f"x={_npy(tmp_path / 'x.npy', '(128, 256)', '<f2', bytes(65536))}",
            "-i", f"y={_npy(tmp_path / 'y.npy', '(256, 128)', '<f2', bytes(65536))}"]


# --- the simulator's DRAM -------------------------------------------------------------------------

@pytest.mark.parametrize("sizes", [((1 << 32) - 64,), (1300 << 20,) * 3], ids=["one-4GiB", "three-1.3GB"])
def test_a_kernel_asking_for_gigabytes_of_dram_is_refused_before_allocating(tmp_path: Path,
                                                                            sizes: tuple[int, ...]) -> None:
    err = hostile("run", _kernel(tmp_path, *sizes), "-o", tmp_path / "o", "-q")
    total = sum(sizes) + 16  # (the example's own 16-byte DRAM constant)
    assert f"the DRAM the simulator allocates is {total} bytes, more than the limit of 1073741824 bytes" in err
    assert "TONGASM_MAX_SIM_DRAM_BYTES" in err
    assert not (tmp_path / "o").exists()


def test_the_reference_interpreter_is_bounded_by_the_same_limit(tmp_path: Path) -> None:
    err = hostile("run", _kernel(tmp_path, (1 << 32) - 64), "--reference", "-o", tmp_path / "o", "-q")
    assert "TONGASM_MAX_SIM_DRAM_BYTES" in err


def test_the_dram_limit_is_the_variable_s_and_an_output_within_it_runs(tmp_path: Path) -> None:
    """The limit is a figure, not a guess: lowered, a 64 KiB output is refused; at its default a 16 MiB
    output runs."""
    k = _kernel(tmp_path, 1 << 16, kind="Output")
    err = hostile("run", k, "-o", tmp_path / "o", "-q", env={"TONGASM_MAX_SIM_DRAM_BYTES": "65536"})
    assert "more than the limit of 65536 bytes" in err
    k = _kernel(tmp_path, 1 << 24, kind="Output")
    p = subprocess.run([sys.executable, "-m", "tongasm", "run", str(k), "-o", str(tmp_path / "o2"), "-q"],
                       capture_output=True, text=True, timeout=120, preexec_fn=_limited,
                       env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "o2" / "big0.npy").stat().st_size == (1 << 24) + 128


def test_a_memory_description_asking_for_gigabytes_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "a"
    subprocess.run([sys.executable, "-m", "tongasm", "assemble", str(EXAMPLE), "-o", str(out), "-q"], check=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, capture_output=True)
    m = json.loads((out / "memory.json").read_text())
    big = dict(next(v for v in m["variables"] if v["space"] == "DRAM"))
    big.update(name="big", var_id=max(v["var_id"] for v in m["variables"]) + 1, dims=[1, 3 << 30], dtype="uint8")
    big.pop("shape", None)
    m["variables"].append(big)
    (tmp_path / "m.json").write_text(json.dumps(m))
    err = hostile("run", *sorted(out.glob("*.bin")), "--memory", tmp_path / "m.json", "-o", tmp_path / "o", "-q")
    assert "variable 'big'" in err and "TONGASM_MAX_SIM_DRAM_BYTES" in err


def test_a_neff_whose_outputs_declare_gigabytes_is_refused_before_the_run(tmp_path: Path) -> None:
    n = (1 << 31) - (1 << 20)  # float16 elements: 4 GiB - 2 MiB of output per graph

    def shapes(j: Any) -> None:
        j["attrs"]["shape"][1][2] = j["attrs"]["shape"][1][3] = [n]

    def size(j: Any) -> None:
        j["var"]["output0"]["size"] = 2 * n
    neff = _neff(tmp_path, {"sg00/def.json": _json_edit(size), "sg01/def.json": _json_edit(size),
                            "neff.json": _json_edit(shapes)})
    err = hostile("run", neff, *_inputs(tmp_path), "-o", tmp_path / "o", "-q")
    figure = re.search(r"its outputs and private .* is (\d+) bytes, more than the limit of 1073741824 bytes", err)
    assert figure and int(figure.group(1)) >= 2 * n, err  # (the output, and the graphs' file constants)
    assert "TONGASM_MAX_SIM_DRAM_BYTES" in err


# --- JSON members: bytes are not the cost, values are ---------------------------------------------

def _junk(n: int) -> Any:
    def edit(data: bytes) -> bytes:
        body = json.dumps(json.loads(data))[:-1]
        return (body + ', "junk": [' + ",".join(["[]"] * n) + "]}").encode()
    return edit


def test_json_members_of_millions_of_empty_lists_are_refused_before_parsing(tmp_path: Path) -> None:
    """60 MB of ``[],`` per member is under the JSON byte limit but would parse to 1.4 GB of lists each."""
    members = ("sg00/def.json", "sg01/def.json", "sg00/act_info.json", "sg01/act_info.json")
    neff = _neff(tmp_path, {m: _junk(20_000_000) for m in members})
    for cmd in (["neff", "info", neff], ["check", neff], ["run", neff, *_inputs(tmp_path), "-o", tmp_path / "o"]):
        err = hostile(*cmd)
        assert "NEFF member sg00/def.json: the JSON value count is 40000" in err, err
        assert "more than the limit of 4194304 values" in err and "TONGASM_MAX_NEFF_JSON_VALUES" in err


def test_the_json_values_of_a_whole_neff_are_bounded(tmp_path: Path) -> None:
    """Each member under its own limit, together past the NEFF's: refused at the member that crosses it."""
    neff = _neff(tmp_path, {m: _junk(300_000) for m in ("sg00/def.json", "sg01/def.json")})
    err = hostile("neff", "info", neff, env={"TONGASM_MAX_NEFF_ALL_JSON_VALUES": "500000"})
    assert "the JSON value count of the NEFF is" in err and "more than the limit of 500000 values" in err
    assert "TONGASM_MAX_NEFF_ALL_JSON_VALUES" in err


# --- refused before this file too (must stay so) ---------------------------------------------------

def test_a_npy_header_declaring_40_gb_is_refused(tmp_path: Path) -> None:
    err = hostile("run", EXAMPLE, "-i", f"a={_npy(tmp_path / 'x.npy', '(100000, 100000)', '<f4')}",
                  "-o", tmp_path / "o", "-q")
    assert "40000000000 bytes of data; the file holds 0" in err


def test_a_declared_shape_larger_than_the_variable_is_refused(tmp_path: Path) -> None:
    err = hostile("run", small(), "--declare", "x=float32:100000x100000", *_inputs(tmp_path), "-o", tmp_path / "o")
    assert "shape [100000, 100000] of float32 is not its 65536 bytes" in err


# --- huge numbers in messages: one helper, about 20 characters and the digit count ----------------

BIG = 10 ** 39 + 1234567  # 40 digits
SHORT = "10000000000000000... (40 digits)"


def test_brief_int_keeps_20_digits_whole_and_cuts_longer_ones_saying_how_many() -> None:
    from tongasm.errors import brief_int

    assert brief_int(18446744073709551615) == "18446744073709551615"  # every 64-bit value is shown whole
    assert brief_int(-(10 ** 20)) == "-10000000000000000... (21 digits)"
    assert brief_int(BIG) == SHORT
    assert brief_int(10 ** 5000) == "10000000000000000... (5001 digits)"  # past Python's int-to-text limit
    assert brief_int(0xFFFF_FFFF_FFFF_FFFF, hexa=True) == "0xffffffffffffffff"
    assert brief_int(1 << 130, hexa=True) == "0x4000000000000... (33 hex digits)"


def _in_messages(text: str) -> None:
    assert not re.search(r"\d{21,}", text), text


@pytest.mark.parametrize("path", [
    ("ins", 0, "ap", 0, 1),  # a num
    ("ins", 0, "ap", 1, 0),  # a step
    ("ins", 0, "offset"),  # a start partition and byte
    ("sync", "update", "index"),  # a semaphore index
])
@pytest.mark.parametrize("cmd", ["check", "run"])
def test_a_40_digit_number_in_a_kernel_is_echoed_shortened(tmp_path: Path, capsys: Any, cmd: str,
                                                          path: tuple[Any, ...]) -> None:
    from tongasm.cli import main

    k = json.loads(EXAMPLE.read_text())
    x = k["functions"][0]["blocks"][0]["instructions"][0]
    for key in path[:-1]:
        x = x[key]
    x[path[-1]] = BIG
    (tmp_path / "k.json").write_text(json.dumps(k))
    argv = [cmd, str(tmp_path / "k.json")] + (["-o", str(tmp_path / "o"), "-q"] if cmd == "run" else [])
    assert main(argv) == 1
    out = capsys.readouterr()
    _in_messages(out.err + out.out)
    assert re.search(r"\.\.\. \(\d\d (hex )?digits\)", out.err + out.out), out  # (an offset: its partition, 37 digits)


def test_a_40_digit_number_in_a_memory_description_or_a_listing_is_echoed_shortened(tmp_path: Path,
                                                                                     capsys: Any) -> None:
    from tongasm.cli import main

    out = tmp_path / "a"
    assert main(["assemble", str(EXAMPLE), "-o", str(out), "-q"]) == 0
    m = json.loads((out / "memory.json").read_text())
    m["variables"][0]["dims"][0] = BIG
    (tmp_path / "m.json").write_text(json.dumps(m))
    capsys.readouterr()
    assert main(["run", *map(str, sorted(out.glob("*.bin"))), "--memory", str(tmp_path / "m.json"),
                 "-o", str(tmp_path / "o"), "-q"]) == 2
    err = capsys.readouterr().err
    _in_messages(err)
    assert f"got [{SHORT}, 2048]" in err
    assert main(["disasm", str(out / "dve.bin"), "-o", str(tmp_path / "t.s")]) == 0
    text = (tmp_path / "t.s").read_text().replace("sb[p0:128]+0x1000", f"sb[p0:{BIG}]+0x1000", 1)
    (tmp_path / "h.s").write_text(text)
    assert main(["asm", str(tmp_path / "h.s"), "-o", str(tmp_path / "hs")]) == 1  # (a listing error, as before)
    first = capsys.readouterr().err.splitlines()[0]
    _in_messages(first)
    assert f"partition count {SHORT} differs from 128" in first


def test_a_40_digit_figure_in_a_neff_is_shortened_in_info(tmp_path: Path, capsys: Any) -> None:
    from tongasm.cli import main

    def edit(j: Any) -> None:
        j["dma_queue"]["qPoolDynamic"]["num_queues"] = BIG
        j["runtime_event_count"] = BIG
    neff = _neff(tmp_path, {"sg00/def.json": _json_edit(edit)})
    assert main(["neff", "info", str(neff)]) == 0
    text = capsys.readouterr().out
    _in_messages(text.replace("0" * 32, ""))  # (the header's hash fields are hex dumps, not numbers)
    assert f"{SHORT} queues" in text and f"runtime: {SHORT} events" in text
