"""Instruction templates: assembling a streamed kernel's repeated instruction shapes without reading them.

A compiled kernel is a few hundred instruction shapes repeated with other names, operand offsets,
immediates and sync bands (unrolled tile loops). The first instruction of a shape is read, lowered,
encoded and checked the ordinary way; its JSON *text* then becomes a :class:`Template` of its
function: the text as a regular expression whose holes are the instruction's ``name``, each
operand's integer ``offset`` and numeric ``value`` (an immediate), and the ``sync`` object (for a
one-bundle instruction the whole ``,"sync": {...}`` member may be missing). A later instruction of
the same function whose text matches is assembled from the template, without JSON parsing, IR
objects or plan look-ups:

* The offsets that, in the template's instruction, reach the bundles only as the ADDR4 word of a
  D-6 (``free-dims``) slot are *placed*; the immediates and the other offsets form a *key*. Per key,
  a :class:`Variant` holds the bundles' bits with the placed offsets' words cleared; an instruction
  gets its bundles by putting in each placed offset's word (:func:`tongasm.codegen.common.addr4_word`,
  the encoder's own rule) and its sync band's bits (:func:`tongasm.codegen.common.sync_part`).
* A key seen for the first time, or one whose variant cannot be placed (a lowering that makes its
  own operands, a lowered instruction's sync band), goes the ordinary way from the template's IR
  with the holes' values (:meth:`Template.instruction`): encode and checks, no JSON reading.

Why this is exact:

* The text matches the template's character for character outside the holes, and each hole is one
  JSON token of a fixed grammar (a string; an integer without sign, fraction or exponent; an
  integer or a float as JSON reads them; an object nested at most three deep, parsed for real the
  first time its text is seen). So the instruction reads to the template's IR with the holes'
  values: the same keys (no duplicates: the template's text was read with them refused), the same
  values of the same types, in the same function (the names mean the same locations and registers).
* An offset is placed only where the encoder's own structure says what it does: the operand is a
  physical access pattern used once in the instruction, and in every bundle it sits in a D-6 slot
  of a role whose geometry reaches the bundle only through its binding (the encoder keys such roles
  without their geometry), so its offset changes that slot's ADDR4 word and nothing else. An offset
  whose word the rule cannot vouch for (off the ADDR4 ranges) sends the instruction the ordinary
  way, which raises the exact error.
* IR checks: a variant is made only from an instruction without findings. The checks whose findings
  may depend on offsets (``IrCheck.offsets``) run again on each instruction of the variant (on its
  rebuilt IR); any finding sends it the ordinary way. Bundle checks run over the finished streams.
* A sync band is placed only in a one-bundle instruction; a band that does not read or encode sends
  the instruction the ordinary way, which says why.

tests/test_templates.py holds the streams, manifest and findings equal to reading every instruction,
on random kernels (layouts, names, immediates, offsets off the ADDR4 ranges, sync bands, findings),
and every error the same.
"""

from __future__ import annotations

import json
import operator
import re
from dataclasses import fields
from typing import Any, NamedTuple
from collections.abc import Callable, Mapping

from ..errors import TongasmError
from ..ir.bir_json import sync_from_json, loads
from ..ir.instructions import Instruction
from ..ir.operands import Immediate, PhysicalAP, SyncInfo
from ..ir.stream_reader import RawInstruction
from ..isa.fields import BUNDLE_SIZE
from .common import Addr4Rule, addr4_rule, addr4_word

# --- the holes' grammars -------------------------------------------------------------------------

