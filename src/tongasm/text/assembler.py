"""The text assembler: the listing syntax back into per-engine bundle streams.

Accepted lines (``;`` starts a comment):

* ``.target gen2|gen3`` and ``.decision D-n=READING`` — must come before the first instruction;
* ``.stream NAME`` — the following bundles go to stream NAME (``dve``, ``pool``...; a JSON string for a
  name with other characters than letters, digits, ``_``, ``.`` and ``-``);
* ``.bytes HEX`` — 64 raw bytes, copied verbatim;
* ``.var {JSON}`` and ``.act_sets {JSON}`` — a NEFF graph's variables and activation sets, which
  ``tongasm disasm FILE.neff`` writes and ``tongasm assemble LISTING.s --neff`` reads (the streams
  do not depend on them);
* an instruction, optionally preceded by ``OFFSET:`` and a ``|...|`` bytes column (both ignored).

Errors point at the line and column: ``kernel.s:12:34: error: ...`` with the line and a caret.
Every bad instruction line is reported, not only the first (:class:`TextSyntaxErrors`, up to
:data:`MAX_ERRORS`); a bad directive stops at once, since what follows depends on it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import TongasmError
from ..isa.decisions import DecisionSet
from ..isa.fields import BUNDLE_SIZE
from ..isa.formats import FormatSet, build_formats
from ..isa.targets import DEFAULT_TARGET, TARGETS, Target
from ..io.outputs import check_output_name
from .syntax import ParseError, parse_operands, top_level


class TextSyntaxError(TongasmError):
    """A syntax error in assembly text, at a line and column."""

    def __init__(self, path: str, line: int, col: int, message: str, source: str = "") -> None:
        self.path, self.line, self.col, self.detail = path, line, col, message
        #: the program of the lines that assembled, when assembling went on past this error
        self.partial: TextProgram | None = None
        at = col
        if len(source) > 160:  # a window of a very long line around the column
            start = max(0, min(col - 80, len(source) - 160))
            source, at = ("..." if start else "") + source[start:start + 160] + "...", col - start + (3 if start else 0)
        caret = f"\n  {source}\n  {' ' * at}^" if source else ""
        super().__init__(f"{path}:{line}:{col + 1}: {message}{caret}")


class TextSyntaxErrors(TextSyntaxError):
    """Several syntax errors in one text: the first one's line and column, every message in order."""

    def __init__(self, errors: list[TextSyntaxError], more: bool = False) -> None:
        first = errors[0]
        self.errors = errors
        self.partial = None
        self.path, self.line, self.col, self.detail = first.path, first.line, first.col, first.detail
        tail = f"\n(stopped after {len(errors)} errors)" if more else f"\n{len(errors)} errors"
        TongasmError.__init__(self, "\n".join(str(e) for e in errors) + tail)


#: at most this many errors are reported from one text
MAX_ERRORS = 100


