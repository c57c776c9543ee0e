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
    _BLOCK_KEYS,
    _Ctx,
    _function,
    _instruction,
    _list,
    _misspelt,
    _obj,
    refuse_duplicates,
    unique_keys_hook,
)
from .instructions import Function, Instruction, Kernel, Loop

_WS = re.compile(r"[ \t\n\r]*")
#: after an array's '[': whitespace and a ']' if it is empty; after an element: the separator
_FIRST = re.compile(r"[ \t\n\r]*(\]?)[ \t\n\r]*")
_AFTER = re.compile(r"[ \t\n\r]*([,\]])[ \t\n\r]*")


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
    late: bool = False  # (one pass) a key after the blocks


class StreamRestart(Exception):
    """A kernel read in one pass (``stream_bir(..., one_pass=True)``) turned out to need two: a key
    came after a function's ``blocks`` or after ``functions``, so what was read before it may have
    been read without it. The consumer starts again from :meth:`StreamedKernel.two_pass`."""


@dataclass
class StreamedKernel:
    """The skeleton of a kernel read by :func:`stream_bir`; :meth:`instructions` streams the rest."""

    text: _Text
    arch: str | None
    version: Any
    attributes: Any
    functions: list[tuple[Function, _Ctx, int | None, str]]  # IR function (no blocks), name tables, blocks offset
    extra: dict[str, Any] = field(default_factory=dict)
    #: (one pass) the rest of the skeleton's reading, resumed after each streamed blocks array
    rest: _Skeleton | None = None
    _kernel: Kernel | None = None
    _second: StreamedKernel | None = None  # the two-pass reading that replaced this one

    @property
    def one_pass(self) -> bool:
        """Whether this kernel is read in one pass (see :class:`StreamRestart`)."""
        return self.rest is not None

    def kernel(self) -> Kernel:
        """A :class:`Kernel` with every function's allocations and registers but no blocks (read in
        one pass: the functions read so far; the list grows as the stream goes on)."""
        if self._kernel is None:
            self._kernel = Kernel([f for f, *_ in self.functions], self.arch, self.version, self.attributes,
                                  self.extra)
        return self._kernel

    @property
    def notes(self) -> list[str]:
        """What the reader noticed in what was read so far (see :attr:`Kernel.notes`); after a
        :class:`StreamRestart`, what the second reading noticed."""
        if self._second is not None:
            return self._second.notes
        return [n for _f, ctx, *_ in self.functions for n in ctx.notes] + \
            _misspelt(self.extra, ("functions", "arch", "version", "attributes"), "the BIR module")

    @property
    def final(self) -> StreamedKernel:
        """The reading that was used: this one, or the two-pass one that replaced it."""
        return self._second.final if self._second is not None else self

    def two_pass(self) -> StreamedKernel:
        """The same document read in two passes (after a :class:`StreamRestart`)."""
        self._second = _open(self.text.s, self.text.where, one_pass=False)
        return self._second

    def _blocks(self) -> Iterator[tuple[Function, _Ctx, int, str]]:
        """Each function with blocks, the text positioned at its blocks array (one pass: the
        skeleton's reading goes on between them)."""
        rest = self.rest
        if rest is None:
            for func, ctx, at, fpath in self.functions:
                if at is not None:
                    self.text.i = at
                    yield func, ctx, at, fpath
            return
        added = {id(sk) for sk in rest.skeletons or ()} | {id(rest.pending)}
        entry = self.functions[-1]
        while True:
            assert entry[2] is not None
            self.text.i = entry[2]
            yield entry  # type: ignore[misc]
            done = not next(rest.run, False)
            if rest.late or any(sk.late for sk in rest.skeletons or ()):
                raise StreamRestart()
            for sk in rest.skeletons or ():
                if id(sk) not in added:
                    added.add(id(sk))
                    self._add(_function_of(sk))
            if done:
                return
            assert rest.pending is not None
            added.add(id(rest.pending))
            entry = _function_of(rest.pending)
            self._add(entry)

    def _add(self, entry: tuple[Function, _Ctx, int | None, str]) -> None:
        self.functions.append(entry)
        if self._kernel is not None:
            self._kernel.functions.append(entry[0])

    def instructions(self) -> Iterator[tuple[Instruction | Loop, Function, str]]:
        """Each top-level instruction (or Loop) of every block, in program order, with its JSON path."""
        for raw in self.raw_instructions():
            yield raw.read(), raw.func, raw.path

    def raw_instructions(self) -> Iterator[RawInstruction]:
        """Each top-level instruction of every block, in program order, *before* it is read: the
        consumer calls :meth:`RawInstruction.read` (the ordinary conversion) or, having matched the
        instruction's text itself, :meth:`RawInstruction.skip` to where it ends; the stream goes on
        from there. One :class:`RawInstruction` object is reused for every instruction."""
        t = self.text
        raw = RawInstruction(t)
        for func, ctx, _at, fpath in self._blocks():
            raw.func, raw.ctx = func, ctx
            for bi in t.elements(f"{fpath}.blocks"):
                bpath = f"{fpath}.blocks[{bi}]"
                if t.peek() != "{":
                    _obj(t.value(bpath), bpath, "a block")
                for key in t.members(bpath):
                    if key != "instructions":
                        t.value(f"{bpath}.{key}")
                        if key != "name":
                            ctx.note_keys("block", {key: None}, _BLOCK_KEYS, bpath)
                        continue
                    if t.peek() != "[":
                        _list(t.value(f"{bpath}.instructions"), f"{bpath}.instructions", "'instructions'")
                    raw.block = f"{bpath}.instructions"
                    t.expect("[", raw.block)
                    m = _FIRST.match(t.s, t.i)
                    assert m is not None  # (it matches the empty string)
                    if m.group(1):  # an empty array
                        t.i = m.end()
                        continue
                    ii = 0
                    while True:
                        raw.index, raw.start, raw.end = ii, m.end(), -1
                        yield raw
                        if raw.end < 0:
                            raise RuntimeError("RawInstruction: neither read() nor skip() was called")
                        after = _AFTER.match(t.s, raw.end)
                        if after is None:  # neither ',' nor ']': the ordinary cursor says what is wrong
                            t.i = raw.end
                            t.expect("]", raw.block)
                            raise AssertionError("unreachable")
                        t.i, m = after.end(), after
                        if after.group(1) == "]":
                            break
                        ii += 1


