"""A player's archive of replays, rated game by game: the record of one game, and the files.

:func:`collect` turns paths (files, folders searched recursively, glob patterns) into the
replay files to rate; :func:`analyse_file` rates one of them and returns its record, a
JSON-ready dict that never raises: a file that cannot be rated gives a record with
``status: "error"`` and the reason. :class:`ResultLog` is the resumable ``--out`` file: one
line per game, keyed by the file's path and content hash.

Metasweeper's ``.evfs`` files are sets of ``.evf`` games: :func:`set_games` cuts one into its
games (:class:`SetGame`), each rated as its own ``.evf`` and recorded under ``SET#N`` (``N``:
1 for the set's first game), keyed by the hash of that game's bytes; :func:`plan` tells a run
what is left to rate.

The record of a rated game (``status: "ok"``) holds, beside what ``mscsp replay --json``
summarises, ms_toollib's own statistics (``metrics``), the game's date, the needless guesses
(guesses taken while a certain-safe cell was left), how it was lost (``loss``), and the
accuracy of its guesses (see :func:`accuracy`).

Accuracy: each guess (a click after the first that risked a mine) loses
``value(best) - value(played)``, a chance between 0 and 1, where the value of a click is,
the first that applies (each guess's record says which: ``source``)

- ``exact``: its exact chance of winning the game with best play after it, from the
  endgame search (:func:`mscsp.players.endgame.solve_endgame`), when at most
  :data:`ENDGAME_LAYOUTS` mine layouts are left on the board and the search stays within its
  budget;
- ``lookahead``: else, ``best``'s look-ahead value of it (:class:`Lookahead`): its chance of
  surviving this click and the next (``survive2``) plus ``progress_weight`` (0.1) times its
  chance of being safe and making some cell certain (``progress``), times the share of the
  looming 50/50 risk it leaves, over ``1 + progress_weight``. That is ``best``'s own score
  (:meth:`mscsp.players.best.BestPlayer.score`) scaled to 0-1 by the most a score can be
  (1: a click certainly safe that leaves a certain cell): a weighted mean of two chances,
  mostly (10/11) the chance to survive two clicks, that orders clicks as ``best`` does, so
  that the cell it picks loses nothing. ``survive2`` alone is a purer chance but would
  charge ``best``'s own guesses wherever progress decided them. The best click is the cell
  ``best``'s look-ahead picks among its candidates, or a safer cell its domination rule
  plays first (or the played cell, where it scores higher: the played cell never beats the
  best). Not a chance of winning the game: two clicks of it, weighted for what they teach;
  and ``best``'s rules before its look-ahead (forced and pseudo 50/50s first) are not
  credited;
- ``survival``: where the look-ahead does not value the guess, its chance of not being a
  mine (``1 - p``): the loss is the click's cost, the extra chance of losing it over the
  safest cell. That is every guess taken while a certain-safe cell was left (``best``
  would click that cell, not guess: the guess's whole risk is lost), and the guesses the
  look-ahead could not value within its budget (:data:`LOOKAHEAD_BUDGET` cells probed per
  game) or solve.

A game's accuracy is ``100 * (1 - mean loss)`` over its guesses (100 with no guess): 100
means every guess was the best one available.
"""

from __future__ import annotations

import fnmatch
import glob
import hashlib
import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..board import COVERED, Board
from ..errors import BackendUnavailableError, InvalidInputError, MscspError, SolverLimitError
from ..runtime.runlog import LogFormat, ResumableLog
from ..trust.files import open_regular
from ..trust.inputs import read_bounded
from ..trust.jsonlog import Damaged, typed
from . import (
    MAX_BYTES,
    ClickRating,
    ReaderProcess,
    ReplayRating,
    rate_replay,
    read_replay,
    replay_fields,
)

if TYPE_CHECKING:
    from ..players.best import BestPlayer

