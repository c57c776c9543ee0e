"""Fuzzing the NEFF surfaces: whatever a NEFF holds, every command gives a result or one of its errors.

Mutations start from the real ``matmul_small.neff`` so they reach deep into each reader:

* ``container``: the file's bytes — the 1024-byte header, the gzip header, the deflate stream, the
  CRC32/ISIZE trailer and padding, a tar member header (its checksum fixed half the time so the
  reader gets past it), a truncation or trailing garbage;
* ``json``: one to three leaves of a JSON member (``kelf-0.json``, ``def.json``, ``neff.json``,
  ``info.json``, the engine sidecars) replaced by hostile values: other types, huge and negative
  numbers, a 5000-digit integer, NaN and Infinity, deep nesting, lone surrogates, long strings;
* ``npy`` and ``dbg``: the ``.npy`` and ``.dbg`` protobuf members' bytes mutated (flips, runs of
  0xFF that make huge varints, truncation, insertion).

Each case is run through ``neff info``, ``disasm``, ``check``, ``run``, ``neff unpack`` and
``neff repack`` in-process, asserting: no traceback or internal error, exit 0, 1 or 2 with a
``tongasm: error:`` line on failure, exit 2 from every command when the NEFF reader refuses the file,
each command within a time limit and a bound on Python allocations (tracemalloc), and nothing
written outside the command's ``-o`` (and nothing at all by a failed unpack or repack).

The suite's run is seeded and short (:data:`DEFAULT_CASES` per surface); set
``TONGASM_NEFF_FUZZ_CASES=N`` for N cases per surface (and ``TONGASM_NEFF_FUZZ_SEED`` for another
seed); ``pytest -s`` prints the outcome counts per surface and command.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import shutil
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import time_limit
from neff_support import small, with_payload
from tongasm.cli import main as cli_main
from tongasm.neff.container import BLOCK, _TF, build_tar, gzip_member, pad_payload
from tongasm.neff.errors import NeffError
from tongasm.neff.header import HEADER_SIZE
from tongasm.neff.neff import Neff

DEFAULT_CASES = {"container": 3, "json": 4, "npy": 1, "dbg": 2}
CASES = int(os.environ.get("TONGASM_NEFF_FUZZ_CASES", "0") or 0)
SEED = int(os.environ.get("TONGASM_NEFF_FUZZ_SEED", "2026") or 2026)
#: per command: seconds, and peak Python allocations (bytes)
SECONDS = 30.0
PEAK = 512 << 20
COMMANDS = ("info", "disasm", "check", "run", "unpack", "repack")
COUNTS: dict[str, Counter[str]] = {}


@pytest.fixture(scope="module")
def seed() -> tuple[bytes, Neff, list[tuple[str, bytes]]]:
    data = small().read_bytes()
    neff = Neff.from_bytes(data)
    return data, neff, list(neff.iter_members())


# --- mutations -------------------------------------------------------------------------------------

def rebuilt(data: bytes, members: list[tuple[str, bytes]]) -> bytes:
    """The seed's header over a fresh plain-ustar payload of ``members``."""
    return with_payload(pad_payload(gzip_member(build_tar(members), 0)), data[:HEADER_SIZE])


def flip(rng: random.Random, b: bytes, lo: int = 0, hi: int | None = None, n: int = 4) -> bytes:
    out = bytearray(b)
    hi = len(out) if hi is None else min(hi, len(out))
    for _ in range(rng.randint(1, n)):
        if hi > lo:
            out[rng.randrange(lo, hi)] = rng.choice((0, 0xFF, 0x80, 0x7F, rng.randrange(256)))
    return bytes(out)


