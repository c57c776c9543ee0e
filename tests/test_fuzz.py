"""Fuzzing (issue 6): whatever the input, tongasm gives a result or one of its own errors.

Four entry points are fed random and mutated inputs: the bundle decoder (``decode_bundle``,
``iter_stream``, ``decode_stream``, and the listings built on them), the text assembler
(``assemble_text``), the BIR JSON readers (``read_bir`` in memory, ``stream_bir`` on a file) followed
by ``assemble(..., check="warn")``, and the command line on garbage files. Any exception that is not
a :class:`~tongasm.errors.TongasmError` fails the test, so does a hang (each call runs under a
time limit) or an output file left behind by a failed command.

Mutations start from legal inputs (bundles and listings of the golden vectors and of random field
values, ``examples/vector_add.json``, kernels from :class:`~tongasm.ir.builder.KernelBuilder`) so that
they reach deep into each parser instead of failing on the first byte. Every test is bounded to a
few seconds (``max_examples``, small inputs, derandomized). The atheris harnesses in ``fuzz/`` fuzz
the same entry points for as long as one likes; the last tests here run each harness's
``TestOneInput`` over its seed corpus so that they keep working.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import shutil
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import load_file, time_limit
from strategies import format_and_values
from tongasm.codegen import check_kernel
from tongasm.cli import main as cli_main
from tongasm.codegen import assemble
from tongasm.decode import DecodeFailure, decode_bundle, iter_stream
from tongasm.decode.batch import decode_stream
from tongasm.errors import TongasmError
from tongasm.ir import read_bir
from tongasm.ir.stream_reader import stream_bir
from tongasm.isa import DecisionSet, each_reading
from tongasm.passes import program as program_pass
from tongasm.text import StreamInput, TextSyntaxError, assemble_file, assemble_text, listing
from tongasm.text.fast import fast_listing

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "vector_add.json"
VECTORS = sorted((ROOT / "tests" / "golden" / "vectors").glob("**/*.json"))
LISTINGS = sorted((ROOT / "tests" / "golden" / "listings").glob("**/*.s"))
READINGS = each_reading()

SETTINGS = dict(deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])


@contextlib.contextmanager
def capped_unrolling(limit: int = 2000) -> Iterator[None]:
    """A mutated loop bound makes a legal but huge kernel; keep it to a refusal instead of minutes of work."""
    old, program_pass.MAX_INSTRUCTIONS = program_pass.MAX_INSTRUCTIONS, limit
    try:
        yield
    finally:
        program_pass.MAX_INSTRUCTIONS = old


def outcome(fn: Callable[[], Any], what: str, seconds: float = 10.0) -> tuple[Any, TongasmError | None]:
    """``(result, None)``, or ``(None, error)`` for a TongasmError; anything else propagates (a bug)."""
    try:
        with time_limit(seconds, what):
            return fn(), None
    except TongasmError as e:
        assert str(e), f"{what}: {type(e).__name__} with an empty message"
        return None, e


# --- seeds --------------------------------------------------------------------------------------------


def load_harness(name: str) -> Any:
    """Import fuzz/<file>.py by path (not as __main__, so it neither instruments nor starts atheris)."""
    return load_file(ROOT / "fuzz" / f"{name}.py", f"tongasm_fuzz_{name}")


def _builder_kernels() -> list[dict[str, Any]]:
    """The builder kernels the seed corpus starts from (one definition, in fuzz/make_corpus.py)."""
    return [json.loads(text) for text in load_harness("make_corpus").builder_kernels()]


def _vector_cases() -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in VECTORS]


KERNELS: list[dict[str, Any]] = [json.loads(EXAMPLE.read_text()), *_builder_kernels(),
                                 *[c["kernel"] for c in _vector_cases()]]


def _legal_streams() -> list[tuple[DecisionSet, bytes]]:
    out = []
    for case in [{"kernel": k} for k in KERNELS[:3]] + _vector_cases():
        ds = DecisionSet.parse(case.get("decisions") or [])
        try:
            asm = assemble(read_bir(case["kernel"]), target=case.get("target"), decisions=ds, check="warn")
        except TongasmError:
            continue
        out += [(ds, bytes(s)) for s in asm.streams.values() if s]
    return out


STREAMS = _legal_streams()
BUNDLES = sorted({(ds, s[i:i + 64]) for ds, s in STREAMS for i in range(0, len(s), 64)},
                 key=lambda x: (x[0].describe(), x[1]))
GOLDEN_TEXT = [p.read_text() for p in LISTINGS]


def test_the_seeds_are_there() -> None:
    assert len(STREAMS) > 50 and len(BUNDLES) > 100 and len(GOLDEN_TEXT) > 50 and len(KERNELS) > 100
    assert len({b[0] for _, b in BUNDLES}) >= 14  # most opcodes with a layout


# --- (a) the decoder ----------------------------------------------------------------------------------


@st.composite
def mutated(draw: st.DrawFn, data: bytes, max_edits: int = 6) -> bytes:
    """``data`` with a few bit flips and byte overwrites (the length is kept)."""
    b = bytearray(data)
    for _ in range(draw(st.integers(1, max_edits))):
        i = draw(st.integers(0, len(b) - 1))
        if draw(st.booleans()):
            b[i] ^= 1 << draw(st.integers(0, 7))
        else:
            b[i] = draw(st.sampled_from([0x00, 0x01, 0x7F, 0x80, 0xFF, draw(st.integers(0, 255))]))
    return bytes(b)


@st.composite
def legal_bundle(draw: st.DrawFn) -> tuple[DecisionSet, bytes]:
    """A bundle that decodes: from an assembled golden kernel, or random values of a random layout."""
    if draw(st.booleans()):
        return draw(st.sampled_from(BUNDLES))
    ds, fmt, vals = draw(format_and_values())
    return ds, fmt.encode(vals)


@st.composite
def fuzzed_stream(draw: st.DrawFn) -> tuple[DecisionSet, bytes]:
    """Whole streams of legal, mutated and random bundles (and sometimes a ragged tail)."""
    ds = draw(st.sampled_from(READINGS))
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        how = draw(st.sampled_from(["legal", "mutated", "mutated", "random"]))
        if how == "random":
            parts.append(draw(st.binary(min_size=64, max_size=64)))
        else:
            bds, b = draw(legal_bundle())
            ds = bds if how == "legal" or draw(st.booleans()) else ds
            parts.append(b if how == "legal" else draw(mutated(b)))
    tail = draw(st.binary(max_size=63)) if draw(st.integers(0, 5)) == 0 else b""
    return ds, b"".join(parts) + tail


def decoded_everywhere(data: bytes, ds: DecisionSet) -> None:
    """Every decoder on ``data``: TongasmError or a result, the scalar and vector decoders agreeing, and
    the listing (plain and fast) assembling back to the same bytes."""
    n = len(data)
    for off in range(0, max(n, 1), 64):
        d, err = outcome(lambda: decode_bundle(data, off, decisions=ds), "decode_bundle")
        if d is not None:
            assert d.offset == off and d.raw == data[off:off + 64] and d.opcode == data[off]
            json.dumps(d.to_json())
    scalar, err1 = outcome(lambda: list(iter_stream(data, decisions=ds)), "iter_stream")
    cols, err2 = outcome(lambda: decode_stream(data, decisions=ds), "decode_stream")
    assert (scalar is None) == (cols is None) == (n % 64 != 0), (err1, err2)
    if scalar is None:
        return
    # decode_stream agrees with the scalar decoder on which bundles decode, their layout and fields
    assert cols.count == len(scalar)
    assert cols.undecodable.tolist() == [i for i, d in enumerate(scalar) if isinstance(d, DecodeFailure)]
    at = {i: (name, g, k) for name, g in cols.groups.items() for k, i in enumerate(g.index.tolist())}
    for i, d in enumerate(scalar):
        if isinstance(d, DecodeFailure):
            assert d.reason and i not in at
            continue
        name, g, k = at[i]
        assert name == d.fmt.name
        assert {f: int(c[k]) for f, c in g.fields.items()} == {f: int(v) for f, v in d.fields.items()}, name
    streams = [StreamInput("dve", data)]
    with time_limit(10, "listing"):
        lines = list(listing(streams, decisions=ds))
        assert list(fast_listing(streams, decisions=ds)) == lines, "fast and plain listings differ"
        back = assemble_text("\n".join(lines), path="<listing>")
    assert bytes(back.streams["dve"]) == data, "bytes -> text -> bytes is not the identity"


# fast listing: a Memset whose element_count default (the product of its dims) overflows 32 bits was
# left out of the text because numpy wrapped the product to the encoded 0 (the text then failed to assemble)
MEMSET_WRAP = bytes.fromhex("49100000010000000000000000001000010001001000040001000100000000000000000000000000"
                            "000008000003000080010010000100010010000400010001")


@settings(max_examples=300, **SETTINGS)
@given(case=fuzzed_stream())
@example(case=(DecisionSet(), MEMSET_WRAP))
def test_decoders_on_mutated_streams(case: tuple[DecisionSet, bytes]) -> None:
    ds, data = case
    decoded_everywhere(data, ds)


@settings(max_examples=200, **SETTINGS)
@given(data=st.binary(max_size=64 * 3 + 63), ds=st.sampled_from(READINGS))
def test_decoders_on_random_bytes(data: bytes, ds: DecisionSet) -> None:
    decoded_everywhere(data, ds)


@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 127, 128])
def test_decoders_on_edge_lengths(n: int) -> None:
    decoded_everywhere(bytes(n), DecisionSet())
    decoded_everywhere(b"\xff" * n, DecisionSet())


# --- (b) the text assembler --------------------------------------------------------------------------


def assembled_or_syntax_error(text: str) -> None:
    """assemble_text gives streams (that re-list to the same bytes) or a TextSyntaxError inside the text."""
    prog, err = outcome(lambda: assemble_text(text, path="fuzz.s"), "assemble_text")
    if err is not None:
        assert isinstance(err, TextSyntaxError), f"{type(err).__name__} without line:col: {err}"
        lines = text.splitlines()
        assert 1 <= err.line <= len(lines), (err.line, len(lines))
        assert 0 <= err.col <= len(lines[err.line - 1]), (err.col, lines[err.line - 1])
        assert str(err).startswith(f"fuzz.s:{err.line}:{err.col + 1}: ")
        return
    streams = {n: bytes(d) for n, d in prog.streams.items()}
    assert all(len(d) % 64 == 0 for d in streams.values())
    with time_limit(10, "listing"):
        again = assemble_text("\n".join(listing([StreamInput(n, d) for n, d in streams.items()],
                                                decisions=prog.decisions, target=prog.target)))
    assert {n: bytes(d) for n, d in again.streams.items()} == streams
    assert (again.target, again.decisions) == (prog.target, prog.decisions)


TOKENS = ["", "0", "-1", "08", "0x", "0x1g", "99999999999999999999", "r63", "r64", "sem", "evt", "float32", "dt(99)",
          "sb", "psum.b7", "[", "]", "(", ")", "[1x0]", "1.5", "nan", "inf", "-inf", "=", ",", ":", ";", "|", "/",
          ".bytes", ".stream", ".target", ".decision", "wait", "upd", "++", "@+0x3c=55", "é", "\t", "\x00",
          "9" * 5000, "0x" + "f" * 1000, "..", ".hidden", "a/b"]  # absurd numbers, names that are not file names


@st.composite
def listing_text(draw: st.DrawFn) -> str:
    """A listing of legal bundles: a golden listing, or the listing of a few legal bundles."""
    if draw(st.booleans()):
        return draw(st.sampled_from(GOLDEN_TEXT))
    ds, data = draw(fuzzed_stream())
    data = data[:len(data) - len(data) % 64]
    return "\n".join(listing([StreamInput(draw(st.sampled_from(["dve", "sp", "pool"])), data)], decisions=ds))


@st.composite
def mutated_text(draw: st.DrawFn) -> str:
    """A listing with a few edits: characters, tokens (split at operators) and whole lines."""
    lines = draw(listing_text()).split("\n")
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        how = draw(st.sampled_from(["char", "char", "token", "token", "delete", "duplicate", "swap"]))
        line = lines[i]
        if how == "char" and line:
            j = draw(st.integers(0, len(line)))
            lines[i] = line[:j] + draw(st.text(max_size=2)) + line[j + draw(st.integers(0, 2)):]
        elif how == "token":
            toks = re.split(r"([\s,=:\[\]()|.+x/@]+)", line)
            k = draw(st.integers(0, len(toks) - 1))
            toks[k] = draw(st.sampled_from(TOKENS + toks))
            lines[i] = "".join(toks)
        elif how == "delete" and len(lines) > 1:
            del lines[i]
        elif how == "duplicate":
            lines.insert(draw(st.integers(0, len(lines))), line)
        else:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


# integers with a leading zero (no valid int(x, 0)) in every place the syntax takes a number:
# each raised ValueError instead of a TextSyntaxError
_TT = ("TensorTensorArithOp op=add, out=sb[p0:128]+0x200[1x64].float32, in0=sb[p0:128][1x64].float32, "
       "in1=sb[p0:128]+0x100[1x64].float32")
LEADING_ZERO = [
    ".stream dve\nCopy src=sb[p0:128]+08100[1x64].float32, dst=sb[p0:128]+0x200[1x64].float32",
    ".stream dve\n" + _TT.replace("op=add", "op=08"),
    ".stream dve\n" + _TT + ", wait sem3>=08",
    ".stream dve\n" + _TT + ", upd sem4+=08",
    ".stream dve\n" + _TT + ", upd evt4=08",
    ".stream dve\n" + _TT + ", @+08=55",
]


@settings(max_examples=400, **SETTINGS)
@given(text=mutated_text())
@example(text=LEADING_ZERO[0]).via("regression")
@example(text=LEADING_ZERO[1]).via("regression")
@example(text=LEADING_ZERO[2]).via("regression")
@example(text=LEADING_ZERO[3]).via("regression")
@example(text=LEADING_ZERO[4]).via("regression")
@example(text=LEADING_ZERO[5]).via("regression")
def test_assembler_on_mutated_listings(text: str) -> None:
    assembled_or_syntax_error(text)


@settings(max_examples=300, **SETTINGS)
@given(text=st.one_of(
    st.text(max_size=200),
    st.lists(st.lists(st.sampled_from(TOKENS + ["dve", "gen2", "gen3", "D-6=outermost-first", "TensorCopy",
                                                "Memset", "RegisterMove.imm", " ", "00" * 64, "src", "dst"]),
                      max_size=12).map("".join), max_size=6).map("\n".join),
))
def test_assembler_on_random_text(text: str) -> None:
    assembled_or_syntax_error(text)


@pytest.mark.parametrize("text", LEADING_ZERO)
def test_leading_zero_numbers_are_syntax_errors(text: str) -> None:
    with pytest.raises(TextSyntaxError, match=r"^fuzz\.s:2:\d+: expected an integer, got '08"):
        assemble_text(text, path="fuzz.s")


# --- (c) the BIR JSON readers, then assemble ---------------------------------------------------------

BIR_KEYS = ["arch", "functions", "name", "allocations", "memorylocations", "registers", "blocks", "instructions",
            "opcode", "engine", "ins", "outs", "sync", "kind", "dtype", "ap", "memref", "memsetref", "regref",
            "offset", "value", "type", "addr", "base", "bank", "dims", "LoopAxis", "lb", "ub", "stride", "op", "acc",
            "wait", "update", "mode", "index", "is_64bit", "reverse_pred", "constant", "constant_bits", "reg_ap_offset"]
BIR_WORDS = ["gen2", "gen3", "Loop", "TensorTensor", "TensorCopy", "Memset", "Select", "RegisterMove", "RegisterAlu",
             "TensorLoad", "TensorSave", "MoveShape", "CopyPredicated", "GenericCopy", "physical_ap", "register_ap",
             "symbolic_ap", "register_access", "imm_value", "float32", "int32", "uint8", "bfloat16", "int64", "SB",
             "PSUM", "DRAM", "DVE", "SP", "Pool", "add", "sem_ge_imm", "sem_inc", "r1", "nan", "inf", "a", "x"]
INTS = [0, 1, -1, 2, 127, 128, 255, 256, 65535, 65536, 2**31 - 1, 2**31, 2**32, 2**63, -(2**63), 2**64, 10**30,
        10**18, -(10**18), 10**400, -(10**400)]  # absurd sizes: a clear refusal, never an internal error

json_scalar = st.one_of(st.none(), st.booleans(), st.sampled_from(INTS), st.integers(-1000, 1000),
                        st.floats(allow_nan=False, allow_infinity=False, width=32), st.sampled_from(BIR_WORDS),
                        st.text(max_size=6))
json_value = st.recursive(
    json_scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.one_of(st.sampled_from(BIR_KEYS), st.text(max_size=4)), inner,
                                            max_size=5)),
    max_leaves=25,
)


def _paths(node: Any, at: tuple = ()) -> Iterator[tuple]:
    yield at
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*at, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, (*at, i))


def _get(node: Any, path: tuple) -> Any:
    for k in path:
        node = node[k]
    return node


@st.composite
def mutated_kernel(draw: st.DrawFn) -> Any:
    """A legal kernel (example, builder, golden vector) with a few edits anywhere in its tree."""
    k = json.loads(json.dumps(draw(st.sampled_from(KERNELS))))
    for _ in range(draw(st.integers(1, 4))):
        paths = list(_paths(k))
        path = draw(st.sampled_from(paths))
        if not path:
            continue
        parent, key = _get(k, path[:-1]), path[-1]
        old = parent[key]
        how = draw(st.sampled_from(["replace", "replace", "int", "delete", "duplicate", "type"]))
        if how == "delete":
            del parent[key]
        elif how == "duplicate" and isinstance(parent, list):
            parent.insert(key, json.loads(json.dumps(old)))
        elif how == "int":
            parent[key] = draw(st.sampled_from(INTS)) * draw(st.sampled_from([1, 1, -1]))
        elif how == "type":
            parent[key] = {"dict": [old], "list": {"x": old}}.get(type(old).__name__, str(old))
        else:
            parent[key] = draw(json_value)
    return k


def read_and_assemble(obj: Any, tmp: Path) -> None:
    """read_bir (object and text) and stream_bir (file); assemble(check="warn") and check_kernel on what reads."""
    text = json.dumps(obj)
    with capped_unrolling():
        k_obj, e_obj = outcome(lambda: read_bir(obj), "read_bir(object)")
        k_text, e_text = outcome(lambda: read_bir(text), "read_bir(text)")
        assert (k_obj is None) == (k_text is None)
        if isinstance(obj, dict):  # (a str that is not JSON text names a file: other messages)
            assert str(e_obj) == str(e_text)
        whole = None
        if k_obj is not None:
            outcome(lambda: check_kernel(read_bir(obj)), "check_kernel")
            asm, _ = outcome(lambda: assemble(k_obj, check="warn"), "assemble(read_bir)")
            whole = None if asm is None else {n: bytes(s) for n, s in asm.streams.items()}
        p = tmp / "k.json"
        p.write_text(text)
        asm, _ = outcome(lambda: assemble(stream_bir(p), check="warn"), "assemble(stream_bir)")
        streamed = None if asm is None else {n: bytes(s) for n, s in asm.streams.items()}
    if whole is not None and streamed is not None:
        assert whole == streamed, "read_bir and stream_bir assemble to different streams"


def _loop(ub: int, body: list[Any]) -> dict[str, Any]:
    return {"opcode": "Loop", "LoopAxis": {"name": "i", "lb": 0, "ub": ub, "stride": 1},
            "blocks": [{"name": "b", "instructions": body}]}


# nested loops that yield no instruction: 10^12 empty iterations (a hang) before the fix
EMPTY_LOOPS = {"functions": [{"name": "f", "blocks": [{"name": "b", "instructions": [
    _loop(10**4, [_loop(10**4, [_loop(10**4, [])])])]}]}]}


# a register_ap whose memsetref is a list: TypeError (unhashable) from the name lookup before the fix
MEMSETREF_LIST = {"functions": [{
    "name": "f", "registers": {"base": 4},
    "allocations": [{"name": "x_set", "memorylocations": [{"name": "x", "type": "DRAM"}]}],
    "blocks": [{"name": "b", "instructions": [{
        "opcode": "TensorLoad", "name": "tl0", "engine": "SP",
        "ins": [{"kind": "register_ap", "dtype": "float32", "ap": [[1, 1]], "memsetref": [], "regref": "base"}],
        "outs": [{"kind": "register_access", "dtype": "float32", "regref": "r9"}]}]}]}]}


@pytest.fixture(scope="module")
def tmp_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@settings(max_examples=500, **SETTINGS)
@given(k=mutated_kernel())
@example(k=EMPTY_LOOPS).via("regression")
@example(k=MEMSETREF_LIST).via("regression")
def test_bir_readers_on_mutated_kernels(k: Any, tmp_dir: Path) -> None:
    read_and_assemble(k, tmp_dir)


@settings(max_examples=400, **SETTINGS)
@given(v=st.one_of(json_value, st.fixed_dictionaries({"functions": json_value}, optional={"arch": json_value}),
                   st.fixed_dictionaries({"functions": st.lists(st.fixed_dictionaries(
                       {"blocks": st.lists(st.fixed_dictionaries({"instructions": st.lists(json_value, max_size=3)}),
                                           max_size=2)}, optional={"allocations": json_value,
                                                                   "registers": json_value}), max_size=2)})))
def test_bir_readers_on_random_json(v: Any, tmp_dir: Path) -> None:
    read_and_assemble(v, tmp_dir)


@pytest.mark.parametrize("text", [
    "[" * 100_000,                                  # nesting past the recursion limit: RecursionError
    '{"functions": [], "x": ' + "9" * 5000 + "}",   # an int past Python's digit limit: ValueError
    '{"functions": [' + "{" * 50_000,
])
def test_bir_readers_on_pathological_json(text: str, tmp_path: Path) -> None:
    with pytest.raises(TongasmError, match="JSON"):
        read_bir(text)
    p = tmp_path / "k.json"
    p.write_text(text)
    with pytest.raises(TongasmError, match="JSON"):
        assemble(stream_bir(p))
    with pytest.raises(TongasmError, match="JSON"):
        read_bir(p)


def test_unhashable_memsetref_is_a_bir_error() -> None:
    with pytest.raises(TongasmError, match=r"unknown memory-location set \[\]"):
        read_bir(MEMSETREF_LIST)


def test_a_nul_in_a_path_is_an_input_error() -> None:
    with pytest.raises(TongasmError, match="cannot read"):
        read_bir("kernel\x00.json")
    with pytest.raises(TongasmError, match="cannot read"):
        read_bir(Path("kernel\x00.json"))
    with pytest.raises(TongasmError, match="cannot read"):
        stream_bir("kernel\x00.json")
    with pytest.raises(TongasmError, match="cannot read"):
        assemble_file("kernel\x00.s")


def test_empty_loops_do_not_spin() -> None:
    with time_limit(5, "assemble"):
        asm = assemble(read_bir(EMPTY_LOOPS))
    assert not asm.streams or not any(asm.streams.values())


# --- (d) the command line on garbage -----------------------------------------------------------------


def run_cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), time_limit(20, f"tongasm {args[0]}"):
        try:
            rc = cli_main(args)
        except SystemExit as e:  # argparse
            rc = e.code if isinstance(e.code, int) else 2
    return rc, out.getvalue(), err.getvalue()


def files_under(p: Path) -> list[Path]:
    return [q for q in p.rglob("*") if q.is_file()] if p.is_dir() else ([p] if p.exists() else [])


def cli_on(tmp: Path, command: str, name: str, data: bytes) -> int:
    """Run one command on one file; no traceback, exit 0/1/2, and nothing written unless it succeeded."""
    for q in list(tmp.iterdir()):  # a fresh directory per example (the module-scoped one is reused)
        if q.is_dir():
            shutil.rmtree(q)
        else:
            q.unlink()
    src = tmp / name
    src.write_bytes(data)
    out = tmp / "out"
    keep = {name, "out"}
    if command == "run":  # ``data`` is the memory description of the example's streams
        for n, d in EXAMPLE_STREAMS.items():
            (tmp / f"{n}.bin").write_bytes(d)
            keep.add(f"{n}.bin")
    args = {"assemble": ["assemble", str(src), "-o", str(out)],
            "asm": ["asm", str(src), "-o", str(out), "-q"],
            "disasm": ["disasm", str(src), "-o", str(out)],
            "check": ["check", str(src)],
            "run": ["run", *[str(tmp / f"{n}.bin") for n in EXAMPLE_STREAMS], "--memory", str(src), "-o", str(out),
                    "-q"]}[command]
    with capped_unrolling():
        rc, stdout, stderr = run_cli(args)
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    assert rc in (0, 1, 2), (rc, stderr)
    if any(why in stderr for why in ("not valid JSON", "cannot read", "not UTF-8", "duplicate key")):
        assert rc == 2, (rc, stderr)  # unusable input (README)
    if command == "check":
        assert rc == 0 or stderr or stdout
    elif rc != 0:
        # the error, after any notes of what was assumed on the way (an input that starts as zeros...)
        head = [line for line in stderr.splitlines() if not line.startswith("tongasm: note: ")]
        assert head and head[0].startswith("tongasm: error: "), stderr
        assert not files_under(out), f"{command} failed but wrote {files_under(out)}"
    else:
        assert files_under(out)
        if out.is_dir():  # a directory of outputs: nothing outside -o, no subdirectories
            assert all(q.parent == out for q in files_under(out)), files_under(out)
    leftovers = [q.name for q in tmp.iterdir() if q.name not in keep]
    assert not leftovers, f"temporary files left behind: {leftovers}"
    return rc


def _kernel_text(k: Any) -> bytes:
    return json.dumps(k).encode()


garbage = st.one_of(st.binary(max_size=300), st.text(max_size=100).map(str.encode))
stream_bytes = st.one_of(garbage, fuzzed_stream().map(lambda c: c[1]))


@settings(max_examples=100, **SETTINGS)
@given(data=st.one_of(garbage, mutated_kernel().map(_kernel_text), json_value.map(_kernel_text)))
@example(data=b"[" * 100_000).via("regression")
@example(data=b'{"functions": [], "x": ' + b"9" * 5000 + b"}").via("regression")
def test_cli_assemble_on_garbage(data: bytes, tmp_dir: Path) -> None:
    cli_on(tmp_dir, "assemble", "bad.json", data)


@settings(max_examples=100, **SETTINGS)
@given(data=st.one_of(garbage, mutated_text().map(str.encode)))
@example(data=LEADING_ZERO[0].encode()).via("regression")
def test_cli_asm_on_garbage(data: bytes, tmp_dir: Path) -> None:
    cli_on(tmp_dir, "asm", "bad.s", data)


@settings(max_examples=80, **SETTINGS)
@given(data=stream_bytes)
@example(data=MEMSET_WRAP).via("regression")
def test_cli_disasm_on_garbage(data: bytes, tmp_dir: Path) -> None:
    rc = cli_on(tmp_dir, "disasm", "bad.bin", data)
    assert (rc == 0) == (len(data) % 64 == 0)  # undecodable bundles are listed as .bytes; a ragged tail is refused
    if rc == 0:  # and what disasm writes assembles back to the same bytes
        text = (tmp_dir / "out").read_text()
        assert bytes(assemble_text(text).streams["bad"]) == data


@settings(max_examples=80, **SETTINGS)
@given(data=stream_bytes, json_input=st.booleans())
def test_cli_check_on_garbage(data: bytes, json_input: bool, tmp_dir: Path) -> None:
    cli_on(tmp_dir, "check", "bad.json" if json_input else "bad.bin", data)


EXAMPLE_STREAMS = {n: bytes(d) for n, d in assemble(read_bir(EXAMPLE)).streams.items()}


@st.composite
def memory_description(draw: st.DrawFn) -> bytes:
    """The example's memory.json with a few edits: names that try to leave -o, absurd numbers, wrong types."""
    from tongasm.ir.memory import describe_kernel

    mem = describe_kernel(read_bir(EXAMPLE), "gen2").to_json()
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(mem) if p]
        path = draw(st.sampled_from(paths))
        parent, key = _get(mem, path[:-1]), path[-1]
        how = draw(st.sampled_from(["name", "name", "int", "value", "delete"]))
        if how == "name":
            v = draw(st.sampled_from(mem["variables"]))
            v["name"] = draw(st.one_of(st.sampled_from(["../x", "/abs", "a\x00b", "\ud800", ".", "..", ".h", "a/b",
                                                        "%2F", "x" * 300]), st.text(NAME_CHARS, max_size=8)))
        elif how == "int":
            parent[key] = draw(st.sampled_from(INTS)) * draw(st.sampled_from([1, -1]))
        elif how == "delete":
            del parent[key]
        else:
            parent[key] = draw(json_value)
    return json.dumps(mem).encode()


