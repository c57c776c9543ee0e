"""The instruction list of ``manifest.json``, in a compact column form, and its expansion.

``tongasm assemble`` writes, beside the streams, which BIR instruction each bundle came from. Listing
every instruction as an object (index, name, opcodes, mnemonics, offsets) made the manifest 2.6x the
size of the streams it describes; the column form below is a fraction of them. Form ``columns-1``::

    "instructions": {
      "form": "columns-1",
      "count": N,                      # instructions, in program order
      "name": ["i0", "i1", ...],       # N BIR instruction names
      "kind": [0, 0, 1, ...],          # N indexes into "kinds"
      "kinds": [{"bir_opcode": "TensorTensor", "engine": "dve", "opcodes": [65],
                 "mnemonics": ["TensorTensorArithOp"]}, ...]
    }

Where the bundles are is implicit: each instruction's ``len(opcodes)`` bundles go to its engine's
stream right after the bundles of the instructions before it on that engine, so instruction ``i``'s
first bundle is at byte ``64 x`` (the bundles earlier instructions put on the same engine).
:func:`expand` turns the columns back into one entry per instruction with its byte offsets, exactly
the entries :class:`~tongasm.codegen.assembler.AssembledInstruction` describes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Protocol

from ..errors import InputError
from ..isa.fields import BUNDLE_SIZE
from ..isa.opcodes import opcode_name

#: The name of the column form (bumped if it ever changes).
MANIFEST_FORM = "columns-1"


class _Entry(Protocol):
    name: str
    opcode: str
    stream: str
    opcodes: list[int]
    offsets: list[int]


class KindTable:
    """The distinct (BIR opcode, engine, bundle opcodes) of a kernel's instructions, numbered in order
    of first use; checks as it goes that every entry's bundles sit where the implicit rule puts them."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self._ids: dict[tuple[str, str, tuple[int, ...]], int] = {}
        self._at: dict[str, int] = {}

    def id_of(self, e: _Entry, names: list[str]) -> int:
        """The kind id of manifest entry ``e`` (its name is appended to ``names``)."""
        key = (e.opcode, e.stream, tuple(e.opcodes))
        k = self._ids.get(key)
        if k is None:
            k = self._ids[key] = len(self.rows)
            self.rows.append({"bir_opcode": e.opcode, "engine": e.stream, "opcodes": list(e.opcodes),
                              "mnemonics": [opcode_name(o) for o in e.opcodes]})
        at = self._at.get(e.stream, 0)
        want = [at + BUNDLE_SIZE * j for j in range(len(e.opcodes))]
        if e.offsets != want:  # an internal invariant of the assembler's bundle log: never written wrong
            raise AssertionError(f"instruction {e.name!r}: bundles at {e.offsets}, not consecutive after the "
                                 f"previous ones on {e.stream} ({want})")
        self._at[e.stream] = at + BUNDLE_SIZE * len(e.opcodes)
        names.append(e.name)
        return k


def compact_instructions(names: list[str], column: Any, kinds: KindTable | list[dict[str, Any]]) -> dict[str, Any]:
    """The ``instructions`` object of the column form."""
    rows = kinds.rows if isinstance(kinds, KindTable) else kinds
    return {"form": MANIFEST_FORM, "count": len(names), "name": names, "kind": list(column), "kinds": rows}


def expand(manifest: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """One entry per instruction (index, name, bir_opcode, engine, opcodes, mnemonics, offset, offsets)
    from a manifest object (``json.load`` of ``manifest.json``); an InputError if it is not one."""
    inst = manifest.get("instructions") if isinstance(manifest, Mapping) else None
    if not isinstance(inst, Mapping) or inst.get("form") != MANIFEST_FORM:
        raise InputError(f"not a tongasm manifest of form {MANIFEST_FORM!r} (its \"instructions\" object)")
    names, kind, kinds = inst.get("name"), inst.get("kind"), inst.get("kinds")
    if not (isinstance(names, list) and isinstance(kind, list) and isinstance(kinds, list)
            and len(names) == len(kind) == inst.get("count")):
        raise InputError("manifest: \"name\" and \"kind\" must be lists of \"count\" entries, \"kinds\" a list")
    at: dict[str, int] = {}
    for i, (name, k) in enumerate(zip(names, kind)):
        if type(k) is not int or not 0 <= k < len(kinds) or not isinstance(kinds[k], Mapping):
            raise InputError(f"manifest: instruction {i}: kind {k!r} is not an index into \"kinds\"")
        row = kinds[k]
        engine, opcodes = row.get("engine"), row.get("opcodes")
        if not isinstance(engine, str) or not isinstance(opcodes, list):
            raise InputError(f"manifest: kinds[{k}] needs \"engine\" (a string) and \"opcodes\" (a list)")
        start = at.get(engine, 0)
        offsets = [start + BUNDLE_SIZE * j for j in range(len(opcodes))]
        at[engine] = start + BUNDLE_SIZE * len(opcodes)
        yield {"index": i, "name": name, "bir_opcode": row.get("bir_opcode"), "engine": engine,
               "opcodes": list(opcodes), "mnemonics": list(row.get("mnemonics", [])),
               "offset": offsets[0] if offsets else None, "offsets": offsets}


__all__ = ["MANIFEST_FORM", "KindTable", "compact_instructions", "expand"]