class RawInstruction:
    """One top-level instruction of a streamed kernel, not yet read: the document's text and where
    the instruction's JSON value starts (:attr:`start`). Either :meth:`read` it or :meth:`skip` to
    the end of text matched by other means (:mod:`tongasm.codegen.templates`)."""

    __slots__ = ("_t", "text", "start", "end", "func", "ctx", "block", "index")

    def __init__(self, t: _Text) -> None:
        self._t = t
        self.text = t.s
        self.start = self.end = -1
        self.func: Function
        self.ctx: _Ctx
        self.block = ""
        self.index = 0

    @property
    def path(self) -> str:
        """The instruction's JSON path (for messages)."""
        return f"{self.block}[{self.index}]"

    def read(self) -> Instruction | Loop:
        """The instruction as IR (exactly as :meth:`StreamedKernel.instructions` reads it)."""
        t = self._t
        t.i = self.start
        path = self.path
        inst = _instruction(t.value(path), path, self.ctx)
        self.end = t.i
        return inst

    def skip(self, end: int) -> None:
        """Go on after ``end`` (the instruction's text was matched by the caller)."""
        self.end = end


def stream_bir(source: str | Path, *, one_pass: bool = False) -> StreamedKernel:
    """Open a BIR JSON file for streaming.

    The first pass reads the skeleton: top-level keys, and for each function its allocations,
    registers and other keys, stepping over its blocks one instruction at a time (parsed and
    dropped) while remembering where they start. :meth:`StreamedKernel.instructions` is the second
    pass.

    ``one_pass``: read the skeleton only up to the first function's blocks, and the rest of it as the
    stream reaches it; when a key turns out to follow a function's ``blocks`` or the ``functions``
    array (what was read before may depend on it), the stream raises :class:`StreamRestart` and the
    consumer starts again from :meth:`StreamedKernel.two_pass`. Files whose ``blocks`` and
    ``functions`` come last (as tongasm and compilers write them) are read once.
    """
    from ..io.inputs import read_text

    p = Path(source)
    return _open(read_text(p), str(p), one_pass)


