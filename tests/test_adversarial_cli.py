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
