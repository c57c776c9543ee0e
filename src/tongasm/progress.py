"""A small progress bar for long jobs, on stderr, standard library only.

    with progress("assemble", unit="instructions", quiet=args.quiet) as bar:
        for k, item in enumerate(items, 1):
            ...
            if not k & 1023:            # the caller updates every N items...
                bar.update(k)           # ...and the bar redraws at most ~10 times a second

The bar draws only when it is useful: stderr is a terminal, ``quiet`` is false and the environment
variable ``TONGASM_NO_PROGRESS`` is not set (to a non-empty value). It appears only once the job has
run for a moment (``delay``, 0.5 s), so quick commands print nothing extra, and it clears its line when
the job ends. A line shows the label, the count (``done/total`` when the total is known), the percent,
the rate and the time left, for example::

    disasm dve [########--------------]  1,234,567/3,000,000 bundles  41%  812.3k/s  ETA 0:02

When the bar is off, :func:`progress` returns a :class:`NullProgress` whose methods do nothing and
whose :attr:`~NullProgress.hook` is ``None``, so library loops that take an optional
``progress(done, total)`` callback skip even the call.
"""

from __future__ import annotations

import io
import os
import sys
import time
from typing import TextIO
from collections.abc import Callable

#: Library progress callbacks: ``hook(done, total)``; ``total`` is None when the callee does not know it.
ProgressHook = Callable[[int, int | None], None]

ENV_DISABLE = "TONGASM_NO_PROGRESS"
DELAY = 0.5  # seconds before the bar first appears
INTERVAL = 0.1  # seconds between redraws (at most ~10 per second)


def _is_tty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # no isatty, or a closed stream
        return False


def wanted(stream: TextIO | None = None, *, quiet: bool = False, enabled: bool | None = None) -> bool:
    """Should a bar draw? ``quiet`` always wins; ``enabled`` forces it on or off; otherwise only on a
    terminal and when ``TONGASM_NO_PROGRESS`` is unset."""
    if quiet:
        return False
    if enabled is not None:
        return enabled
    if os.environ.get(ENV_DISABLE):
        return False
    return _is_tty(stream if stream is not None else sys.stderr)


def _count(n: float) -> str:
    """A rate in short form: 9.5, 950, 12.3k, 4.6M."""
    if n < 1000:
        return f"{n:.0f}" if n >= 10 else f"{n:.1f}"
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= div:
            return f"{n / div:.1f}{suffix}"
    return f"{n:.0f}"  # pragma: no cover


