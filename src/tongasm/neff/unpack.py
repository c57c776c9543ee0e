"""``tongasm neff unpack`` / ``pack``: a NEFF as a directory of files and back.

``unpack`` writes every member as a file under DIR (its member path, checked not to leave DIR) and
one metadata file, :data:`METADATA_FILE`, holding what the members do not: the 1024 header bytes, the
gzip header and MTIME, the member order and each member's size and SHA-256. ``pack`` reads the
metadata and the members back and writes the NEFF with :meth:`tongasm.neff.Neff.to_bytes` under the
R-1..R-6 readings: unchanged files give the identical NEFF; a replaced stream gives a valid one with
``data_size`` recomputed. ``pack --streams ASMDIR`` takes the ``<graph>.<stream>.bin`` files that
``tongasm asm`` writes for a NEFF listing (``.stream sg00.pe``) and puts each into its graph's engine
member (``sg00/PE.bin``), so the edit loop is: ``disasm F.neff -o f.s``, edit, ``asm f.s -o A``,
``neff pack DIR --streams A -o G.neff``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..errors import InputError, TongasmError
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from .container import TAR_STYLE_BY_NAME, USTAR, GzipInfo, MemberHeader, check_member_name, safe_member_path
from .errors import NeffError
from .header import HEADER_SIZE, parse_header
from .neff import Neff
from ..io.inputs import read_input

METADATA_FILE = "tongasm-neff.json"
METADATA_FORMAT = "tongasm-neff-unpack"
METADATA_VERSION = 2
#: metadata versions ``pack`` reads (1: no tar headers; its members get plain ustar headers)
METADATA_VERSIONS = (1, 2)


def metadata(neff: Neff, sums: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The metadata file's content for ``neff`` (``sums``: each member's SHA-256 when already known)."""
    digest = sums if sums is not None else {n: hashlib.sha256(d).hexdigest() for n, d in neff.iter_members()}
    return {
        "format": METADATA_FORMAT, "version": METADATA_VERSION, "source": neff.path,
        "header": neff.header.to_bytes().hex(),
        "header_fields": {r["name"]: r["value"] for r in neff.header.rows()},  # for people; "header" is used
        "gzip": {"header": neff.gzip.header.hex(), "mtime": neff.gzip.mtime, "xfl": neff.gzip.xfl,
                 "os": neff.gzip.os, "member_size": neff.gzip.member_size, "padding": neff.gzip.padding},
        "tar_style": neff.tar_style.name if neff.tar_style is not None else None,
        "members": [{"path": n, "size": neff.member_size(n), "sha256": digest[n],
                     **({"tar": neff.tar_headers[n].to_json()} if n in neff.tar_headers else {})}
                    for n in neff.members],
    }


def unpack_target(out_dir: str | os.PathLike[str]) -> Path:
    """Check ``-o`` of ``neff unpack`` before any work: a directory that can be created, or an
    empty one (a link to one is followed), as :func:`tongasm.io.outputs.write_new_tree` needs."""
    from ..io.outputs import check_empty_dir, output_dir_path

    out = output_dir_path(out_dir)
    check_empty_dir(out)
    return out


def unpack_neff(neff: Neff, out_dir: str | os.PathLike[str]) -> list[Path]:
    """Write every member and :data:`METADATA_FILE` under ``out_dir``, a new or empty directory.

    The members are written one at a time as the tar is inflated (a read NEFF's are not held), into
    a temporary directory beside ``out_dir`` renamed into place at the end
    (:func:`tongasm.io.outputs.write_new_tree`): on any error or termination signal nothing is left.
    """
    from ..io.outputs import write_new_tree

    if METADATA_FILE in neff.members:
        raise NeffError(f"{neff.path or 'NEFF'} has a member named {METADATA_FILE}; cannot unpack beside it")
    for name in neff.members:
        check_member_name(name)  # refuses names that would leave the directory
    unpack_target(out_dir)
    sums: dict[str, str] = {}

    def files() -> Iterator[tuple[str, bytes]]:
        for name, data in neff.iter_members():
            sums[name] = hashlib.sha256(data).hexdigest()
            yield name, data
        yield METADATA_FILE, (json.dumps(metadata(neff, sums), indent=1) + "\n").encode()

    out = write_new_tree(out_dir, files())
    return [out / n for n in [*neff.members, METADATA_FILE]]


def _load_metadata(d: Path) -> dict[str, Any]:
    p = d / METADATA_FILE
    try:
        meta = json.loads(p.read_text())
    except OSError as e:
        raise NeffError(f"cannot read {p}: {e.strerror or e} (is {d} a directory written by 'tongasm neff "
                         f"unpack'?)") from None
    except ValueError as e:
        raise NeffError(f"{p}: not valid JSON: {e}") from None
    if not isinstance(meta, dict) or meta.get("format") != METADATA_FORMAT:
        raise NeffError(f"{p}: not a tongasm NEFF unpack metadata file (format {METADATA_FORMAT!r})")
    if meta.get("version") not in METADATA_VERSIONS:
        raise NeffError(f"{p}: metadata version {meta.get('version')!r}; this tongasm reads "
                         f"{', '.join(map(str, METADATA_VERSIONS))}")
    return meta


