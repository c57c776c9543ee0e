"""Streaming BIR JSON reading: one instruction at a time, in bounded memory.

``read_bir`` builds the whole kernel as IR — fine for ordinary kernels, but a million-instruction
kernel as Python objects takes many times its JSON size. :func:`stream_bir` instead scans the file
in two passes over its text: the first learns the skeleton (``arch``, each function's allocations
and registers, where its blocks start) while parsing and discarding instructions one by one; the
second parses each instruction only when the consumer asks for it. Each instruction goes through
exactly the same conversion as ``read_bir`` (same IR, same error messages and JSON paths), so
assembling a streamed kernel gives the same bytes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Iterator

from ..errors import BirError, InputError
from .bir_json import (
    _Ctx,
    _function,
    _instruction,
    _list,
    _obj,
    refuse_duplicates,
    unique_keys_hook,
)
from .instructions import Function, Instruction, Kernel, Loop

_WS = re.compile(r"[ \t\n\r]*")


class _Text:
    """A cursor over JSON text with the C decoder for values."""

    def __init__(self, text: str, where: str) -> None:
        self.s = text
        self.i = 0
        self.where = where
        self.hook = unique_keys_hook()
        self.dec = json.JSONDecoder(object_pairs_hook=self.hook)

    def ws(self) -> None:
        m = _WS.match(self.s, self.i)
        assert m is not None
        self.i = m.end()

    def peek(self) -> str:
        self.ws()
        return self.s[self.i:self.i + 1]

    def expect(self, ch: str, path: str) -> None:
        self.ws()
        if self.s[self.i:self.i + 1] != ch:
            got = self.s[self.i:self.i + 20] or "end of file"
            raise BirError(f"not valid JSON: expected {ch!r} at character {self.i}, got {got!r}", path)
        self.i += 1

    def value(self, path: str) -> Any:
        self.ws()
        try:
            v, self.i = self.dec.raw_decode(self.s, self.i)
        except ValueError as e:  # JSONDecodeError, or an int past the digit limit
            raise InputError(f"{self.where}: not valid JSON: {e}") from None
        except RecursionError:
            raise InputError(f"{self.where}: JSON nested too deeply to read") from None
        if self.hook.found:  # a key repeated inside this value: the same refusal as read_bir's
            refuse_duplicates(v, path)
        return v

    def members(self, path: str) -> Iterator[str]:
        """Keys of the object at the cursor; the caller consumes each value. A key that repeats is
        refused (as :func:`tongasm.ir.bir_json.loads` refuses it)."""
        self.expect("{", path)
        if self.peek() == "}":
            self.i += 1
            return
        seen: set[str] = set()
        while True:
            key = self.value(path)
            if not isinstance(key, str):
                raise BirError("not valid JSON: object keys must be strings", path)
            if key in seen:
                raise BirError(f"duplicate key {key!r} (JSON would keep only the last value; a key may appear once "
                               "in an object)", path)
            seen.add(key)
            self.expect(":", path)
            yield key
            if self.peek() == ",":
                self.i += 1
                continue
            self.expect("}", path)
            return

    def elements(self, path: str) -> Iterator[int]:
        """Indexes of the array at the cursor; the caller consumes each element."""
        self.expect("[", path)
        if self.peek() == "]":
            self.i += 1
            return
        k = 0
        while True:
            yield k
            k += 1
            if self.peek() == ",":
                self.i += 1
                continue
            self.expect("]", path)
            return


@dataclass
class _FunctionSkeleton:
    path: str
    fields: dict[str, Any] = field(default_factory=dict)
    blocks_at: int | None = None


@dataclass
class StreamedKernel:
    """The skeleton of a kernel read by :func:`stream_bir`; :meth:`instructions` streams the rest."""

    text: _Text
    arch: str | None
    version: Any
    attributes: Any
    functions: list[tuple[Function, _Ctx, int | None, str]]  # IR function (no blocks), name tables, blocks offset
    extra: dict[str, Any] = field(default_factory=dict)

    def kernel(self) -> Kernel:
        """A :class:`Kernel` with every function's allocations and registers but no blocks."""
        return Kernel([f for f, *_ in self.functions], self.arch, self.version, self.attributes, self.extra)

    def instructions(self) -> Iterator[tuple[Instruction | Loop, Function, str]]:
        """Each top-level instruction (or Loop) of every block, in program order, with its JSON path."""
        t = self.text
        for func, ctx, at, fpath in self.functions:
            if at is None:
                continue
            t.i = at
            for bi in t.elements(f"{fpath}.blocks"):
                bpath = f"{fpath}.blocks[{bi}]"
                if t.peek() != "{":
                    _obj(t.value(bpath), bpath, "a block")
                for key in t.members(bpath):
                    if key != "instructions":
                        t.value(f"{bpath}.{key}")
                        continue
                    if t.peek() != "[":
                        _list(t.value(f"{bpath}.instructions"), f"{bpath}.instructions", "'instructions'")
                    for ii in t.elements(f"{bpath}.instructions"):
                        ipath = f"{bpath}.instructions[{ii}]"
                        yield _instruction(t.value(ipath), ipath, ctx), func, ipath