_STR = r'"(?:[^"\\\x00-\x1f]++|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*+"'
_INT = r"(?:0|[1-9][0-9]{0,17})"  # an offset: JSON's integer without a sign, short enough for int()
_V0 = rf'(?:{_STR}|[^{{}}\[\]"]++)*+'
_V1 = rf'(?:{_STR}|[^{{}}\[\]"]++|\{{{_V0}\}}|\[{_V0}\])*+'
_V2 = rf'(?:{_STR}|[^{{}}\[\]"]++|\{{{_V1}\}}|\[{_V1}\])*+'
_OBJ3 = rf"\{{{_V2}\}}"  # a brace-balanced text nested at most three deep (a sync band); parsed for real
_SINT = r"-?(?:0|[1-9][0-9]{0,17})"  # an integer immediate
_FLOAT = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+(?:[eE][-+]?[0-9]+)?|[eE][-+]?[0-9]+)"  # a number JSON reads as a float
HOLE_PATTERN = {"name": _STR, "offset": _INT, "sync": _OBJ3, "int": _SINT, "float": _FLOAT}
_INT_RE = re.compile(_INT + r"\Z")
_SINT_RE = re.compile(_SINT + r"\Z")
_FLOAT_RE = re.compile(_FLOAT + r"\Z")

#: one JSON token (after whitespace): a string, a structural character, or a scalar
_TOKEN = re.compile(r'[ \t\n\r]*(?:(' + _STR + r')|([{}\[\],:])|(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?'
                    r'(?:[eE][-+]?[0-9]+)?|true|false|null))')

Hole = tuple[int, int, str, Any]  # (start, end, kind, what: None / (out, k) of the operand)


def find_holes(text: str) -> list[Hole] | None:
    """The candidate holes of one instruction's JSON text, in text order: the instruction's
    ``name`` string, its ``sync`` object, and of each operand object in its ``ins``/``outs`` arrays
    the integer ``offset`` and a numeric ``value`` (``int`` or ``float``, as JSON reads it). None
    when the text is not one JSON object this tokenizer follows."""
    holes: list[Hole] = []
    # stack entries: [opener, key (objects), index (arrays), tag, start]
    stack: list[list[Any]] = []
    expect_key = False
    i, n = 0, len(text)
    while i < n:
        m = _TOKEN.match(text, i)
        if m is None:
            return None
        string, punct, scalar = m.groups()
        start = m.start(m.lastindex or 0)
        i = m.end()
        top = stack[-1] if stack else None
        if punct == ":":
            continue
        if punct == ",":
            if top is None:
                return None
            if top[0] == "[":
                top[2] += 1
            else:
                expect_key = True
            continue
        if punct in ("}", "]"):
            if top is None:
                return None
            stack.pop()
            if top[3] == "sync":
                holes.append((top[4], i, "sync", None))
            expect_key = False
            if not stack:
                return holes if not text[i:].strip() else None
            continue
        if string is not None and expect_key:
            assert top is not None
            top[1] = json.loads(string) if "\\" in string else string[1:-1]
            expect_key = False
            continue
        # a value: what holds it decides whether it is a hole
        tag = top[3] if top is not None else None
        key = top[1] if top is not None and top[0] == "{" else None
        if punct in ("{", "["):
            new_tag: Any = None
            if top is None:
                new_tag = "inst" if punct == "{" else None
            elif tag == "inst" and key == "sync" and punct == "{":
                new_tag = "sync"
            elif tag == "inst" and key in ("ins", "outs") and punct == "[":
                new_tag = ("ops", key == "outs")
            elif isinstance(tag, tuple) and tag[0] == "ops" and punct == "{":
                new_tag = ("op", tag[1], top[2])
            stack.append([punct, None, 0, new_tag, start])
            expect_key = punct == "{"
            continue
        if top is None:
            return None
        if tag == "inst" and key == "name" and string is not None:
            holes.append((start, i, "name", None))
        elif isinstance(tag, tuple) and tag[0] == "op" and key == "offset" and scalar is not None \
                and _INT_RE.match(scalar):
            holes.append((start, i, "offset", (tag[1], tag[2])))
        elif isinstance(tag, tuple) and tag[0] == "op" and key == "value" and scalar is not None:
            if _SINT_RE.match(scalar):
                holes.append((start, i, "int", (tag[1], tag[2])))
            elif _FLOAT_RE.match(scalar):
                holes.append((start, i, "float", (tag[1], tag[2])))
    return None