def _whole(obj: Mapping[str, Any], key: str) -> int:
    """A metadata number that must be a JSON integer (not a float such as Infinity, not a string)."""
    v = obj[key]
    if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < 1 << 64:
        raise ValueError(f"{key!r} should be an integer 0..2^64, got {str(v)[:40]}")
    return v


def load_dir(in_dir: str | os.PathLike[str]) -> Neff:
    """A :class:`Neff` from an unpacked directory (members in the recorded order; files the metadata
    does not list are refused, so an editor's backup file does not slip into the archive)."""
    d = Path(in_dir)
    meta = _load_metadata(d)
    where = d / METADATA_FILE
    try:
        header_bytes = bytes.fromhex(meta["header"])
        gz = meta["gzip"]
        names = [m["path"] for m in meta["members"]]
        sums = {m["path"]: m.get("sha256") for m in meta["members"]}
        tar_headers = {m["path"]: MemberHeader.from_json(m["tar"], f"{where} member {m['path']!r}")
                       for m in meta["members"] if "tar" in m}
        style_name = meta.get("tar_style", USTAR.name)
        gzip = GzipInfo(bytes.fromhex(gz["header"]), *(_whole(gz, k) for k in ("mtime", "xfl", "os", "member_size",
                                                                               "padding")))
    except (KeyError, TypeError, ValueError, OverflowError) as e:
        raise NeffError(f"{where}: malformed metadata ({type(e).__name__}: {e})") from None
    if style_name is not None and style_name not in TAR_STYLE_BY_NAME:
        raise NeffError(f"{where}: unknown tar style {style_name!r} (known: {', '.join(TAR_STYLE_BY_NAME)})")
    if len(header_bytes) != HEADER_SIZE:
        raise NeffError(f"{where}: the header is {len(header_bytes)} bytes, not {HEADER_SIZE}")
    members: dict[str, bytes] = {}
    for name in names:
        if not isinstance(name, str):
            raise NeffError(f"{where}: member path {name!r} is not a string")
        check_member_name(name)
        p = safe_member_path(d, name)
        try:
            members[name] = read_input(p)  # a device or pipe in its place is read only up to a bound
        except InputError as e:
            raise NeffError(f"member {name} listed in {METADATA_FILE} cannot be read from {d}: {e}") from None
    extra = sorted(str(p.relative_to(d)) for p in d.rglob("*") if p.is_file() and p.name != METADATA_FILE
                   and str(p.relative_to(d)).replace(os.sep, "/") not in members)
    if extra:
        raise NeffError(f"{d} has files that are not members of the NEFF: {', '.join(extra[:10])}"
                         f"{' ...' if len(extra) > 10 else ''}; remove them (pack adds no new members)")
    style = TAR_STYLE_BY_NAME[style_name] if style_name is not None else None
    neff = Neff(parse_header(header_bytes), gzip, members, str(d), None, {n: i for i, n in enumerate(names)},
                tar_headers, style, "" if style is not None else f"{where} names no tar style")
    # a member edited in the directory is a replaced member, like one given with --replace
    neff.replaced.update(n for n, data in members.items() if sums.get(n) != hashlib.sha256(data).hexdigest())
    neff.recorded = {m["path"]: (m.get("size") if isinstance(m.get("size"), int) else None, sums.get(m["path"]))
                     for m in meta["members"]}
    if "kelf-0.json" not in members:
        raise NeffError(f"{d}: no kelf-0.json member: not an unpacked NEFF")
    return neff


def replace_from_asm_dir(neff: Neff, asm_dir: str | os.PathLike[str]) -> list[str]:
    """Put each ``<graph>.<stream>.bin`` of ``asm_dir`` (what ``tongasm asm`` writes for a NEFF listing)
    into its graph's engine member; returns the members replaced. A .bin that names no stream of the
    NEFF is refused."""
    d = Path(asm_dir)
    if not d.is_dir():
        raise NeffError(f"{d} is not a directory (expected the output of 'tongasm asm')")
    known = {s.name: s for s in neff.streams()}
    done = []
    for p in sorted(d.glob("*.bin")):
        s = known.get(p.stem)
        if s is None:
            raise NeffError(f"{p}: names no stream of the NEFF (expected one of {', '.join(known)}; the listing's "
                             ".stream names come from 'tongasm disasm FILE.neff')")
        data = read_input(p)
        neff.replace_member(s.member, data)
        done.append(s.member)
    if not done:
        raise NeffError(f"{d} has no <graph>.<stream>.bin files (e.g. sg00.pe.bin)")
    return done


class StreamsRefused(TongasmError):
    """The engine streams of a NEFF about to be written fail ``check`` (exit 1: nothing is written)."""


