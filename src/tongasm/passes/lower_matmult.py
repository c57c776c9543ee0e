"""Matmult lowering (chapter §2.1-§2.2).

A BIR ``Matmult(dst; stationary, moving)`` becomes the pair the compiler emits for it: a
``LoadStationary`` (0x01 Ldweights: the stationary [K, M] tile, with ``is_transpose``) followed by a
``MultiplyMoving`` (0x02 Matmul: the moving [K, N] tensor into the PSUM dst [M, N], with the
accumulation-group role ``start_tensor_calc``/``stop_tensor_calc`` and ``is_transpose``). The real
NEFFs map both bundles to one BIR instruction. D-24 as for Select: the Matmult's waits go on the
first bundle, its updates on the last (the real Matmuls carry the PE's completion increment).

The MatmultBase attributes no field of either bundle holds (perf_mode, replication, one-zero flags,
quantisation offsets, tile_size/tile_position) are refused unless they have their default value.
"""

from __future__ import annotations

from typing import Any

from ..errors import EncodeError
from ..ir.instructions import Instruction, LoadStationary, Matmult, MultiplyMoving
from ..ir.operands import FrozenMap
from .lower_select import split_sync

#: Matmult attributes with no field, and their defaults (anything else is refused: pe.attrs)
_NO_FIELD: dict[str, Any] = {
    "perf_mode": "None", "replication_resolution": 0, "replication_shift_amnt": 0, "replication_num_rows": 0,
    "is_fmap_onezero": False, "is_weight_onezero": False, "ifmap_quant_offset": 0, "weights_quant_offset": 0,
}
#: KLR's tile_size / tile_position default (-1, -1): the whole array
_WHOLE = [-1, -1]

_LS_ATTRS: dict[bool, FrozenMap] = {t: FrozenMap({"is_transpose": t}) for t in (False, True)}
_MM_ATTRS: dict[tuple[bool, bool, bool], FrozenMap] = {}


def _mm_attrs(start: bool, stop: bool, transpose: bool) -> FrozenMap:
    key = (start, stop, transpose)
    hit = _MM_ATTRS.get(key)
    if hit is None:
        hit = _MM_ATTRS[key] = FrozenMap({"start_tensor_calc": start, "stop_tensor_calc": stop,
                                          "is_transpose": transpose})
    return hit


def lower_matmult(mm: Matmult) -> list[Instruction]:
    """The LoadStationary and MultiplyMoving a Matmult lowers to (raises EncodeError on what no field holds)."""
    if len(mm.ins) != 2 or len(mm.outs) != 1:
        raise EncodeError(f"Matmult needs ins = [stationary, moving] and outs = [dst]; got {len(mm.ins)} input(s) and "
                          f"{len(mm.outs)} output(s)", check="operands.shape")
    for key, default in _NO_FIELD.items():
        value = mm.attr(key)
        if value != default or type(value) is not type(default):
            raise EncodeError(f"Matmult {key} = {value!r} has no field in the Ldweights/Matmul bundles (only the "
                              f"default {default!r} is encoded)", field=key, value=value, limit=repr(default),
                              check="pe.attrs")
    for key in ("tile_size", "tile_position"):
        value = mm.extra.get(key)
        if value is not None and (not isinstance(value, (list, tuple)) or list(value) != _WHOLE):
            raise EncodeError(f"Matmult {key} = {value!r} has no field (only the whole array, [-1, -1], is encoded; "
                              "R-13)", field=key, value=str(value), limit="[-1, -1]", check="pe.attrs")
    transpose = bool(mm.attr("is_transpose"))
    start, stop = bool(mm.attr("start_tensor_calc")), bool(mm.attr("stop_tensor_calc"))
    first_sync, last_sync = split_sync(mm.sync)
    stationary, moving = mm.ins
    load = LoadStationary(mm.name, mm.engine, (stationary,), (), _LS_ATTRS[transpose], first_sync)
    mult = MultiplyMoving(mm.name, mm.engine, (moving,), tuple(mm.outs), _mm_attrs(start, stop, transpose), last_sync)
    return [load, mult]
