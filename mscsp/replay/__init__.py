"""Replays of real games: read a replay file, then rate every click with the exact odds.

Minesweeper programs record games as replay files: Minesweeper Arbiter ``.avf``,
Metasweeper ``.evf``, Viennasweeper ``.rmv``, Minesweeper Clone ``.mvf``. ``ms_toollib``
(extra ``replay``) reads them; :func:`read_replay` turns one into a :class:`Replay` (size,
mines, the layout and the cells the player opened, in order) and :func:`rate_replay` steps
through it, solving the board before every click.

What counts as a click:

- a left click on a covered cell is one click on that cell;
- a chord (both buttons on a number) counts as one click on each covered cell it opens,
  in row-major order, each rated on the board with the cells before it opened; a chord
  that hits a mine (a wrong flag) opens its safe cells all the same: they are rated first,
  then the mine, the click that lost;
- cells a zero opens around a click are not clicks;
- flags are the player's notes, not information: they are ignored (the board before a
  click shows every unopened cell as covered), so a wrong flag never misleads the odds.
  They only stop a zero's opening, as in the program that recorded the game: a wrong flag
  (on a safe cell) beside an opening stays covered until the player opens it, by an
  ordinary click;
- clicks that open nothing (on a revealed cell, on a flag, a chord whose cells are open,
  right clicks) are no-ops and are not listed.

Verdicts (``p`` is the clicked cell's mine probability, ``best`` the lowest of the board):

- ``forced``: the first click (its odds are the program's first-click rule, not a choice),
  or a guess when every covered cell had the same probability;
- ``certain``: the cell was certain safe (``p == 0``);
- ``best guess``: no cell was certain safe and ``p == best``;
- ``avoidable risk``: a certain-safe cell was left unplayed, or ``p > best``. Its ``cost``
  is ``p - best``: the chance of losing the click added over the safest cell.

The game's ``luck`` is the product of ``1 - p`` over the guesses it survived (every click
after the first with ``p > 0``): how likely a player was to get through those guesses.
ms_toollib's ``pluck`` is ``-log10`` of the same product (it counts a chord's cells at once,
where this module chains them; see the user guide), and infinite for a lost game.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field, replace
from fractions import Fraction
from math import log10
from pathlib import Path
from typing import Any

import numpy as np

from ..bigint import fraction_text
from ..board import COVERED, MAX_CELLS, Board, neighbour_sum
from ..errors import BackendUnavailableError, InvalidInputError, SolverLimitError, format_cell
from ..game import Game, GameState
from ..probabilities import Solution
from ..solver import CountCache, solve

#: File extensions read, with the program that writes them.
FORMATS = {
    "avf": "Minesweeper Arbiter",
    "evf": "Metasweeper",
    "rmv": "Viennasweeper",
    "mvf": "Minesweeper Clone",
}
#: Game modes (ms_toollib's numbering) whose mines are laid uniformly at random, so that the
#: exact odds of a position are the odds the player faced. The no-guess and "guessable"
#: modes lay or move mines by other rules; recursive and cheat modes open cells for the player.
MODES = {0: "standard", 1: "UPK", 3: "density", 4: "Windows 7"}
#: The other modes ms_toollib names, for the message that refuses them.
OTHER_MODES = {
    2: "cheat",
    5: "racing no-guess",
    6: "strong no-guess",
    7: "weak no-guess",
    8: "quasi no-guess",
    9: "strong guessable",
    10: "weak guessable",
    11: "recursive chords",
    12: "recursive flags",
    13: "recursive chords and flags",
}
#: Largest replay file read (bytes): an expert game is tens of kilobytes.
MAX_BYTES = 4 * 1024 * 1024
#: Seconds the reading child may take before the file is refused.
READ_TIMEOUT = 60.0
_READER = Path(__file__).with_name("_reader.py")

VERDICTS = ("forced", "certain", "best guess", "avoidable risk")


@dataclass(frozen=True)
class Action:
    """One mouse action that opened cells.

    Attributes:
        kind: ``click`` (left click on a covered cell) or ``chord`` (on a number).
        at: The cell under the mouse, ``(row, col)``.
        cells: The cells it opened directly, in the order they are rated (a chord's mine
            last, and only the first where it hit several: the game ends there).
        opened: Every cell the file says it uncovered (zeros' cascades and a mine hit too).
        flags: The cells the player had flagged when making it: a zero's opening leaves them
            covered (never used for the odds).
    """

    kind: str
    at: tuple[int, int]
    cells: tuple[tuple[int, int], ...]
    opened: frozenset[tuple[int, int]] = frozenset()
    flags: frozenset[tuple[int, int]] = frozenset()


@dataclass(frozen=True)
class Replay:
    """A recorded game, as read from its file.

    Attributes:
        rows: Board rows.
        cols: Board columns.
        mines: Number of mines.
        layout: ``bool`` array, True on the mines.
        actions: The actions that opened cells, in order.
        format: File extension (``evf``, ...).
        mode: The game mode's name (see :data:`MODES`).
        software: The program that recorded it, as the file says.
        player: The player's name, as the file says.
        metrics: ms_toollib's statistics of the game (3BV, 3BV/s, IOE, ...; see
            ``_reader.METRICS``), ``None`` where it has none.
        start_time: When the game started, microseconds since 1970 (``None``: not recorded).
    """

    rows: int
    cols: int
    mines: int
    layout: np.ndarray
    actions: tuple[Action, ...]
    format: str
    mode: str = "standard"
    software: str = ""
    player: str = ""
    metrics: dict[str, Any] = field(default_factory=dict)
    start_time: int | None = None


@dataclass(frozen=True)
class ClickRating:
    """One click, with the odds it was taken at.

    Attributes:
        number: 1 for the first click.
        cell: The cell clicked.
        kind: ``click`` or ``chord``.
        at: The cell under the mouse (the chord's number for a chord).
        board: The position before the click (flags left out).
        probability: Exact mine probability of the clicked cell.
        safest: The lowest mine probability of any covered cell.
        best_cell: A cell at that lowest probability (ties: fewest neighbours, then first).
        safe_cells: How many covered cells were certain safe.
        verdict: One of :data:`VERDICTS`.
        cost: ``probability - safest`` for an avoidable risk, else 0.
        survived: False for the click that lost.
    """

    number: int
    cell: tuple[int, int]
    kind: str
    at: tuple[int, int]
    board: Board
    probability: Fraction
    safest: Fraction
    best_cell: tuple[int, int]
    safe_cells: int
    verdict: str
    cost: Fraction
    survived: bool

    @property
    def guess(self) -> bool:
        """A click that risked a mine (not the first click, and not certain safe)."""
        return self.number > 1 and self.probability > 0


@dataclass
class ReplayRating:
    """Every click of a game rated, and the game's summary.

    Attributes:
        replay: The replay rated.
        clicks: One rating per click, in order.
        result: ``won``, ``lost`` or ``unfinished``.
        final_board: The position after the last click (the mine hit shows covered).
    """

    replay: Replay
    clicks: list[ClickRating] = field(default_factory=list)
    result: str = "unfinished"
    final_board: Board | None = None

    @property
    def luck(self) -> Fraction:
        """Product of ``1 - p`` over the guesses survived (1 when there was none)."""
        out = Fraction(1)
        for click in self.clicks:
            if click.guess and click.survived:
                out *= 1 - click.probability
        return out

    @property
    def lost_click(self) -> ClickRating | None:
        """The click that hit a mine, if any."""
        return next((c for c in self.clicks if not c.survived), None)

    @property
    def avoidable(self) -> list[ClickRating]:
        """The clicks rated ``avoidable risk``."""
        return [c for c in self.clicks if c.verdict == "avoidable risk"]

    def summary(self) -> dict[str, Any]:
        """The game in numbers (what ``mscsp replay --json`` puts under ``summary``)."""
        luck = self.luck
        counts = {v: sum(c.verdict == v for c in self.clicks) for v in VERDICTS}
        lost = self.lost_click
        return {
            "result": self.result,
            "clicks": len(self.clicks),
            "verdicts": counts,
            "guesses": sum(c.guess for c in self.clicks),
            "guesses_survived": sum(c.guess and c.survived for c in self.clicks),
            "luck": float(luck),
            "luck_log10": _log10(luck),
            "avoidable_risks": len(self.avoidable),
            "avoidable_cost": float(sum((c.cost for c in self.avoidable), Fraction(0))),
            "lost_click": None if lost is None else lost.number,
        }


def _log10(value: Fraction) -> float:
    # Fractions of huge integers overflow float division; logs of each part do not.
    return log10(value.numerator) - log10(value.denominator)


def read_replay(
    data: bytes,
    name: str,
    timeout: float = READ_TIMEOUT,
    reader: ReaderProcess | None = None,
    pluck: bool = False,
) -> Replay:
    """Reads a replay file's bytes through ms_toollib (in a child process).

    Args:
        data: The file's contents.
        name: The file name, or just its extension: it picks the format.
        timeout: Seconds ms_toollib may take to read it, child start-up included.
        reader: A child kept to read many files (:class:`ReaderProcess`); by default a
            child is started for this file.
        pluck: With ``reader``, have ms_toollib compute its pluck into ``metrics`` (it
            solves every position: several times the reading time).

    Raises:
        InvalidInputError: An unknown extension, a corrupt, truncated or empty file, a game
            mode other than :data:`MODES`, a board past the size limits, or a replay that
            opens no cell.
        SolverLimitError: Reading took over ``timeout`` seconds (the file is not judged).
        BackendUnavailableError: ms_toollib is not installed (extra ``replay``).
    """
    ext = name.rsplit(".", 1)[-1].lower()
    if ext not in FORMATS:
        known = ", ".join(f".{k} ({v})" for k, v in FORMATS.items())
        shown = Path(name).name
        raise InvalidInputError(f"unknown replay format {shown!r}: expected {known}")
    if not data:
        raise InvalidInputError("the replay file is empty")
    if len(data) > MAX_BYTES:
        raise InvalidInputError(f"replay file too large ({len(data)} bytes; limit {MAX_BYTES})")
    if reader is None:
        raw = _run_reader(ext, data, timeout)
    else:
        raw = reader.read(ext, data, timeout, pluck)
    return _replay_from(raw, ext)


def _run_reader(ext: str, data: bytes, timeout: float) -> dict[str, Any]:
    env = dict(os.environ, RUST_BACKTRACE="0")
    # On a panic ms_toollib writes crash.log to the working directory: give the child an
    # empty one of its own, removed after, so reading a file leaves nothing behind.
    with tempfile.TemporaryDirectory(prefix="mscsp-replay-") as scratch:
        try:
            done = subprocess.run(
                [sys.executable, str(_READER), ext],
                input=data,
                capture_output=True,
                timeout=timeout,
                env=env,
                cwd=scratch,
            )
        except subprocess.TimeoutExpired:
            # A time limit, not a verdict on the file: on a busy machine a valid replay can
            # take this long (the child starts Python and ms_toollib first).
            raise SolverLimitError(
                f"reading the .{ext} replay took over {timeout:g} s (time limit; the file was "
                "not judged)"
            ) from None
    return _checked(ext, done.stdout, done.returncode)


def _checked(ext: str, stdout: bytes, returncode: int | None) -> dict[str, Any]:
    """The reader's answer for one file, or the error it means (``returncode``: the child's
    exit status, ``None`` while it runs on)."""
    corrupt = f"corrupt or truncated .{ext} file"
    try:
        out = json.loads(stdout)
    except ValueError:
        out = None
    if isinstance(out, dict) and out.get("missing"):
        raise BackendUnavailableError(
            "reading replays needs ms_toollib: pip install 'mscsp[replay]'"
        )
    if returncode == -signal.SIGKILL:
        # Killed from outside (the out-of-memory killer, a worker stopped): no verdict either.
        raise SolverLimitError(f"the process reading the .{ext} replay was killed")
    if returncode not in (0, None) or not isinstance(out, dict):
        raise InvalidInputError(f"{corrupt}: ms_toollib could not read it")
    if "error" in out:
        raise InvalidInputError(f"{corrupt}: {out['error'][:200]}")
    return out


class ReaderProcess:
    """One reading child kept for many files (an archive): it saves starting Python and
    ms_toollib for each file. A child that dies on a file (ms_toollib's aborts) or runs
    past the time limit is replaced for the next file; :meth:`close` ends it."""

    def __init__(self) -> None:
        self._child: subprocess.Popen | None = None
        self._scratch: tempfile.TemporaryDirectory | None = None

    def _start(self) -> subprocess.Popen:
        if self._child is None or self._child.poll() is not None:
            self.close()
            # ms_toollib's crash.log goes to a scratch directory of the child's own.
            self._scratch = tempfile.TemporaryDirectory(
                prefix="mscsp-replay-", ignore_cleanup_errors=True
            )
            self._child = subprocess.Popen(
                [sys.executable, str(_READER), "--serve"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=dict(os.environ, RUST_BACKTRACE="0"),
                cwd=self._scratch.name,
            )
        return self._child

    def read(self, ext: str, data: bytes, timeout: float, pluck: bool = False) -> dict[str, Any]:
        """The reader's answer for one file (the errors of :func:`read_replay`)."""
        request = f"{ext} {len(data)} {int(pluck)}\n".encode() + data
        line, returncode = self._ask(ext, request, timeout)
        if returncode is not None:
            # The child died before answering: on this file, or before it (killed from
            # outside between two files). A fresh child tells which.
            line, returncode = self._ask(ext, request, timeout)
        return _checked(ext, line, returncode)

    def _ask(self, ext: str, request: bytes, timeout: float) -> tuple[bytes, int | None]:
        """The child's answer line, and its exit status if it died instead."""
        import selectors
        import time

        child = self._start()
        assert child.stdin is not None and child.stdout is not None
        try:
            child.stdin.write(request)
            child.stdin.flush()
        except OSError:
            pass  # it died on an earlier file: its exit status tells below
        line = b""
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            selector.register(child.stdout, selectors.EVENT_READ)
            while not line.endswith(b"\n"):
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    child.kill()  # stuck on this file: no waiting for it to finish
                    self.close()
                    raise SolverLimitError(
                        f"reading the .{ext} replay took over {timeout:g} s (time limit; the "
                        "file was not judged)"
                    )
                chunk = os.read(child.stdout.fileno(), 1 << 20)
                if not chunk:
                    break  # the child died on this file
                line += chunk
        if line.endswith(b"\n"):
            return line, None
        returncode = child.wait()
        self.close()
        return line, returncode

    def close(self) -> None:
        """Ends the child (if any) and removes its scratch directory."""
        if self._child is not None:
            for stream in (self._child.stdin, self._child.stdout):
                if stream is not None:
                    stream.close()  # end of input: the child cleans up and exits
            try:
                self._child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._child.kill()
                self._child.wait()
            self._child = None
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None


def _replay_from(raw: dict[str, Any], ext: str) -> Replay:
    """Checks what the reader found and builds the :class:`Replay`."""
    rows, cols, mines = raw["rows"], raw["cols"], raw["mines"]
    if rows < 1 or cols < 1 or rows * cols > MAX_CELLS:
        raise InvalidInputError(f"replay board {cols}x{rows} is outside the supported sizes")
    if raw["mode"] not in MODES:
        name = OTHER_MODES.get(raw["mode"], "unknown")
        raise InvalidInputError(
            f"replay of game mode {raw['mode']} ({name}): only {', '.join(MODES.values())} "
            "games are rated (in the other modes mines are not laid uniformly at random, or "
            "cells open by other rules)"
        )
    layout = np.array(raw["board"], dtype=np.int64)
    if layout.shape != (rows, cols) or int((layout == -1).sum()) != mines:
        raise InvalidInputError("corrupt replay: its mine layout does not match its header")
    if not 0 < mines < rows * cols:
        raise InvalidInputError(f"replay with {mines} mines on {rows * cols} cells: no game")
    actions = []
    for item in raw["actions"]:
        at = (int(item["at"][0]), int(item["at"][1]))
        opened = frozenset((int(r), int(c)) for r, c in item["opened"])
        flags = frozenset((int(r), int(c)) for r, c in item.get("flags", ()))
        if item["covered"]:
            actions.append(Action("click", at, (at,), opened, flags))
            continue
        # A chord opens its covered neighbours; the rest of `opened` are zeros' cascades.
        near = sorted(
            cell for cell in opened if max(abs(cell[0] - at[0]), abs(cell[1] - at[1])) == 1
        )
        # A chord on a wrong flag opens a mine with its safe cells, all at once: the safe
        # cells are rated first (the file shows them open), then the first mine, which ends
        # the game (in row-major order a mine before a safe cell would end it too soon).
        hit = [cell for cell in near if layout[cell] == -1]
        if hit:
            near = [cell for cell in near if layout[cell] != -1] + hit[:1]
        if near:
            actions.append(Action("chord", at, tuple(near), opened, flags))
    if not actions:
        raise InvalidInputError("the replay opens no cell (flags or moves only): nothing to rate")
    return Replay(
        rows=rows,
        cols=cols,
        mines=mines,
        layout=layout == -1,
        actions=tuple(actions),
        format=ext,
        mode=MODES[raw["mode"]],
        software=raw["software"],
        player=raw["player"],
        metrics=dict(raw.get("metrics") or {}),
        start_time=raw.get("start_time"),
    )


class _RecordedGame(Game):
    """A game that opens cells as the programs that record replays do (ms_toollib): a zero
    opens its covered neighbours, the zeros among them theirs, and so on, but never a cell
    the player flagged, nor past one, nor past a cell already open. A flag on a safe cell
    beside an opening thus stays covered until the player opens it. Where no flag ever stood
    in an opening's way, it opens what :class:`~mscsp.game.Game` opens: the whole zero region
    and its border. The flags only decide what opens: :meth:`board` shows them covered."""

    #: The cells flagged at the action being played (set before it).
    flags: frozenset[tuple[int, int]] | set[tuple[int, int]] = frozenset()

    def _open_zero_region(self, r: int, c: int) -> int:
        from scipy import ndimage

        room = self.view == COVERED
        for cell in self.flags:
            room[cell] = False
        room[r, c] = True  # the cell opened (never a flag: a flag does not open)
        labels, _ = ndimage.label(room & (self._numbers == 0), structure=np.ones((3, 3)))
        spread = labels == labels[r, c]  # the covered zeros joined to (r, c)
        new = (spread | (neighbour_sum(spread) > 0)) & room
        self.view[new] = self._numbers[new]
        return int(new.sum())


def rate_replay(
    replay: Replay, backend: Any = "dss", time_limit: float | None = None
) -> ReplayRating:
    """Steps through every click of a replay and rates it with the exact odds.

    Args:
        replay: The game (see :func:`read_replay`).
        backend: Counting backend name or instance (counts are cached across the clicks).
        time_limit: Seconds for each position's solve (``None``: no limit).

    Returns:
        The :class:`ReplayRating`.

    Raises:
        SolverLimitError: A position's solve hit ``time_limit``.
        InvalidInputError: The replay's clicks do not fit its layout.
    """
    from ..backends import get_backend

    counter = CountCache(get_backend(backend, time_limit=time_limit))
    game = _RecordedGame(
        replay.rows, replay.cols, replay.mines, first_click="any", layout=replay.layout
    )
    rating = ReplayRating(replay)
    for number, action in enumerate(replay.actions, start=1):
        game.flags = action.flags
        covered = game.view == COVERED
        for cell in action.cells:
            # Checked first: a chord's last cells may open by an earlier cell's zero that
            # wins the game.
            if game.view[cell] != COVERED:
                continue  # opened by an earlier cell's zero in the same chord
            if game.over:
                raise InvalidInputError("corrupt replay: clicks go on after the game ended")
            click = _rate(len(rating.clicks) + 1, cell, action, game.board(), counter)
            if game.reveal(*cell) < 0:
                click = replace(click, survived=False)
            rating.clicks.append(click)
        # The engine must open what the file says, or the file and its layout disagree.
        opened = {(int(r), int(c)) for r, c in np.argwhere(covered & (game.view >= 0))}
        if opened != {cell for cell in action.opened if not replay.layout[cell]}:
            raise InvalidInputError(
                f"corrupt replay: action {number} at {format_cell(action.at)} opens other "
                "cells than the file records"
            )
    rating.final_board = game.board()
    rating.result = {GameState.WON: "won", GameState.LOST: "lost"}.get(game.state, "unfinished")
    return rating


def _rate(
    number: int, cell: tuple[int, int], action: Action, board: Board, counter: Any
) -> ClickRating:
    solution = solve(board, counter)
    p, lowest, highest = _odds_at(solution, cell)
    safe_cells = len(solution.safe)
    safest = Fraction(0) if safe_cells else lowest
    best = solution.best_move
    if number == 1 or (p > 0 and p == highest == safest):
        verdict = "forced"
    elif p == 0:
        verdict = "certain"
    elif p == safest:
        verdict = "best guess"
    else:
        verdict = "avoidable risk"
    cost = p - safest if verdict == "avoidable risk" else Fraction(0)
    return ClickRating(
        number=number,
        cell=cell,
        kind=action.kind,
        at=action.at,
        board=board,
        probability=p,
        safest=safest,
        best_cell=best,
        safe_cells=safe_cells,
        verdict=verdict,
        cost=cost,
        survived=True,
    )


def _odds_at(solution: Solution, cell: tuple[int, int]) -> tuple[Fraction, Fraction, Fraction]:
    """The exact mine probability of ``cell`` and the lowest and highest of the board's,
    read from the solution's sets of cells with equal odds: a board has a few such sets
    and hundreds of cells, and a game rates a board per click.

    Raises:
        InvalidInputError: ``cell`` is not covered (a file whose clicks do not fit its board).
    """
    found = None
    values = []
    for odd in solution.odds:
        cells = odd.cells
        mask = isinstance(cells, np.ndarray)
        if not (cells.any() if mask else cells):
            continue
        value = Fraction(odd.num, odd.den)
        values.append(value)
        if found is None and (bool(cells[cell]) if mask else cell in cells):
            found = value
    if found is None:
        raise InvalidInputError(f"corrupt replay: a click on {cell}, which is not covered")
    return found, min(values), max(values)


def replay_fields(replay: Replay) -> dict[str, Any]:
    """What a replay says of its game, as JSON-ready data: format, mode, software, player and
    the board's size and mines."""
    return {
        "format": replay.format,
        "mode": replay.mode,
        "software": replay.software,
        "player": replay.player,
        "rows": replay.rows,
        "cols": replay.cols,
        "mines": replay.mines,
    }


def rating_json(rating: ReplayRating) -> dict[str, Any]:
    """The rating as JSON-ready data (``mscsp replay --json`` and ``/api/replay``)."""
    replay = rating.replay
    clicks = []
    for c in rating.clicks:
        clicks.append(
            {
                "number": c.number,
                "cell": list(c.cell),
                "kind": c.kind,
                "at": list(c.at),
                "board": c.board.to_text(),
                "probability": float(c.probability),
                "probability_exact": fraction_text(c.probability),
                "safest": float(c.safest),
                "best_cell": list(c.best_cell),
                "safe_cells": c.safe_cells,
                "verdict": c.verdict,
                "cost": float(c.cost),
                "survived": c.survived,
            }
        )
    return {
        **replay_fields(replay),
        "layout": [[int(r), int(c)] for r, c in np.argwhere(replay.layout)],
        "clicks": clicks,
        "final_board": rating.final_board.to_text(),
        "summary": rating.summary(),
    }
