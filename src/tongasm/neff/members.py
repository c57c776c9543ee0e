"""Typed views of a NEFF's JSON members (neff-and-real-opcodes.md §1.7-§1.10).

Each view is built from the member's bytes and keeps the parsed JSON (``raw``) beside the typed
fields; the member's bytes themselves stay in :class:`tongasm.neff.Neff`, so nothing is re-serialised
unless a member is replaced. A member that is not the JSON it should be is an
:class:`~tongasm.errors.NeffError` naming the member and the key.

Engine files and targets map to tongasm's names here, once:

* an engine's stream file ``<E>.bin`` is named by the BIR engine (``PE``, ``Pool``, ``Activation``,
  ``DVE``, ``SP``): its tongasm stream is :data:`tongasm.isa.enums.ENGINE_STREAM` of that engine
  (``pe``, ``pool``, ``act``, ``dve``, ``sp``), which is also the ``def.json`` token;
* ``kelf-0.json`` ``target``: :data:`NEFF_TARGETS` (``cayman`` = gen3, V; ``sunda`` = gen2, B); any
  other target is refused, naming it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import brief_int
from ..isa.enums import ENGINE_STREAM, Engine
from ..isa.targets import TARGETS, Target
from .errors import NeffError
from .limits import MAX_JSON_BYTES, MAX_JSON_DEPTH, MAX_JSON_VALUES

#: ``kelf-0.json`` target → tongasm target (§1.10: cayman V, sunda B).
NEFF_TARGETS: Mapping[str, str] = {"cayman": "gen3", "sunda": "gen2"}
#: the book's other runtime targets (§1.10, ``ArchLevel2RuntimeTarget``), named in the refusal with
#: what is known of them. ``mariana`` is also what neuronx-cc 2.27 writes (public files that name
#: engine files ``Activation0.bin``, ``DVE0.bin``...); no such file has been read by tongasm.
OTHER_NEFF_TARGETS: Mapping[str, str] = {
    "inferentia": "gen1, arch level 10, Inf1 (book)",
    "mariana": "gen4, arch level 40, Trn3 (book; written by neuronx-cc 2.27); tongasm has no gen4 target: its "
               "gen4 layouts (Activate 0x25, the MX PE ops) come from the book alone and no gen4 bundle has "
               "been checked against real bytes",
    "core_v5": "gen5, arch level 50, no codegen (book)",
}


def neff_target(name: str) -> Target:
    """The tongasm target of a ``kelf-0.json`` target string; any other is refused, naming it."""
    t = NEFF_TARGETS.get(name)
    if t is None:
        what = f" ({OTHER_NEFF_TARGETS[name]})" if name in OTHER_NEFF_TARGETS else " (not a target the book names)"
        raise NeffError(f"NEFF target {name!r}{what} is not supported; tongasm reads "
                         + ", ".join(f"{k!r} (= {v})" for k, v in NEFF_TARGETS.items()))
    return TARGETS[t]


_ENGINE_FILE = re.compile(r"([A-Za-z]+?)(\d*)")


def stream_of_engine_file(stem: str) -> str | None:
    """tongasm stream name of an engine stream file's stem (``PE`` → ``pe``, ``Activation`` → ``act``).

    neuronx-cc 2.27 numbers the files (``Activation0``, ``DVE0``): engine instance 0 is the same
    stream name (``act``), instance n > 0 gets the number (``act1``), so two instances of one engine
    stay two streams. None for a stem that names no engine.
    """
    m = _ENGINE_FILE.fullmatch(stem)
    if m is None:
        return None
    try:
        base = ENGINE_STREAM.get(Engine[m.group(1)])
    except KeyError:
        return None
    if base is None:
        return None
    number = m.group(2)
    if number and (len(number) > 1 and number.startswith("0")):
        return None  # "Activation01": not a form any compiler writes
    return base if not number or int(number) == 0 else f"{base}{int(number)}"


#: a JSON string literal (escapes included), removed before brackets are counted
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
#: every byte but the four brackets (deleted to leave the nesting structure)
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_DEPTH_STEP = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")  # +1 / -1 as int8


def json_depth(data: bytes) -> int:
    """The deepest nesting of arrays and objects in JSON text, counted without parsing it (brackets
    inside strings excluded), so a member nested a million deep is refused before the parser
    recurses into it. Malformed text gives some figure; the parser then says what is wrong."""
    brackets = _JSON_STRING.sub(b"", data).translate(None, _NOT_BRACKET)
    if not brackets:
        return 0
    import numpy as np

    steps = np.frombuffer(brackets.translate(_DEPTH_STEP), dtype=np.int8)
    return int(np.cumsum(steps, dtype=np.int64).max())


def json_values(data: bytes, cap: int) -> int:
    """How many values JSON text holds, counted without parsing it: its commas and opening brackets,
    plus one (each array element and object member but the first of each follows a comma). An upper
    bound, made exact (strings left out) when it is above ``cap``."""
    n = data.count(b",") + data.count(b"[") + data.count(b"{") + 1
    if n <= cap:
        return n
    bare = _JSON_STRING.sub(b"", data)
    return bare.count(b",") + bare.count(b"[") + bare.count(b"{") + 1


def load_json(path: str, data: bytes) -> Any:
    """Parse a JSON member, refusing one larger than :data:`~tongasm.neff.limits.MAX_JSON_BYTES`,
    nested deeper than :data:`~tongasm.neff.limits.MAX_JSON_DEPTH` or holding more values than
    :data:`~tongasm.neff.limits.MAX_JSON_VALUES` before parsing it."""
    where = f"NEFF member {path}"
    MAX_JSON_BYTES.check(len(data), where, "bytes")
    MAX_JSON_VALUES.check(json_values(data, MAX_JSON_VALUES.value()), where, "values")
    if data.count(b"[") + data.count(b"{") > MAX_JSON_DEPTH.value():  # (else it cannot be that deep)
        MAX_JSON_DEPTH.check(json_depth(bytes(data)), where, "levels")
    try:
        return json.loads(data)
    except (UnicodeDecodeError, ValueError) as e:
        raise NeffError(f"{where}: not valid JSON: {e}") from None
    except RecursionError:  # a depth limit raised above what Python's parser recurses to
        raise MAX_JSON_DEPTH.error("beyond Python's recursion limit", where) from None


def _brief(v: Any, limit: int = 60) -> str:
    """A JSON value in a message, cut short (hostile files hold huge ones)."""
    text = json.dumps(v) if not isinstance(v, float) or v == v else "NaN"
    return text if len(text) <= limit else text[:limit] + "..."


#: a semaphore number in a DMA queue's ``semaphore_set`` is below this (real files: 24..39; an engine
#: has a few dozen semaphores; the bound only keeps absurd numbers out of every report)
MAX_SEMAPHORE_ID = 1 << 16


def _get(obj: Any, path: str, key: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
    if not isinstance(obj, dict):
        raise NeffError(f"NEFF member {path}: expected a JSON object, got {type(obj).__name__}")
    if key not in obj:
        if default is not ...:
            return default
        raise NeffError(f"NEFF member {path}: missing key {key!r}")
    v = obj[key]
    if not isinstance(v, kind) or (isinstance(v, bool) and kind is int):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise NeffError(f"NEFF member {path}: {key!r} should be {names}, got {v!r}")
    return v


@dataclass(frozen=True)
class InfoJson:
    """``info.json``: the build's tool version and the header's mirror fields."""

    tool_version: str
    kelp_version: str
    name: str
    num_tpb: int
    num_tpb_requested: int
    num_tpb_per_node: tuple[int, ...]
    raw: Mapping[str, Any]

    @classmethod
    def parse(cls, data: bytes, path: str = "info.json") -> InfoJson:
        j = load_json(path, data)
        per_node = _get(j, path, "num_tpb_per_node", list, [])
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in per_node):
            raise NeffError(f"NEFF member {path}: 'num_tpb_per_node' should be a list of integers")
        return cls(_get(j, path, "tool_version", str, ""), _get(j, path, "kelp_version", str, ""),
                   _get(j, path, "name", str, ""), _get(j, path, "num_tpb", int, 0),
                   _get(j, path, "num_tpb_requested", int, 0), tuple(per_node), j)


@dataclass(frozen=True)
class GraphRef:
    """One graph (one core's program) of ``kelf-0.json``."""

    name: str
    definition: str  # member path of its def.json

    @property
    def directory(self) -> str:
        """The member directory of the graph's files (``sg00/``)."""
        return self.definition.rpartition("/")[0] + "/" if "/" in self.definition else ""


@dataclass(frozen=True)
class KelfJson:
    """``kelf-0.json``: the graphs and the target."""

    version: str
    target_name: str
    graphs: tuple[GraphRef, ...]
    raw: Mapping[str, Any]

    @property
    def target(self) -> Target:
        return neff_target(self.target_name)

    @classmethod
    def parse(cls, data: bytes, path: str = "kelf-0.json") -> KelfJson:
        from .limits import MAX_GRAPHS

        j = load_json(path, data)
        graphs = []
        seen: set[str] = set()
        listed = _get(j, path, "graphs", list)
        MAX_GRAPHS.check(len(listed), path, "graphs")
        for i, g in enumerate(listed):
            where = f"{path} graphs[{i}]"
            ref = GraphRef(_get(g, where, "name", str), _get(g, where, "definition", str))
            try:
                ref.name.encode("utf-8")
            except UnicodeEncodeError:
                raise NeffError(f"{where}: graph name {ref.name[:60]!r} is not valid UTF-8 (it holds a lone "
                                "surrogate); refused (listings, traces and messages name the graph)") from None
            if ref.name in seen:
                raise NeffError(f"{where}: graph name {ref.name!r} occurs twice; refused (each graph is one "
                                "core's program and is named once)")
            seen.add(ref.name)
            graphs.append(ref)
        return cls(str(_get(j, path, "version", (str, int, float), "")), _get(j, path, "target", str), tuple(graphs), j)


@dataclass(frozen=True)
class Variable:
    """One entry of a ``def.json`` ``var`` table (§1.8): the id the instructions use, its kind and size."""

    name: str
    type: str  # state-buffer, input, output, file, virtual, dge-table
    var_id: int
    size: int | None
    file_name: str | None  # the .npy member of a ``file`` variable
    raw: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return dict(self.raw, name=self.name)


@dataclass(frozen=True)
class DmaQueue:
    """One ``dma_queue`` of ``def.json`` (§1.9): which engine owns it and the semaphores it signals."""

    name: str
    owner: str  # def.json token = tongasm stream name
    type: str
    num_queues: int | None
    semaphore_set: tuple[int, ...]
    raw: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return dict(self.raw, name=self.name)


@dataclass(frozen=True)
class EngineFiles:
    """What ``def.json`` lists for one engine token: sidecar, stream and debug-info members."""

    token: str  # pe, pool, act, dve, sp
    sidecar: str | None  # "<E>.json"
    instr: str  # "<E>.bin"
    dbg: tuple[str, ...]
    asm_dbg: tuple[str, ...]


@dataclass(frozen=True)
class GraphDef:
    """A graph's ``def.json`` (schema ``"version": "0.6"``, a flat object; §1.8)."""

    path: str
    version: str
    engines: Mapping[str, EngineFiles]  # token → files
    variables: Mapping[str, Variable]
    dma_queues: Mapping[str, DmaQueue]
    runtime_event_count: int | None
    runtime_semaphore_count: int | None
    runtime_statebuffer_reservation: tuple[Mapping[str, Any], ...]
    neff_features: tuple[str, ...]
    raw: Mapping[str, Any]

    @classmethod
    def parse(cls, data: bytes, path: str) -> GraphDef:
        j = load_json(path, data)
        if not isinstance(j, dict):
            raise NeffError(f"NEFF member {path}: expected a JSON object")
        engines = {}
        for key in j:
            if key.endswith("_instr"):
                tok = key[:-len("_instr")]
                side = j.get(tok)
                engines[tok] = EngineFiles(tok, side if isinstance(side, str) else None, _get(j, path, key, str),
                                           tuple(_str_list(j, path, f"{tok}_dbg")),
                                           tuple(_str_list(j, path, f"{tok}_asm_dbg")))
        variables = {}
        for name, v in _get(j, path, "var", dict, {}).items():
            where = f"{path} var {name!r}"
            variables[name] = Variable(name, _get(v, where, "type", str), _get(v, where, "var_id", int),
                                       _get(v, where, "size", int, None), _get(v, where, "file_name", str, None), v)
        queues = {}
        for name, q in _get(j, path, "dma_queue", dict, {}).items():
            where = f"{path} dma_queue {name!r}"
            sems = _get(q, where, "semaphore_set", list, [])
            if not all(isinstance(s, int) and not isinstance(s, bool) for s in sems):
                raise NeffError(f"NEFF member {where}: semaphore_set should be a list of integers")
            wild = next((s for s in sems if not 0 <= s < MAX_SEMAPHORE_ID), None)
            if wild is not None:
                raise NeffError(f"NEFF member {where}: semaphore_set entry {brief_int(wild)} is not a semaphore number "
                                f"(allowed 0..{MAX_SEMAPHORE_ID - 1})")
            queues[name] = DmaQueue(name, _get(q, where, "owner", str, ""), _get(q, where, "type", str, ""),
                                    _get(q, where, "num_queues", int, None), tuple(sems), q)
        res = _get(j, path, "runtime_statebuffer_reservation", list, [])
        return cls(path, str(j.get("version", "")), engines, variables, queues,
                   _get(j, path, "runtime_event_count", int, None), _get(j, path, "runtime_semaphore_count", int, None),
                   tuple(r for r in res if isinstance(r, dict)), tuple(_str_list(j, path, "neff_features")), j)


def _str_list(j: Mapping[str, Any], path: str, key: str) -> list[str]:
    v = j.get(key, [])
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise NeffError(f"NEFF member {path}: {key!r} should be a list of strings, got {v!r}")
    return v


@dataclass(frozen=True)
class EngineSidecar:
    """``<E>.json`` beside an engine stream: its stream member, DMA descriptors and extras
    (``act_semaphore``, ``activation_function_sets``, ``dve_tables``...)."""

    name: str
    instr: str
    dma: tuple[Any, ...]
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, data: bytes, path: str) -> EngineSidecar:
        j = load_json(path, data)
        extra = {k: v for k, v in j.items() if k not in ("name", "instr", "dma")} if isinstance(j, dict) else {}
        return cls(_get(j, path, "name", str, ""), _get(j, path, "instr", str, ""),
                   tuple(_get(j, path, "dma", list, [])), extra)


