"""Writing outputs: the one place where tongasm writes files (reading inputs is :mod:`.inputs`).

Output names (:func:`output_name`, :func:`check_output_name`): a file name derived from data (a
variable's name, a ``.stream`` name) is percent-encoded into a plain name — no ``/``, ``\\``, NUL,
control character, lone surrogate or leading ``.`` — so no output ever lands outside its directory.
:func:`write_output_dir` refuses any other name, whoever built it.

Output targets (:func:`output_dir_path`, :func:`output_file_path`): ``-o`` must name a directory (or a
regular file) that can be replaced. The empty path, ``/``, FIFOs, devices, sockets, a directory where
a file is expected (and the reverse), read-only targets and dangling symbolic links are refused with
a :class:`~tongasm.errors.UsageError` (exit 2), before any work. A symbolic link to a directory (or
to a regular file) is followed: the outputs go where it points, and the link is kept.

Writing (:func:`atomic_write`, :func:`write_output_dir`): a file is written to a temporary name beside
it and renamed. A directory is built complete as a temporary sibling and then swapped in with one
``renameat2(RENAME_EXCHANGE)`` (two renames where the file system cannot exchange), so readers see the
old directory or the new one, never a mix; files in it that tongasm did not write are carried over
(hard links), and of the files it did write earlier only those the caller names as stale (for
``assemble``/``asm``: the ones the old ``manifest.json`` lists) are dropped. A directory that holds
subdirectories or special files (or that cannot be swapped: a mount point, the working directory)
is updated file by file instead, with the termination signals held back while the files are renamed. A lock file beside the
directory (``.NAME.tongasm-lock``, ``flock``) makes a second tongasm wait for the first and refuse
after :data:`LOCK_WAIT` seconds. While writing, SIGTERM and SIGHUP raise
:class:`~tongasm.errors.Terminated` (SIGINT: ``KeyboardInterrupt``) so that the temporary files are
removed; only SIGKILL can leave a hidden ``.NAME.tmp-*`` behind, and the next write to that
directory removes it.

Inputs (:func:`~tongasm.io.inputs.inputs_kept`): the files a command reads are registered for its run; a write that
would replace one of them, drop one as stale, or put a file inside an input directory is refused
(:class:`~tongasm.errors.UsageError`, exit 2) before anything is written, so ``assemble
DIR/manifest.json -o DIR`` or ``neff pack DIR -o DIR/sg00/PE.bin`` cannot destroy what they read.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import stat
import sys
import tempfile
import threading
import time
from pathlib import Path
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import BinaryIO

from ..errors import InputError, OutputError, Terminated, UsageError
from .inputs import _INPUTS, _kind, _reason

Content = bytes | bytearray | memoryview | Callable[[BinaryIO], None]


#: How long a write waits for another tongasm that holds the output directory's lock.
LOCK_WAIT = 10.0


# --- the command's inputs --------------------------------------------------------------------------

def _inside(target: Path, directory: str) -> bool:
    try:
        d = Path(directory).resolve()
        return d.is_dir() and d in target.resolve().parents
    except (OSError, RuntimeError, ValueError):
        return False


def refuse_inputs(targets: Iterable[Path], dropped: bool = False) -> None:
    """Refuse (UsageError) to write (``dropped``: to remove) a path that is one of the command's
    inputs, or lies inside an input directory: the output would destroy what the command read."""
    inputs = _INPUTS.get()
    if not inputs:
        return
    for target in targets:
        for given, path in inputs:
            if same_file(target, path) or _inside(target, path):
                verb = "remove" if dropped else "overwrite"
                where = "is the input" if same_file(target, path) else "lies inside the input"
                raise UsageError(f"output {target} {where} {given}; refused (writing it would {verb} what this "
                                 "command reads): write the output elsewhere")


# --- output names -------------------------------------------------------------------------------------

#: Characters kept as they are in a file name made from data; every other one is percent-encoded
#: (as its UTF-8 bytes, a lone surrogate as the bytes ``surrogatepass`` gives).
_UNSAFE = frozenset("/\\%") | {chr(c) for c in range(32)} | {"\x7f"}
#: The longest file name (in UTF-8 bytes) common file systems take.
NAME_MAX = 255


def output_name(name: str, suffix: str = "", what: str = "name") -> str:
    """A plain file name for ``name`` + ``suffix``: characters that could leave the directory or
    break a file system (``/``, ``\\``, NUL and control characters, ``%`` itself, lone surrogates, a
    leading ``.``) are percent-encoded, so ``../x`` becomes ``%2E.%2Fx`` and distinct names stay
    distinct. An empty or too long name is an InputError naming ``what``."""
    if not isinstance(name, str) or not name:
        raise InputError(f"{what} {name!r} cannot be a file name (it is empty)")
    out = []
    for i, ch in enumerate(name):
        if ch in _UNSAFE or (i == 0 and ch == ".") or "\ud800" <= ch <= "\udfff":
            out.append("".join(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass")))
        else:
            out.append(ch)
    fname = "".join(out) + suffix
    return check_output_name(fname, what=f"{what} {name!r}")


def check_output_name(fname: str, what: str = "output file name") -> str:
    """``fname`` if it is a plain file name inside a directory (see :func:`output_name`); else an
    InputError saying why. The one gate every name written by :func:`write_output_dir` passes."""
    why = None
    if not isinstance(fname, str) or not fname:
        why = "it is empty"
    elif fname[0] == ".":
        why = "it starts with '.' (hidden names, '.' and '..' are not outputs)"
    elif any(ch in "/\\" for ch in fname):
        why = "it contains a path separator"
    elif any(ord(ch) < 32 or ch == "\x7f" for ch in fname):
        why = "it contains a NUL or control character"
    else:
        try:
            size = len(fname.encode("utf-8"))
        except UnicodeEncodeError:
            why = "it contains a lone surrogate (not encodable as UTF-8)"
        else:
            if size > NAME_MAX:
                why = f"it is {size} bytes long (at most {NAME_MAX})"
    if why is not None:
        raise InputError(f"{what} cannot be a file name: {why}")
    return fname


# --- output targets ------------------------------------------------------------------------------------

def _read_only(st: os.stat_result, path: str | os.PathLike[str]) -> bool:
    """No write permission for the owner, or none for this user (also for root: the mode says so)."""
    return not st.st_mode & stat.S_IWUSR or not os.access(path, os.W_OK)


def _target(path: str | os.PathLike[str], what: str) -> tuple[Path, os.stat_result | None]:
    """``path`` made absolute, a symbolic link followed; with its status (None: does not exist)."""
    text = os.fspath(path)
    if not isinstance(text, str):
        text = os.fsdecode(text)
    if not text:
        raise UsageError(f"the {what} path is empty")
    if "\0" in text:
        raise UsageError(f"the {what} path {text!r} contains a NUL character")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(f"the {what} path {text!r} is not valid text (a lone surrogate)") from None
    try:
        p = Path(os.path.abspath(text))
    except OSError as e:  # a relative path, and the working directory was removed
        raise UsageError(f"cannot use {text} as the {what}: the current directory is gone ({_reason(e)})") from None
    try:
        lst = os.lstat(p)
    except FileNotFoundError:
        return p, None
    except OSError as e:
        raise UsageError(f"cannot use {text} as the {what}: {_reason(e)}") from None
    if stat.S_ISLNK(lst.st_mode):
        real = Path(os.path.realpath(p))
        try:
            return real, os.stat(real)
        except FileNotFoundError:
            raise UsageError(f"{text} is a symbolic link to {real}, which does not exist; tongasm follows links "
                             "to an existing output only") from None
        except OSError as e:
            raise UsageError(f"cannot use {text} as the {what}: {_reason(e)}") from None
    return p, lst


def output_dir_path(path: str | os.PathLike[str]) -> Path:
    """The absolute directory ``-o`` names, checked before any work: not empty, not ``/``, a
    directory or nothing yet (then its parent must be a writable directory), writable, not a
    file, FIFO, device or socket. A symbolic link to a directory is followed."""
    p, st = _target(path, "output directory")
    if p.parent == p:
        raise UsageError(f"{os.fspath(path)!s} is the root directory; tongasm will not write its outputs there")
    if st is None:
        parent = _existing_parent(p)
        if not os.path.isdir(parent):
            raise UsageError(f"cannot create output directory {p}: {parent} is not a directory")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise UsageError(f"cannot create output directory {p}: {parent} is not writable")
        return p
    if not stat.S_ISDIR(st.st_mode):
        raise UsageError(f"output path {p} exists and is {_kind(st.st_mode) if not stat.S_ISREG(st.st_mode) else 'a file'}"
                         "; -o names a directory here")
    if _read_only(st, p):
        raise UsageError(f"output directory {p} is read-only")
    return p


def output_file_path(path: str | os.PathLike[str]) -> Path:
    """The absolute file ``-o`` names, checked before any work: not empty, a regular file or
    nothing yet, not read-only, not a directory, FIFO, device or socket. A symbolic link to a
    regular file is followed (the file it points to is replaced; the link is kept)."""
    p, st = _target(path, "output file")
    if st is None:
        parent = _existing_parent(p)
        if not os.path.isdir(parent):
            raise UsageError(f"cannot create {p}: {parent} is not a directory")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise UsageError(f"cannot create {p}: {parent} is not writable")
        return p
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(f"output path {p} is {_kind(st.st_mode)}; tongasm writes regular files only")
    if _read_only(st, p):
        raise UsageError(f"output file {p} is read-only")
    if not os.access(p.parent, os.W_OK | os.X_OK):
        raise UsageError(f"cannot replace {p}: its directory {p.parent} is not writable")
    return p


def _existing_parent(p: Path) -> Path:
    """The nearest ancestor of ``p`` that exists (parents are created as needed)."""
    q = p.parent
    while not os.path.lexists(q) and q.parent != q:
        q = q.parent
    return q


# --- signals ------------------------------------------------------------------------------------------

_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))
_held = [0]  # depth of signals_held() blocks
_pending: list[int] = []  # signals that arrived inside one


def _on_signal(signum: int, frame: object) -> None:
    if _held[0]:
        _pending.append(signum)  # delivered when the outermost signals_held() block ends
        return
    raise Terminated(signum)


@contextlib.contextmanager
def termination_raises() -> Iterator[None]:
    """While writing, SIGINT, SIGTERM and SIGHUP raise :class:`Terminated` (a KeyboardInterrupt
    with the signal number) so that cleanup code runs, or wait for the end of a
    :func:`signals_held` block. Only a default disposition is replaced (a handler the program
    installed stays), only in the main thread; the old handlers come back afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {}
    for s in _SIGNALS:
        try:
            if signal.getsignal(s) in (signal.SIG_DFL, signal.default_int_handler):
                old[s] = signal.signal(s, _on_signal)
        except (OSError, ValueError):
            pass
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Inside the block a termination signal is held back and raised when the block ends: the
    few renames that commit an output, or the removal of a temporary file, are never cut in the
    middle (Python runs signal handlers in the main thread, whichever thread the signal hit)."""
    _held[0] += 1
    try:
        yield
    finally:
        _held[0] -= 1
        if not _held[0] and _pending:
            signum = _pending[0]
            _pending.clear()
            raise Terminated(signum)


# --- the lock ------------------------------------------------------------------------------------------

@contextlib.contextmanager
def _locked(lock: Path, what: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``lock`` (created, and removed again when released): a second
    writer waits up to :data:`LOCK_WAIT` seconds, then gets an OutputError."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        yield
        return
    deadline = time.monotonic() + LOCK_WAIT
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
        except OSError as e:
            raise OutputError(f"cannot write to {what}: cannot create the lock file {lock}: {_reason(e)}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            if time.monotonic() > deadline:
                raise OutputError(f"another tongasm is writing {what} (it holds {lock}); try again when it has "
                                  "finished") from None
            time.sleep(0.05)
            continue
        except OSError:  # a file system without flock: go on unlocked
            os.close(fd)
            yield
            return
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(lock))
        except OSError:
            same = False
        if same:
            break
        os.close(fd)  # the holder before us removed the file we locked: lock the new one
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(lock)
        os.close(fd)


# --- writing -------------------------------------------------------------------------------------------

def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fill(fh: BinaryIO, data: Content) -> None:
    if callable(data):
        data(fh)
    else:
        fh.write(data)


def _remove_stale_files(parent: Path, name: str) -> None:
    """The ``.NAME.tmp-XXXXXXXX`` files a killed :func:`atomic_write` of ``name`` left (the caller
    holds that name's lock, so no live writer owns them): regular files of this user only."""
    prefix = f".{name}.tmp-"
    try:
        entries = [e for e in os.scandir(parent) if e.name.startswith(prefix) and len(e.name) == len(prefix) + 8]
    except OSError:
        return
    for e in entries:
        try:
            st = e.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid():
            with signals_held(), contextlib.suppress(OSError):
                os.unlink(e.path)


def atomic_write(path: str | os.PathLike[str], data: Content) -> Path:
    """Write ``data`` (bytes, or a function that writes to an open binary file) to ``path`` via a
    temporary file in the same directory and a rename; on any error (or SIGINT/SIGTERM/SIGHUP) the
    temporary file is removed and ``path`` is left as it was. ``path`` is checked first
    (:func:`output_file_path`). The write holds the name's lock (``.NAME.tongasm-lock``), under
    which the temporary files a SIGKILL'd write of the same name left are removed. Returns the
    path written."""
    target = output_file_path(path)
    refuse_inputs([target])
    parent = target.parent
    tmp: str | None = None
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(f"cannot write {target}: {_reason(e)}") from None
    with termination_raises(), _locked(parent / f".{target.name}.tongasm-lock", target):
        _remove_stale_files(parent, target.name)
        try:
            with signals_held():
                try:
                    parent.mkdir(parents=True, exist_ok=True)
                    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.tmp-", dir=parent)
                except OSError as e:
                    raise OutputError(f"cannot write {target}: {_reason(e)}") from None
            with os.fdopen(fd, "wb") as fh:
                _fill(fh, data)
            os.chmod(tmp, 0o666 & ~_umask())  # the mode open() would give (mkstemp makes it private)
            output_file_path(target)  # still a regular, writable file (or nothing) just before the rename
            with signals_held():
                os.replace(tmp, target)
                tmp = None
        except OSError as e:
            raise OutputError(f"cannot write {target}: {_reason(e)}") from None
        finally:
            if tmp is not None:
                with signals_held(), contextlib.suppress(OSError):
                    os.unlink(tmp)
    return target


#: the file in a temporary directory of :func:`write_new_tree` that marks it as tongasm's
TREE_MARK = ".tongasm-tree"


def _tree_file(root: Path, name: str) -> Path:
    """``root / name`` for a relative path of plain components (no empty, ``.``, ``..``, NUL,
    backslash), checked to stay inside ``root``."""
    parts = name.split("/")
    if not name or any(c in ("", ".", "..") or "\0" in c or "\\" in c for c in parts) or name == TREE_MARK:
        raise OutputError(f"refusing to write {name!r}: not a plain relative path")
    p = root.joinpath(*parts)
    if root.resolve() not in p.resolve().parents:
        raise OutputError(f"refusing to write {name!r}: it would land outside {root}")
    return p


def _remove_stale_trees(out: Path) -> None:
    """Temporary directories a killed :func:`write_new_tree` left beside ``out`` (marked with
    :data:`TREE_MARK`, or still empty: killed before the mark was made; the caller holds the lock, so
    no live writer owns them)."""
    prefix = f".{out.name}.tmp-"
    try:
        entries = [e for e in os.scandir(out.parent) if e.name.startswith(prefix)]
    except OSError:
        return
    for e in entries:
        if not e.is_dir(follow_symlinks=False):
            continue
        if os.path.isfile(os.path.join(e.path, TREE_MARK)):
            with signals_held():
                shutil.rmtree(e.path, ignore_errors=True)
        else:  # killed between making the directory and marking it: still empty, nothing to lose
            try:
                os.rmdir(e.path)
            except OSError:
                pass  # not empty: not one of ours, left alone


def write_new_tree(out_dir: str | os.PathLike[str], files: Iterable[tuple[str, Content]]) -> Path:
    """Write ``files`` (relative ``a/b`` paths → content, consumed one at a time: a generator may
    produce them lazily) as the new directory ``out_dir``, which must not exist or be empty.

    The tree is built as a hidden sibling (``.NAME.tmp-*``, marked as tongasm's) and renamed into
    place at the end, under the directory's lock: on any error or termination signal nothing is
    left; a sibling a SIGKILL'd run left is removed by the next. ``-o`` is checked as
    :func:`output_dir_path` does (a link to an empty directory is followed). A write failure (a full
    disk) is an :class:`OutputError` (exit 1). Returns the directory written."""
    out = output_dir_path(out_dir)
    check_empty_dir(out)
    parent = out.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(f"cannot create output directory {out}: {_reason(e)}") from None
    with termination_raises(), _locked(parent / f".{out.name}.tongasm-lock", out):
        _remove_stale_trees(out)
        out = output_dir_path(out)  # again, under the lock
        check_empty_dir(out)
        tmp: Path | None = None
        done = False
        try:
            tmp = _tmp_dir(parent, out.name)
            (tmp / TREE_MARK).touch()
            made = {tmp}
            for name, data in files:
                p = _tree_file(tmp, name)
                for d in reversed(p.parents):
                    if d not in made and tmp in d.parents:
                        d.mkdir(exist_ok=True)
                        made.add(d)
                with open(p, "wb") as fh:
                    _fill(fh, data)
            for d in made:
                os.chmod(d, 0o777 & ~_umask())  # what a plain mkdir gives (mkdtemp makes it private)
            with signals_held():
                os.unlink(tmp / TREE_MARK)
                os.rename(tmp, out)  # replaces an empty directory; fails on one filled meanwhile
                done = True
        except OSError as e:
            raise OutputError(f"cannot write {out}: {_reason(e)}") from None
        finally:
            if not done and tmp is not None:
                with signals_held():
                    shutil.rmtree(tmp, ignore_errors=True)
    return out


def check_empty_dir(out: Path) -> None:
    """Refuse (UsageError) an existing directory that is not empty."""
    try:
        if out.is_dir() and any(os.scandir(out)):
            raise UsageError(f"output directory {out} exists and is not empty; a new or empty directory is needed")
    except OSError as e:
        raise UsageError(f"cannot use {out} as the output directory: {_reason(e)}") from None


StaleNames = Iterable[str] | Callable[[Path], Iterable[str]]


def write_output_dir(out_dir: str | os.PathLike[str], files: Mapping[str, Content],
                     stale: StaleNames = ()) -> list[Path]:
    """Write ``files`` (name → bytes, or a function that writes the file to an open binary file)
    into the directory ``out_dir`` as one change; return the paths written.

    ``stale`` names files an earlier run of the same command wrote that this one may drop when it
    does not write them again (a callable gets the existing directory and returns them: the names
    its old manifest lists). Every other file already in the directory is kept. Names are checked
    by :func:`check_output_name`; the directory by :func:`output_dir_path`. See the module docstring
    for how the change is made all at once, locked and cleaned up.
    """
    out = output_dir_path(out_dir)
    names = [check_output_name(n) for n in files]
    refuse_inputs([out / n for n in names])
    parent = out.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(f"cannot create output directory {out}: {_reason(e)}") from None
    # the lock lives beside the directory; inside it when only the directory itself is writable
    lock = (parent / f".{out.name}.tongasm-lock" if os.access(parent, os.W_OK | os.X_OK)
            else out / ".tongasm-lock")
    with termination_raises(), _locked(lock, out):
        _remove_leftovers(out)
        out = output_dir_path(out)  # again, under the lock
        if not out.is_dir():
            return _write_new(out, files)
        drop = set(stale(out) if callable(stale) else stale) - set(names)
        refuse_inputs([out / n for n in sorted(drop)], dropped=True)
        _check_replaceable(out, names, drop)
        if _swappable(out):
            return _write_swapped(out, files, drop)
        return _write_in_place(out, files, drop)


#: what marks a manifest (``manifest.json``, ``state.json``) as one tongasm wrote
MANIFEST_TOOL = "tongasm"
#: a manifest's map of every file that run wrote to the digest of its content
WRITTEN_KEY = "written"


def content_digest(data: bytes | bytearray | memoryview) -> str:
    """The digest a tongasm manifest records for a file it wrote (BLAKE2b, 128 bits, hex)."""
    import hashlib

    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _file_digest(path: Path) -> str | None:
    """The :func:`content_digest` of a regular file, or None when it is not one or cannot be read."""
    import hashlib

    try:
        with open(path, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return None
            h = hashlib.blake2b(digest_size=16)
            while chunk := fh.read(1 << 20):
                h.update(chunk)
            return h.hexdigest()
    except OSError:
        return None


def manifest_files(manifest: Path, keys: Iterable[str]) -> set[str]:
    """The files an earlier run wrote that a new run may drop: those the manifest lists under ``keys``
    (``"streams": {NAME: {"file": ...}}``, ``"census": {"file": ...}``, ``"memory": {"file": ...}``;
    ``state.json``'s ``"outputs"``) and whose content is still what that run wrote.

    A manifest counts only when it is tongasm's (``"tool": "tongasm"``) and records the digest of
    every file it wrote (``"written": {NAME: DIGEST}``); a file is listed only when its digest there
    matches its content now. So a foreign or hand-made manifest, a manifest of an older tongasm and
    a file the user has since edited all make nothing deletable: at worst a stale file stays. Only
    plain names (:func:`check_output_name`) count. The head of the manifest is read, not its
    (possibly huge) instruction list."""
    import json

    wanted = set(keys) | {"tool", WRITTEN_KEY}
    try:
        with open(manifest, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return set()
            text = fh.read(1 << 20).decode("utf-8", "replace")
    except (OSError, ValueError):
        return set()
    dec = json.JSONDecoder()
    ws = " \t\r\n"
    head: dict[str, object] = {}
    try:
        i = len(text) - len(text.lstrip(ws))
        if text[i:i + 1] != "{":
            return set()
        i += 1
        while wanted:
            while text[i] in ws:
                i += 1
            key, i = dec.raw_decode(text, i)
            while text[i] in ws:
                i += 1
            if text[i] != ":" or key == "instructions":
                break
            i += 1
            while text[i] in ws:
                i += 1
            value, i = dec.raw_decode(text, i)
            if key in wanted:
                wanted.discard(key)
                head[key] = value
            while text[i] in ws:
                i += 1
            if text[i] != ",":
                break
            i += 1
    except (ValueError, IndexError, RecursionError):
        pass
    written = head.get(WRITTEN_KEY)
    if head.get("tool") != MANIFEST_TOOL or not isinstance(written, dict):
        return set()
    found: list[object] = []
    for key in set(keys):
        value = head.get(key)
        # {"file": NAME} or {KEY: {"file": NAME}, ...}
        found += [value] if not isinstance(value, dict) or "file" in value else list(value.values())
    names = set()
    for entry in found:
        name = entry.get("file") if isinstance(entry, dict) else None
        if not isinstance(name, str):
            continue
        try:
            name = check_output_name(name)
        except InputError:
            continue
        digest = written.get(name)
        if isinstance(digest, str) and _file_digest(manifest.parent / name) == digest:
            names.add(name)
    return names


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name the same existing file (an output that would overwrite an input)."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def _tmp_dir(where: Path, name: str) -> Path:
    """Make a private temporary directory ``.NAME.tmp-*`` in ``where``. A termination signal that
    arrives while it is made is raised once it exists, and then it is removed here: the caller,
    which removes it on any later error, has not got its name yet."""
    made: Path | None = None
    try:
        with signals_held():
            try:
                made = Path(tempfile.mkdtemp(prefix=f".{name}.tmp-", dir=where))
            except OSError as e:
                raise OutputError(f"cannot write to {where / name}: {_reason(e)}") from None
    except BaseException:
        if made is not None:
            with signals_held(), contextlib.suppress(OSError):
                os.rmdir(made)
        raise
    return made


def _fill_dir(tmp: Path, files: Mapping[str, Content]) -> None:
    for fname, data in files.items():
        with open(tmp / fname, "wb") as fh:
            _fill(fh, data)


def _discard(d: Path) -> None:
    """Remove a temporary directory of tongasm's: the plain files and links in it, then the
    directory. Anything else (a subdirectory someone put there) is left, and so is the directory."""
    with signals_held():
        try:
            entries = list(os.scandir(d))
        except OSError:
            return
        for e in entries:
            if e.is_file(follow_symlinks=False) or e.is_symlink():
                with contextlib.suppress(OSError):
                    os.unlink(e.path)
        with contextlib.suppress(OSError):
            os.rmdir(d)


def _remove_leftovers(out: Path) -> None:
    """Temporary directories a killed tongasm left beside (or in) ``out``: we hold the lock, so no
    live writer owns them."""
    for where, prefix in ((out.parent, f".{out.name}.tmp-"), (out, ".tongasm.tmp-")):
        try:
            entries = [e for e in os.scandir(where) if e.name.startswith(prefix)]
        except OSError:
            continue
        for e in entries:
            if e.is_dir(follow_symlinks=False):
                _discard(Path(e.path))


def _check_replaceable(out: Path, names: Iterable[str], drop: Iterable[str]) -> None:
    """What this write replaces or removes in ``out`` must be a writable regular file (or a link)."""
    for name in [*names, *drop]:
        p = out / name
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            continue
        except OSError as e:
            raise OutputError(f"cannot write {p}: {_reason(e)}") from None
        if stat.S_ISLNK(st.st_mode):
            continue  # the link itself is replaced, never what it points to
        if not stat.S_ISREG(st.st_mode):
            raise UsageError(f"{p} is {_kind(st.st_mode)}; tongasm would replace it with its output "
                             "(move it away first)")
        if not st.st_mode & stat.S_IWUSR:
            raise UsageError(f"{p} is read-only; tongasm would replace it with its output")


def _swappable(out: Path) -> bool:
    """Whether ``out`` can be replaced as a whole: only plain files and links in it (they are carried
    over), not a mount point, its parent writable and on the same file system, and not the working
    directory of this process (or one it is inside: ``-o .`` from a shell in that directory would
    leave the shell in the old, removed directory)."""
    cwd = _cwd()
    if cwd is None or cwd == str(out) or cwd.startswith(str(out) + os.sep):
        return False
    try:
        if os.path.ismount(out) or not os.access(out.parent, os.W_OK | os.X_OK):
            return False
        if os.stat(out).st_dev != os.stat(out.parent).st_dev:
            return False
        return all(e.is_symlink() or e.is_file(follow_symlinks=False) for e in os.scandir(out))
    except OSError:
        return False


def _write_new(out: Path, files: Mapping[str, Content]) -> list[Path]:
    """``out`` does not exist: build it as a sibling and rename it into place."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp: Path | None = None
    done = False
    try:
        tmp = _tmp_dir(out.parent, out.name)
        _fill_dir(tmp, files)
        os.chmod(tmp, 0o777 & ~_umask())  # what a plain mkdir gives (mkdtemp makes it private)
        with signals_held():
            os.rename(tmp, out)  # fails if someone created a non-empty out meanwhile
            done = True
    except OSError as e:
        raise OutputError(f"cannot write to {out}: {_reason(e)}") from None
    finally:
        if not done and tmp is not None:
            _discard(tmp)
    return [out / n for n in files]


def _write_swapped(out: Path, files: Mapping[str, Content], drop: set[str]) -> list[Path]:
    """Build the new directory beside ``out`` (new files, plus hard links to every old file that is
    neither replaced nor dropped), then exchange the two in one step and remove the old one."""
    tmp: Path | None = None
    swapped = False
    try:
        tmp = _tmp_dir(out.parent, out.name)
        _fill_dir(tmp, files)
        for e in os.scandir(out):
            if e.name in files or e.name in drop or e.name.startswith(".tongasm.tmp-"):
                continue
            if e.is_symlink():
                os.symlink(os.readlink(e.path), tmp / e.name)
            else:
                try:
                    os.link(e.path, tmp / e.name, follow_symlinks=False)
                except OSError:
                    shutil.copy2(e.path, tmp / e.name, follow_symlinks=False)
        st = os.stat(out)
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        if (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
            with contextlib.suppress(OSError):
                os.chown(tmp, st.st_uid, st.st_gid)
        with signals_held():
            _exchange(tmp, out)
            swapped = True  # tmp now holds the old directory
            _discard(tmp)
    except OSError as e:
        raise OutputError(f"cannot write to {out}: {_reason(e)}") from None
    finally:
        if not swapped and tmp is not None:
            _discard(tmp)
    return [out / n for n in files]


def _write_in_place(out: Path, files: Mapping[str, Content], drop: set[str]) -> list[Path]:
    """``out`` holds subdirectories or special files (or cannot be swapped): write the files into a
    temporary directory in it, then rename them in one by one and remove the dropped ones, with the
    termination signals held back."""
    tmp: Path | None = None
    try:
        tmp = _tmp_dir(out, "tongasm")
        _fill_dir(tmp, files)
        with signals_held():
            for fname in files:
                os.replace(tmp / fname, out / fname)
            for fname in drop:
                p = out / fname
                if p.is_symlink() or p.is_file():
                    p.unlink()
    except OSError as e:
        raise OutputError(f"cannot write to {out}: {_reason(e)}") from None
    finally:
        if tmp is not None:
            _discard(tmp)
    return [out / n for n in files]


def _exchange(a: Path, b: Path) -> None:
    """Swap two directories atomically (Linux ``renameat2(RENAME_EXCHANGE)``); where that is not
    available, move ``b`` aside and ``a`` into its place (then ``a`` names the old ``b``)."""
    if _renameat2 is not None:
        import ctypes

        if _renameat2(-100, os.fsencode(a), -100, os.fsencode(b), 2) == 0:  # AT_FDCWD, RENAME_EXCHANGE
            return
        err = ctypes.get_errno()
        if err not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise OSError(err, os.strerror(err), str(b))
    aside = b.parent / f".{b.name}.tmp-old-{os.getpid()}"
    os.rename(b, aside)
    try:
        os.rename(a, b)
    except OSError:
        os.rename(aside, b)
        raise
    os.rename(aside, a)


def _load_renameat2() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


_renameat2 = _load_renameat2()


def _cwd() -> str | None:
    try:
        return os.getcwd()
    except OSError:
        return None


class paused_gc:
    """Pause the cyclic garbage collector for a bulk job (a context manager).

    Encoding a million instructions allocates millions of short-lived objects that are never in
    cycles; generation-2 collections would rescan the whole IR again and again. Reference counting
    still frees everything as usual; the collector resumes afterwards.
    """

    def __enter__(self) -> paused_gc:
        import gc

        self.was_enabled = gc.isenabled()
        gc.disable()
        return self

    def __exit__(self, *exc: object) -> None:
        import gc

        if self.was_enabled:
            gc.enable()