# --- templates -------------------------------------------------------------------------------------

class LinearRule(NamedTuple):
    """An offset that reaches a bundle as a field holding ``offset × scale`` (a family's
    :attr:`~tongasm.codegen.plan.Family.offset_fields`): the field's values are ``0..hi`` (its mask)."""

    scale: int
    hi: int


#: how an offset's word is made: the ADDR4 word of a D-6 slot, or a field holding offset × scale
Rule = Addr4Rule | LinearRule
#: where an operand's offset reaches the bundle other than through the binding, per family: (instruction,
#: layout) → {role: (field, scale)} (:attr:`tongasm.codegen.plan.Family.offset_fields`)
OffsetFields = Callable[[Instruction, Any], Mapping[str, tuple[str, int]]]
#: per bundle of a template: (stream id, stream, bits with the hole slots' words cleared,
#: ((offset hole number, bit position, rule), ...), part, parts, label (a lowered part's; else 0))
PartT = tuple[int, bytearray, int, tuple[tuple[int, int, Rule], ...], int, int, Any]
#: where an offset reaches a bundle: (bundle, bit position, field mask, rule)
Use = tuple[int, int, int, Rule]
#: what the ordinary path made of one bundle: (the part's instruction, its layout, its bits without
#: the sync band, the sync band's bits, stream id, stream, label (a lowered part's; else 0))
Made = tuple[Instruction, Any, int, int, int, bytearray, Any]


class Template:
    """One instruction shape (see the module's docstring).

    Its operand holes are offsets and immediate values. The offsets that reach the bundles only
    through ADDR4 words of D-6 slots (in the first instruction of the shape) are *placed*; the
    others (an offset outside a D-6 slot, MoveShape's, TensorLoad's) and the immediates make the
    *key* of a variant. Per key the bundles are placed: the variant's bits with the placed offsets'
    ADDR4 words put in (:attr:`Variant.make`). A variant that cannot be (its offsets reach the bundles
    another way, a lowering makes its own operands, a lowered instruction's sync band) is *cloned*:
    the template's IR with the holes' values (:meth:`instruction`) goes the ordinary way (encode and
    checks), without reading JSON."""

    __slots__ = ("rx", "name_at", "sync_at", "values_at", "offsets", "imm_at", "placed", "key_at", "key_of",
                 "sync_keyed", "inst", "variants", "scope")

    def __init__(self, rx: re.Pattern[str], kinds: list[tuple[str, Any]], inst: Instruction, scope: Any) -> None:
        self.rx = rx
        #: the reader's name tables of the template's function: its names mean those locations and registers
        self.scope = scope
        self.name_at = next(g for g, (k, _w) in enumerate(kinds) if k == "name")
        self.sync_at = next((g for g, (k, _w) in enumerate(kinds) if k == "sync"), -1)
        #: per operand hole: (regex group, (out, k), field, int or float)
        self.values_at = tuple((g, w, "offset" if k == "offset" else "value", float if k == "float" else int)
                               for g, (k, w) in enumerate(kinds) if k in ("offset", "int", "float"))
        self.offsets = tuple((g, w) for g, (k, w) in enumerate(kinds) if k == "offset")  # (group, (out, k))
        self.imm_at = tuple(g for g, (k, _w) in enumerate(kinds) if k in ("int", "float"))
        self.placed: tuple[tuple[int, tuple[bool, int]], ...] = ()  # the placed offsets (set by the first variant)
        self.key_at: tuple[int, ...] = self.imm_at  # the regex groups of a variant's key
        self.key_of: Callable[[tuple[str, ...]], Any] = _key_of(self.key_at)  # groups → the key
        self.sync_keyed = False  # the sync band's text is part of the key (a lowered instruction's)
        self.inst = inst  # the template's own instruction
        #: key → its placed variant, or None (cloned)
        self.variants: dict[tuple[str, ...], Variant | None] = {}

    def instruction(self, groups: tuple[str, ...], name: str, sync: SyncInfo | None) -> Instruction:
        """The template's instruction with the holes' values (what reading the text would give)."""
        inst = self.inst
        ins, outs = list(inst.ins), list(inst.outs)
        for g, (out, k), fieldname, kind in self.values_at:
            group = outs if out else ins
            op = group[k]
            group[k] = _replacer(type(op), (fieldname,))(op, kind(groups[g]))
        return _replacer(type(inst), ("name", "ins", "outs", "sync"))(
            inst, name, tuple(ins), tuple(outs), sync if self.sync_at >= 0 else inst.sync)

    def add_variant(self, groups: tuple[str, ...], inst: Instruction, parts: list[Made], bid: int,
                    geometry: Callable[[Instruction], frozenset[str]], offset_checks: tuple[tuple[int, Any], ...],
                    offset_fields: Callable[[Instruction], OffsetFields | None] | None = None) -> None:
        """Record the variant of an instruction of this shape made the ordinary way without findings
        (its regex groups ``groups``). The first one decides which offsets are placed. ``geometry``:
        an instruction's roles whose geometry reaches the bundle only through the binding;
        ``offset_fields``: an instruction's family's :attr:`~tongasm.codegen.plan.Family.offset_fields`."""
        if not self.variants:
            self.placed = tuple((g, w) for g, w in self.offsets
                                if _placeable(inst, w, parts, geometry, offset_fields))
            placed = {g for g, _w in self.placed}
            # a lowered instruction's sync band is in its variant (the lowering says which bundle gets what)
            self.sync_keyed = self.sync_at >= 0 and len(parts) > 1
            self.key_at = tuple(sorted(self.imm_at + tuple(g for g, _w in self.offsets if g not in placed) +
                                       ((self.sync_at,) if self.sync_keyed else ())))
            self.key_of = _key_of(self.key_at)
        if len(self.variants) >= VARIANTS:
            return
        self.variants[self.key_of(groups)] = _placed(self, inst, parts, bid, geometry, offset_checks, offset_fields)


