"""``tongasm run --trace`` from the command line: slices named by their BIR instruction, flow arrows from
each semaphore update to the wait it releases, the cores of a NEFF in the order they are simulated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from neff_support import small
from tongasm.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _trace(path: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    j = json.loads(path.read_text())
    return j["traceEvents"], j["otherData"]


def _slice_at(events: list[dict[str, Any]], pid: int, tid: int, ts: int) -> dict[str, Any]:
    (hit,) = [e for e in events if e.get("ph") == "X" and e["pid"] == pid and e["tid"] == tid
              and e["ts"] <= ts < e["ts"] + e["dur"] and e.get("cat") != "wait"]
    return hit


def test_a_kernel_trace_names_each_bundle_by_its_instruction_and_draws_the_semaphore_arrows(tmp_path: Path) -> None:
    kernel = json.loads((EXAMPLES / "softmax.json").read_text())
    names = [i["name"] for i in kernel["functions"][0]["blocks"][0]["instructions"]]
    assert main(["run", str(EXAMPLES / "softmax.json"), "-o", str(tmp_path / "r"), "--trace",
                 str(tmp_path / "t.json"), "-q"]) == 0
    events, _ = _trace(tmp_path / "t.json")
    bundles = [e for e in events if e.get("cat") == "bundle"]
    assert {e["args"]["bir"] for e in bundles} == set(names)
    assert all(e["name"] == f"{e['args']['mnemonic']} {e['args']['bir']}" for e in bundles)
    threads = {e["tid"]: e["args"]["name"] for e in events if e["name"] == "thread_name"}
    starts = {e["id"]: e for e in events if e.get("ph") == "s"}
    ends = {e["id"]: e for e in events if e.get("ph") == "f"}
    assert starts and starts.keys() == ends.keys()
    for k, s in starts.items():
        src, dst = _slice_at(events, s["pid"], s["tid"], s["ts"]), _slice_at(events, ends[k]["pid"], ends[k]["tid"],
                                                                           ends[k]["ts"])
        # the arrow leaves a bundle that updates a semaphore and ends at the bundle that waited for it
        assert src["ts"] <= dst["ts"] and threads[s["tid"]] != threads[ends[k]["tid"]]
        wait = next(e for e in events if e.get("cat") == "wait" and e["tid"] == ends[k]["tid"]
                    and e["ts"] + e["dur"] == dst["ts"])
        assert any(src["args"]["bir"] in who for who in wait["args"]["released by"])


def test_a_neff_trace_says_how_its_cores_were_simulated_and_names_dmas_by_their_bundle(tmp_path: Path) -> None:
    for n, shape in (("x", (128, 256)), ("y", (256, 128))):
        np.save(tmp_path / f"{n}.npy", np.ones(shape, np.float16))
    assert main(["run", str(small()), "-i", f"x={tmp_path / 'x.npy'}", "-i", f"y={tmp_path / 'y.npy'}",
                 "-o", str(tmp_path / "r"), "--trace", str(tmp_path / "t.json"), "-q"]) == 0
    events, other = _trace(tmp_path / "t.json")
    assert "simulated one after the other" in other["cores"] and "at the same time" in other["cores"]
    labels = [e["args"]["labels"] for e in events if e["name"] == "process_labels"]
    assert labels[0].startswith("core 1 of 2, simulated first") and labels[1].startswith("core 2 of 2, simulated after sg00")
    dmas = [e["name"] for e in events if e.get("ph") == "b"]
    assert "sg00.pool bundle 2 (I-76-0, PseudoDmaDirect2d) at +0x80" in dmas
    # PE waits for the x DMA (sem24 >= 16): the arrow starts at the DMA's completion on its queue's track
    wait = next(e for e in events if e.get("cat") == "wait" and e["name"] == "wait sem24 >= 16 (sem24 = 0)")
    assert wait["args"]["released by"] == ["the completion of the DMA of sg00.pool bundle 2 (I-76-0, "
                                           "PseudoDmaDirect2d) at +0x80"]
    end = next(e for e in events if e.get("ph") == "f" and e["pid"] == wait["pid"] and e["tid"] == wait["tid"]
               and e["ts"] == wait["ts"] + wait["dur"])
    start = next(e for e in events if e.get("ph") == "s" and e["id"] == end["id"])
    assert _slice_at(events, start["pid"], start["tid"], start["ts"])["name"] == "completion"
