"""NEFF files: the container neuronx-cc writes and the Neuron runtime loads (neff-and-real-opcodes.md §1).

Layers, each usable alone::

    header.py     the 1024-byte header, declared once as data (parse/build/doc generated from it)
    container.py  the payload: gzip member (hand-written header, raw zlib), ustar tar, padding
    members.py    typed views of the JSON members (info.json, kelf-0.json, def.json, <E>.json),
                  engine file -> tongasm stream, kelf target -> tongasm target
    debuginfo.py  the .dbg protobufs: BIR instruction name of every bundle (protobuf, imported lazily)
    neff.py       Neff: members in archive order, typed views, to_bytes() under R-1..R-6
    select.py     FILE.neff[:sg00[/pe]][:INDEX|@OFFSET] selectors -> named streams with target and names
    unpack.py     unpack to a directory and pack back (byte-identical when nothing changed); repack
    errors.py     NeffError: an unusable NEFF (exit code 2)
    report.py     the `tongasm neff info` report

    from tongasm.neff import read_neff, write_neff
    neff = read_neff("matmul_small.neff")
    neff.target                                   # GEN3 (kelf-0.json "cayman")
    s = neff.graph("sg00").streams["pe"]          # EngineStream: member sg00/PE.bin
    neff.stream_data(s); neff.bir_names(s)        # bytes; [None, None, "I-87-0-wait-0", ...]
    neff.replace_stream("sg00", "pe", new_bytes)  # a multiple of 64 bytes
    write_neff(neff, "out.neff")                  # data_size recomputed; R-1..R-6 from a DecisionSet

The names below are imported from their modules on first use (:mod:`tongasm.lazy`): a command that
only asks whether an argument names a NEFF (:mod:`.select`) does not load the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .container import GzipInfo
    from .errors import NeffError
    from .header import (
        HEADER_FIELDS,
        HEADER_SIZE,
        HeaderField,
        NeffHeader,
        build_header,
        header_markdown,
        parse_header,
    )
    from .members import (
        NEFF_TARGETS,
        DmaQueue,
        GraphDef,
        InfoJson,
        KelfJson,
        NeffJson,
        TensorEntry,
        Variable,
        neff_target,
    )
    from .neff import EngineStream, Graph, Neff, read_neff, write_neff
    from .select import (
        NamedStream,
        NeffSelection,
        is_neff_spec,
        parse_selector,
        resolve_selector,
    )
    from .unpack import METADATA_FILE, load_dir, pack_dir, repack_neff, unpack_neff

_EXPORTS = {
    "GzipInfo": "container", "NeffError": "errors", "HEADER_FIELDS": "header", "HEADER_SIZE": "header",
    "HeaderField": "header", "NeffHeader": "header", "build_header": "header", "header_markdown": "header",
    "parse_header": "header", "NEFF_TARGETS": "members", "DmaQueue": "members", "GraphDef": "members",
    "InfoJson": "members", "KelfJson": "members", "NeffJson": "members", "TensorEntry": "members",
    "Variable": "members", "neff_target": "members", "EngineStream": "neff", "Graph": "neff", "Neff": "neff",
    "read_neff": "neff", "write_neff": "neff", "NamedStream": "select", "NeffSelection": "select",
    "is_neff_spec": "select", "parse_selector": "select", "resolve_selector": "select", "METADATA_FILE": "unpack",
    "load_dir": "unpack", "pack_dir": "unpack", "repack_neff": "unpack", "unpack_neff": "unpack",
}

__all__ = [
    "HEADER_FIELDS",
    "HEADER_SIZE",
    "METADATA_FILE",
    "NEFF_TARGETS",
    "DmaQueue",
    "EngineStream",
    "Graph",
    "GraphDef",
    "GzipInfo",
    "HeaderField",
    "InfoJson",
    "KelfJson",
    "NamedStream",
    "Neff",
    "NeffError",
    "NeffHeader",
    "NeffJson",
    "NeffSelection",
    "TensorEntry",
    "Variable",
    "build_header",
    "header_markdown",
    "is_neff_spec",
    "load_dir",
    "neff_target",
    "pack_dir",
    "parse_header",
    "parse_selector",
    "read_neff",
    "repack_neff",
    "resolve_selector",
    "unpack_neff",
    "write_neff",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