def _key_of(at: tuple[int, ...]) -> Callable[[tuple[str, ...]], Any]:
    """groups → a variant key: the groups at ``at`` (one group: its text; none: ``""``)."""
    if not at:
        return lambda _g: ""
    return operator.itemgetter(*at)


_REPLACERS: dict[tuple[type, tuple[str, ...]], Callable[..., Any]] = {}


def _replacer(cls: type, names: tuple[str, ...]) -> Callable[..., Any]:
    """``dataclasses.replace(obj, **dict(zip(names, values)))`` for dataclass ``cls``, as one
    generated constructor call (``replace`` itself is several times slower)."""
    fn = _REPLACERS.get((cls, names))
    if fn is None:
        init = [f.name for f in fields(cls) if f.init]
        assert set(names) <= set(init), (cls, names)
        args = ", ".join(f"v{names.index(f)}" if f in names else f"o.{f}" for f in init)
        ns: dict[str, Any] = {"C": cls}
        exec(f"def rebuild(o, {', '.join(f'v{i}' for i in range(len(names)))}):\n    return C({args})\n", ns)
        fn = _REPLACERS[(cls, names)] = ns["rebuild"]
    return fn


class Variant:
    """A placed variant of a template: its bundles' bits, where each placed offset's ADDR4 word goes,
    and :attr:`make`, generated from them: ``make(groups, sync_bits)`` → the bundles, or None for an
    offset whose word the ordinary path must make (to raise its error)."""

    __slots__ = ("bid", "parts", "one", "sync_fmt", "sp_op", "checks", "make")

    def __init__(self, bid: int, parts: list[PartT], sync_fmt: Any, sp_op: bool,
                 checks: tuple[tuple[int, Any], ...], placed: tuple[tuple[int, tuple[bool, int]], ...]) -> None:
        self.bid = bid  # the BIR opcode id in the bundle log
        self.parts = parts
        self.one = (parts[0][0], parts[0][1]) if len(parts) == 1 else None  # (stream id, stream) of a single bundle
        # the layout a sync band's bits are placed in per instruction (None: they are in the bits), and
        # whether it is an SP op's
        self.sync_fmt, self.sp_op = sync_fmt, sp_op
        self.checks = checks  # the IR checks to run again per instruction: (-1 the instruction, or its part, checks)
        shape = (tuple(grp for grp, _w in placed), tuple(tuple((h, pos) for h, pos, _r in uses)
                                                           for _s, _st, _b, uses, *_r in parts))
        consts = [c for _s, _st, bits, uses, *_r in parts
                  for c in (bits, *(c for _h, _pos, rule in uses for c in (rule, _word_fn(rule), _memo_of(rule))))]
        self.make: Callable[[tuple[str, ...], int], tuple[bytes, ...] | None] = _maker(shape)(*consts)