def mutate_container(rng: random.Random, data: bytes, neff: Neff, members: list[tuple[str, bytes]]) -> tuple[str, bytes]:
    assert neff.source is not None
    gz_end = HEADER_SIZE + neff.gzip.member_size
    kind = rng.choice(("header", "gzip-header", "deflate", "trailer", "tar-header", "truncate", "garbage"))
    if kind == "header":
        return kind, flip(rng, data, 0, HEADER_SIZE)
    if kind == "gzip-header":
        return kind, flip(rng, data, HEADER_SIZE, HEADER_SIZE + 10, 2)
    if kind == "deflate":
        return kind, flip(rng, data, HEADER_SIZE + 10, gz_end - 8, 3)
    if kind == "trailer":
        return kind, flip(rng, data, gz_end - 8, len(data), 2)
    if kind == "truncate":
        return kind, data[:rng.randrange(len(data))]
    if kind == "garbage":
        return kind, data + bytes(rng.randrange(256) for _ in range(rng.randint(1, 600)))
    tar = bytearray(build_tar(members))  # a member header of a plain tar of the same members
    starts, pos = [], 0
    for _, d in members:
        starts.append(pos)
        pos += BLOCK + len(d) + (-len(d) % BLOCK)
    at = rng.choice(starts)
    field = rng.choice(("name", "size", "typeflag", "mode", "magic", "prefix", "chksum", "uid", "mtime"))
    f = _TF[field]
    for _ in range(rng.randint(1, 3)):
        tar[at + f.offset + rng.randrange(f.width)] = rng.choice((0, 0x30, 0x37, 0x39, 0x2F, 0x2E, 0xFF,
                                                                 rng.randrange(256)))
    if field != "chksum" and rng.random() < 0.5:
        ck = _TF["chksum"]
        h = tar[at:at + BLOCK]
        h[ck.offset:ck.offset + ck.width] = b" " * ck.width
        tar[at + ck.offset:at + ck.offset + ck.width] = f"{sum(h):06o}".encode() + b"\0 "
    return f"tar-{field}", with_payload(pad_payload(gzip_member(bytes(tar), 0)), data[:HEADER_SIZE])


HOSTILE: tuple[Callable[[random.Random], str], ...] = (
    lambda r: "null", lambda r: "true", lambda r: '"x"', lambda r: '""', lambda r: "[]", lambda r: "{}",
    lambda r: "-1", lambda r: "0", lambda r: str(2 ** 63), lambda r: str(-2 ** 63 - 1), lambda r: str(2 ** 64),
    lambda r: "1" * 5000, lambda r: "1e400", lambda r: "-1e400", lambda r: "NaN", lambda r: "Infinity",
    lambda r: "-Infinity", lambda r: "1.5", lambda r: "[null]", lambda r: "[-1, 2e9]", lambda r: '"\\ud800"',
    lambda r: '"a\\udfffb"', lambda r: json.dumps("y" * r.choice((300, 70000))),
    lambda r: "[" * 100000 + "]" * 100000, lambda r: '{"a":' * 3000 + "1" + "}" * 3000,
    lambda r: json.dumps("../../escape"), lambda r: json.dumps("sg00/../../x"), lambda r: "[[[[]]]]",
)


def _leaves(node: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(node, dict) and node:
        return [p for k, v in node.items() for p in _leaves(v, (*at, k))]
    if isinstance(node, list) and node:
        return [p for i, v in enumerate(node) for p in _leaves(v, (*at, i))]
    return [at]


_MARK = "\x00HOSTILE{}\x00"


def mutate_json(rng: random.Random, data: bytes, neff: Neff, members: list[tuple[str, bytes]]) -> tuple[str, bytes]:
    names = [n for n, _ in members if n.endswith(".json")]
    core = [n for n in names if n.rpartition("/")[2] in ("kelf-0.json", "def.json", "neff.json", "info.json")
            or n.rpartition("/")[2] in ("PE.json", "Activation.json", "SP.json", "Pool.json", "DVE.json")]
    name = rng.choice(core if rng.random() < 0.85 else names)
    obj = json.loads(dict(members)[name])
    paths = _leaves(obj)
    values = []
    for k in range(rng.randint(1, 3)):
        path = rng.choice(paths)
        if not path:
            obj = _MARK.format(k)
        else:
            node = obj
            for key in path[:-1]:
                node = node[key]
            if not isinstance(node, (dict, list)):
                continue
            node[path[-1]] = _MARK.format(k)
        values.append(rng.choice(HOSTILE)(rng))
    text = json.dumps(obj)
    for k, v in enumerate(values):
        text = text.replace(json.dumps(_MARK.format(k)), v)
    out = [(n, text.encode() if n == name else d) for n, d in members]
    return f"{name.rpartition('/')[2]}", rebuilt(data, out)


def mutate_bytes(rng: random.Random, b: bytes) -> bytes:
    kind = rng.choice(("flip", "ff-run", "truncate", "insert", "head"))
    if kind == "flip":
        return flip(rng, b, 0, None, 6)
    if kind == "head":
        return flip(rng, b, 0, 128, 4)
    if kind == "ff-run":
        at = rng.randrange(len(b) + 1)
        return b[:at] + b"\xff" * rng.randint(1, 12) + b"\x01" + b[at:]
    if kind == "truncate":
        return b[:rng.randrange(len(b) + 1)]
    at = rng.randrange(len(b) + 1)
    return b[:at] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 64))) + b[at:]