@settings(max_examples=40, **SETTINGS)
@given(data=st.one_of(garbage, memory_description()))
def test_cli_run_on_garbage_memory_descriptions(data: bytes, tmp_dir: Path) -> None:
    cli_on(tmp_dir, "run", "memory.json", data)


@pytest.mark.parametrize("spec", ["{f}@08", "{f}@0x41", "{f}@640", "{f}:2", "{f}:", "{f}@", "{f}@0x", "zz",
                                  "0x" + "0" * 127, "{f}x@0x40", "@0x40"])
def test_cli_explain_on_bad_bundle_specs(spec: str, tmp_dir: Path) -> None:
    """``tongasm explain FILE.bin@OFFSET``: a decimal offset with a leading zero was an internal error."""
    f = tmp_dir / "two.bin"
    f.write_bytes(bytes(128))
    rc, _, stderr = run_cli(["explain", spec.format(f=f)])
    assert rc in (1, 2) and stderr.startswith("tongasm: error: ") and "internal error" not in stderr, stderr


# --- output names, duplicate keys, the instruction cap -----------------------------------------------

#: Every code point, lone surrogates included (names read from JSON can hold them).
NAME_CHARS = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=())


def _percent_decode(fname: str) -> str:
    out = bytearray()
    i = 0
    while i < len(fname):
        if fname[i] == "%":
            out.append(int(fname[i + 1:i + 3], 16))
            i += 3
        else:
            out += fname[i].encode("utf-8")
            i += 1
    return out.decode("utf-8", "surrogatepass")