_MAKERS: dict[Any, Callable[..., Any]] = {}


def _maker(shape: tuple[tuple[int, ...], tuple[tuple[tuple[int, int], ...], ...]]) -> Callable[..., Any]:
    """A factory of ``make`` functions for variants of one shape (the regex groups of the placed
    offsets; per bundle, per use: offset number and bit position), generated once per shape; a
    variant gives it its constants (per bundle: its bits, then each use's rule, word function and
    memo). Each use's words are memoised on the offset's text, in one memo per rule (:func:`_memo_of`:
    the word depends on the rule and the offset only, so the uses of a tensor's tiles share it); the
    word function on a miss: :func:`_word_of` for an ADDR4 word, :func:`_linear_word_of` for a field
    holding offset × scale."""
    fn = _MAKERS.get(shape)
    if fn is None:
        placed, parts = shape
        params: list[str] = []
        body = [f"        t{h} = g[{grp}]" for h, grp in enumerate(placed)]
        made = []
        for p, uses in enumerate(parts):
            params.append(f"B{p}")
            terms = [f"B{p}", "sb"]
            for k, (h, pos) in enumerate(uses):
                params += [f"R{p}_{k}", f"W{p}_{k}", f"M{p}_{k}"]
                body += [f"        w{p}_{k} = M{p}_{k}.get(t{h})",
                         f"        if w{p}_{k} is None:",
                         f"            w{p}_{k} = W{p}_{k}(R{p}_{k}, M{p}_{k}, t{h})",
                         f"            if w{p}_{k} is None: return None"]
                terms.append(f"(w{p}_{k} << {pos})")
            made.append(f"({' | '.join(terms)}).to_bytes({BUNDLE_SIZE}, 'little')")
        lines = [f"def factory({', '.join(params)}):", "    def make(g, sb):", *body,
                 f"        return ({', '.join(made)},)", "    return make"]
        ns: dict[str, Any] = {}
        exec(compile("\n".join(lines) + "\n", "<tongasm template variant>", "exec"), ns)
        fn = _MAKERS[shape] = ns["factory"]
    return fn


def _word_of(rule: Addr4Rule, memo: dict[str, int], token: str) -> int | None:
    """The ADDR4 word of an offset's text under ``rule`` (:func:`addr4_word`), remembered in ``memo``."""
    w = addr4_word(rule, int(token))
    if w is not None:
        if len(memo) >= 1 << 14:
            memo.clear()
        memo[token] = w
    return w


def _linear_word_of(rule: LinearRule, memo: dict[str, int], token: str) -> int | None:
    """The value of a field holding offset × scale for an offset's text (None off the field's range:
    the ordinary path raises the field's error), remembered in ``memo``."""
    w = int(token) * rule.scale
    if w > rule.hi:
        return None
    if len(memo) >= 1 << 14:
        memo.clear()
    memo[token] = w
    return w