def mutate_member(suffix: str) -> Callable[..., tuple[str, bytes]]:
    def mutate(rng: random.Random, data: bytes, neff: Neff, members: list[tuple[str, bytes]]) -> tuple[str, bytes]:
        names = [n for n, _ in members if suffix in n.rpartition("/")[2]]
        picked = set(rng.sample(names, rng.randint(1, min(2, len(names)))))
        out = [(n, mutate_bytes(rng, d) if n in picked else d) for n, d in members]
        return ",".join(sorted(p.rpartition("/")[2] for p in picked)), rebuilt(data, out)
    return mutate


MUTATORS = {"container": mutate_container, "json": mutate_json, "npy": mutate_member(".npy"),
            "dbg": mutate_member(".dbg")}


# --- running ---------------------------------------------------------------------------------------

def run_cli(args: list[str], what: str) -> tuple[int, str, float, int]:
    """Exit code, stderr, seconds and peak Python allocations of one in-process command."""
    out, err = io.StringIO(), io.StringIO()
    tracemalloc.start()
    t = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), time_limit(SECONDS, what):
            try:
                rc = cli_main(args)
            except SystemExit as e:  # argparse
                rc = e.code if isinstance(e.code, int) else 2
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return rc, err.getvalue(), time.perf_counter() - t, peak


def files_under(p: Path) -> list[Path]:
    return [q for q in p.rglob("*") if q.is_file()] if p.is_dir() else ([p] if p.exists() else [])


def one_case(tmp: Path, data: bytes, label: str, counts: Counter[str]) -> None:
    neff_path = tmp / "case.neff"
    neff_path.write_bytes(data)
    try:
        Neff.from_bytes(data)
        readable = True
    except NeffError:
        readable = False
    keep = {"case.neff", "x.npy", "y.npy"}
    f = str(neff_path)
    outs = {"info": None, "disasm": tmp / "o-disasm.s", "check": None, "run": tmp / "o-run",
            "unpack": tmp / "o-unpack", "repack": tmp / "o-repack.neff"}
    for cmd in COMMANDS:
        out = outs[cmd]
        args = {"info": ["neff", "info", f], "disasm": ["disasm", f, "-o", str(out)], "check": ["check", f],
                "run": ["run", f"{f}:sg00", "-i", f"x={tmp / 'x.npy'}", "-i", f"y={tmp / 'y.npy'}", "-o", str(out),
                        "-q"],
                "unpack": ["neff", "unpack", f, "-o", str(out), "-q"],
                "repack": ["neff", "repack", f, "-o", str(out), "-q"]}[cmd]
        what = f"{label}: tongasm {' '.join(args[:2])}"
        rc, err, secs, peak = run_cli(args, what)
        _internal(err, rc, what, counts)
        if TALLY and ("internal error" in err or "Traceback" in err):
            continue
        if rc and not (cmd == "check" and rc == 1):  # (check's exit 1 is its findings, printed)
            head = [line for line in err.splitlines() if not line.startswith("tongasm: note: ")]
            assert head and head[0].startswith("tongasm: error: "), f"{what}: {err}"
        if not readable:
            assert rc == 2, f"{what}: the NEFF reader refuses the file, yet exit {rc}: {err}"
        assert peak < PEAK, f"{what}: {peak} bytes allocated at the peak"
        if cmd in ("unpack", "repack", "disasm") and rc and out is not None:
            assert not files_under(out), f"{what} failed but wrote {files_under(out)}"
        if cmd == "unpack" and rc == 0 and out is not None:
            root = out.resolve()
            assert all(root in q.resolve().parents for q in files_under(out))
        stray = [q.name for q in tmp.iterdir() if q.name not in keep and (out is None or q != out)]
        assert not stray, f"{what}: wrote outside -o: {stray}"
        if out is not None and out.exists():
            shutil.rmtree(out) if out.is_dir() else out.unlink()
        counts[f"{cmd} exit {rc}"] += 1
        counts["seconds"] += round(secs, 3)  # (summed; printed with the counts)


