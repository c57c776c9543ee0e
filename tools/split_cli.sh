#!/usr/bin/env bash
# Split src/tongasm/cli/__init__.py into one module per command group (a deterministic refactoring:
# it can be re-run on top of other work). __init__.py keeps the parser and main().
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
S=src/tongasm/cli/__init__.py
mv_() { dest=$1; doc=$2; shift 2; "$PY" tools/split_module.py "$S" "src/tongasm/cli/$dest.py" --doc "$doc" "$@"; }
mv_ common "What every command shares: decisions and targets from the arguments, reading streams, JSON and notes on stdout/stderr, progress bars, refusing to overwrite an input." \
    _seed _decisions _print_json _print_notes _bar _plural _opcode_name _read_stream _check_length \
    _refuse_overwriting_inputs _json_with_list _Failures _stream_target _target_beside _is_kernel _is_listing \
    _has_target _neff_target _stream_name DISASM_CHUNK
mv_ kernel "assemble and asm: a kernel (BIR JSON) or a listing to bundle streams." \
    cmd_assemble Repeats _assemble_progress cmd_asm _asm_findings
mv_ listing "decode, disasm, explain, opcodes and diff: bundles to fields, listings and explanations." \
    cmd_decode _format_value _print_decoded _unmodelled _decode_neff cmd_disasm _profile_pieces \
    _listing_pieces _listing_json_pieces cmd_explain _bundle_file _bundle_arg cmd_diff _diff_side cmd_opcodes
mv_ check "check and checks: the validator on kernels, streams and NEFFs, and the list of checks." \
    cmd_check _stream_findings _print_findings cmd_checks
mv_ run "run: a kernel, streams or a NEFF on the simulator." cmd_run _timeline _tracing _run_neff
mv_ neff "neff info, unpack, pack, repack, survey and header." \
    cmd_neff_info cmd_neff_unpack _replacements cmd_neff_pack cmd_neff_repack cmd_neff_survey cmd_neff_header
mv_ reference "formats, bir-reference and decisions: what tongasm knows, rendered." cmd_formats cmd_bir_reference cmd_decisions
# the piece size is read through the module (tests lower it), and tests reach the shared failure counter there
"$PY" - <<'PYEOF'
import re
from pathlib import Path
for name in ("check", "listing"):
    p = Path(f"src/tongasm/cli/{name}.py")
    s = p.read_text()
    s = re.sub(r"^from \.common import (.*)$", lambda m: "from . import common\n" + "from .common import " + ", ".join(
        n for n in m.group(1).split(", ") if n != "DISASM_CHUNK"), s, count=1, flags=re.M)
    s = s.replace("step = DISASM_CHUNK * BUNDLE_SIZE", "step = common.DISASM_CHUNK * BUNDLE_SIZE")
    p.write_text(s)
for t in ("tests/test_hostile_inputs.py", "tests/test_progress.py"):
    p = Path(t)
    s = p.read_text().replace('monkeypatch.setattr(cli, "DISASM_CHUNK"', 'monkeypatch.setattr(cli.common, "DISASM_CHUNK"')
    s = s.replace('monkeypatch.setattr(cli, "progress"', 'monkeypatch.setattr(cli.common, "progress"')
    s = s.replace('monkeypatch.setattr(cli._Failures, "SHOWN", 2)', 'monkeypatch.setattr(cli.common._Failures, "SHOWN", 2)')
    p.write_text(s)
PYEOF
"$PY" -m ruff check -q src/tongasm/cli