def _word_fn(rule: Rule) -> Callable[..., int | None]:
    return _linear_word_of if type(rule) is LinearRule else _word_of


#: rule → its words by offset text (shared by every use of the rule; at most this many rules are kept)
_MEMOS: dict[Rule, dict[str, int]] = {}
MEMO_RULES = 4096


def _memo_of(rule: Rule) -> dict[str, int]:
    memo = _MEMOS.get(rule)
    if memo is None:
        if len(_MEMOS) >= MEMO_RULES:
            _MEMOS.clear()  # (variants made before keep theirs)
        memo = _MEMOS[rule] = {}
    return memo


#: at most this many variants (keys) per template
VARIANTS = 4096


def _own_operands(inst: Instruction, parts: list[Made]) -> dict[int, int] | None:
    """How often each operand object appears in ``inst``; None when a part (a lowering) has access
    patterns of its own, which it may have derived from an offset."""
    by_id: dict[int, int] = {}
    for group in (inst.ins, inst.outs):
        for op in group:
            by_id[id(op)] = by_id.get(id(op), 0) + 1
    if any(type(o) is PhysicalAP and id(o) not in by_id for x, *_r in parts for g in (x.ins, x.outs) for o in g):
        return None
    return by_id


def _placeable(inst: Instruction, where: tuple[bool, int], parts: list[Made],
               geometry: Callable[[Instruction], frozenset[str]],
               offset_fields: Callable[[Instruction], OffsetFields | None] | None = None) -> bool:
    by_id = _own_operands(inst, parts)
    op = (inst.outs if where[0] else inst.ins)[where[1]]
    return by_id is not None and type(op) is PhysicalAP and op.location is not None and by_id[id(op)] == 1 and \
        _slots_of(op, parts, geometry, offset_fields) is not None


def _placed(t: Template, inst: Instruction, parts: list[Made], bid: int,
            geometry: Callable[[Instruction], frozenset[str]], offset_checks: tuple[tuple[int, Any], ...],
            offset_fields: Callable[[Instruction], OffsetFields | None] | None = None) -> Variant | None:
    if t.sync_at >= 0 and len(parts) > 1 and not t.sync_keyed:
        return None  # a lowering places the band, and it is not in the key: cloned
    by_id = _own_operands(inst, parts)
    if by_id is None:
        return None
    uses: list[list[tuple[int, int, int, Rule]]] = [[] for _ in parts]
    for h, (_g, (out, k)) in enumerate(t.placed):
        op = (inst.outs if out else inst.ins)[k]
        found = None if type(op) is not PhysicalAP or op.location is None or by_id[id(op)] != 1 else \
            _slots_of(op, parts, geometry, offset_fields)
        if found is None:
            return None
        for p, pos, mask, rule in found:
            uses[p].append((h, pos, mask, rule))
    tparts: list[PartT] = []
    for p, (_x, _fmt, bits, sync_bits, sid, stream, label) in enumerate(parts):
        clear = 0
        for _h, pos, mask, _rule in uses[p]:
            clear |= mask << pos
        base = bits & ~clear
        if t.sync_at < 0 or t.sync_keyed:
            base |= sync_bits  # (else the sync hole's bits are placed per instruction)
        tparts.append((sid, stream, base, tuple((h, pos, rule) for h, pos, _m, rule in uses[p]), p, len(parts), label))
    return Variant(bid, tparts, None if t.sync_keyed else parts[0][1], parts[0][0].FAMILY == "sp", offset_checks,
                   t.placed)


#: the instruction's name key and value, and after it the first key that may hold a hole
_NAME_KV = re.compile(r'"name"[ \t\n\r]*:[ \t\n\r]*' + _STR)
_NEXT_HOLE = re.compile(r'"(?:offset|value|sync)"')