@pytest.mark.parametrize("surface", list(MUTATORS))
def test_hostile_neffs_give_a_result_or_a_tongasm_error(surface: str, seed: tuple[bytes, Neff, list[tuple[str, bytes]]],
                                                        tmp_path: Path) -> None:
    data, neff, members = seed
    np.save(tmp_path / "x.npy", np.zeros((128, 256), np.float16))
    np.save(tmp_path / "y.npy", np.zeros((256, 128), np.float16))
    rng = random.Random(f"{SEED}-{surface}")
    counts = COUNTS.setdefault(surface, Counter())
    for i in range(CASES or DEFAULT_CASES[surface]):
        kind, mutated = MUTATORS[surface](rng, data, neff, members)
        counts[f"case {kind}"] += 1
        counts["cases"] += 1
        one_case(tmp_path, mutated, f"{surface} case {i} ({kind})", counts)
    print(f"\n{surface}: " + ", ".join(f"{k}: {v:g}" for k, v in sorted(counts.items())))


def test_the_mutators_change_the_file_and_reach_past_the_container(seed: tuple[bytes, Neff, list[tuple[str, bytes]]]) \
        -> None:
    """The member surfaces must produce NEFFs the reader opens (else they test only the container)."""
    data, neff, members = seed
    for surface in ("json", "npy", "dbg"):
        rng = random.Random(f"mutators-{surface}")
        opened = 0
        for _ in range(8):
            _, mutated = MUTATORS[surface](rng, data, neff, members)
            assert mutated != data
            with contextlib.suppress(NeffError):
                Neff.from_bytes(mutated)
                opened += 1
        assert opened == 8, surface  # the container is rebuilt valid: only the member is hostile
    assert rebuilt(data, members) != data  # (a plain-ustar rebuild, not the seed's own bytes)
    assert Neff.from_bytes(rebuilt(data, members)).members["kelf-0.json"] == dict(members)["kelf-0.json"]


# --- the adversarial surfaces: graph lists, pack's metadata, kernels' allocations ------------------

#: set TONGASM_NEFF_FUZZ_TALLY=1 to count internal errors (printed) instead of failing on the first
TALLY = os.environ.get("TONGASM_NEFF_FUZZ_TALLY") == "1"
ADVERSARIAL_CASES = {"kelf": 3, "meta": 6, "kernel": 8}


def _internal(err: str, rc: int, what: str, counts: Counter[str]) -> None:
    bad = "Traceback" in err or "internal error" in err or rc not in (0, 1, 2)
    counts["internal errors"] += bad
    if not TALLY:
        assert not bad, f"{what}: exit {rc}: {err}"


def mutate_kelf(rng: random.Random, data: bytes, neff: Neff, members: list[tuple[str, bytes]]) -> tuple[str, bytes]:
    kelf = json.loads(dict(members)["kelf-0.json"])
    graphs = kelf["graphs"]
    kind = rng.choice(("duplicate", "many", "surrogate", "long", "shared", "missing"))
    if kind == "duplicate":
        graphs[1]["name"] = graphs[0]["name"]
    elif kind == "many":
        graphs[:] = [{"name": f"g{i}", "definition": "sg00/def.json"} for i in range(rng.choice((65, 300, 3000)))]
    elif kind == "surrogate":
        graphs[rng.randrange(2)]["name"] = rng.choice(("\udc80", "a\ud800b", "x/y", "../sg00", ""))
    elif kind == "long":
        graphs[0]["name"] = "g" * rng.choice((300, 70000))
    elif kind == "shared":
        graphs[1]["definition"] = graphs[0]["definition"]
    else:
        graphs[1]["definition"] = rng.choice(("sg09/def.json", "", "/etc/passwd", "sg00/PE.bin"))
    text = json.dumps(kelf).encode()
    return kind, rebuilt(data, [(n, text if n == "kelf-0.json" else d) for n, d in members])


MUTATORS["kelf"] = mutate_kelf
DEFAULT_CASES["kelf"] = ADVERSARIAL_CASES["kelf"]


