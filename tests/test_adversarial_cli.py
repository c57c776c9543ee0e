"""What a hostile (or careless) user can do from the command line: each case reproduced as a command,
with what it must give: the inputs kept, a refusal (exit 2, one ``tongasm: error:`` line, no
internal error) or a bounded run.

The manifest cases that already behaved before this file (a foreign ``manifest.json``/``state.json``
deletes nothing, a forged ``"tool"`` key without matching digests deletes nothing, ``disasm X -o X``
and ``run K --trace K``) are tested in tests/test_hostile_inputs.py; this file covers the ways round
those guards: an output *directory* that holds an input, a NEFF written into the directory it is
packed from, an input a stale manifest would drop.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from neff_support import neff_of_members, small
from tongasm.cli import main
from tongasm.neff.neff import Neff

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "vector_add.json"


def run(*args: Any) -> int:
    return main([str(a) for a in args])


def refused(capsys: Any, *args: Any, says: str = "") -> str:
    """Run a command that must be refused: exit 2, a ``tongasm: error:`` line, no internal error."""
    rc = run(*args)
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "internal error" not in err and "Traceback" not in err, err
    assert err.startswith("tongasm: error: ") or "\ntongasm: error: " in err, err
    assert says in err, err
    return err


@pytest.fixture
def unpacked(tmp_path: Path) -> Path:
    out = tmp_path / "u"
    assert run("neff", "unpack", small(), "-o", out, "-q") == 0
    return out


# --- 1. data loss: an output never replaces, removes or lands inside an input -------------------------

def test_assemble_into_the_directory_of_its_kernel_named_like_an_output_is_refused(tmp_path: Path,
                                                                                   capsys: Any) -> None:
    d = tmp_path / "d"
    d.mkdir()
    for name in ("manifest.json", "memory.json"):
        kernel = d / name
        kernel.write_bytes(EXAMPLE.read_bytes())
        refused(capsys, "assemble", kernel, "-o", d, "-q", says="is the input")
        assert kernel.read_bytes() == EXAMPLE.read_bytes()
        kernel.unlink()
    assert list(d.iterdir()) == []  # refused before anything was written


def test_asm_of_a_listing_named_manifest_json_into_its_directory_is_refused(tmp_path: Path, capsys: Any) -> None:
    streams = tmp_path / "s"
    assert run("assemble", EXAMPLE, "-o", streams, "-q") == 0
    listing = tmp_path / "d" / "manifest.json"
    listing.parent.mkdir()
    assert run("disasm", streams / "dve.bin", "-o", listing) == 0
    text = listing.read_bytes()
    refused(capsys, "asm", listing, "-o", listing.parent, "-q", says="is the input")
    assert listing.read_bytes() == text


def test_run_refuses_an_output_file_that_is_one_of_its_inputs(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "o"
    assert run("run", EXAMPLE, "-o", out, "-q") == 0
    kept = (out / "sum.npy").read_bytes()
    # the streams' memory description named state.json, inside the -o directory
    streams = tmp_path / "s"
    assert run("assemble", EXAMPLE, "-o", streams, "-q") == 0
    memory = out / "state.json"
    shutil.copy(streams / "memory.json", memory)
    refused(capsys, "run", *(streams / f"{e}.bin" for e in ("act", "dve", "sp")), "--memory", memory, "-o", out, "-q",
            says="is the input")
    assert memory.read_bytes() == (streams / "memory.json").read_bytes()
    # an -i input that the run would write again (sum is an output of the kernel)
    refused(capsys, "run", EXAMPLE, "-i", f"sum={out / 'sum.npy'}", "-o", out, "-q")
    assert (out / "sum.npy").read_bytes() == kept


def test_an_input_a_stale_manifest_lists_is_not_removed(tmp_path: Path, capsys: Any) -> None:
    """A rerun drops the outputs of the last run that it does not write again (its state.json lists
    them), but never one the command is reading."""
    out = tmp_path / "o"
    assert run("run", EXAMPLE, "-o", out, "-q") == 0
    before = (out / "sel.npy").read_bytes()
    # 'a' is an input of the kernel; sel.npy (an output of the last run) is read as it, and this run
    # writes only acc: sel.npy is stale
    refused(capsys, "run", EXAMPLE, "-i", f"a={out / 'sel.npy'}", "--outputs", "acc", "-o", out, "-q",
            says="would remove")
    assert (out / "sel.npy").read_bytes() == before
    assert run("run", EXAMPLE, "--outputs", "acc", "-o", out, "-q") == 0  # not an input: dropped as before
    assert not (out / "sel.npy").exists()


def test_neff_pack_into_the_directory_it_packs_is_refused(unpacked: Path, capsys: Any) -> None:
    kelf = unpacked / "kelf-0.json"
    before = kelf.read_bytes()
    refused(capsys, "neff", "pack", unpacked, "-o", kelf, "-q", says="lies inside the input")
    assert kelf.read_bytes() == before
    refused(capsys, "neff", "pack", unpacked, "-o", unpacked / "sg00" / "new.neff", "-q", says="lies inside the input")
    assert not (unpacked / "sg00" / "new.neff").exists()
    assert run("neff", "pack", unpacked, "-o", unpacked.parent / "ok.neff", "-q") == 0  # elsewhere: fine


def test_neff_repack_onto_its_own_input_or_a_replacement_is_refused(tmp_path: Path, capsys: Any) -> None:
    f = tmp_path / "f.neff"
    f.write_bytes(small().read_bytes())
    refused(capsys, "neff", "repack", f, "-o", f, "-q", says="is the input")
    new = tmp_path / "pe.bin"
    new.write_bytes(Neff.from_bytes(f.read_bytes()).members["sg00/PE.bin"])
    refused(capsys, "neff", "repack", f, "--replace", f"sg00/PE.bin={new}", "-o", new, "-q", says="is the input")
    assert f.read_bytes() == small().read_bytes()


# --- 2. silently wrong output ---------------------------------------------------------------------

def _members() -> list[tuple[str, bytes]]:
    return list(Neff.from_bytes(small().read_bytes()).iter_members())


def _with_json(name: str, edit: Any) -> bytes:
    out = []
    for n, d in _members():
        if n == name:
            obj = json.loads(d)
            edit(obj)
            d = json.dumps(obj).encode()
        out.append((n, d))
    return neff_of_members(out)


def test_duplicate_graph_names_are_refused_by_every_command(tmp_path: Path, capsys: Any) -> None:
    f = tmp_path / "dup.neff"
    f.write_bytes(_with_json("kelf-0.json", lambda k: k["graphs"][1].__setitem__("name", "sg00")))
    np.save(tmp_path / "x.npy", np.ones((128, 256), np.float16))
    np.save(tmp_path / "y.npy", np.ones((256, 128), np.float16))
    for args in (("neff", "info", f), ("disasm", f), ("check", f),
                 ("run", f, "-i", f"x={tmp_path / 'x.npy'}", "-i", f"y={tmp_path / 'y.npy'}", "-o", tmp_path / "r", "-q")):
        refused(capsys, *args, says="occurs twice")
    assert not (tmp_path / "r").exists()
    # unpack keeps the members as they are (for mending by hand); pack refuses to write them back
    assert run("neff", "unpack", f, "-o", tmp_path / "u", "-q") == 0
    refused(capsys, "neff", "pack", tmp_path / "u", "-o", tmp_path / "back.neff", "-q", says="occurs twice")
    assert not (tmp_path / "back.neff").exists()


def test_neff_pack_does_not_write_a_neff_whose_header_tongasm_refuses(unpacked: Path, capsys: Any) -> None:
    meta_path = unpacked / "tongasm-neff.json"
    meta = json.loads(meta_path.read_text())
    header = bytearray(bytes.fromhex(meta["header"]))
    for offset, value in ((0x000, 7), (0x008, 4096)):  # packaging_version, header_size
        bad = bytearray(header)
        bad[offset:offset + 8] = value.to_bytes(8, "little")
        meta["header"] = bad.hex()
        meta_path.write_text(json.dumps(meta))
        out = unpacked.parent / "bad.neff"
        refused(capsys, "neff", "pack", unpacked, "-o", out, "-q", "--no-check", says="would not read back")
        assert not out.exists()


# --- 3. unbounded: refused at a named limit before the memory is spent --------------------------------

def _inputs(tmp_path: Path) -> list[str]:
    np.save(tmp_path / "x.npy", np.ones((128, 256), np.float16))
    np.save(tmp_path / "y.npy", np.ones((256, 128), np.float16))
    return ["-i", f"x={tmp_path / 'x.npy'}", "-i", f"y={tmp_path / 'y.npy'}"]


def test_a_neff_run_honours_the_instruction_cap(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("TONGASM_MAX_INSTRUCTIONS", "10")
    refused(capsys, "run", small(), *_inputs(tmp_path), "-o", tmp_path / "r", "-q", says="runs at most 10")
    assert not (tmp_path / "r").exists()


def test_thousands_of_graphs_are_refused_at_the_graph_limit(tmp_path: Path, capsys: Any) -> None:
    """2,000 graphs sharing one definition: 62 KB of NEFF that ran out of memory (21.9 GB) before."""
    f = tmp_path / "g.neff"
    f.write_bytes(_with_json("kelf-0.json", lambda k: k.__setitem__(
        "graphs", [{"name": f"g{i}", "definition": "sg00/def.json"} for i in range(2000)])))
    for args in (("neff", "info", f), ("disasm", f), ("check", f),
                 ("run", f, *_inputs(tmp_path), "-o", tmp_path / "r", "-q")):
        refused(capsys, *args, says="the graph count is 2000 graphs, more than the limit of 64")


def _varint(v: int) -> bytes:
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _asm_dbg(entries: int, ids: int) -> bytes:
    packed = b"\x01" * ids  # parent id 1, ids times
    entry = b"\x08\x01\x1a" + _varint(len(packed)) + packed
    return b"".join(b"\x1a" + _varint(len(entry)) + entry for _ in range(entries))


def test_dbg_id_tables_are_bounded_in_all(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    neff = Neff.from_bytes(small().read_bytes())
    pe = len(neff.members["sg00/PE.bin"]) // 64
    # one entry per bundle (so disasm uses it for names), 10,000 ids each: past a total of 50,000
    members = [(n, _asm_dbg(pe, 10_000) if n == "sg00/debug_info_asm_PE.dbg" else d) for n, d in neff.iter_members()]
    f = tmp_path / "d.neff"
    f.write_bytes(neff_of_members(members))
    monkeypatch.setenv("TONGASM_MAX_NEFF_DBG_TOTAL_IDS", "50000")
    refused(capsys, "disasm", f, says="the debug-info id count is at least")
    monkeypatch.delenv("TONGASM_MAX_NEFF_DBG_TOTAL_IDS")
    assert run("disasm", f, "-o", tmp_path / "d.s") == 0  # under the default limit: names of #1 ids
    assert "#1+#1" in (tmp_path / "d.s").read_text()


def test_dbg_members_that_do_not_fit_their_stream_are_not_parsed(tmp_path: Path, capsys: Any) -> None:
    """32 MB of id tables per member, 500 entries for a stream of a few bundles: the names are not
    used, so the tables are not built (this took minutes and gigabytes before)."""
    neff = Neff.from_bytes(small().read_bytes())
    big = _asm_dbg(500, 60_000)
    members = [(n, big if "debug_info_asm_" in n else d) for n, d in neff.iter_members()]
    f = tmp_path / "d.neff"
    f.write_bytes(neff_of_members(members))
    import time

    t = time.perf_counter()
    assert run("disasm", f, "-o", tmp_path / "d.s") == 0
    assert time.perf_counter() - t < 30


# --- 4. internal errors: each a clear refusal -----------------------------------------------------

def _kernel(tmp_path: Path, edit: Any) -> Path:
    k = json.loads(EXAMPLE.read_text())
    edit(k)
    p = tmp_path / "k.json"
    p.write_text(json.dumps(k))
    return p


@pytest.mark.parametrize("shape", [[512], [65536], [1, 128, 512]])
def test_a_tensor_shape_that_is_not_partition_major_is_not_an_internal_error(tmp_path: Path, capsys: Any,
                                                                             shape: list[int]) -> None:
    """sum is an SB output of 128 partitions x 512 float32: a 1-D shape cannot be read partition by
    partition; the kernel's tensor_shape is set aside (the dims give the shape), memory.json's refused."""
    k = _kernel(tmp_path, lambda k: k["functions"][0]["allocations"][2].__setitem__("tensor_shape", shape))
    assert run("run", k, "-o", tmp_path / "r", "-q") == 0
    assert np.load(tmp_path / "r" / "sum.npy").shape == (128, 512)
    streams = tmp_path / "s"
    assert run("assemble", EXAMPLE, "-o", streams, "-q") == 0
    memory = json.loads((streams / "memory.json").read_text())
    memory["variables"][2]["shape"] = shape
    (tmp_path / "m.json").write_text(json.dumps(memory))
    refused(capsys, "run", *(streams / f"{e}.bin" for e in ("act", "dve", "sp")), "--memory", tmp_path / "m.json",
            "-o", tmp_path / "r2", "-q", says="does not fit its SB dims")
    assert not (tmp_path / "r2").exists()


def test_an_unknown_operand_kind_in_pool_is_refused(tmp_path: Path, capsys: Any) -> None:
    pool = {"opcode": "Pool", "name": "pp", "engine": "Pool", "func": "Max",
            "ins": [{"kind": "imm_value", "dtype": "float32", "value": 1}],
            "outs": [{"kind": "physical_ap", "dtype": "float32", "ap": [[512, 128], [1, 64]], "offset": 0,
                      "memref": "sum"}]}
    k = _kernel(tmp_path, lambda k: k["functions"][0]["blocks"][0]["instructions"].__setitem__(0, pool))
    # an instruction the encoder refuses: exit 1 with its one line (not an internal error), nothing written
    assert run("assemble", k, "-o", tmp_path / "o", "-q") == 1
    err = capsys.readouterr().err
    assert "internal error" not in err and "Traceback" not in err, err
    assert "Pool takes an access pattern as its input (the window), got imm_value" in err, err
    assert not (tmp_path / "o").exists()


def test_hostile_values_in_the_neff_json_members_are_refused(tmp_path: Path, capsys: Any) -> None:
    f = tmp_path / "f.neff"
    f.write_bytes(_with_json("neff.json", lambda j: j["attrs"]["dltype"][1].__setitem__(0, 5)))
    refused(capsys, "run", f, *_inputs(tmp_path), "-o", tmp_path / "r", "-q", says="should be a dtype name")
    for bad in ("a", -1, 1.5, None, [1], True, 10 ** 30):
        f.write_bytes(_with_json("neff.json", lambda j: j["attrs"]["shape"][1][2].__setitem__(0, bad)))
        refused(capsys, "run", f, *_inputs(tmp_path), "-o", tmp_path / "r", "-q", says="should be a list of dimensions")
        assert not (tmp_path / "r").exists()


def test_a_lone_surrogate_or_an_infinite_mtime_in_tongasm_neff_json_is_refused(unpacked: Path, capsys: Any) -> None:
    meta_path = unpacked / "tongasm-neff.json"
    original = meta_path.read_text()
    meta = json.loads(original)
    meta["members"][0]["path"] = "debug_info/\udc80x"
    meta_path.write_text(json.dumps(meta))
    refused(capsys, "neff", "pack", unpacked, "-o", unpacked.parent / "a.neff", "-q", says="lone surrogate")
    meta_path.write_text(original)
    for value in ("Infinity", "NaN", "1e400", "1.5", "-1"):
        text = json.dumps(json.loads(meta_path.read_text()))
        meta_path.write_text(text.replace('"mtime": 0', f'"mtime": {value}', 1))
        refused(capsys, "neff", "pack", unpacked, "-o", unpacked.parent / "a.neff", "-q")
        meta_path.write_text(text)
    assert not (unpacked.parent / "a.neff").exists()


def test_a_selector_number_of_thousands_of_digits_is_a_short_refusal(capsys: Any) -> None:
    digits = "1" * 5000
    for spec in (f"{small()}:sg00/pe:{digits}", f"{small()}:sg{digits}"):
        err = refused(capsys, "disasm", spec)
        assert len(err) < 400, err


# --- 5. exit codes and order ----------------------------------------------------------------------

def test_a_neff_stream_of_a_non_64_byte_length_is_exit_2_in_run_as_in_check(tmp_path: Path, capsys: Any) -> None:
    neff = Neff.from_bytes(small().read_bytes())
    members = [(n, d[:-10] if n == "sg00/PE.bin" else d) for n, d in neff.iter_members()]
    f = tmp_path / "odd.neff"
    f.write_bytes(neff_of_members(members))
    refused(capsys, "check", f, says="not a whole number of 64-byte bundles")
    refused(capsys, "run", f, *_inputs(tmp_path), "-o", tmp_path / "r", "-q", says="not a whole number of 64-byte bundles")
    assert not (tmp_path / "r").exists()


def test_run_outputs_nosuch_is_refused_before_the_run(tmp_path: Path, capsys: Any) -> None:
    refused(capsys, "run", small(), *_inputs(tmp_path), "--outputs", "nosuch", "-o", tmp_path / "r", "-q",
            says="no input or output named 'nosuch'")
    refused(capsys, "run", EXAMPLE, "--outputs", "nosuch", "-o", tmp_path / "r", "-q", says="nosuch")
    assert not (tmp_path / "r").exists()


def test_neff_info_json_is_strict_json_whatever_the_members_hold(tmp_path: Path, capsys: Any) -> None:
    f = tmp_path / "nan.neff"
    f.write_bytes(_with_json("sg00/def.json", lambda d: d["runtime_statebuffer_reservation"][0].__setitem__(
        "size", float("nan"))))
    assert run("neff", "info", f, "--format", "json") == 0
    text = capsys.readouterr().out

    def no_constants(c: str) -> None:
        raise AssertionError(f"{c} is not JSON")

    json.loads(text, parse_constant=no_constants)
    assert '"NaN"' in text


def test_a_byte_order_mark_is_accepted_by_every_reader_of_text(tmp_path: Path) -> None:
    bom = b"\xef\xbb\xbf"
    k = tmp_path / "k.json"
    k.write_bytes(bom + EXAMPLE.read_bytes())
    assert run("check", k) == 0
    assert run("assemble", k, "-o", tmp_path / "a", "-q") == 0
    assert run("assemble", EXAMPLE, "-o", tmp_path / "b", "-q") == 0
    assert {p.name: p.read_bytes() for p in (tmp_path / "a").glob("*.bin")} == \
        {p.name: p.read_bytes() for p in (tmp_path / "b").glob("*.bin")}
    listing = tmp_path / "l.s"
    assert run("disasm", tmp_path / "b" / "dve.bin", "-o", listing) == 0
    listing.write_bytes(bom + listing.read_bytes())
    assert run("asm", listing, "-o", tmp_path / "c", "-q") == 0
    assert (tmp_path / "c" / "dve.bin").read_bytes() == (tmp_path / "b" / "dve.bin").read_bytes()
    memory = tmp_path / "m.json"
    memory.write_bytes(bom + (tmp_path / "b" / "memory.json").read_bytes())
    assert run("run", *(tmp_path / "b" / f"{e}.bin" for e in ("act", "dve", "sp")), "--memory", memory,
               "-o", tmp_path / "r", "-q") == 0


def test_a_graph_name_with_a_lone_surrogate_is_refused(tmp_path: Path, capsys: Any) -> None:
    """It cannot be written into a listing or a trace (disasm -o was an internal error)."""
    f = tmp_path / "s.neff"
    f.write_bytes(_with_json("kelf-0.json", lambda k: k["graphs"][1].__setitem__("name", "\udc80")))
    for args in (("neff", "info", f), ("disasm", f, "-o", tmp_path / "l.s"), ("check", f)):
        refused(capsys, *args, says="lone surrogate")
    assert not (tmp_path / "l.s").exists()


def test_an_access_pattern_past_the_simulator_limit_is_refused_before_the_memory_is_spent(
        tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    """A view is bounded (TONGASM_MAX_SIM_ELEMENTS) before anything is copied: exit 2, the figure and the
    limit named, no outputs. vector_add's 128 x 512 tiles are 65,536 elements."""
    monkeypatch.setenv("TONGASM_MAX_SIM_ELEMENTS", "65535")
    example = Path(__file__).resolve().parents[1] / "examples" / "vector_add.json"
    err = refused(capsys, "run", example, "-o", tmp_path / "r", "-q", says="more than the simulator's limit of 65,535")
    assert "65,536 elements" in err and "TONGASM_MAX_SIM_ELEMENTS" in err
    assert not (tmp_path / "r").exists()
    monkeypatch.setenv("TONGASM_MAX_SIM_ELEMENTS", "65536")
    assert run("run", example, "-o", tmp_path / "r", "-q") == 0