class Templates:
    """The templates of one assembly, each for the function it was made in (its names mean that
    function's locations and registers). The next template tried is the one that followed the last
    one matched (unrolled loops repeat), then the others of the function with the same text around
    the name (up to the first offset, value or sync key after it), most recently matched first."""

    #: at most this many templates share their text around the name (then no more are made)
    BUCKET = 32
    #: successors remembered per template (tried before the bucket)
    SUCCESSORS = 3
    #: at most this many templates in all; past TRIAL of them, only while they are matched
    LIMIT = 4096
    TRIAL = 256

    def __init__(self) -> None:
        self.by_head: dict[tuple[Any, str, str], list[Template]] = {}  # see _bucket
        self.follow: dict[Template | None, list[Template]] = {}
        self.syncs: dict[str, SyncInfo] = {}
        self.made = 0  # templates made

    @staticmethod
    def _bucket(raw: RawInstruction) -> tuple[Any, str, str] | None:
        """(the function's name tables, the text before ``"name"``, the text after the name up to
        the first key that may hold a hole), or None when the name is not near the start."""
        text, at = raw.text, raw.start
        cut = text.find('"name"', at, at + 200)
        if cut < 0:
            return None
        m = _NAME_KV.match(text, cut)
        if m is None:
            return None
        e = m.end()
        n = _NEXT_HOLE.search(text, e, e + 400)
        return raw.ctx, text[at:cut], text[e:n.start() if n is not None else e]

    def find(self, raw: RawInstruction, prev: Template | None) -> tuple[Template, re.Match[str]] | None:
        """The template the instruction at ``raw.start`` matches, and the match."""
        text, at = raw.text, raw.start
        nexts = self.follow.get(prev)
        if nexts is not None:
            for i, t in enumerate(nexts):
                if t.scope is raw.ctx:
                    m = t.rx.match(text, at)
                    if m is not None:
                        if i:
                            nexts.insert(0, nexts.pop(i))
                        return t, m
        key = self._bucket(raw)
        cands = self.by_head.get(key) if key is not None else None
        if cands:
            for i, c in enumerate(cands):
                if nexts is not None and c in nexts:
                    continue
                m = c.rx.match(text, at)
                if m is not None:
                    if i:
                        cands.insert(0, cands.pop(i))
                    self._followed(prev, c)
                    return c, m
        return None

    def _followed(self, prev: Template | None, t: Template) -> None:
        """Remember that ``t`` came after ``prev`` (the few most recent successors, newest first)."""
        nexts = self.follow.setdefault(prev, [])
        nexts.insert(0, t)
        del nexts[self.SUCCESSORS:]

    def wants(self, raw: RawInstruction, hits: int) -> bool:
        """Whether a template may be made of the instruction at ``raw.start``: its bucket has room,
        there are fewer than :attr:`LIMIT` templates, and past :attr:`TRIAL` templates they have been
        matched at least twice as often as made (a kernel that does not repeat itself is read the
        ordinary way, without the cost of making templates nobody uses)."""
        if self.made >= self.LIMIT or (self.made >= self.TRIAL and hits < 2 * self.made):
            return False
        key = self._bucket(raw)
        return key is not None and len(self.by_head.get(key, ())) < self.BUCKET

    def sync(self, text: str, raw: RawInstruction) -> SyncInfo | None:
        """The sync band of its JSON text, as the reader reads it (None: the reader refuses it; the
        ordinary path says why)."""
        hit = self.syncs.get(text)
        if hit is None:
            try:
                hit = sync_from_json(loads(text), f"{raw.path}.sync", raw.ctx)
            except TongasmError:
                return None
            if len(self.syncs) >= 1 << 16:
                self.syncs.clear()
            self.syncs[text] = hit
        return hit

    def add(self, t: Template, raw: RawInstruction, prev: Template | None) -> None:
        key = self._bucket(raw)
        if key is not None:
            self.by_head.setdefault(key, []).insert(0, t)
        self._followed(prev, t)
        self.made += 1


