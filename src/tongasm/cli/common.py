"""What every command shares: decisions and targets from the arguments, reading streams, JSON and notes on stdout/stderr, progress bars, refusing to overwrite an input."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from collections.abc import Iterable, Iterator, Sequence
from typing import Any
from ..errors import DecodeError, InputError, TongasmError, UsageError
from ..isa.decisions import DecisionSet
from ..isa.fields import BUNDLE_SIZE
from ..progress import NullProgress, progress


def _count(text: str) -> int:
    """A count 1..10,000 (``run --schedules``)."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= 10_000:
        raise argparse.ArgumentTypeError(f"expected a count 1..10000, got {text!r}")
    return n


def _seed(text: str) -> int:
    """``--seed``: a 32-bit unsigned integer (the xorwow state words are 32 bits; a wider seed would
    silently alias a narrower one)."""
    t = text.strip()
    if not t.isdigit() or len(t) > 10 or int(t) >= 1 << 32:
        raise argparse.ArgumentTypeError(f"expected an integer 0..{(1 << 32) - 1}, got {text[:40]!r}")
    return int(t)


def _decisions(args: argparse.Namespace) -> DecisionSet:
    return DecisionSet.parse(getattr(args, "decision", None))


def _finite(obj: Any) -> Any:
    """``obj`` with every NaN or infinite float (which JSON has no literal for) as the string
    ``"NaN"``, ``"Infinity"`` or ``"-Infinity"``."""
    if isinstance(obj, float) and obj != obj:
        return "NaN"
    if isinstance(obj, float) and obj in (float("inf"), float("-inf")):
        return "Infinity" if obj > 0 else "-Infinity"
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def _print_json(obj: Any) -> None:
    """Print ``obj`` as strict JSON: a NaN or an infinity that came from an input prints as a string."""
    try:
        text = json.dumps(obj, indent=1, allow_nan=False)
    except ValueError:
        text = json.dumps(_finite(obj), indent=1, allow_nan=False)
    sys.stdout.write(text + "\n")


def _print_notes(notes: Iterable[str]) -> None:
    """The reader's notes about a kernel (a key kept that looks like a misspelt known key...)."""
    for n in notes:
        sys.stderr.write(f"tongasm: note: {n}\n")


def _bar(args: argparse.Namespace, label: str, total: int | None = None, *, unit: str = "",
         to_stdout: bool = False) -> NullProgress:
    """The command's progress line: off with --quiet or --log, and when ``to_stdout`` (the command
    streams its output to stdout) and stdout is a terminal, where the bar would garble the output."""
    quiet = bool(getattr(args, "quiet", False) or getattr(args, "log", False))
    if to_stdout:
        try:
            quiet = quiet or sys.stdout.isatty()
        except (AttributeError, ValueError):
            pass
    return progress(label, total, unit=unit, quiet=quiet)


def _read_stream(path: str) -> memoryview | bytes:
    """A bundle stream's bytes, memory-mapped (read-only) when the file allows it: no copy in memory;
    a pipe or device is read up to :data:`tongasm.io.inputs.PIPE_LIMIT` bytes (an InputError beyond)."""
    from ..io.inputs import read_buffer

    return read_buffer(path)


def _check_length(path: str, data: memoryview | bytes) -> None:
    """A stream must be a whole number of bundles; anything else is not a stream (InputError, exit 2)."""
    n = len(data)
    if n % BUNDLE_SIZE:
        raise InputError(f"{path} has {n} bytes, which is not a whole number of {BUNDLE_SIZE}-byte bundles "
                         f"({_plural(n // BUNDLE_SIZE, 'whole bundle')} and {_plural(n % BUNDLE_SIZE, 'trailing byte')}"
                         "): not a bundle stream")


class _Failures:
    """The undecodable bundles of a stream, for the error lines after the listing: the first
    :data:`SHOWN` in full, then how many more (bounded memory on a stream of any size)."""

    SHOWN = 20

    def __init__(self, path: str) -> None:
        self.path = path
        self.count = 0
        self.first: list[Any] = []

    def add(self, d: Any) -> None:
        self.count += 1
        if len(self.first) < self.SHOWN:
            self.first.append(d)

    def report(self) -> None:
        for f in self.first:
            sys.stderr.write(f"tongasm: error: {self.path}: {DecodeError(f.reason, f.offset)}\n")
        if self.count > len(self.first):
            sys.stderr.write(f"tongasm: error: {self.path}: ... and {_plural(self.count - len(self.first), 'more undecodable bundle')}\n")


def _neff_target(sel: Any, args: argparse.Namespace) -> Any:
    """The NEFF's target; a --target that disagrees is a usage error."""
    t = sel.target
    if getattr(args, "target", None) and args.target != t.name:
        raise UsageError(f"{sel.selector.path} is a {t.name} NEFF (kelf-0.json target {sel.neff.kelf.target_name!r}); "
                         f"--target {args.target} disagrees")
    return t


def _kernel_target_note(path: str, arch: str | None, args: argparse.Namespace) -> None:
    """A kernel with no ``arch`` and no ``--target``: the default target is named in a note, never
    assumed silently."""
    if arch is None and not getattr(args, "target", None):
        from ..isa.targets import DEFAULT_TARGET

        sys.stderr.write(f"tongasm: note: {path}: no \"arch\" in the kernel and no --target; assuming "
                         f"{DEFAULT_TARGET.name}\n")


