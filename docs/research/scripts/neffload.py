"""Load the two real NEFFs of /work/shared/groundtruth: members, streams and bundles.

Reusable helper for the other scripts in this folder (it checks nothing by itself). A NEFF is a
1024-byte header, then at 0x400 a gzip member of a ustar tar; engine streams are
sgNN/{PE,Pool,Activation,DVE,SP}.bin, 64-byte bundles.
"""
from __future__ import annotations

import io
import json
import tarfile
import zlib
from functools import cache
from pathlib import Path

GT = Path("/work/shared/groundtruth")
NEFFS = ("matmul_small.neff", "matmul_large.neff")
ENGINES = ("SP", "Pool", "PE", "Activation", "DVE")


@cache
def members(neff: str) -> dict[str, bytes]:
    data = (GT / neff).read_bytes()
    tar = zlib.decompressobj(31).decompress(data[0x400:])
    out = {}
    with tarfile.open(fileobj=io.BytesIO(tar)) as tf:
        for m in tf.getmembers():
            f = tf.extractfile(m)
            out[m.name] = f.read() if f else b""
    return out


def graphs(neff: str) -> list[str]:
    return [g["name"] for g in json.loads(members(neff)["kelf-0.json"])["graphs"]]


def stream(neff: str, graph: str, engine: str) -> bytes:
    return members(neff)[f"{graph}/{engine}.bin"]


def defjson(neff: str, graph: str) -> dict:
    return json.loads(members(neff)[f"{graph}/def.json"])


def bundles():
    """Yield (neff, graph, engine, index, 64 bytes) for every bundle of both NEFFs."""
    for neff in NEFFS:
        for g in graphs(neff):
            for e in ENGINES:
                s = stream(neff, g, e)
                assert len(s) % 64 == 0
                for i in range(len(s) // 64):
                    yield neff, g, e, i, s[64 * i:64 * i + 64]


def u8(b, o): return b[o]
def u16(b, o): return int.from_bytes(b[o:o + 2], "little")
def i16(b, o): return int.from_bytes(b[o:o + 2], "little", signed=True)
def u32(b, o): return int.from_bytes(b[o:o + 4], "little")


@cache
def _backend_names(neff: str, graph: str) -> dict[int, str]:
    from pbraw import parse
    names: dict[int, str] = {}
    for k, v in members(neff).items():
        if k.startswith(graph + "/debug_info_backend_"):
            for f, wt, e in parse(v):
                if f == 3 and wt == 2:
                    d = {ff: vv for ff, _, vv in parse(e)}
                    if 1 in d and 2 in d:
                        names[d[1]] = d[2].decode()
    return names


@cache
def bir_names(neff: str, graph: str, engine: str) -> list[str]:
    """BIR instruction name of every bundle of a stream ('' when the asm-debug entry is empty),
    from sgNN/debug_info_asm_<E>.dbg (one entry per bundle) and the backend .dbg id table."""
    from pbraw import parse, varint
    names = _backend_names(neff, graph)
    out = []
    for f, wt, e in parse(members(neff)[f"{graph}/debug_info_asm_{engine}.dbg"]):
        if f != 3:
            continue
        ids = []
        for ff, wt2, vv in parse(e):
            if ff == 3:
                if wt2 == 2:
                    i = 0
                    while i < len(vv):
                        x, i = varint(vv, i)
                        ids.append(x)
                else:
                    ids.append(vv)
        out.append(",".join(names.get(x, f"#{x}") for x in ids))
    return out