@dataclass
class TextProgram:
    """What a text file assembles to: streams in order of first appearance, target, decisions, and
    the source line of every bundle (``line_of[stream][i]``, for messages about bundle ``i``)."""

    streams: dict[str, bytearray] = field(default_factory=dict)
    target: Target = DEFAULT_TARGET
    decisions: DecisionSet = field(default_factory=DecisionSet)
    lines: int = 0
    line_of: dict[str, list[int]] = field(default_factory=dict)
    #: where :attr:`target` came from: ``"argument"``, ``".target"`` or ``"default"`` (neither given)
    target_from: str = "default"
    #: the end-of-line comment of every bundle (``None`` without one): a NEFF listing's BIR names
    comment_of: dict[str, list[str | None]] = field(default_factory=dict)
    #: the ``.var`` directives (a NEFF listing's def.json variables), per graph in order of appearance
    variables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: the ``.act_sets`` directives (a NEFF graph's Activation.json activation_function_sets), per graph
    act_sets: dict[str, list[str]] = field(default_factory=dict)


def mnemonic_table(fs: FormatSet) -> dict[str, tuple[int, str]]:
    """Lower-case mnemonic (with ``.variant`` when an opcode has several layouts) → (opcode, layout
    name). Made from the layout records: a layout is compiled only when a line uses it."""
    table: dict[str, tuple[int, str]] = {}
    for op, names in fs.layout_names().items():
        for name in names:
            table[fs.mnemonic(fs.layouts[name], op).lower()] = (op, name)
    return table


#: The longest run of digits an operand may hold (a raw patch of the whole 64-byte bundle is 128 hex
#: digits); a longer one is refused before any number is converted (Python refuses to convert decimal
#: text of more than 4300 digits, and such values only make unreadable messages).
_MAX_DIGITS = 2 * BUNDLE_SIZE
_LONG_NUMBER = re.compile(f"[0-9A-Fa-f_]{{{_MAX_DIGITS + 1},}}")

_PREFIX = re.compile(r"^\s*(?:[0-9a-fA-F]+:\s*)?(?:\|[^|]*\|\s*)?")


def _strip_comment(line: str) -> str:
    """The line without its ``;`` or ``#`` comment (one inside a "..." name or brackets is text)."""
    for i in top_level(line):
        if line[i] in ";#":
            return line[:i]
    return line


#: what a ``.var`` directive's JSON object holds (key → JSON types): a def.json ``var`` entry with its
#: graph and name, and for an input or output its neff.json dtype and shape
VAR_KEYS: dict[str, tuple[type, ...]] = {"graph": (str,), "name": (str,), "var_id": (int,), "type": (str,),
                                         "size": (int,), "dtype": (str,), "shape": (list,), "list": (list,),
                                         "ops": (list,), "file_name": (str,), "alignment": (int,),
                                         "fabric_path": (str,), "backing_variable_off": (int,),
                                         "referenced_var_id": (int,)}


def _neff_directive(prog: TextProgram, word: str, arg: str, err: Any) -> None:
    """``.var {JSON}`` (one variable of a NEFF graph: graph, name, var_id, type and, as def.json has them,
    size, dtype, shape, list, file_name...) and ``.act_sets {"graph": G, "sets": [...]}``: what ``tongasm disasm
    FILE.neff`` writes of a graph besides its bundles, for ``assemble LISTING.s --neff``; ``asm`` ignores them."""
    try:
        obj = json.loads(arg)
    except ValueError as e:
        raise err(f"{word} expects a JSON object, got {arg[:60]!r} ({e})") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("graph"), str) or not obj["graph"]:
        raise err(f'{word} expects a JSON object with a "graph" name, got {arg[:60]!r}')
    graph = obj["graph"]
    if word == ".act_sets":
        sets = obj.get("sets")
        if set(obj) != {"graph", "sets"} or not isinstance(sets, list) or not all(isinstance(x, str) for x in sets):
            raise err('.act_sets expects {"graph": NAME, "sets": [SET NAME, ...]}')
        if graph in prog.act_sets:
            raise err(f".act_sets of graph {graph!r} is given twice")
        prog.act_sets[graph] = list(sets)
        return
    for k, v in obj.items():  # a key tongasm does not know is kept (a real def.json entry as it is)
        if k in VAR_KEYS and (not isinstance(v, VAR_KEYS[k]) or isinstance(v, bool)):
            raise err(f".var: {k} should be {VAR_KEYS[k][0].__name__}, got {v!r}")
    for k in ("name", "var_id", "type"):
        if k not in obj:
            raise err(f".var needs {k!r} (as def.json's var entry has it)")
    seen = prog.variables.setdefault(graph, [])
    for v in seen:
        if v["name"] == obj["name"] or v["var_id"] == obj["var_id"]:
            raise err(f".var: graph {graph!r} already has variable {v['name']!r} (var_id {v['var_id']})")
    seen.append(obj)