def _opcode_name(op: int) -> str:
    from ..isa.opcodes import opcode_name

    return opcode_name(op)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _is_kernel(path: str, head: bytes) -> bool:
    """A kernel by its .json suffix; a stream by .bin; otherwise sniff for a JSON object."""
    if path.endswith(".json"):
        return True
    if path.endswith(".bin"):
        return False
    return head.lstrip()[:1] == b"{"


def _stream_target(args: argparse.Namespace, paths: Sequence[str], what: str = "") -> Any:
    """The target of bundle files that are not NEFFs, always known and said: ``--target``; else the
    ``manifest.json`` tongasm wrote beside them (``assemble``/``asm``); else the ``kelf-0.json`` of the
    unpacked NEFF they are in (``neff unpack``); else gen2, named in a note on stderr."""
    from ..isa.targets import get_target

    if getattr(args, "target", None):
        return get_target(args.target)
    found: dict[str, str] = {}
    for p in paths:
        t = _target_beside(Path(p))
        if t is not None:
            found[p] = t
    if len(set(found.values())) > 1:
        raise UsageError("the inputs are of different targets (" + ", ".join(f"{k}: {v}" for k, v in found.items())
                         + "); give --target")
    if found and len(found) == len(paths):
        return get_target(next(iter(found.values())))
    unknown = [p for p in paths if p not in found]
    assumed = get_target(next(iter(found.values()), "gen2"))
    if not paths:
        sys.stderr.write(f"tongasm: note: {what or 'the input'}: no --target given; assuming {assumed.name}\n")
        return assumed
    sys.stderr.write(f"tongasm: note: {', '.join(unknown[:3])}{' ...' if len(unknown) > 3 else ''}: no target "
                     f"given or recorded beside {'it' if len(unknown) == 1 else 'them'} (no --target, no tongasm "
                     f"manifest.json, not in an unpacked NEFF); assuming {assumed.name}\n")
    return assumed


def _target_beside(path: Path) -> str | None:
    """The target recorded beside a bundle file: its directory's tongasm ``manifest.json``, or the
    ``kelf-0.json`` of an unpacked NEFF it lies in (the file's directory or its parent)."""
    from ..isa.targets import TARGETS

    d = path.parent
    try:
        man = d / "manifest.json"
        if man.is_file() and man.stat().st_size < (64 << 20):
            head = man.read_bytes()[:4096].decode("utf-8", "replace")
            if '"tool": "tongasm"' in head:
                import re

                m = re.search(r'"target":\s*"([a-z0-9]+)"', head)
                if m and m.group(1) in TARGETS:
                    return m.group(1)
        for up in (d, d.parent):
            kelf = up / "kelf-0.json"
            if kelf.is_file() and (up / "tongasm-neff.json").is_file() and kelf.stat().st_size < (16 << 20):
                from ..neff.members import KelfJson

                return KelfJson.parse(kelf.read_bytes(), str(kelf)).target.name
    except (OSError, TongasmError):
        return None
    return None


def _json_with_list(head: dict[str, Any], key: str, items: Iterable[Any], indent: str) -> Iterator[str]:
    """The text of ``json.dumps({**head, key: list(items)}, indent=1)`` nested at ``indent``, with the
    list written item by item (never built in memory)."""
    text = json.dumps(head, indent=1)
    yield (text[:-2] + "," if head else "{").replace("\n", "\n" + indent)
    yield f"\n{indent} {json.dumps(key)}: ["
    first = True
    for it in items:
        yield ("\n" if first else ",\n") + indent + "  " + json.dumps(it, indent=1).replace("\n", "\n" + indent + "  ")
        first = False
    yield ("]" if first else f"\n{indent} ]") + f"\n{indent}}}"


def _stream_name(path: str) -> str:
    return Path(path).stem


#: Bundles listed per piece by ``disasm``: a piece's lines are built, written and dropped before the
#: next (bounded memory on any stream; 2 MiB of stream per piece keeps the fast path at full speed).
DISASM_CHUNK = 1 << 15


def _refuse_overwriting_inputs(output: str | None, inputs: Iterable[str], flag: str) -> None:
    """Refuse an output path that names one of the command's own input files (``disasm X.bin -o X.bin``
    would replace its input with its own listing), before any work."""
    if output is None:
        return
    from ..io.outputs import same_file

    for given in inputs:
        # FILE.neff:sg00.pe names FILE.neff
        for path in dict.fromkeys((given, given.rsplit(":", 1)[0] if ":" in given else given)):
            if same_file(output, path):
                raise UsageError(f"{flag} {output} is the input {given}; refused (it would be overwritten): "
                                 "write the output elsewhere")


def _is_listing(path: str) -> bool:
    """A listing by its .s suffix; a stream by .bin; otherwise sniffed as listing text (a directive or a
    comment first); an unreadable file is left to the stream reader, which reports it."""
    from ..io.inputs import is_listing

    try:
        return is_listing(path, other_suffix=".bin", comment_is_listing=True)
    except InputError:
        return False


def _has_target(spec: str) -> bool:
    """Does a ``diff`` input name its own target (a NEFF, a listing, a stream with one recorded beside it)?"""
    from ..neff.select import is_neff_spec

    return is_neff_spec(spec) or _is_listing(spec) or _target_beside(Path(spec)) is not None
