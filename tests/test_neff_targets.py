"""Targets and engine file names of a NEFF: the numbered engine files of neuronx-cc 2.27 and the
targets tongasm refuses (``mariana``: gen4, known from the book and the compiler's files only)."""

from __future__ import annotations

import json

import pytest
from neff_support import neff_of_members

from tongasm.neff.errors import NeffError
from tongasm.neff.members import neff_target, stream_of_engine_file
from tongasm.neff.neff import Neff


@pytest.mark.parametrize(("stem", "stream"), [
    ("PE", "pe"), ("Activation", "act"), ("DVE", "dve"), ("Pool", "pool"), ("SP", "sp"),
    ("Activation0", "act"), ("DVE0", "dve"), ("PE0", "pe"), ("Pool1", "pool1"), ("SP12", "sp12"),
    ("Activation01", None), ("Tensor0", None), ("0", None), ("act", None), ("", None),
])
def test_engine_file_stems_plain_and_numbered(stem: str, stream: str | None) -> None:
    assert stream_of_engine_file(stem) == stream


def test_mariana_is_refused_naming_what_is_known() -> None:
    with pytest.raises(NeffError, match=r"'mariana' \(gen4, arch level 40, Trn3.*no gen4 target"):
        neff_target("mariana")
    with pytest.raises(NeffError, match=r"'trn9' \(not a target the book names\)"):
        neff_target("trn9")
    assert neff_target("sunda").name == "gen2" and neff_target("cayman").name == "gen3"


def test_a_2_27_style_neff_opens_its_numbered_streams_map_and_its_target_is_a_clear_error() -> None:
    kelf = {"version": "1", "target": "mariana", "graphs": [{"name": "sg00", "definition": "sg00/def.json"}]}
    defn = {"version": "0.6", "act_instr": "Activation0.bin", "dve_instr": "DVE0.bin"}
    bundle = bytes([0xB1]) + bytes(63)
    data = neff_of_members([("kelf-0.json", json.dumps(kelf).encode()), ("sg00/def.json", json.dumps(defn).encode()),
                            ("sg00/Activation0.bin", bundle), ("sg00/DVE0.bin", bundle)])
    neff = Neff.from_bytes(data)
    streams = neff.graph("sg00").streams
    assert {k: s.member for k, s in streams.items()} == {"act": "sg00/Activation0.bin", "dve": "sg00/DVE0.bin"}
    assert streams["act"].engine_file == "Activation0"
    with pytest.raises(NeffError, match="mariana"):
        _ = neff.target
    assert neff.to_bytes() == data