@dataclass(frozen=True)
class TensorEntry:
    """One data entry of ``neff.json`` (a node output): name, shape, dtype, storage id."""

    name: str
    node: str  # the node producing it (an input node, or the kelf call)
    shape: tuple[int, ...] | None
    dtype: str | None
    storage_id: int | None


@dataclass(frozen=True)
class NeffJson:
    """``neff.json``: the TVM-style graph around the kelf call (§1.7): its nodes, the data entries
    (inputs and outputs, with shapes and dtypes) and the input signature."""

    nodes: tuple[Mapping[str, Any], ...]
    entries: tuple[TensorEntry, ...]
    inputs: Mapping[str, Mapping[str, Any]]  # metadata.signatures.default.inputs: name → {id, dtype, shape}
    raw: Mapping[str, Any]

    @classmethod
    def parse(cls, data: bytes, path: str = "neff.json") -> NeffJson:
        j = load_json(path, data)
        nodes = _get(j, path, "nodes", list)
        attrs = _get(j, path, "attrs", dict, {})

        def column(key: str) -> list[Any]:
            v = attrs.get(key)
            return v[1] if isinstance(v, list) and len(v) == 2 and isinstance(v[1], list) else []

        shapes, dtypes, storage = column("shape"), column("dltype"), column("storage_id")
        entries: list[TensorEntry] = []
        for i, n in enumerate(nodes):
            where = f"{path} nodes[{i}]"
            for out in _get(n, where, "output_names", list, [_get(n, where, "name", str)]):
                k = len(entries)
                shape = shapes[k] if k < len(shapes) and isinstance(shapes[k], list) else None
                if shape is not None and not all(isinstance(d, int) and not isinstance(d, bool) and 0 <= d < 1 << 40
                                                 for d in shape):
                    raise NeffError(f"NEFF member {path}: attrs shape[{k}] of {out!r} should be a list of "
                                    f"dimensions (integers 0..2^40), got {_brief(shape)}")
                dtype = dtypes[k] if k < len(dtypes) else None
                if dtype is not None and not isinstance(dtype, str):
                    raise NeffError(f"NEFF member {path}: attrs dltype[{k}] of {out!r} should be a dtype name such "
                                    f"as \"float16\", got {_brief(dtype)}")
                sid = storage[k] if k < len(storage) else None
                if sid is not None and (not isinstance(sid, int) or isinstance(sid, bool)):
                    raise NeffError(f"NEFF member {path}: attrs storage_id[{k}] of {out!r} should be an integer, "
                                    f"got {_brief(sid)}")
                entries.append(TensorEntry(str(out), _get(n, where, "name", str), tuple(shape) if shape else None,
                                           dtype, sid))
        sig: Any = j
        for key in ("metadata", "signatures", "default", "inputs"):  # absent or not an object: no signature
            sig = sig.get(key, {}) if isinstance(sig, dict) else {}
        inputs = {k: v for k, v in sig.items() if isinstance(v, dict)} if isinstance(sig, dict) else {}
        return cls(tuple(nodes), tuple(entries), inputs, j)
