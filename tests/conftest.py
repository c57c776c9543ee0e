"""Shared helpers for the tests: compact BIR JSON factories and assemble-to-hex."""

from __future__ import annotations

import contextlib
import importlib.util
import signal
from pathlib import Path
from typing import Any, Iterator

import pytest

from tongasm.codegen import assemble
from tongasm.errors import TongasmError
from tongasm.isa.decisions import DecisionSet
from tongasm.ir import read_bir


def loc(name: str, type_: str = "SB", *, addr: int = 0, base: int = 0, bank: int = 0,
        dims: tuple[int, int] = (128, 65536), tensor_id: int | None = None) -> dict[str, Any]:
    """An allocation holding one memory location named ``name`` (set name ``name_set``)."""
    m: dict[str, Any] = {"name": name, "type": type_, "addr": addr, "base": base, "bank": bank, "dims": list(dims)}
    if tensor_id is not None:
        m["tensor_id"] = tensor_id
    return {"name": f"{name}_set", "memorylocations": [m]}


def ap(memref: str, dtype: str, pairs: list[list[int]], offset: int = 0, **extra: Any) -> dict[str, Any]:
    return {"kind": "physical_ap", "dtype": dtype, "ap": pairs, "offset": offset, "memref": memref, **extra}


def reg_ap(regref: str, dtype: str, pairs: list[list[int]], memsetref: str | None = None, **extra: Any) -> dict:
    d: dict[str, Any] = {"kind": "register_ap", "dtype": dtype, "ap": pairs, "regref": regref, **extra}
    if memsetref:
        d["memsetref"] = memsetref
    return d


def reg(regref: str, dtype: str = "int32") -> dict[str, Any]:
    return {"kind": "register_access", "dtype": dtype, "regref": regref}


def imm(dtype: str, value: Any) -> dict[str, Any]:
    return {"kind": "imm_value", "dtype": dtype, "value": value}


def inst(opcode: str, ins: list[Any] | None = None, outs: list[Any] | None = None, *, name: str = "i0",
         engine: str = "Unassigned", **attrs: Any) -> dict[str, Any]:
    return {"opcode": opcode, "name": name, "engine": engine, "ins": ins or [], "outs": outs or [], **attrs}


def kernel(*insts: dict[str, Any], allocs: list[dict[str, Any]] | None = None,
           registers: dict[str, Any] | None = None, arch: str | None = "gen2") -> dict[str, Any]:
    f: dict[str, Any] = {"name": "f", "attributes": [], "allocations": allocs or [],
                         "blocks": [{"name": "b", "instructions": list(insts)}]}
    if registers is not None:
        f["registers"] = registers
    d: dict[str, Any] = {"functions": [f]}
    if arch is not None:
        d["arch"] = arch
    return d


def hex_streams(asm: Any) -> dict[str, list[str]]:
    """An assembly's streams, each as a list of 128-char hex bundles."""
    return {n: [bytes(s[i:i + 64]).hex() for i in range(0, len(s), 64)] for n, s in asm.streams.items()}


def streams(k: dict[str, Any], *, target: str | None = None, decisions: tuple[str, ...] = ()) -> dict[str, list[str]]:
    """Assemble a JSON kernel; return each stream as a list of 128-char hex bundles."""
    return hex_streams(assemble(read_bir(k), target=target, decisions=DecisionSet.parse(decisions)))


def load_file(path: Path, name: str) -> Any:
    """Import a Python file of the checkout by path (benchmarks/, fuzz/: not packages)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def one(k: dict[str, Any], **kw: Any) -> str:
    """The single bundle a one-instruction kernel produces, as hex."""
    s = streams(k, **kw)
    assert len(s) == 1, s
    (bundles,) = s.values()
    assert len(bundles) == 1, bundles
    return bundles[0]


def fails(k: dict[str, Any], *, target: str | None = None, decisions: tuple[str, ...] = ()) -> TongasmError:
    """Assemble and return the TongasmError it must raise."""
    with pytest.raises(TongasmError) as ei:
        assemble(read_bir(k), target=target, decisions=DecisionSet.parse(decisions))
    return ei.value


def hx(text: str) -> str:
    """Hand-written hex with spaces and comments-free grouping → 128-char hex (padded with zeros)."""
    h = "".join(text.split()).lower()
    assert len(h) <= 128 and len(h) % 2 == 0, (len(h), h)
    return h + "0" * (128 - len(h))


@contextlib.contextmanager
def time_limit(seconds: float, what: str = "the call") -> Iterator[None]:
    """Turn a hang into a failure (Unix): the calls fuzzed in the suite are fast on small inputs."""
    if not hasattr(signal, "setitimer"):
        yield
        return

    def on_alarm(signum: int, frame: Any) -> None:
        raise TimeoutError(f"{what} did not return within {seconds} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