def make_template(raw: RawInstruction, inst: Instruction, bundles: int) -> Template | None:
    """The template of an instruction read the ordinary way, of ``bundles`` bundles (None: its text
    is not one the templates follow). Its variants are added by :meth:`Template.add_variant`."""
    text = raw.text[raw.start:raw.end]
    holes = find_holes(text)
    if holes is None:
        return None
    ops = (inst.ins, inst.outs)
    kept: list[Hole] = []
    kinds: list[tuple[str, Any]] = []
    for h in holes:
        start, stop, kind, what = h
        token = text[start:stop]
        if kind == "name":
            if (json.loads(token) if "\\" in token else token[1:-1]) != inst.name:
                return None
        elif kind == "sync":
            if inst.sync is None:
                return None
        else:
            out, k = what
            if k >= len(ops[out]):
                return None
            op = ops[out][k]
            if kind == "offset":
                if type(op) is not PhysicalAP or op.offset != int(token):
                    continue  # stays literal text
            else:
                want = float if kind == "float" else int
                if type(op) is not Immediate or type(op.value) is not want or op.value != want(token):
                    continue
        kept.append(h)
        kinds.append((kind, what))
    if not any(k == "name" for k, _w in kinds):
        return None
    pieces: list[str] = []
    at = 0
    for start, stop, kind, _what in kept:
        lead = _SYNC_MEMBER.search(text, at, start) if kind == "sync" and bundles == 1 else None
        if lead is not None and lead.end() == start:
            # ',"sync": {...}' may be left out: the same instruction without a sync band (which
            # changes nothing else: one bundle's band bits are placed per instruction, no check reads it)
            pieces += (re.escape(text[at:lead.start()]), f"(?:{re.escape(lead.group())}({HOLE_PATTERN[kind]}))?")
        else:
            pieces += (re.escape(text[at:start]), f"({HOLE_PATTERN[kind]})")
        at = stop
    pieces.append(re.escape(text[at:]))
    return Template(re.compile("".join(pieces)), kinds, inst, raw.ctx)


#: the text before a ``sync`` member's value when it is not the object's first member
_SYNC_MEMBER = re.compile(r',[ \t\n\r]*"sync"[ \t\n\r]*:[ \t\n\r]*')


def _slots_of(op: PhysicalAP, parts: list[Made], geometry: Callable[[Instruction], frozenset[str]],
              offset_fields: Callable[[Instruction], OffsetFields | None] | None = None) -> list[Use] | None:
    """Where ``op``'s offset reaches the bundles: each D-6 slot it fills, and each field its family
    says holds offset × scale (and nothing else reads the offset: ``offset_fields``); None when it
    reaches them any other way (then it is not placed)."""
    found: list[Use] = []
    for p, (x, fmt, *_rest) in enumerate(parts):
        roles = type(x).ROLES
        binding = fmt.layout.binding
        geo = geometry(x)
        slot_of = {role: s for s, role in binding.slots.items()}
        for out, group in ((False, x.ins), (True, x.outs)):
            for k, o in enumerate(group):
                if o is not op:
                    continue
                role = next((r for r, at in roles.items() if at == (out, k)), None)
                if role is None:
                    return None
                if role not in geo:
                    fields_of = offset_fields(x) if offset_fields is not None else None
                    lin = fields_of(x, fmt).get(role) if fields_of is not None else None
                    if lin is None:
                        return None
                    fname, scale = lin
                    pos, lo, hi, mask = fmt.placement(fname)
                    if lo != 0 or hi != mask or type(scale) is not int or scale < 1:
                        return None  # (a field of another kind: not placed)
                    found.append((p, pos, mask, LinearRule(scale, hi)))
                    continue
                sname = slot_of.get(role)
                if sname is None or sname not in fmt.slots:
                    continue  # no slot of this layout encodes the role (or a decision dropped it, D-15)
                s = fmt.slots[sname]
                if s.packing != "free-dims":
                    return None
                pos, _lo, _hi, mask = fmt.placement(f"{sname}.addr")
                found.append((p, pos, mask, addr4_rule(op, fmt, s)))
    return found