def stream_bir(source: str | Path) -> StreamedKernel:
    """Open a BIR JSON file for streaming.

    The first pass reads the skeleton: top-level keys, and for each function its allocations,
    registers and other keys, stepping over its blocks one instruction at a time (parsed and
    dropped) while remembering where they start. :meth:`StreamedKernel.instructions` is the second
    pass.
    """
    from ..util import read_text

    p = Path(source)
    t = _Text(read_text(p), str(p))
    if t.peek() != "{":
        _obj(t.value(""), "", "the BIR module")
    top: dict[str, Any] = {}
    skeletons: list[_FunctionSkeleton] | None = None
    for key in t.members(""):
        if key != "functions":
            top[key] = t.value(key)
            continue
        if t.peek() != "[":
            _list(t.value("functions"), "functions", "'functions'")
        skeletons = []
        for fi in t.elements("functions"):
            fpath = f"functions[{fi}]"
            sk = _FunctionSkeleton(fpath)
            if t.peek() != "{":
                _obj(t.value(fpath), fpath, "a function")
            for fkey in t.members(fpath):
                if fkey == "blocks" and t.peek() == "[":
                    sk.blocks_at = t.i
                    _skip_blocks(t, f"{fpath}.blocks")
                else:
                    sk.fields[fkey] = t.value(f"{fpath}.{fkey}")
            skeletons.append(sk)
    t.ws()
    if t.i != len(t.s):
        raise InputError(f"{p}: not valid JSON: extra data at character {t.i}")
    if skeletons is None:
        raise BirError("missing key 'functions' (a BIR module is {\"arch\", \"functions\": [...]})", "")
    arch = top.get("arch")
    if arch is not None and not isinstance(arch, str):
        raise BirError(f"'arch' must be a string such as \"gen2\", got {arch!r}", "arch")
    functions = []
    for sk in skeletons:
        if "blocks" in sk.fields:  # a non-array 'blocks' value: the ordinary reader reports it
            _list(sk.fields["blocks"], f"{sk.path}.blocks", "'blocks'")
        func = _function({**sk.fields, "blocks": []}, sk.path)
        functions.append((func, _ctx_of(func), sk.blocks_at, sk.path))
    extra = {k: v for k, v in top.items() if k not in ("arch", "version", "attributes")}
    return StreamedKernel(t, arch, top.get("version"), top.get("attributes"), functions, extra)


def _ctx_of(func: Function) -> _Ctx:
    ctx = _Ctx(func)
    for a in func.allocations:
        if a.name:
            ctx.allocations[a.name] = a
        for loc in a.locations:
            ctx.locations[loc.name] = loc
    return ctx


def _skip_blocks(t: _Text, path: str) -> None:
    """Step over a blocks array parsing one instruction at a time (never the whole array at once)."""
    for bi in t.elements(path):
        bpath = f"{path}[{bi}]"
        if t.peek() != "{":
            t.value(bpath)
            continue
        for key in t.members(bpath):
            if key == "instructions" and t.peek() == "[":
                for ii in t.elements(f"{bpath}.instructions"):
                    t.value(f"{bpath}.instructions[{ii}]")
            else:
                t.value(f"{bpath}.{key}")
