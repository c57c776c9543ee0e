"""The BIR reader shares equal operands, operand tuples, attribute maps and sync infos.

IR read from BIR JSON is immutable where it is shared (frozen operands, tuples, read-only attribute
maps), so sharing cannot leak a change from one instruction into another; equal-but-different
values (-0.0 and 0.0, 1 and 1.0, True and 1) are never merged.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

import tongasm.ir.bir_json as bir_json
from tongasm.codegen import assemble
from tongasm.ir import read_bir
from tongasm.ir.bir_json import _Ctx
from tongasm.ir.instructions import Function

ALLOCS = [{"name": "a_set", "kind": "Internal", "dtype": "float32",
           "memorylocations": [{"name": "a", "type": "SB", "addr": 0, "base": 0, "dims": [128, 4096]}]}]


def ap(offset: int = 0, **extra: Any) -> dict[str, Any]:
    return {"kind": "physical_ap", "dtype": "float32", "ap": [[1024, 128], [1, 64]], "offset": offset,
            "memref": "a", **extra}


def tt(name: str, in0: dict, in1: dict, out: dict, op: str = "add", **more: Any) -> dict[str, Any]:
    return {"opcode": "TensorTensor", "name": name, "engine": "DVE", "op": op, "ins": [in0, in1], "outs": [out],
            **more}


def move(name: str, value: Any) -> dict[str, Any]:
    return {"opcode": "RegisterMove", "name": name, "engine": "SP", "ins": [{"kind": "imm_value", "dtype": "float32",
            "value": value}], "outs": [{"kind": "register_access", "dtype": "float32", "regref": "r1"}]}


def kernel(*insts: dict[str, Any]) -> dict[str, Any]:
    return {"arch": "gen2", "functions": [{"name": "f", "allocations": ALLOCS, "registers": {"r1": 1},
                                           "blocks": [{"name": "b", "instructions": list(insts)}]}]}


def insts(k: dict[str, Any]) -> list[Any]:
    return read_bir(k).functions[0].blocks[0].instructions


def test_equal_operands_tuples_attrs_and_syncs_are_one_object() -> None:
    sync = {"update": {"mode": "sem_inc", "index": 2}}
    a, b, c = insts(kernel(tt("x", ap(0), ap(64), ap(128), sync=sync), tt("y", ap(0), ap(64), ap(128), sync=sync),
                           tt("z", ap(64), ap(0), ap(128), op="mult")))
    assert a.ins is b.ins and a.outs is b.outs and a.attrs is b.attrs and a.sync is b.sync
    assert a.ins[0] is c.ins[1] and a.ins[1] is c.ins[0]  # the operands are shared across tuples
    assert a.ins is not c.ins and a.attrs is not c.attrs
    assert a.name == "x" and b.name == "y"  # instructions themselves are never shared


def test_shared_ir_is_immutable() -> None:
    a, _b = insts(kernel(tt("x", ap(0), ap(64), ap(128)), tt("y", ap(0), ap(64), ap(128))))
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.ins[0].offset = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        a.attrs["op"] = 0  # type: ignore[index]
    with pytest.raises(TypeError):
        a.ins[0] = a.ins[1]  # type: ignore[index]


def test_an_operand_with_extra_keys_is_not_shared() -> None:
    a, b = insts(kernel(tt("x", ap(0, note="n"), ap(64), ap(128)), tt("y", ap(0, note="n"), ap(64), ap(128))))
    assert a.ins[0] is not b.ins[0] and a.ins[0].extra == {"note": "n"}
    assert a.ins[1] is b.ins[1]


def test_equal_but_different_immediates_stay_apart() -> None:
    """-0.0 == 0.0 and 1 == 1.0 in Python; sharing them would change the encoded bits."""
    k = kernel(move("p", 0.0), move("n", -0.0), move("i", 1), move("f", 1.0))
    p, n, i, f = insts(k)
    assert p.ins[0] is not n.ins[0] and str(n.ins[0].value) == "-0.0"
    assert i.ins[0] is not f.ins[0] and type(i.ins[0].value) is int and type(f.ins[0].value) is float
    sp = bytes(assemble(read_bir(k), check="off").streams["sp"])
    assert sp[0:64] != sp[64:128]  # +0.0 and -0.0 encode differently


def test_attribute_maps_tell_values_apart_by_type() -> None:
    ctx = _Ctx(Function("f"))
    assert ctx.shared_attrs({"x": True}) is not ctx.shared_attrs({"x": 1})
    assert ctx.shared_attrs({"x": 1}) is ctx.shared_attrs({"x": 1})
    unhashable = {"x": [1, 2]}
    assert ctx.shared_attrs(unhashable) is unhashable  # kept as given


def test_the_tables_restart_past_their_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bir_json, "SHARE_LIMIT", 2)
    k = kernel(*[tt(f"i{n}", ap(64 * n), ap(64 * n + 1), ap(64 * n + 2)) for n in range(8)],
               tt("again", ap(0), ap(1), ap(2)))
    got = insts(k)
    assert [(i.ins[0].offset, i.ins[1].offset, i.outs[0].offset) for i in got] == \
        [(64 * n, 64 * n + 1, 64 * n + 2) for n in range(8)] + [(0, 1, 2)]
    # and the encoding does not depend on what was shared
    alone = assemble(read_bir(kernel(tt("again", ap(0), ap(1), ap(2)))), check="off").streams["dve"]
    assert bytes(assemble(read_bir(k), check="off").streams["dve"])[-64:] == bytes(alone)


def test_read_ir_pickles_and_deep_copies() -> None:
    import copy
    import pickle

    k = read_bir(kernel(tt("x", ap(0), ap(64), ap(128)), move("m", -0.0)))
    for again in (pickle.loads(pickle.dumps(k)), copy.deepcopy(k)):
        a, m = again.functions[0].blocks[0].instructions
        assert a.ins[0].offset == 0 and a.attrs["op"].name == "add" and str(m.ins[0].value) == "-0.0"
        with pytest.raises(TypeError, match="read-only"):
            a.attrs["op"] = 1  # type: ignore[index]
        assert bytes(assemble(again, check="off").streams["dve"]) == bytes(assemble(k, check="off").streams["dve"])


def test_an_instruction_takes_new_attributes_as_a_new_map() -> None:
    a, b = insts(kernel(tt("x", ap(0), ap(64), ap(128)), tt("y", ap(0), ap(64), ap(128))))
    assert a.attrs is b.attrs
    a.attrs = {**a.attrs, "op": b.attrs["op"].__class__["mult"]}
    assert a.attrs["op"].name == "mult" and b.attrs["op"].name == "add"