def _open(text: str, where: str, one_pass: bool) -> StreamedKernel:
    t = _Text(text, where)
    sk = _Skeleton(t, lazy=one_pass)
    if not next(sk.run, False):  # read whole (two passes, or no function has blocks)
        return _kernel_of(t, sk.top, sk.skeletons, [_function_of(f) for f in sk.skeletons or ()])
    assert sk.pending is not None
    functions = [_function_of(f) for f in (*(sk.skeletons or ()), sk.pending)]
    return _kernel_of(t, sk.top, sk.skeletons, functions, sk)


def _kernel_of(t: _Text, top: dict[str, Any], skeletons: list[_FunctionSkeleton] | None,
               functions: list[tuple[Function, _Ctx, int | None, str]],
               rest: _Skeleton | None = None) -> StreamedKernel:
    if skeletons is None:
        raise BirError("missing key 'functions' (a BIR module is {\"arch\", \"functions\": [...]})", "")
    arch = top.get("arch")
    if arch is not None and not isinstance(arch, str):
        raise BirError(f"'arch' must be a string such as \"gen2\", got {arch!r}", "arch")
    extra = {k: v for k, v in top.items() if k not in ("arch", "version", "attributes")}
    return StreamedKernel(t, arch, top.get("version"), top.get("attributes"), functions, extra, rest)


def _function_of(sk: _FunctionSkeleton) -> tuple[Function, _Ctx, int | None, str]:
    if "blocks" in sk.fields:  # a non-array 'blocks' value: the ordinary reader reports it
        _list(sk.fields["blocks"], f"{sk.path}.blocks", "'blocks'")
    notes: list[str] = []
    func = _function({**sk.fields, "blocks": []}, sk.path, notes)
    ctx = _ctx_of(func)
    ctx.notes = notes
    return func, ctx, sk.blocks_at, sk.path


class _Skeleton:
    """Reads a kernel's skeleton: the top-level keys (:attr:`top`) and each function's keys
    (:attr:`skeletons`, None without ``functions``). Two passes (``lazy`` false): :attr:`run` steps
    over each blocks array and ends. One pass: at each function's blocks array :attr:`run` yields,
    with the function so far in :attr:`pending`; the consumer leaves the text after the array.
    :attr:`late`: a top-level key came after ``functions``."""

    def __init__(self, t: _Text, lazy: bool) -> None:
        self.t, self.lazy = t, lazy
        self.top: dict[str, Any] = {}
        self.skeletons: list[_FunctionSkeleton] | None = None
        self.pending: _FunctionSkeleton | None = None
        self.late = False
        self.run = self._run()

    def _run(self) -> Iterator[bool]:
        t = self.t
        if t.peek() != "{":
            _obj(t.value(""), "", "the BIR module")
        for key in t.members(""):
            if key != "functions":
                self.late |= self.skeletons is not None
                self.top[key] = t.value(key)
                continue
            if t.peek() != "[":
                _list(t.value("functions"), "functions", "'functions'")
            self.skeletons = skeletons = []
            for fi in t.elements("functions"):
                fpath = f"functions[{fi}]"
                sk = _FunctionSkeleton(fpath)
                if t.peek() != "{":
                    _obj(t.value(fpath), fpath, "a function")
                streamed = False
                for fkey in t.members(fpath):
                    if fkey == "blocks" and t.peek() == "[":
                        sk.blocks_at = t.i
                        if self.lazy:
                            self.pending = sk
                            yield True
                            streamed = True
                        else:
                            _skip_blocks(t, f"{fpath}.blocks")
                    else:
                        sk.late |= streamed
                        sk.fields[fkey] = t.value(f"{fpath}.{fkey}")
                skeletons.append(sk)
        t.ws()
        if t.i != len(t.s):
            raise InputError(f"{t.where}: not valid JSON: extra data at character {t.i}")


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