def test_a_dma_side_past_the_simulator_limit_is_refused(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    """The DMA sides are bounded before their runs are listed: matmul_small's input DMAs move 64 KiB each."""
    monkeypatch.setenv("TONGASM_MAX_SIM_ELEMENTS", "4096")
    err = refused(capsys, "run", small(), *_inputs(tmp_path), "-o", tmp_path / "r", "-q",
                  says="more than the simulator's limit of 4,096")
    assert "bytes" in err
    assert not (tmp_path / "r").exists()


def test_a_listing_not_named_dot_s_is_sniffed_the_same_by_every_command(tmp_path: Path) -> None:
    """`assemble` (listing or BIR JSON) and `check`/`diff` (listing or raw stream) share one sniff: a
    leading byte-order mark or comment does not make a listing read as JSON or as bundles."""
    from tongasm.io.inputs import is_listing

    assert run("assemble", EXAMPLE, "-o", tmp_path / "b", "-q") == 0
    listing = tmp_path / "l.s"
    assert run("disasm", tmp_path / "b" / "dve.bin", "-o", listing) == 0
    text = listing.read_bytes()
    for name, data in (("bom.txt", b"\xef\xbb\xbf" + text), ("comment.txt", b"; from dve.bin\n\n" + text)):
        f = tmp_path / name
        f.write_bytes(data)
        assert is_listing(str(f), other_suffix=".json", comment_is_listing=False)
        assert is_listing(str(f), other_suffix=".bin", comment_is_listing=True)
        assert run("check", f) == 0
        assert run("asm", f, "-o", tmp_path / name.replace(".", "_"), "-q") == 0
        assert (tmp_path / name.replace(".", "_") / "dve.bin").read_bytes() == (tmp_path / "b" / "dve.bin").read_bytes()
    json_like = tmp_path / "k.txt"
    json_like.write_bytes(EXAMPLE.read_bytes())
    assert not is_listing(str(json_like), other_suffix=".json", comment_is_listing=False)
    stream = tmp_path / "b" / "dve.bin"
    assert not is_listing(str(stream), other_suffix=".bin", comment_is_listing=True)
    with pytest.raises(Exception, match="cannot read"):
        is_listing(str(tmp_path / "missing.txt"), other_suffix=".json", comment_is_listing=False)


def test_a_run_past_the_instruction_cap_is_refused_before_any_note(tmp_path: Path, capsys: Any,
                                                                    monkeypatch: Any) -> None:
    """A kernel or streams past the cap: exit 2 and only the refusal (no 'starts as zeros' note first)."""
    assert run("assemble", EXAMPLE, "-o", tmp_path / "b", "-q") == 0
    capsys.readouterr()
    monkeypatch.setenv("TONGASM_MAX_INSTRUCTIONS", "3")
    for args in (("run", EXAMPLE, "-o", tmp_path / "r"),
                 ("run", *(tmp_path / "b" / f"{e}.bin" for e in ("act", "dve", "sp")), "--memory",
                  tmp_path / "b" / "memory.json", "-o", tmp_path / "r")):
        assert run(*args) == 2
        err = capsys.readouterr().err
        assert "at most 3" in err and "note:" not in err, err
        assert not (tmp_path / "r").exists()
