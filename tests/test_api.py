"""The public Python API: top-level re-exports and the README's example."""

from __future__ import annotations

from pathlib import Path

import pytest

import tongasm

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "vector_add.json"


def test_every_export_resolves():
    for name in tongasm.__all__:
        assert getattr(tongasm, name) is not None, name
    with pytest.raises(AttributeError):
        tongasm.no_such_thing


def test_read_bir_accepts_a_path_string_json_text_and_a_path(tmp_path):
    by_str = tongasm.read_bir(str(EXAMPLE))
    by_path = tongasm.read_bir(EXAMPLE)
    by_text = tongasm.read_bir(EXAMPLE.read_text())
    assert tongasm.kernel_to_json(by_str) == tongasm.kernel_to_json(by_path) == tongasm.kernel_to_json(by_text)
    with pytest.raises(tongasm.TongasmError, match="cannot read"):
        tongasm.read_bir(str(tmp_path / "missing.json"))
    with pytest.raises(tongasm.TongasmError, match="not valid JSON"):
        tongasm.read_bir("{broken")


def test_readme_example_round_trip(tmp_path):
    asm = tongasm.assemble(tongasm.read_bir(str(EXAMPLE)), target="gen2")
    asm.write(tmp_path / "out")
    for name, data in asm.streams.items():
        assert (tmp_path / "out" / f"{name}.bin").read_bytes() == bytes(data)
        assert tongasm.check_stream(data, stream=name) == []
        cols = tongasm.decode_stream(data)
        assert cols.count == len(data) // 64 and len(cols.undecodable) == 0
        text = "\n".join(tongasm.listing([tongasm.StreamInput(name, data)]))
        assert bytes(tongasm.assemble_text(text).streams[name]) == bytes(data)


# --- the API edges a kernel engineer meets first ------------------------------------------------------

def _dve_stream() -> bytes:
    k = tongasm.read_bir(Path(__file__).resolve().parents[1] / "examples" / "vector_add.json")
    return bytes(tongasm.assemble(k, target="gen2").streams["dve"])


def test_target_names_work_wherever_a_target_is_taken():
    data = _dve_stream()
    assert tongasm.check_stream(data, stream="dve", target="gen2") == tongasm.check_stream(data, stream="dve",
                                                                                           target=tongasm.GEN2)
    lines = list(tongasm.listing([tongasm.StreamInput("dve", data)], target="gen3"))
    assert lines[0] == ".target gen3"
    ex = tongasm.explain_bundle(data[:64], target="gen3")
    assert ex.target == "gen3"
    with pytest.raises(tongasm.TongasmError, match="unknown target 'gen9'"):
        tongasm.check_stream(data, target="gen9")


def test_the_module_docstring_example_runs():
    data = _dve_stream()
    # the line of help(tongasm): check_stream(data, stream="dve")
    assert 'check_stream(data, stream="dve")' in tongasm.__doc__
    assert tongasm.check_stream(data, stream="dve") == []


def test_sync_modes_by_name_are_checked_where_they_are_given():
    from tongasm.isa.enums import UpdateMode, WaitMode
    from tongasm.ir.operands import SyncUpdate, SyncWait

    assert SyncUpdate("sem_inc", 1).mode is UpdateMode.sem_inc
    assert SyncWait("sem_ge_imm", 2, 1).mode is WaitMode.sem_ge_imm
    assert SyncUpdate(3, 1).mode is UpdateMode.sem_inc
    with pytest.raises(ValueError, match="unknown sync update mode 'sem_incr'; one of: evt_set, sem_add_imm"):
        SyncUpdate("sem_incr", 1)


def test_printing_a_neff_is_one_line():
    from neff_support import small

    from tongasm.neff import read_neff

    text = repr(read_neff(small()))
    assert len(text) < 300 and "members=" in text and "\n" not in text


def test_check_stream_takes_the_engine_as_its_second_argument():
    data = _dve_stream()
    assert tongasm.check_stream(data, "dve") == tongasm.check_stream(data, stream="dve") == []
    with pytest.raises(TypeError, match="stream must be an engine name such as 'dve'"):
        tongasm.check_stream(data, tongasm.GEN2)