#: Extensions of replay files looked for in folders (``.evfs``: Metasweeper's sets).
EXTENSIONS = ("avf", "evf", "evfs", "rmv", "mvf")
#: Largest ``.evfs`` set read (bytes); each of its games is held to ``MAX_BYTES`` too.
MAX_SET_BYTES = 64 * 1024 * 1024
#: Most mine layouts left for a guess to be valued by the exact endgame search.
ENDGAME_LAYOUTS = 30
#: Evaluations the endgame search may spend on one position before it gives up.
ENDGAME_BUDGET = 100_000
#: Most cells ``best``'s look-ahead probes over one game (each probe solves the position
#: once per number the cell could show); guesses it cannot value within it are valued by
#: survival (see :class:`Lookahead`).
LOOKAHEAD_BUDGET = 1_000
#: The standard boards, by (rows, cols, mines).
PRESETS = {(9, 9, 10): "beginner", (16, 16, 40): "intermediate", (16, 30, 99): "expert"}
_GLOB = set("*?[")
#: This process's reading child, kept from file to file (see :func:`analyse_file`).
_reader: ReaderProcess | None = None


def _shared_reader() -> ReaderProcess:
    global _reader
    if _reader is None:
        import atexit

        _reader = ReaderProcess()
        atexit.register(_reader.close)
    return _reader


def collect(paths: Iterable[str]) -> tuple[list[str], list[dict[str, Any]]]:
    """The replay files named by ``paths``, and an error record for each path that is none.

    A file is taken whatever its extension (a wrong one is reported when rated); a folder
    gives every file below it with an extension of :data:`EXTENSIONS` (any case), sorted; a
    path that does not exist but holds ``*``, ``?`` or ``[`` is a glob pattern (``**`` goes
    into folders). Each file comes once, in the order first named.
    """
    files: list[str] = []
    errors: list[dict[str, Any]] = []
    seen: set[str] = set()

    def add(file: str) -> None:
        if file not in seen:
            seen.add(file)
            files.append(file)

    for path in paths:
        if os.path.exists(path):
            matches = [path]
        elif _GLOB & set(path):
            # A quoted pattern reaches us with its ~ unexpanded.
            matches = expand(os.path.expanduser(path))
        else:
            matches = []
        if not matches:
            errors.append(error_record(path, None, "no such file or folder"))
        for match in matches:
            if os.path.isdir(match):
                found = _walk(match)
                if not found:
                    errors.append(error_record(match, None, "no replay files in this folder"))
                for file in found:
                    add(file)
            else:
                add(match)
    return files, errors


def _walk(folder: str) -> list[str]:
    """The replay files below ``folder`` (by extension), never through a linked folder."""
    found = []
    for root in _folders_below(folder):
        try:
            names = sorted(entry.name for entry in os.scandir(root) if not _is_folder(entry))
        except OSError:
            continue  # (unreadable: its files cannot be rated, and nothing is said of them)
        for name in names:
            if name.rsplit(".", 1)[-1].lower() in EXTENSIONS and "." in name:
                found.append(os.path.join(root, name))
    return found


