"""Progress of every long command on standard error: done of total, the rate, the time left.

One helper for all (``play``, ``bench``, ``replay``, ``export``, ``corpus``, ``learn data``,
``learn train``, ``learn dagger``), so that each shows the same line:

    playing  ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━  420/1000 games  35.2 games/s  0:00:16  win rate 91.2 %

It is drawn only for someone watching: by default when standard error is a terminal and the
command prints no ``--json``; ``--progress`` forces it on, ``--no-progress`` off. It never
writes to standard output, so results and their JSON stay clean. In a terminal the bar is
``rich``'s (a dependency of the ``bench`` extra), else click's; forced onto a file or a pipe
(a log of a long run), it is a plain line every :data:`LINE_EVERY` seconds and at the end.
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any

import click

#: Seconds between plain progress lines when standard error is not a terminal.
LINE_EVERY = 10.0


def wanted(progress: bool | None, as_json: bool = False) -> bool:
    """Whether to draw: as asked, else when standard error is a terminal and no JSON."""
    if progress is not None:
        return progress
    return not as_json and _is_terminal(sys.stderr)


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False


def clock(seconds: float) -> str:
    """``h:mm:ss`` (the time left)."""
    seconds = int(max(seconds, 0.0) + 0.5)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def rate_text(rate: float | None, unit: str) -> str:
    """``35.2 games/s`` (``-`` before anything is done)."""
    if not rate:
        return f"- {unit}/s"
    return f"{rate:.3g} {unit}/s"


class Progress:
    """A progress bar of ``total`` units, with the rate of this session and the time left.

    Use as a context manager; :meth:`advance` after each unit (or batch) of work. When not
    ``enabled`` every method is a no-op but :meth:`echo`, which prints.

    Args:
        total: Units in all (games, runs, files, steps); :meth:`set_total` may change it.
        unit: Their name, plural (``games``).
        label: What is being done (``playing``).
        enabled: Whether to draw at all (see :func:`wanted`).
        rate_unit: What the rate counts, if not the units (``learn data``: positions/s
            over a bar of games); :meth:`advance`'s ``count`` adds to it.
    """

    def __init__(
        self,
        total: int,
        unit: str,
        label: str,
        enabled: bool,
        rate_unit: str | None = None,
    ):
        self.total = max(int(total), 0)
        self.unit = unit
        self.label = label
        self.enabled = enabled
        self.rate_unit = rate_unit or unit
        self.done = 0  # units done, those done before this session included
        self.counted = 0  # units done in this session (the time left comes from their rate)
        self.count = 0  # what the rate counts, in this session
        self.note = ""
        self.started = time.monotonic()
        self._view: _View | None = None

    def __enter__(self) -> Progress:
        if self.enabled:
            self.started = time.monotonic()
            self._view = _view(self, sys.stderr)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._view is not None:
            self._view.close()
            self._view = None

    def set_total(self, total: int) -> None:
        """The number of units in all, once it is known."""
        self.total = max(int(total), 0)
        self._draw()

    def skip(self, units: int) -> None:
        """Units done before this session (a resumed run): on the bar, not in the rate."""
        self.done += units
        self._draw()

    def advance(self, units: int = 1, *, count: float | None = None, note: str | None = None):
        """``units`` more done (``count`` more of the rate's own unit), and the note to show
        after the time left (``win rate 91.2 %``, ``loss 0.21``)."""
        self.done += units
        self.counted += units
        self.count += units if count is None else count
        if note is not None:
            self.note = note
        self._draw()

    def echo(self, text: str) -> None:
        """Prints a line of the command's output on standard output, around the bar."""
        if self._view is None:
            click.echo(text)
        else:
            self._view.echo(text)

    # What the views show.

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def rate(self) -> float | None:
        """The rate of this session, in the rate's unit per second."""
        elapsed = self.elapsed()
        return self.count / elapsed if self.count and elapsed > 0 else None

    def left(self) -> float | None:
        """Seconds left at this session's pace (``None`` before anything is done)."""
        if not self.counted or not self.total:
            return None
        return max(self.total - self.done, 0) * self.elapsed() / self.counted

    def status(self) -> str:
        """``35.2 games/s  0:00:16 left  win rate 91.2 %``."""
        left = self.left()
        parts = [rate_text(self.rate(), self.rate_unit)]
        parts.append("-:--:-- left" if left is None else f"{clock(left)} left")
        if self.note:
            parts.append(self.note)
        return "  ".join(parts)

    def line(self) -> str:
        """The whole progress as one plain line."""
        return f"{self.label}: {self.done}/{self.total} {self.unit}  {self.status()}"

    def _draw(self) -> None:
        if self._view is not None:
            self._view.draw()


class _View:
    """How a :class:`Progress` is drawn."""

    def __init__(self, progress: Progress, stream: IO[str]):
        self.progress = progress
        self.stream = stream

    def draw(self) -> None:
        raise NotImplementedError

    def echo(self, text: str) -> None:
        click.echo(text)

    def close(self) -> None:
        raise NotImplementedError


def _view(progress: Progress, stream: IO[str]) -> _View:
    """rich's bar in a terminal (click's without rich), plain lines elsewhere."""
    if not _is_terminal(stream):
        return _Lines(progress, stream)
    try:
        return _Rich(progress, stream)
    except ImportError:
        return _Click(progress, stream)


class _Lines(_View):
    """Forced on a file or a pipe: one line every :data:`LINE_EVERY` seconds, and the last."""

    def __init__(self, progress: Progress, stream: IO[str]):
        super().__init__(progress, stream)
        self.last = time.monotonic()

    def draw(self) -> None:
        if time.monotonic() - self.last >= LINE_EVERY:
            self.last = time.monotonic()
            click.echo(self.progress.line(), file=self.stream)

    def close(self) -> None:
        p = self.progress
        click.echo(f"{p.line()}  ({clock(p.elapsed())} in all)", file=self.stream)


class _Rich(_View):
    """A ``rich`` bar (raises ImportError without rich)."""

    def __init__(self, progress: Progress, stream: IO[str]):
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn

        super().__init__(progress, stream)
        # Standard output is left alone: results printed meanwhile go where they belong.
        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total} {task.fields[unit]}"),
            TextColumn("{task.fields[status]}"),
            console=Console(file=stream),
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self.task = self.bar.add_task(
            progress.label, total=progress.total, unit=progress.unit, status=progress.status()
        )
        self.bar.start()

    def draw(self) -> None:
        p = self.progress
        self.bar.update(self.task, completed=p.done, total=p.total, status=p.status())

    def echo(self, text: str) -> None:
        if _is_terminal(sys.stdout):
            # Both on the screen: printed above the bar, which stays whole.
            self.bar.console.print(text, markup=False, highlight=False, soft_wrap=True)
        else:
            click.echo(text)

    def close(self) -> None:
        self.draw()
        self.bar.stop()


class _Click(_View):
    """click's bar, where rich is not installed."""

    def __init__(self, progress: Progress, stream: IO[str]):
        super().__init__(progress, stream)
        self.bar: Any = click.progressbar(
            length=max(progress.total, 1),
            label=progress.label,
            file=stream,
            show_pos=True,
            show_eta=False,  # the status has the time left, at this session's pace
            item_show_func=lambda status: status,
        )
        self.bar.__enter__()

    def draw(self) -> None:
        p = self.progress
        self.bar.length = max(p.total, 1)
        self.bar.pos = min(p.done, self.bar.length)
        self.bar.current_item = p.status()
        self.bar.render_progress()

    def echo(self, text: str) -> None:
        self.stream.write("\r\x1b[K")  # clear the bar's line; it is drawn again below
        self.stream.flush()
        click.echo(text)
        self.bar.render_progress()

    def close(self) -> None:
        self.draw()
        self.bar.__exit__(None, None, None)