@settings(max_examples=300, **SETTINGS)
@given(name=st.text(NAME_CHARS, min_size=1, max_size=20))
@example(name="..").via("regression")
@example(name="\ud800").via("regression")
def test_output_names_are_plain_and_reversible(name: str) -> None:
    from tongasm.io.outputs import check_output_name, output_name

    fname = output_name(name, ".npy")
    assert check_output_name(fname) == fname
    assert fname.endswith(".npy") and _percent_decode(fname[:-4]) == name  # distinct names, distinct files


def _dump_with_duplicate(node: Any, target: tuple, key: str, value: Any, at: tuple = ()) -> str:
    """JSON text of ``node`` in which the object at path ``target`` has ``key`` twice (``value`` second)."""
    if isinstance(node, dict):
        items = [f"{json.dumps(k)}: {_dump_with_duplicate(v, target, key, value, (*at, k))}" for k, v in node.items()]
        if at == target:
            i = list(node).index(key)
            items.insert(i + 1, f"{json.dumps(key)}: {json.dumps(value)}")
        return "{" + ", ".join(items) + "}"
    if isinstance(node, list):
        return "[" + ", ".join(_dump_with_duplicate(v, target, key, value, (*at, i)) for i, v in enumerate(node)) + "]"
    return json.dumps(node)