def _is_folder(entry: os.DirEntry) -> bool:
    """A real folder (a link to one is not entered: it may loop)."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _folders_below(folder: str, hidden: bool = True) -> list[str]:
    """``folder`` and every folder below it, in sorted order, without following links (a
    link ``a -> ..`` would loop) and each real folder once (a bind mount may loop too);
    ``hidden``: enter folders whose names start with a dot."""
    found: list[str] = []
    seen: set[tuple[int, int]] = set()
    stack = [folder]
    while stack:
        current = stack.pop()
        try:
            info = os.stat(current or ".")
        except OSError:
            continue
        if (info.st_dev, info.st_ino) in seen:
            continue
        seen.add((info.st_dev, info.st_ino))
        found.append(current)
        try:
            names = sorted(
                entry.name
                for entry in os.scandir(current or ".")
                if _is_folder(entry) and (hidden or not entry.name.startswith("."))
            )
        except OSError:
            continue
        stack.extend(os.path.join(current, name) for name in reversed(names))
    return found


def _files_in(folder: str) -> list[str]:
    """The entries of ``folder`` that are not real folders, but for hidden ones."""
    try:
        entries = list(os.scandir(folder or "."))
    except OSError:
        return []
    return [
        os.path.join(folder, e.name)
        for e in entries
        if not e.name.startswith(".") and not _is_folder(e)
    ]


def expand(pattern: str) -> list[str]:
    """The paths a glob pattern matches, sorted, as ``glob.glob(pattern, recursive=True)``
    but for links: ``**`` (any number of folders) never enters a linked folder, as bash's
    ``globstar`` does not, so two links ``a -> ..`` and ``b -> ..`` cannot make it loop.
    Names starting with a dot match only a pattern that starts with a dot."""
    parts = pattern.split(os.sep)
    root = os.sep if parts[0] == "" else ""
    parts = [part for part in parts if part]
    # Consecutive ``**`` mean what one means.
    parts = [p for i, p in enumerate(parts) if not (p == "**" and i and parts[i - 1] == "**")]
    found: set[str] = set()
    stack: list[tuple[str, int]] = [(root, 0)]
    while stack:
        base, at = stack.pop()
        if at == len(parts):
            if base and os.path.lexists(base):
                found.add(base)
            continue
        part = parts[at]
        if part == "**":
            folders = _folders_below(base, hidden=False)
            stack.extend((folder, at + 1) for folder in folders)
            if at + 1 == len(parts):  # a last ``**`` matches the files in them too
                stack.extend((file, at + 1) for folder in folders for file in _files_in(folder))
        elif not glob.has_magic(part):
            stack.append((os.path.join(base, part), at + 1))
        else:
            try:
                names = [entry.name for entry in os.scandir(base or ".")]
            except OSError:
                continue
            if not part.startswith("."):
                names = [name for name in names if not name.startswith(".")]
            stack.extend((os.path.join(base, n), at + 1) for n in fnmatch.filter(names, part))
    return sorted(found)


def content_key(path: str) -> str | None:
    """The hash that keys a file's record: SHA-256 of its bytes, ``size:N`` for a file over
    the size limit, ``None`` for a file that cannot be read."""
    try:
        size = os.path.getsize(path)
        if size > MAX_BYTES:
            return f"size:{size}"
        return hashlib.sha256(read_bounded(path, MAX_BYTES, "replay file", False)).hexdigest()
    except (OSError, InvalidInputError):
        return None


def error_record(file: str, key: str | None, reason: str) -> dict[str, Any]:
    """The record of a file that was not rated."""
    return {"file": file, "hash": key, "status": "error", "reason": reason}


@dataclass(frozen=True)
class SetGame:
    """One game of a Metasweeper ``.evfs`` set: where its ``.evf`` bytes lie in the set's file.

    Attributes:
        set: The set's path.
        number: The game's place in the set, 1 for the first.
        name: The game's name in the set (its ``.evf`` file name, as the set says).
        offset: Where its bytes start in the file.
        size: How many bytes it has.
        hash: SHA-256 of those bytes (its record's key: the game's, not the set's, so that
            games added to a set later leave the others' records valid).
    """

    set: str
    number: int
    name: str
    offset: int
    size: int
    hash: str

    @property
    def file(self) -> str:
        """The game's name in the records: ``SET#N``."""
        return f"{self.set}#{self.number}"

    def fields(self) -> dict[str, Any]:
        """What a record of the game says of its set."""
        return {"set": self.set, "game": self.number, "game_name": self.name}


def is_set(path: str) -> bool:
    """Whether ``path`` names a Metasweeper ``.evfs`` set (by its extension, any case)."""
    return path.lower().endswith(".evfs")


def split_set(data: bytes) -> tuple[list[tuple[str, int, int]], str | None]:
    """An ``.evfs`` set's bytes cut into its games: the ``(name, offset, size)`` of each game's
    ``.evf`` bytes, and why the cutting stopped before the end (``None``: every byte read).

    The format (version 0, Metasweeper 3.2.1 and ms_toollib's ``Evfs``): a version byte
    (0), the length of each game's checksum (2 bytes, big-endian), then for each game its
    name (UTF-8, ending in a zero byte), its size (4 bytes, big-endian), its ``.evf`` bytes
    and its checksum. Done here, in plain Python, because ms_toollib's ``Evfs.parse`` aborts
    the whole process on the first bad game or a cut tail, which would lose the good games
    before it: each game is read on its own instead (by the reading child, as any ``.evf``).
    The checksums (Metasweeper's signatures) are not checked.
    """
    if len(data) < 3:
        return [], f"{len(data)} bytes: too short for a .evfs header (3 bytes)"
    if data[0] != 0:
        return [], f"unsupported .evfs version {data[0]} (version 0 is read)"
    checksum = int.from_bytes(data[1:3], "big")
    games: list[tuple[str, int, int]] = []
    at = 3
    while at < len(data):
        number = len(games) + 1
        end = data.find(b"\0", at)
        if end < 0:
            return games, f"game {number}: the set ends inside its name"
        name = data[at:end].decode("utf-8", errors="replace")
        start = end + 5
        if start > len(data):
            return games, f"game {number}: the set ends inside its size"
        size = int.from_bytes(data[end + 1 : start], "big")
        if size == 0:
            return games, f"game {number}: its size is 0 bytes"
        left = len(data) - start
        if size + checksum > left:
            return games, (
                f"game {number}: {size} bytes and a {checksum}-byte checksum, "
                f"but the set has {left} bytes left"
            )
        games.append((name, start, size))
        at = start + size + checksum
    if not games:
        return [], "the set holds no game"
    return games, None


def set_games(path: str) -> tuple[list[SetGame], list[dict[str, Any]]]:
    """The games of the ``.evfs`` set at ``path`` (see :func:`split_set`), and the error
    records of what cannot be rated: the whole set (``file``: its path, keyed by the set's
    hash) when no game could be found in it, else the game where its bytes break off (``SET#N``,
    keyed by the set's hash: the games after it cannot be found)."""
    try:
        size = os.path.getsize(path)
        if size > MAX_SET_BYTES:
            reason = f".evfs set too large ({size} bytes; limit {MAX_SET_BYTES})"
            return [], [error_record(path, f"size:{size}", reason)]
        data = read_bounded(path, MAX_SET_BYTES, ".evfs set", allow_stdin=False)
    except OSError as exc:
        return [], [error_record(path, None, f"cannot read the file: {exc.strerror or exc}")]
    except InvalidInputError as exc:
        return [], [error_record(path, None, str(exc))]
    key = hashlib.sha256(data).hexdigest()
    if not data:
        return [], [error_record(path, key, "the .evfs set is empty")]
    found, problem = split_set(data)
    games = []
    for number, (name, offset, length) in enumerate(found, start=1):
        game_key = hashlib.sha256(data[offset : offset + length]).hexdigest()
        games.append(SetGame(path, number, name, offset, length, game_key))
    errors = []
    if problem is not None:
        reason = f"corrupt or truncated .evfs set: {problem}"
        if games:
            number = len(games) + 1
            where = {"set": path, "game": number}
            errors.append({**error_record(f"{path}#{number}", key, reason), **where})
        else:
            errors.append(error_record(path, key, reason))
    return games, errors


def plan(
    files: list[str], done: dict[tuple[str, str | None], dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[str | SetGame]]:
    """What a run over ``files`` has left to do, given the records ``done`` (by ``(file,
    hash)``, as :meth:`ResultLog.read`): the records it keeps from ``done``, the new error
    records it has without rating anything (sets that break off), and what to rate: the
    files, and the games of each ``.evfs`` set (:class:`SetGame`), in order."""
    kept: list[dict[str, Any]] = []
    new: list[dict[str, Any]] = []
    todo: list[str | SetGame] = []
    done_paths = {file for file, _ in done}
    for file in files:
        if is_set(file):
            games, errors = set_games(file)
            for record in errors:
                old = done.get((record["file"], record["hash"]))
                if old is None:
                    new.append(record)
                else:
                    kept.append(old)
            for game in games:
                old = done.get((game.file, game.hash))
                if old is None:
                    todo.append(game)
                else:
                    kept.append(old)
            continue
        # Only files already in the log are hashed here; the workers hash the others.
        old = done.get((file, content_key(file))) if file in done_paths else None
        if old is None:
            todo.append(file)
        else:
            kept.append(old)
    return kept, new, todo


def analyse_file(
    path: str | SetGame,
    backend: str = "dss",
    time_limit: float | None = None,
    endgame_layouts: int = ENDGAME_LAYOUTS,
    pluck: bool = False,
) -> dict[str, Any]:
    """Rates one replay file, or one game of a set; its record (see the module docstring).
    Never raises but for a missing ms_toollib (:class:`BackendUnavailableError`: the same
    for every file). ``pluck``: have ms_toollib compute its pluck too (slower: it solves
    every position)."""
    if isinstance(path, SetGame):
        return _analyse_set_game(path, backend, time_limit, endgame_layouts, pluck)
    try:
        size = os.path.getsize(path)
        if size > MAX_BYTES:
            return error_record(
                path, f"size:{size}", f"replay file too large ({size} bytes; limit {MAX_BYTES})"
            )
        # The single file's bounded reader: a FIFO, a device (a link to /dev/zero) or a
        # file past the limit is refused, unread.
        data = read_bounded(path, MAX_BYTES, "replay file", allow_stdin=False)
    except OSError as exc:
        return error_record(path, None, f"cannot read the file: {exc.strerror or exc}")
    except InvalidInputError as exc:
        return error_record(path, None, str(exc))
    head = {"file": path, "hash": hashlib.sha256(data).hexdigest()}
    return _analyse(data, path, head, backend, time_limit, endgame_layouts, pluck)


def _analyse_set_game(
    game: SetGame,
    backend: str,
    time_limit: float | None,
    endgame_layouts: int,
    pluck: bool,
) -> dict[str, Any]:
    head = {"file": game.file, "hash": game.hash, **game.fields()}
    if game.size > MAX_BYTES:
        reason = f"replay too large ({game.size} bytes; limit {MAX_BYTES})"
        return {**head, "status": "error", "reason": reason}
    try:
        # (A regular file still: the set may have been replaced since it was cut.)
        with open_regular(game.set, ".evfs set") as f:
            f.seek(game.offset)
            data = f.read(game.size)
    except (OSError, InvalidInputError) as exc:
        reason = f"cannot read the set: {getattr(exc, 'strerror', None) or exc}"
        return {**head, "status": "error", "reason": reason, "retry": True}
    if hashlib.sha256(data).hexdigest() != game.hash:
        # Metasweeper adds games to an open set: no verdict, --resume cuts the set again.
        reason = "the .evfs set changed while it was rated"
        return {**head, "status": "error", "reason": reason, "retry": True}
    return _analyse(data, "game.evf", head, backend, time_limit, endgame_layouts, pluck)


def _analyse(
    data: bytes,
    name: str,
    head: dict[str, Any],
    backend: str,
    time_limit: float | None,
    endgame_layouts: int,
    pluck: bool,
) -> dict[str, Any]:
    """The record of the replay ``data`` (``name``: its file name, for its format), starting
    with ``head`` (its ``file``, ``hash`` and, for a set's game, the set's fields)."""

    def error(reason: str) -> dict[str, Any]:
        return {**head, "status": "error", "reason": reason}

    try:
        replay = read_replay(data, name, reader=_shared_reader(), pluck=pluck)
        rating = rate_replay(replay, backend, time_limit)
        return {**head, "status": "ok", **game_record(rating, endgame_layouts)}
    except BackendUnavailableError:
        raise
    except SolverLimitError as exc:
        # A time limit or a killed reader is no verdict on the file: --resume tries it again.
        return {**error(str(exc)), "retry": True}
    except MscspError as exc:
        return error(str(exc))
    except Exception as exc:  # noqa: BLE001 - one odd file must not stop an archive's run
        return error(f"internal error: {type(exc).__name__}: {exc}")


def board_name(rows: int, cols: int, mines: int) -> str:
    """``beginner``, ``intermediate``, ``expert``, or ``COLSxROWS/MINES`` for the others."""
    return PRESETS.get((rows, cols, mines), f"{cols}x{rows}/{mines}")


def game_record(rating: ReplayRating, endgame_layouts: int = ENDGAME_LAYOUTS) -> dict[str, Any]:
    """What the archive keeps of one rated game (everything but the file's name and hash)."""
    replay = rating.replay
    summary = rating.summary()
    guesses = [c for c in rating.clicks if c.guess]
    lookahead = Lookahead()
    values = [guess_value(c, endgame_layouts, lookahead) for c in guesses]
    losses = [v["loss"] for v in values]
    worst = max(zip(losses, guesses, strict=True), key=lambda x: x[0], default=None)
    return {
        **replay_fields(replay),
        "board": board_name(replay.rows, replay.cols, replay.mines),
        "date": _date(replay.start_time),
        "result": rating.result,
        "metrics": replay.metrics,
        "summary": summary,
        "needless_guesses": sum(c.safe_cells > 0 for c in guesses),
        "loss": loss_kind(rating),
        "accuracy": accuracy(losses),
        "clicks": [_click(c, v) for c, v in zip(guesses, values, strict=True)],
        "worst": None
        if worst is None or worst[0] <= 0
        else {**_click(worst[1], values[guesses.index(worst[1])]), "board": _text(worst[1])},
    }


def _date(start_time: int | None) -> str | None:
    # Files without a clock say 0; a year past 9999 is a corrupt field, not a date.
    if not start_time or start_time <= 0:
        return None
    try:
        when = datetime.fromtimestamp(start_time / 1e6, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return when.isoformat(timespec="seconds").replace("+00:00", "Z")


def _text(click: ClickRating) -> str:
    return click.board.to_text()


def _click(click: ClickRating, value: dict[str, Any]) -> dict[str, Any]:
    return {
        "number": click.number,
        "cell": list(click.cell),
        "probability": float(click.probability),
        "safest": float(click.safest),
        "best_cell": list(click.best_cell),
        "safe_cells": click.safe_cells,
        "verdict": click.verdict,
        "survived": click.survived,
        **value,
    }


def loss_kind(rating: ReplayRating) -> dict[str, Any] | None:
    """How a lost game was lost: ``forced`` (a coin toss: every covered cell was as likely a
    mine, or the first click), ``good guess`` (the safest cell, and it was a mine) or
    ``mistake`` (a riskier cell than the safest, or a certain-safe cell was left)."""
    lost = rating.lost_click
    if lost is None:
        return None
    kind = {"forced": "forced", "best guess": "good guess"}.get(lost.verdict, "mistake")
    return {
        "kind": kind,
        "click": lost.number,
        "cell": list(lost.cell),
        "probability": float(lost.probability),
        "safest": float(lost.safest),
    }


def accuracy(losses: list[float]) -> float:
    """A game's accuracy: ``100 * (1 - mean loss)`` over its guesses, 100 with none."""
    if not losses:
        return 100.0
    return 100.0 * (1.0 - sum(losses) / len(losses))


def guess_value(
    click: ClickRating,
    endgame_layouts: int = ENDGAME_LAYOUTS,
    lookahead: Lookahead | None = None,
) -> dict[str, Any]:
    """The guess's value (``value``), the best click's (``best_value``), the ``loss``
    between them and which values they are (``source``: ``exact``, ``lookahead`` or
    ``survival``; see the module docstring). ``lookahead``: the game's :class:`Lookahead`,
    its guesses given in order (a fresh one by default)."""
    values = _exact_values(click.board, click.cell, endgame_layouts)
    source = "exact"
    if values is None:
        values = (lookahead or Lookahead()).values(click)
        source = "lookahead"
    if values is None:
        values = 1.0 - float(click.probability), 1.0 - float(click.safest)
        source = "survival"
    played, best = values
    # The played cell can never beat the best click; float noise must not make it look so.
    loss = max(0.0, best - played)
    return {"value": played, "best_value": best, "loss": loss, "source": source}


class Lookahead:
    """Values guesses with ``best``'s look-ahead (:class:`mscsp.players.best.BestPlayer`),
    one game at a time: its guesses in order, so that ``best``'s memory of proven mines
    and its solver's caches follow the game.

    A click's value is its look-ahead score (:meth:`~mscsp.players.best.BestPlayer.score`:
    the chance of surviving it and the next click plus ``progress_weight`` times the chance
    that it is safe and makes some cell certain), times the share of the looming 50/50 risk
    it leaves (1 without any), over ``1 + progress_weight`` (the most a score can be): a
    weighted mean of two chances, between 0 and 1, ordered as ``best`` orders its
    candidates.

    Args:
        budget: Most cells probed over the game (each probe solves the position once per
            number the cell could show): a guess whose candidates would overspend it is
            not valued (:meth:`values` gives ``None``).

    Attributes:
        probed: Cells probed so far.
    """

    def __init__(self, budget: int = LOOKAHEAD_BUDGET):
        self.budget = budget
        self.probed = 0
        self._player: BestPlayer | None = None

    def values(self, click: ClickRating) -> tuple[float, float] | None:
        """The look-ahead values of ``click`` and of the best click, or ``None`` where the
        look-ahead does not value it: a certain-safe cell is left (``best`` would click it,
        not guess), the budget would be overspent, or a solve fails.

        The best click is the cell ``best``'s look-ahead picks, its top candidate (a click
        on a safer cell that its domination rule plays first is worth as much); the played
        cell's value is its own probe's, never above the best: where it scores higher
        (a cell ``best`` does not weigh, a dead one), it is the best.
        """
        if click.safe_cells:
            return None
        from ..players.best import BestPlayer

        if self._player is None:
            self._player = BestPlayer()
        player = self._player
        try:
            found = self._values(player, click)
        except BackendUnavailableError:
            raise
        except MscspError:
            player.new_game()  # its memory may be half-updated: start afresh next time
            return None
        if found is None:
            return None
        top = 1.0 + player.progress_weight
        played, best = found
        return played / top, max(played, best) / top

    def _values(self, player: BestPlayer, click: ClickRating) -> tuple[float, float] | None:
        """The look-ahead scores (not yet over ``1 + progress_weight``) of the played and
        the best click."""
        safe, solution = player.infer(click.board)
        if safe or solution is None:
            return None
        flagged = player.memory.flagged(click.board)
        cells, keep, _ = player.weigh(flagged, solution)
        if self.probed + len(cells) + 1 > self.budget:
            return None  # (the played cell may need a probe of its own)
        self.probed += len(cells)
        scored, dead = player.lookahead(flagged, solution, cells, keep)
        if scored:
            chosen = player.choose(flagged, solution, scored, keep)
            best = next(value for value, probe in scored if probe is chosen)
            plays = {chosen.cell, player.first(chosen, 1.0 - solution.probabilities)[0]}
        else:
            # Only dead cells: best plays the safest (first in order).
            best = keep(dead[0].cell) * player.score(dead[0])
            plays = {dead[0].cell}
        cell = click.cell
        if cell in plays:
            return best, best
        if float(click.probability) == 1.0:
            return 0.0, best  # a proven mine (flagged: it cannot be probed)
        known = {probe.cell: value for value, probe in scored}
        known.update((p.cell, keep(p.cell) * player.score(p)) for p in dead)
        if cell in known:
            return known[cell], best
        self.probed += 1
        return keep(cell) * player.score(player.probe(flagged, solution, cell)), best


def _exact_values(board: Board, cell: tuple[int, int], limit: int) -> tuple[float, float] | None:
    """The exact chances of winning after clicking ``cell`` and after the best click, or
    ``None`` when the position has more than ``limit`` layouts or the search gives up."""
    from ..players.endgame import enumerate_layouts, solve_endgame

    found = enumerate_layouts(board, limit)
    if found is None or not found[1]:
        return None
    best = solve_endgame(board, limit, ENDGAME_BUDGET)
    if best is None:
        return None
    unknown, layouts = found
    index = {c: i for i, c in enumerate(unknown)}
    i = index[cell]
    rows, cols = board.shape
    near = 0
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            other = (cell[0] + dr, cell[1] + dc)
            if other != cell and other in index:
                near |= 1 << index[other]
    # The layouts where the cell is safe, by the number it shows. A zero's cascade opens only
    # certain-safe cells, which best play opens anyway: the value of the position with the
    # bare number is the value after the cascade.
    shown = Counter(bin(layout & near).count("1") for layout in layouts if not layout >> i & 1)
    value = Fraction(0)
    for number, count in shown.items():
        after = _position_value(_with_number(board, cell, number), limit)
        if after is None:
            return None
        value += Fraction(count, len(layouts)) * Fraction(after)
    return float(value), float(best[1])


def _with_number(board: Board, cell: tuple[int, int], number: int) -> Board:
    cells = board.cells.copy()
    cells[cell] = number
    return Board(cells, board.mines)


def _position_value(board: Board, limit: int) -> float | None:
    """The exact chance of winning a position with best play (1 when no safe cell is left)."""
    from ..players.endgame import enumerate_layouts, solve_endgame

    if int((board.cells == COVERED).sum()) == board.mines:
        return 1.0
    layouts = enumerate_layouts(board, limit)
    if layouts is not None and len(layouts[1]) == 1:
        return 1.0  # the mines are known: the rest is certain-safe clicks
    found = solve_endgame(board, limit, ENDGAME_BUDGET)
    return None if found is None else float(found[1])


class ResultLog:
    """The ``--out`` file: one JSON record per line, appended as each game is rated (a
    :class:`~mscsp.runtime.runlog.ResumableLog` of :data:`REPLAY_LOG`).

    A line is written whole and flushed at once, under the output's lock, so a killed run
    leaves at most its last line cut short: :meth:`read` drops it, and the game is rated
    again. The log has no header line of its own (its lines are the records ``--json``
    prints, each keyed by its file's path and content hash): its first line must be a
    game's record (``file``, ``hash``, ``status``), else the file is refused untouched; a
    damaged line after it is reported and skipped, the lines after it kept, its game rated
    again. Never written through a link.
    """

    #: What the file is, for messages.
    WHAT = "replay log"

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._log = ResumableLog(self.path, REPLAY_LOG)

    def read(self) -> dict[tuple[str, str | None], dict[str, Any]]:
        """The records already written, by ``(file, hash)``; a cut last line is removed.
        Records marked ``retry`` (a time limit, not a verdict) are left out: rated again.

        Raises:
            InvalidInputError: The file is not a replay log (or not a regular file).
        """
        if not os.path.lexists(self.path):
            return {}
        contents = self._log.read()
        self._log.repair(contents)
        records = [record for _, record in contents.records]
        return {(r["file"], r["hash"]): r for r in records if not r.get("retry")}

    def append(self, record: dict[str, Any]) -> None:
        """Writes one record as a line, flushed to the disk."""
        self._log.append(record)


#: What a rated game's record must hold for the summaries and reports: key, JSON types.
_GAME_KINDS: tuple[tuple[str, tuple[type, ...]], ...] = (
    ("board", (str,)),
    ("mode", (str,)),
    ("result", (str,)),
    ("summary", (dict,)),
    ("accuracy", (float,)),
    ("needless_guesses", (int,)),
    ("loss", (dict, type(None))),
    ("clicks", (list,)),
    ("worst", (dict, type(None))),
)
#: What each of a game's rated clicks must hold.
_CLICK_KINDS: tuple[tuple[str, tuple[type, ...]], ...] = (
    ("number", (int,)),
    ("cell", (list,)),
    ("probability", (float,)),
    ("safest", (float,)),
    ("loss", (float,)),
    ("source", (str,)),
)


def log_record(value: Any) -> dict[str, Any]:
    """A line of the ``--out`` log, checked for what a resumed run reads from it (the
    summary, the CSV and the report): :class:`~mscsp.trust.jsonlog.Damaged` if a key is
    missing or of another type."""
    typed(value, "file", str)
    typed(value, "hash", str, type(None))
    if "retry" in value:
        typed(value, "retry", bool)
    status = typed(value, "status", str)
    if status == "error":
        typed(value, "reason", str)
        return value
    if status != "ok":
        raise Damaged(f"an unknown status {status!r}")
    for key, kinds in _GAME_KINDS:
        typed(value, key, *kinds)
    if "date" in value:
        typed(value, "date", str, type(None))
    typed(value["summary"], "luck", float)
    typed(value["summary"], "guesses", int)
    if value["loss"] is not None:
        typed(value["loss"], "kind", str)
    for click in value["clicks"]:
        for key, kinds in _CLICK_KINDS:
            typed(click, key, *kinds)
        if len(click["cell"]) != 2:
            raise Damaged("a click's cell is not a (row, col) pair")
    if value["worst"] is not None:
        typed(value["worst"], "number", int)
        typed(value["worst"], "board", str)
    return value


#: The ``--out`` log's format: records only (each says which file it rates).
REPLAY_LOG = LogFormat(ResultLog.WHAT, log_record)


def analyse_task(args: tuple[str | SetGame, str, float | None, int, bool]) -> dict[str, Any]:
    """:func:`analyse_file` on one ``(path, backend, time_limit, endgame_layouts, pluck)``
    (``path``: a file or a set's game; picklable, for worker pools)."""
    return analyse_file(*args)