def test_hostile_pack_metadata_gives_a_neff_that_reads_back_or_a_refusal(tmp_path: Path) -> None:
    """Leaves of tongasm-neff.json (header, gzip and tar fields, member paths) replaced by hostile
    values: ``neff pack`` refuses (exit 2) or writes a NEFF that tongasm reads back."""
    src = tmp_path / "u"
    rc, err, _, _ = run_cli(["neff", "unpack", str(small()), "-o", str(src), "-q"], "unpack the seed")
    assert rc == 0, err
    meta_text = (src / "tongasm-neff.json").read_text()
    meta = json.loads(meta_text)
    paths = [p for p in _leaves(meta) if p and p[0] != "header_fields"]
    rng = random.Random(f"{SEED}-meta")
    counts = COUNTS.setdefault("meta", Counter())
    for i in range(CASES or ADVERSARIAL_CASES["meta"]):
        path = rng.choice(paths)
        obj = json.loads(meta_text)
        node = obj
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = _MARK.format(0)
        text = json.dumps(obj).replace(json.dumps(_MARK.format(0)), rng.choice(HOSTILE)(rng))
        (src / "tongasm-neff.json").write_text(text)
        out = tmp_path / "p.neff"
        what = f"meta case {i} ({'/'.join(map(str, path))})"
        rc, err, _, peak = run_cli(["neff", "pack", str(src), "-o", str(out), "-q", "--no-check"], what)
        _internal(err, rc, what, counts)
        counts[f"pack exit {rc}"] += 1
        assert peak < PEAK, what
        if rc == 0:
            Neff.from_bytes(out.read_bytes())  # what pack writes, tongasm reads
            out.unlink()
        else:
            assert not out.exists(), what
    (src / "tongasm-neff.json").write_text(meta_text)
    print("\nmeta: " + ", ".join(f"{k}: {v:g}" for k, v in sorted(counts.items())))


KERNEL = Path(__file__).resolve().parent.parent / "examples" / "vector_add.json"


def test_hostile_kernel_allocations_give_a_result_or_a_tongasm_error(tmp_path: Path) -> None:
    """An allocation's tensor_shape, dtype, kind or a location's dims replaced by hostile values:
    check, assemble and run give a result or one of tongasm's errors."""
    base = json.loads(KERNEL.read_text())
    rng = random.Random(f"{SEED}-kernel")
    counts = COUNTS.setdefault("kernel", Counter())
    values: tuple[Callable[[random.Random], Any], ...] = (
        lambda r: [r.choice((1, 128, 512, 65536))], lambda r: [1, 128, 512], lambda r: [], lambda r: "a",
        lambda r: [-1, 2], lambda r: [2 ** 40, 2], lambda r: [1.5], lambda r: None, lambda r: "float8_e4m3fn_x4",
        lambda r: "float4_e2m1fn_x4", lambda r: 5, lambda r: "\udc80", lambda r: [128, 2 ** 62], lambda r: 10 ** 30)
    for i in range(CASES or ADVERSARIAL_CASES["kernel"]):
        k = json.loads(json.dumps(base))
        alloc = rng.choice(k["functions"][0]["allocations"])
        key = rng.choice(("tensor_shape", "dtype", "kind", "dims"))
        value = rng.choice(values)(rng)
        if key == "dims":
            alloc["memorylocations"][0]["dims"] = value
        else:
            alloc[key] = value
        p = tmp_path / "k.json"
        p.write_text(json.dumps(k))
        for cmd in (["check", str(p)], ["assemble", str(p), "-o", str(tmp_path / "a"), "-q"],
                    ["run", str(p), "-o", str(tmp_path / "r"), "-q"]):
            what = f"kernel case {i} ({alloc['name']}.{key}={value!r:.40}): tongasm {cmd[0]}"
            rc, err, _, peak = run_cli(cmd, what)
            _internal(err, rc, what, counts)
            counts[f"{cmd[0]} exit {rc}"] += 1
            assert peak < PEAK, what
    print("\nkernel: " + ", ".join(f"{k}: {v:g}" for k, v in sorted(counts.items())))


def test_hostile_graph_lists_give_a_result_or_a_tongasm_error(seed: tuple[bytes, Neff, list[tuple[str, bytes]]],
                                                              tmp_path: Path) -> None:
    """kelf-0.json's graph list: duplicate, thousands, lone-surrogate, long, shared and missing."""
    test_hostile_neffs_give_a_result_or_a_tongasm_error("kelf", seed, tmp_path)
