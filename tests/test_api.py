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