@settings(max_examples=150, **SETTINGS)
@given(data=st.data())
def test_both_readers_refuse_a_repeated_key_at_the_same_path(data: st.DataObject, tmp_dir: Path) -> None:
    from tongasm.errors import BirError

    k = data.draw(st.sampled_from(KERNELS))
    objects = [p for p in _paths(k) if isinstance(_get(k, p), dict) and _get(k, p)]
    path = data.draw(st.sampled_from(objects))
    key = data.draw(st.sampled_from(sorted(_get(k, path))))
    value = data.draw(st.one_of(st.just(_get(k, path)[key]), json_scalar))
    text = _dump_with_duplicate(k, path, key, value)
    p = tmp_dir / "dup.json"
    p.write_text(text)
    got = []
    for read in (lambda: read_bir(text), lambda: list(stream_bir(p).instructions())):
        with pytest.raises(BirError) as e:
            read()
        got.append((e.value.detail, e.value.path))
    assert got[0] == got[1] and got[0][0].startswith(f"duplicate key {key!r}"), got


def _loop_tree(draw: st.DrawFn, depth: int) -> list[Any]:
    body: list[Any] = []
    for _ in range(draw(st.integers(0, 3))):
        if depth and draw(st.booleans()):
            lb, ub = draw(st.integers(-3, 4)), draw(st.integers(-3, 6))
            stride = draw(st.sampled_from([1, 1, 2, -1, -2, 3]))
            body.append({"opcode": "Loop", "LoopAxis": {"name": "i", "lb": lb, "ub": ub, "stride": stride},
                         "blocks": [{"name": "b", "instructions": _loop_tree(draw, depth - 1)}]})
        else:
            body.append({"opcode": "RegisterMove", "name": "m", "ins": [{"kind": "imm_value", "dtype": "int32",
                                                                         "value": 1}],
                         "outs": [{"kind": "register_access", "dtype": "int32", "regref": "r1"}]})
    return body


