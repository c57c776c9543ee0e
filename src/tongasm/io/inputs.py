"""Reading inputs: the one place where tongasm reads files (writing outputs is :mod:`.outputs`).

Inputs (:func:`read_buffer`, :func:`read_input`, :func:`read_head`): a regular file is memory-mapped
(bundle streams: address space, not a copy in memory) or read; anything else a path can name — a pipe,
a character device such as ``/dev/zero``, a socket — is read in bounded pieces up to
:data:`PIPE_LIMIT` bytes and refused beyond, so no input grows memory without limit. Every failure is
an :class:`~tongasm.errors.InputError` (exit code 2) naming the path.

:func:`brief_int` keeps a huge number out of a message.
"""

from __future__ import annotations

import contextlib
import contextvars
import mmap
import os
import stat
from collections.abc import Iterable, Iterator
from typing import BinaryIO

from ..errors import InputError, brief_int, brief_repr  # noqa: F401  (brief_*: re-exported, the one helper lives in errors)


#: (as given, path) of every file or directory the running command reads (see :func:`inputs_kept`)
_INPUTS: contextvars.ContextVar[tuple[tuple[str, str], ...]] = contextvars.ContextVar("tongasm_inputs", default=())


@contextlib.contextmanager
def inputs_kept(paths: Iterable[tuple[str, str]]) -> Iterator[None]:
    """While the block runs, no output may replace, drop or be written inside one of ``paths``
    ((as given, path) pairs: the command's input files and directories); see :func:`tongasm.io.outputs.refuse_inputs`."""
    token = _INPUTS.set(tuple(paths))
    try:
        yield
    finally:
        _INPUTS.reset(token)


#: A pipe, a character device or a socket is read whole up to this many bytes and refused beyond
#: (a regular file is mapped or read whatever its size): ``/dev/zero`` must not fill the memory.
PIPE_LIMIT = 64 << 20


_PIECE = 1 << 20