def _clock_text(seconds: float) -> str:
    s = int(seconds + 0.5)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class NullProgress:
    """The bar when it is off: every method does nothing; :attr:`hook` is None."""

    enabled = False
    label = ""
    total: int | None = None
    done = 0

    @property
    def hook(self) -> ProgressHook | None:
        """A ``hook(done, total)`` for library loops, or None when there is nothing to report to."""
        return None

    def update(self, done: int, total: int | None = None, *, fraction: float | None = None) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        pass

    def phase(self, label: str, total: int | None = None, *, done: int = 0, unit: str | None = None) -> None:
        pass

    def close(self) -> None:
        pass

    def __call__(self, done: int, total: int | None = None) -> None:
        pass

    def __enter__(self) -> NullProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Progress(NullProgress):
    """A live progress line on ``stream`` (stderr by default).

    ``update(done)`` records how much is done; it reads the clock and redraws only when ``interval``
    has passed since the last draw and ``delay`` since the start, so it costs one clock read when it
    does not draw. Hot loops should still call it every N items (or use :meth:`advance`, which reads
    the clock only every ``every`` calls). ``total`` (or a ``fraction`` of the work, e.g. the share of
    an input file already read) gives the percent and the time left; without either the line shows
    the count and the rate. ``clock`` is injectable for tests.
    """

    enabled = True

    def __init__(self, label: str, total: int | None = None, *, unit: str = "", stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic, delay: float = DELAY, interval: float = INTERVAL,
                 width: int | None = None, every: int = 256) -> None:
        self.label = label
        self.total = total
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        self.delay = delay
        self.interval = interval
        self.width = width
        self.every = max(1, every)
        self.done = 0
        self.fraction: float | None = None
        self.start = clock()
        self._next = self.start + delay  # no draw before this time
        self._anchor(self.start)
        self._ticks = 0
        self._shown = 0  # length of the line on screen (0: nothing drawn)
        self._closed = False
        self.draws = 0  # how many times the line was drawn (for tests and curiosity)

    def _anchor(self, now: float) -> None:
        """Measure the rate and the time left from here: (time, done, share done or None)."""
        self._at = (now, self.done, self._frac())

    def _frac(self) -> float | None:
        if self.total:
            return min(self.done / self.total, 1.0)
        return self.fraction

    @property
    def hook(self) -> ProgressHook | None:
        return self.update

    def __call__(self, done: int, total: int | None = None) -> None:
        self.update(done, total)

    def update(self, done: int, total: int | None = None, *, fraction: float | None = None) -> None:
        """``done`` items so far (``total`` when it becomes known; ``fraction`` of the work when the
        count alone cannot say); redraws if it is time."""
        self.done = done
        if total is not None:
            self.total = total
        if fraction is not None:
            self.fraction = fraction
        now = self.clock()
        if self._at[2] is None and (self.total or self.fraction is not None):
            self._anchor(now)  # the share done just became known: time the rest from here
        if now >= self._next:
            self._draw(now)

    def advance(self, n: int = 1) -> None:
        """``n`` more items done; looks at the clock only every ``every`` calls."""
        self.done += n
        self._ticks += 1
        if self._ticks >= self.every:
            self._ticks = 0
            now = self.clock()
            if now >= self._next:
                self._draw(now)

    def phase(self, label: str, total: int | None = None, *, done: int = 0, unit: str | None = None) -> None:
        """Switch to the next stage of the job (a new label, count, total and unit; the rate and the
        time left start over); redraws at once if the bar is on screen (or due to appear)."""
        self.label = label
        self.total = total
        self.fraction = None
        self.done = done
        if unit is not None:
            self.unit = unit
        now = self.clock()
        self._anchor(now)
        if self._shown or now >= self._next:
            self._draw(now)

    def line(self, now: float | None = None) -> str:
        """The text of the progress line (without the carriage return).

        The count is padded to the width of the total and the bar's width depends only on the label,
        the total and the terminal, so the line does not jitter as the numbers change.
        """
        now = self.clock() if now is None else now
        done, total = self.done, self.total
        frac = self._frac()
        t0, done0, frac0 = self._at
        elapsed = now - t0
        unit = f" {self.unit}" if self.unit else ""
        if total is not None:
            tw = len(f"{total:,}")
            count = f"{done:>{tw},}/{total:,}{unit}"
        else:
            count = f"{done:,}{unit}"
        parts = [count]
        if frac is not None:
            parts.append(f"{100 * frac:3.0f}%")
        if done > done0 and elapsed > 0:
            parts.append(f"{_count((done - done0) / elapsed):>5}/s")
        if frac is not None and frac0 is not None and frac0 < frac < 1 and elapsed > 0:
            parts.append(f"ETA {_clock_text(elapsed * (1 - frac) / (frac - frac0))}")
        tail = "  ".join(parts)
        cols = max(self._columns() - 1, 20)  # never write into the last column (some terminals wrap there)
        # room for the bar when the tail is at its widest: count, "  100%", "  999.9k/s", "  ETA 9:59:59"
        room = cols - len(self.label) - 4 - (len(count) + 6 + 10 + 13)
        if frac is not None and room >= 10:
            barw = min(room, 30)
            filled = int(barw * frac)
            return f"{self.label} [{'#' * filled}{'-' * (barw - filled)}]  {tail}"[:cols]
        return f"{self.label}  {tail}"[:cols]

    def _columns(self) -> int:
        """The terminal's width: ``width`` if given, else $COLUMNS, else the stream's terminal, else 80."""
        if self.width:
            return self.width
        try:
            cols = int(os.environ["COLUMNS"])
        except (KeyError, ValueError):
            try:
                cols = os.get_terminal_size(self.stream.fileno()).columns
            except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
                cols = 0
        return cols if cols > 0 else 80  # a pseudo-terminal may report 0 columns

    def _draw(self, now: float) -> None:
        if self._closed:
            return
        text = self.line(now)
        pad = " " * max(self._shown - len(text), 0)
        try:
            self.stream.write("\r" + text + pad)
            self.stream.flush()
        except (OSError, ValueError):  # stderr went away: stop drawing, never fail the job
            self._closed = True
            return
        self._shown = len(text)
        self._next = now + self.interval
        self.draws += 1

    def close(self) -> None:
        """Clear the line (if anything was drawn); later updates draw nothing."""
        if self._closed:
            return
        self._closed = True
        if self._shown:
            try:
                self.stream.write("\r" + " " * self._shown + "\r")
                self.stream.flush()
            except (OSError, ValueError):
                pass
            self._shown = 0

    def __enter__(self) -> Progress:
        return self


def progress(label: str, total: int | None = None, *, unit: str = "", quiet: bool = False,
             enabled: bool | None = None, stream: TextIO | None = None, **options: object) -> NullProgress:
    """A :class:`Progress` when a bar is wanted (see :func:`wanted`), else a :class:`NullProgress`.

    ``options`` go to :class:`Progress` (``clock``, ``delay``, ``interval``, ``width``, ``every``).
    """
    if not wanted(stream, quiet=quiet, enabled=enabled):
        return NullProgress()
    return Progress(label, total, unit=unit, stream=stream, **options)  # type: ignore[arg-type]


__all__ = ["ENV_DISABLE", "NullProgress", "Progress", "ProgressHook", "progress", "wanted"]