@settings(max_examples=80, **SETTINGS)
@given(data=st.data())
def test_the_instruction_cap_is_exact_and_checked_before_expansion(data: st.DataObject, tmp_dir: Path) -> None:
    """The counted size equals what unrolling yields; over the cap both readers' walks refuse, at the
    cap they pass."""
    k = {"functions": [{"name": "f", "blocks": [{"name": "b", "instructions": _loop_tree(data.draw, 3)}]}]}
    kernel = read_bir(k)
    n = program_pass.unrolled_count(kernel)
    assert n == sum(1 for _ in program_pass.walk(kernel))
    p = tmp_dir / "loops.json"
    p.write_text(json.dumps(k))
    for cap, ok in ((n, True), (n - 1, False)):
        if cap < 1:
            continue
        with capped_unrolling(cap):
            for walk in (lambda: program_pass.walk(read_bir(k)),
                         lambda: program_pass.walk_top((x, f) for x, f, _ in stream_bir(p).instructions())):
                if ok:
                    assert sum(1 for _ in walk()) == n
                else:
                    with pytest.raises(TongasmError, match=f"at most {cap}"):
                        for _ in walk():
                            pass


SMALL_KERNEL = {"functions": [{"name": "f", "registers": {"x": 1}, "blocks": [{"name": "b", "instructions": [
    {"opcode": "RegisterMove", "name": "m", "ins": [{"kind": "imm_value", "dtype": "int32", "value": 1}],
     "outs": [{"kind": "register_access", "dtype": "int32", "regref": "x"}]}]}]}]}