def stream_errors(neff: Neff, decisions: DecisionSet = DEFAULT_DECISIONS) -> list[str]:
    """Every check error of every engine stream of ``neff``, as ``check`` of the NEFF reports them
    (its target, each graph's activation function sets; opcodes with no layout counted, not errors)."""
    from ..check.runner import check_stream

    out = []
    for s in neff.streams():
        label = f"{s.graph}/{s.stream}"
        for f in check_stream(neff.stream_data(s), name=label, target=neff.target, decisions=decisions,
                              stream=s.stream, unmodelled="note", act_sets=neff.activation_function_sets(s.graph)):
            if f.severity == "error":
                out.append(f"{s.member}: {f.line()}")
    return out


def changes(neff: Neff) -> list[str]:
    """What differs from the NEFF (or unpacked directory) that was read, one line per changed member in
    archive order: an engine stream by bundles (``sg00/PE.bin: 12 bundles, 3 differ (the first at bundle
    4, offset 0x100)``, or its old and new bundle counts), any other member by its sizes. A member
    replaced by its own bytes is not a change. Empty when nothing changed."""
    from ..isa.fields import BUNDLE_SIZE

    streams = {s.member for s in neff.streams()}
    out = []
    for name in sorted(neff.replaced, key=lambda n: (neff.input_order.get(n, len(neff.input_order)), n)):
        new = neff.members[name]
        old = neff.read_bytes_of(name)
        size, digest = neff.recorded.get(name, (None, None))
        if old is not None and old == new or old is None and digest == hashlib.sha256(new).hexdigest():
            continue
        if old is not None:
            size = len(old)
        if name in streams:
            n_new = len(new) // BUNDLE_SIZE
            if old is None:  # an unpacked directory keeps sizes and digests, not the old bytes
                n_old = None if size is None else size // BUNDLE_SIZE
                was = "as before" if n_old == n_new else f"was {n_old}" if n_old is not None else "before: not known"
                out.append(f"{name}: {n_new} bundles ({was}), other bytes")
                continue
            n_old = len(old) // BUNDLE_SIZE
            common = min(n_old, n_new)
            differ = [i for i in range(common)
                      if old[i * BUNDLE_SIZE:(i + 1) * BUNDLE_SIZE] != new[i * BUNDLE_SIZE:(i + 1) * BUNDLE_SIZE]]
            parts = [f"{n_new} bundles" + (f" (was {n_old})" if n_old != n_new else "")]
            if differ:
                of = f"{common}" if n_old == n_new else f"the first {common}"
                parts.append(f"{len(differ)} of {of} {'differs' if len(differ) == 1 else 'differ'} (the first at "
                             f"bundle {differ[0]}, offset {differ[0] * BUNDLE_SIZE:#x})")
            out.append(f"{name}: " + ", ".join(parts))
        else:
            out.append(f"{name}: {len(new)} bytes" + (f" (was {size})" if size is not None and size != len(new)
                                                     else "; its bytes differ"))
    return out


def _write_checked(neff: Neff, out: str | os.PathLike[str], decisions: DecisionSet, check: bool) -> None:
    from .neff import write_neff

    if check:
        errors = stream_errors(neff, decisions)
        if errors:
            shown = "\n".join(errors[:50]) + (f"\n... and {len(errors) - 50} more" if len(errors) > 50 else "")
            raise StreamsRefused(f"the streams of the NEFF for {out} fail check ({len(errors)} finding"
                                 f"{'s' * (len(errors) > 1)}); nothing written (--no-check writes it anyway):\n{shown}")
    write_neff(neff, out, decisions)


def pack_dir(in_dir: str | os.PathLike[str], out: str | os.PathLike[str], *,
             decisions: DecisionSet = DEFAULT_DECISIONS, streams: str | os.PathLike[str] | None = None,
             replace: Mapping[str, bytes] | None = None, check: bool = False) -> Neff:
    """Pack an unpacked directory (optionally with streams from an ``asm`` output directory and
    member replacements) into the NEFF ``out``, atomically. Returns the packed :class:`Neff`.
    ``check``: refuse (:class:`StreamsRefused`) when an engine stream fails ``check``."""
    neff = load_dir(in_dir)
    if streams is not None:
        replace_from_asm_dir(neff, streams)
    for name, data in (replace or {}).items():
        neff.replace_member(name, data)
    _write_checked(neff, out, decisions, check)
    return neff


def repack_neff(src: str | os.PathLike[str], out: str | os.PathLike[str], *,
                decisions: DecisionSet = DEFAULT_DECISIONS, streams: str | os.PathLike[str] | None = None,
                replace: Mapping[str, bytes] | None = None, check: bool = False) -> Neff:
    """Read the NEFF ``src``, replace streams (from an ``asm`` output directory) and members, and write
    ``out`` atomically (§1.12's repack, without an unpacked directory). ``check`` as :func:`pack_dir`."""
    from .neff import read_neff

    neff = read_neff(src)
    if streams is not None:
        replace_from_asm_dir(neff, streams)
    for name, data in (replace or {}).items():
        neff.replace_member(name, data)
    _write_checked(neff, out, decisions, check)
    return neff
