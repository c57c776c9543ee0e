"""Start-up: the instant commands load only what they use.

Each command runs in a fresh interpreter (``python -c``: import the CLI, run ``main``, then report
``sys.modules``), so what an earlier test imported cannot hide an import. ``ml_dtypes`` costs more
CPU to import than numpy does and is needed only where a bfloat16/fp8 value is converted; the
simulator is needed only by ``run``. A command on a one-bundle file compiles that bundle's layout
only, not every layout's codec.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tongasm.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "vector_add.json"

PROBE = """
import contextlib, io, json, sys
from tongasm.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as e:
        code = e.code
fs = sys.modules.get("tongasm.isa.formats")
print(json.dumps({"code": code, "out": out.getvalue(), "modules": sorted(sys.modules)}))
"""


def probe(*argv: str, code: str = PROBE) -> dict:
    """Run the CLI with ``argv`` in a fresh interpreter; its exit code, output and loaded modules."""
    r = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def one_bundle(tmp_path_factory) -> Path:
    """A directory with one.bin (the example's first DVE bundle: a float32 TensorTensor add), its
    listing one.s, and the example kernel assembled."""
    d = tmp_path_factory.mktemp("startup")
    assert main(["assemble", str(EXAMPLE), "-o", str(d / "k"), "-q"]) == 0
    (d / "one.bin").write_bytes((d / "k" / "dve.bin").read_bytes()[:64])
    return d


def _heavy(modules: list[str]) -> list[str]:
    return [m for m in modules if m == "ml_dtypes" or m.startswith(("ml_dtypes.", "tongasm.sim"))]


@pytest.mark.parametrize("argv", [
    ("disasm", "{d}/one.bin"),
    ("decode", "{d}/one.bin"),
    ("check", "--engine", "dve", "{d}/one.bin"),
    ("explain", "{d}/one.bin:0"),
    ("asm", "{d}/one.s", "-o", "{d}/asm_out"),
    ("--help",),
], ids=lambda a: a[0])
def test_instant_commands_load_neither_ml_dtypes_nor_the_simulator(one_bundle, argv) -> None:
    if argv[0] == "asm":
        listing = probe("disasm", f"{one_bundle}/one.bin")
        assert listing["code"] == 0
        (one_bundle / "one.s").write_text(listing["out"])
    r = probe(*(a.format(d=one_bundle) for a in argv))
    assert r["code"] == 0, r["out"]
    assert _heavy(r["modules"]) == []
    if argv[0] == "--help":  # nothing of the ISA's layouts, and not numpy either
        assert [m for m in r["modules"] if m.startswith(("numpy", "tongasm.isa.layouts", "tongasm.isa.formats"))] == []
    if argv[0] == "disasm":  # the listing is the real one (the probe ran the command, not a stub)
        assert "TensorTensorArithOp op=add" in r["out"]
    if argv[0] == "asm":
        assert (one_bundle / "asm_out" / "one.bin").read_bytes() == (one_bundle / "one.bin").read_bytes()


def test_one_bundle_compiles_one_layout(one_bundle) -> None:
    code = PROBE.replace('print(json.dumps({', 'print(json.dumps({"built": [n for n in '
                         'fs.build_formats().by_name._made] if fs else None, ')
    r = probe("disasm", f"{one_bundle}/one.bin", code=code)
    assert r["built"] == ["TensorTensor"]


def test_the_probe_sees_ml_dtypes_and_the_simulator_when_they_are_loaded(one_bundle) -> None:
    """The probe can fail: ``run`` on the assembled example loads the simulator and ml_dtypes."""
    r = probe("run", str(EXAMPLE), "-o", str(one_bundle / "run_out"), "-q")
    assert r["code"] == 0, r["out"]
    heavy = _heavy(r["modules"])
    assert "ml_dtypes" in heavy and any(m.startswith("tongasm.sim") for m in heavy)