DIR_STEPS = ["assemble", "assemble-small", "assemble-census", "asm-dve", "foreign-file", "foreign-dir", "fail"]


@settings(max_examples=25, **SETTINGS)
@given(steps=st.lists(st.sampled_from(DIR_STEPS), min_size=1, max_size=4))
def test_an_output_directory_always_matches_its_manifest(steps: list[str], tmp_path_factory: Any) -> None:
    """Whatever sequence of writes (and foreign files) an output directory sees, it holds exactly the
    foreign files plus what the last manifest lists (and memory.json once assemble wrote it), and no
    temporary file is left beside it."""
    root = tmp_path_factory.mktemp("dirs")
    out = root / "o"
    src = root / "small.json"
    src.write_text(json.dumps(SMALL_KERNEL))
    listing_s = root / "k.s"
    listing_s.write_text("\n".join(listing([StreamInput("dve", EXAMPLE_STREAMS["dve"])])) + "\n")
    bad = root / "bad.json"
    bad.write_text("{")
    foreign: set[str] = set()
    memory = False
    for i, step in enumerate(steps):
        argv = {"assemble": ["assemble", str(EXAMPLE)], "assemble-small": ["assemble", str(src)],
                "assemble-census": ["assemble", str(EXAMPLE), "--census"], "asm-dve": ["asm", str(listing_s)],
                "fail": ["assemble", str(bad)]}.get(step)
        if argv is None:
            out.mkdir(exist_ok=True)
            name = f"mine{i}"
            (out / name).mkdir() if step == "foreign-dir" else (out / name).write_text("x")
            foreign.add(name)
            continue
        rc, _, err = run_cli([*argv, "-o", str(out), "-q"])
        assert rc == (2 if step == "fail" else 0), err
        memory |= step.startswith("assemble") and rc == 0
    if not (out / "manifest.json").exists():
        return
    from tongasm.io.outputs import manifest_files

    listed = manifest_files(out / "manifest.json", ["streams", "census", "memory"])
    assert {p.name for p in out.iterdir()} == foreign | listed | {"manifest.json"} | ({"memory.json"} if memory else set())
    man = json.loads((out / "manifest.json").read_text())
    for e in man["streams"].values():
        assert (out / e["file"]).stat().st_size == 64 * e["bundles"]
    assert not [p.name for p in root.iterdir() if ".tmp-" in p.name or "lock" in p.name]
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]


# --- the atheris harnesses -----------------------------------------------------------------------------

HARNESSES = ["decode", "check", "asm_text", "bir_json", "outputs"]




@pytest.fixture(scope="module")
def seeds() -> dict[str, dict[str, bytes]]:
    return load_harness("make_corpus").seeds()


@pytest.mark.parametrize("harness", HARNESSES)
def test_harness_runs_its_seed_corpus(harness: str, seeds: dict[str, dict[str, bytes]]) -> None:
    mod = load_harness(f"fuzz_{harness}")
    corpus = seeds[harness]
    assert len(corpus) >= 5
    with time_limit(60, f"fuzz_{harness}"):
        for name, data in corpus.items():
            try:
                mod.TestOneInput(data)
            except BaseException:
                print(f"fuzz_{harness} crashed on seed {name}", file=sys.stderr)
                raise
        # and the fallback fuzzer of `--random N`: random bytes, then mutated seeds
        mod._common.random_run(mod.TestOneInput, 30, 6, [], quiet=True)
        rng = random.Random(6)
        pool = list(corpus.values())
        for _ in range(100):
            mod.TestOneInput(mod._common.mutate(rng, rng.choice(pool), pool))
