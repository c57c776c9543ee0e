"""tongasm's own exceptions.

Every user mistake (bad input, a value that does not fit, an unknown opcode) surfaces as a
:class:`TongasmError` with a message that names what is wrong. The CLI prints the message and exits
non-zero; it never shows a Python traceback for these.
"""

from __future__ import annotations

#: Digits of an integer a message shows in full (every 64-bit value fits); a longer one is cut.
BRIEF_DIGITS = 20


def brief_int(v: int, keep: int = BRIEF_DIGITS, *, hexa: bool = False) -> str:
    """An integer for a message: in full up to ``keep`` digits, else its first digits and how many
    there are (``12345678901234567... (41 digits)``); ``hexa``: the same in hex (``0x`` and up to 16
    hex digits in full, else ``0x1234567890abc... (33 hex digits)``). The one way tongasm echoes a
    number taken from its input: a huge number must not become a huge message, nor hit Python's
    limit on converting integers of more than 4300 digits to text."""
    a, sign = (-v, "-") if v < 0 else (v, "")
    if hexa:
        if a < 1 << 64:
            return f"{sign}{a:#x}"
        text = f"{a:x}"
        return f"{sign}0x{text[:keep - 7]}... ({len(text)} hex digits)"
    if a < 10 ** keep:
        return str(v)
    if a.bit_length() < 14_000:  # (about 4200 digits: within Python's int-to-text limit)
        text = str(a)
        return f"{sign}{text[:keep - 3]}... ({len(text)} digits)"
    import math

    d = int(math.log10(a)) + 1  # (log10 of a huge int is exact enough for a digit count)
    head = a // 10 ** (d - keep + 3) if d < 100_000 else None
    return f"{sign}{head}... ({d} digits)" if head is not None else f"{sign}about 10^{d - 1} ({d} digits)"


def brief_repr(v: object, limit: int = 60) -> str:
    """``repr(v)`` for a message, cut to ``limit`` characters (a name of 5000 characters must not
    become a message of 5000); an integer as :func:`brief_int` gives it."""
    text = _brief_text(v)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _brief_text(v: object, room: int = 1000) -> str:
    """``repr(v)`` with every integer in it (in lists and tuples too) as :func:`brief_int` gives it,
    built only as far as a message needs (``room`` characters)."""
    if isinstance(v, int) and not isinstance(v, bool):
        return brief_int(v)
    if isinstance(v, (list, tuple)):
        parts, n = [], 0
        for x in v:
            if n > room:
                parts.append("...")
                break
            parts.append(_brief_text(x, room - n))
            n += len(parts[-1]) + 2
        inner = ", ".join(parts)
        return f"[{inner}]" if isinstance(v, list) else f"({inner}{',' * (len(v) == 1)})"
    return repr(v)


class TongasmError(Exception):
    """Base class of every error tongasm raises on purpose."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UsageError(TongasmError):
    """The command or API was called wrongly (bad option value, unknown decision...)."""

    exit_code = 2


class InputError(TongasmError):
    """An input cannot be used: missing, unreadable, not a regular file where one is needed, not JSON,
    not a kernel, not a bundle stream, a number of absurd size... (exit code 2: unusable input)."""

    exit_code = 2


class OutputError(TongasmError):
    """An output cannot be written: the disk is full, standard output was closed, another tongasm is
    writing the same directory... (exit code 1: an error in the work, not in what was asked)."""


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived while tongasm was writing its outputs (raised by the handler that
    :mod:`tongasm.io.outputs` installs for the write, so that temporary files are removed as on Ctrl-C)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class BirError(InputError):
    """The BIR JSON is well-formed JSON but not a kernel tongasm can read."""

    def __init__(self, message: str, path: str | None = None) -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)
        self.detail = message


class EncodeError(TongasmError):
    """An instruction cannot be encoded.

    ``detail`` is the bare reason (for messages the spec quotes, the verbatim compiler string);
    the full message prefixes it with the instruction (name, index, opcode) when known.
    """

    def __init__(
        self,
        detail: str,
        *,
        field: str | None = None,
        value: object = None,
        limit: str | None = None,
        check: str | None = None,
    ) -> None:
        self.detail = detail
        self.field = field
        self.value = value
        self.limit = limit
        self.check = check
        self.inst_name: str | None = None
        self.inst_index: int | None = None
        self.inst_opcode: str | None = None
        super().__init__(detail)

    def at(self, name: str | None, index: int | None, opcode: str | None) -> EncodeError:
        """Attach the instruction this error belongs to (first attachment wins)."""
        if self.inst_name is None and self.inst_index is None:
            self.inst_name, self.inst_index, self.inst_opcode = name, index, opcode
            self.message = f"{self.where()}: {self.detail}"
        return self

    def where(self) -> str:
        parts = []
        if self.inst_name is not None:
            parts.append(f"instruction {self.inst_name!r}")
        if self.inst_index is not None:
            parts.append(f"#{self.inst_index}")
        if self.inst_opcode:
            parts.append(f"({self.inst_opcode})")
        return " ".join(parts) or "instruction"

    def __str__(self) -> str:
        return self.message


class FieldRangeError(EncodeError):
    """A value does not fit its wire field. Never truncated, never wrapped."""

    def __init__(self, fmt: str, field: str, value: int, lo: int, hi: int) -> None:
        self.fmt = fmt
        self.lo = lo
        self.hi = hi
        super().__init__(
            f"field {field!r} of {fmt}: value {brief_int(value)} does not fit (allowed {lo}..{hi})",
            field=field,
            value=value,
            limit=f"{lo}..{hi}",
            check="field.range",
        )


class DecodeError(TongasmError):
    """Bytes that are not a bundle tongasm can decode."""

    def __init__(self, detail: str, offset: int | None = None) -> None:
        self.detail = detail
        self.offset = offset
        super().__init__(f"at byte offset {offset:#x}: {detail}" if offset is not None else detail)


class ValidationError(TongasmError):
    """The ISA checks found illegal bundles; nothing was written.

    ``findings`` holds every :class:`tongasm.check.registry.Finding` (all of them, not just the first).
    """

    def __init__(self, findings: list, what: str = "the kernel") -> None:
        self.findings = findings
        lines = "\n  ".join(f.line() for f in findings[:50])
        more = f"\n  ... and {len(findings) - 50} more" if len(findings) > 50 else ""
        n = len(findings)
        super().__init__(f"{n} ISA-check finding{'s' * (n != 1)} in {what}; nothing written "
                         f"(--warn writes anyway):\n  {lines}{more}")