def assemble_text(text: str, *, path: str = "<text>", decisions: DecisionSet | None = None,
                  target: str | Target | None = None) -> TextProgram:
    """Assemble listing text. ``decisions``/``target`` given here override the file's directives."""
    prog = TextProgram()
    file_ds: dict[str, str] = {}
    seen_instruction = False
    current: str | None = None
    table: dict[str, tuple[int, str]] | None = None
    fs: FormatSet | None = None
    errors: list[TextSyntaxError] = []
    for lineno, raw_line in enumerate(text.splitlines(), 1):
        prog.lines = lineno
        line = _strip_comment(raw_line).rstrip()
        if not line.strip():
            continue

        def err(msg: str, col: int, lineno: int = lineno, raw_line: str = raw_line) -> TextSyntaxError:
            return TextSyntaxError(path, lineno, col, msg, raw_line)

        stripped = line.lstrip()
        col0 = len(line) - len(stripped)
        if stripped.startswith("."):
            word, _, arg = stripped.partition(" ")
            arg = arg.strip()
            acol = col0 + (stripped.find(arg, len(word)) if arg else len(word))
            if word == ".target":
                if seen_instruction:
                    raise err(".target must come before the first instruction", col0)
                if arg not in TARGETS:
                    raise err(f"unknown target {arg!r} (known: {', '.join(TARGETS)})", acol)
                prog.target = TARGETS[arg]
                prog.target_from = ".target"
                continue
            if word == ".decision":
                if seen_instruction:
                    raise err(".decision must come before the first instruction", col0)
                did, eq, choice = arg.partition("=")
                if not eq:
                    raise err(f".decision expects D-n=READING, got {arg!r}", acol)
                did = did.strip().upper()
                if file_ds.get(did, choice.strip()) != choice.strip():
                    raise err(f".decision {did} is given twice ({file_ds[did]} and {choice.strip()}); choose one "
                              "reading", acol)
                file_ds[did] = choice.strip()
                continue
            if word == ".stream":
                if arg.startswith('"'):  # a JSON string: a name the bare form cannot hold (stream_directive)
                    try:
                        name = json.loads(arg)
                    except ValueError:
                        name = None
                    if not isinstance(name, str) or not name:
                        raise err(f".stream needs a stream name like dve or a JSON string, got {arg!r}", acol)
                    arg = name
                elif not re.fullmatch(r"[A-Za-z0-9_.-]+", arg):
                    raise err(f".stream needs a stream name like dve (or a JSON string), got {arg!r}", acol)
                try:  # the stream is written as NAME.bin: the one rule for output names
                    check_output_name(f"{arg}.bin", f".stream name {arg!r}")
                except TongasmError as e:
                    raise err(str(e), acol) from None
                current = arg
                prog.streams.setdefault(current, bytearray())
                continue
            if word in (".var", ".act_sets"):
                _neff_directive(prog, word, arg, lambda m, c=acol: err(m, c))
                continue
            if word != ".bytes":
                raise err(f"unknown directive {word!r} (.target, .decision, .stream, .bytes, .var, .act_sets)", col0)
        # instructions and .bytes: settle the decisions first
        if fs is None:
            try:
                ds = decisions if decisions is not None else DecisionSet.of(file_ds)
            except TongasmError as e:
                raise err(str(e), 0) from None
            prog.decisions = ds
            if target is not None:
                prog.target = target if isinstance(target, Target) else TARGETS[target]
                prog.target_from = "argument"
            fs = build_formats(ds)
            table = mnemonic_table(fs)
        seen_instruction = True
        if current is None:
            raise err("no .stream directive before the first bundle (add a line like '.stream dve')", col0)
        try:
            bundle = _instruction(line, prog, table, err)
        except TextSyntaxError as e:
            errors.append(e)
            if len(errors) >= MAX_ERRORS:
                raise TextSyntaxErrors(errors, more=True) from None
            continue
        prog.streams[current] += bundle
        prog.line_of.setdefault(current, []).append(lineno)
        note = raw_line[len(_strip_comment(raw_line)) + 1:].strip()
        prog.comment_of.setdefault(current, []).append(note or None)
    if target is not None and prog.target_from != "argument":  # a listing of directives only
        prog.target = target if isinstance(target, Target) else TARGETS[target]
        prog.target_from = "argument"
    if errors:  # the lines that did assemble go with the error (``asm`` still checks them)
        failure = errors[0] if len(errors) == 1 else TextSyntaxErrors(errors)
        failure.partial = prog
        raise failure
    return prog


def _instruction(line: str, prog: TextProgram, table: dict[str, tuple[int, str]] | None,
                 err: Callable[[str, int], TextSyntaxError]) -> bytes:
    """The 64 bytes of one instruction or ``.bytes`` line (comment already stripped)."""
    m = _PREFIX.match(line)
    body_col = m.end() if m else 0
    body = line[body_col:]
    if body.startswith(".bytes"):
        hexs = re.sub(r"\s+", "", body[len(".bytes"):])
        if not re.fullmatch(r"[0-9a-fA-F]*", hexs) or len(hexs) != 2 * BUNDLE_SIZE:
            raise err(f".bytes needs exactly {BUNDLE_SIZE} bytes of hex ({2 * BUNDLE_SIZE} digits), "
                      f"got {len(hexs)} digits", body_col)
        return bytes.fromhex(hexs)
    word_m = re.match(r"[A-Za-z][A-Za-z0-9_.]*", body)
    if not word_m:
        raise err(f"expected a mnemonic, got {body.strip()[:20]!r}", body_col)
    mnem = word_m.group(0)
    assert table is not None
    entry = table.get(mnem.lower())
    if entry is None:
        close = [k for k in table if k.split(".")[0] == mnem.lower().split(".")[0]]
        hint = f" (this opcode has layouts: {', '.join(close)})" if close else ""
        raise err(f"unknown mnemonic {mnem!r}{hint}", body_col)
    opcode, fmt = entry[0], build_formats(prog.decisions).by_name[entry[1]]  # compiled on first use
    ops_col = body_col + word_m.end()
    long = _LONG_NUMBER.search(body, word_m.end())
    if long:
        raise err(f"a number of {long.end() - long.start()} digits is too long (at most {_MAX_DIGITS}; no "
                  "field is that wide)", body_col + long.start())
    try:
        bundle = parse_operands(fmt, opcode, body[word_m.end():], prog.decisions, ops_col)
    except ParseError as e:
        raise err(e.detail, e.col) from None
    return bundle


def assemble_file(path: str | Path, **kw: object) -> TextProgram:
    from ..io.inputs import read_text

    p = Path(path)
    return assemble_text(read_text(p), path=str(p), **kw)  # type: ignore[arg-type]