def _kind(mode: int) -> str:
    """What a non-regular file is, for messages."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def _reason(e: BaseException) -> str:
    return getattr(e, "strerror", None) or str(e)


@contextlib.contextmanager
def _opened(path: str | os.PathLike[str]) -> Iterator[tuple[BinaryIO, os.stat_result]]:
    """An input opened for reading with its status; every failure is an InputError naming it."""
    try:
        fh = open(path, "rb")
    except (OSError, ValueError) as e:  # ValueError: a NUL in the path, a lone surrogate
        raise InputError(f"cannot read {os.fsdecode(path) if not isinstance(path, str) else path}: "
                         f"{_reason(e)}") from None
    with fh:
        st = os.fstat(fh.fileno())
        if stat.S_ISDIR(st.st_mode):
            raise InputError(f"cannot read {path}: it is a directory")
        yield fh, st


def _read_bounded(fh: BinaryIO, path: str | os.PathLike[str], st: os.stat_result, limit: int | None = None) -> bytes:
    """The rest of a non-regular file, read in pieces, refused past :data:`PIPE_LIMIT` (or ``limit``)."""
    cap = PIPE_LIMIT if limit is None else limit
    parts: list[bytes] = []
    size = 0
    try:
        while True:
            piece = fh.read(min(_PIECE, cap + 1 - size))
            if not piece:
                break
            parts.append(piece)
            size += len(piece)
            if size > cap:
                raise InputError(f"{path} is {_kind(st.st_mode)} that gives more than {cap} bytes; tongasm reads "
                                 "such inputs whole, up to that size (save it to a regular file)")
    except OSError as e:
        raise InputError(f"cannot read {path}: {_reason(e)}") from None
    return b"".join(parts)


def read_buffer(path: str | os.PathLike[str]) -> memoryview | bytes:
    """The bytes of an input without copying them: a read-only memory map of a regular, non-empty
    file (as a :class:`memoryview`); a pipe or device read whole up to :data:`PIPE_LIMIT` bytes.
    Raises :class:`~tongasm.errors.InputError` (missing, unreadable, a directory, too large a pipe).

    The map lives as long as the view (or any numpy array or slice made from it) is referenced.
    """
    with _opened(path) as (fh, st):
        if not stat.S_ISREG(st.st_mode):
            return _read_bounded(fh, path, st)
        if st.st_size > 0:
            try:
                return memoryview(mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ))
            except (OSError, ValueError):
                pass  # cannot map here: fall back to reading
        try:
            return fh.read()
        except OSError as e:
            raise InputError(f"cannot read {path}: {_reason(e)}") from None


def read_input(path: str | os.PathLike[str]) -> bytes:
    """The whole content of an input (a kernel, a listing, a memory description): a regular file
    read whole, anything else read up to :data:`PIPE_LIMIT` bytes. Raises InputError."""
    with _opened(path) as (fh, st):
        if not stat.S_ISREG(st.st_mode):
            return _read_bounded(fh, path, st)
        try:
            return fh.read()
        except OSError as e:
            raise InputError(f"cannot read {path}: {_reason(e)}") from None


def read_text(path: str | os.PathLike[str]) -> str:
    """:func:`read_input` decoded as UTF-8 (an InputError when it is not); a leading byte-order mark
    is dropped, as ``json.loads`` of the bytes drops it (every text input reads the same way)."""
    data = read_input(path)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"cannot read {path}: not UTF-8 text ({e.reason} at byte {e.start})") from None


def read_head(path: str | os.PathLike[str], n: int = 64) -> bytes:
    """The first ``n`` bytes of an input (to sniff its kind without reading it all). Raises InputError."""
    with _opened(path) as (fh, _st):
        try:
            return fh.read(n)
        except OSError as e:
            raise InputError(f"cannot read {path}: {_reason(e)}") from None


def is_listing(path: str, *, other_suffix: str, comment_is_listing: bool) -> bool:
    """Whether ``path`` names a text listing (``tongasm disasm`` output) rather than the other input a
    command takes there (BIR JSON, a raw stream): by name first (``.s`` is a listing, ``other_suffix``
    is not), else by its first 4 KiB. The first line that is not blank or a comment decides: a listing's
    first is a directive (every listing starts with ``.target``). A leading byte-order mark is skipped,
    as :func:`read_text` skips it, and a head holding a NUL byte is not text. ``comment_is_listing``: a comment before that line is enough (a raw
    stream's bytes are not read as text; JSON cannot hold a comment, so there the directive decides).
    Raises InputError when the file cannot be read (the caller decides whether its own reader should
    say so instead)."""
    if path.endswith(".s"):
        return True
    if path.endswith(other_suffix):
        return False
    head = read_head(path, 4096)
    if b"\0" in head:  # a stream's bundles hold NUL bytes, a listing's text never does
        return False
    head = head.removeprefix(b"\xef\xbb\xbf")
    for line in head.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith((b";", b"#")):
            if comment_is_listing:
                return True
            continue
        return line.startswith(b".")
    return False


def input_size(path: str | os.PathLike[str], what: str = "input") -> int:
    """The size of a regular file; a FIFO, device or directory is refused where a size is needed."""
    try:
        st = os.stat(path)
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read {path}: {_reason(e)}") from None
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{path} is {_kind(st.st_mode)}; a {what} must be a regular file")
    return st.st_size


def drop_pages(buf: object, start: int, stop: int) -> None:
    """Let the OS drop the pages of bytes ``[start, stop)`` of a mapped buffer (from
    :func:`read_buffer`) that a sequential reader is done with, so a long pass over a huge stream does
    not keep the whole file resident. The bytes stay readable (a later access reads them again); a
    buffer that is not a memory map is left alone."""
    mm = getattr(buf, "obj", None)
    if not isinstance(mm, mmap.mmap) or not hasattr(mm, "madvise"):
        return
    page = mmap.PAGESIZE
    a = -(-start // page) * page
    b = len(mm) if stop >= len(mm) else stop // page * page
    if b > a:
        try:
            mm.madvise(mmap.MADV_DONTNEED, a, b - a)
        except (OSError, ValueError, AttributeError):
            pass


