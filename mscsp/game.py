"""The seeded game engine: mine placement under first-click rules, reveals, replay."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from .board import COVERED, FLAG, MAX_CELLS, Board, neighbour_sum
from .errors import InvalidInputError, InvalidTypeError
from .validate import check_cell, check_int, describe

#: Named presets as (rows, cols, mines). Expert is 16 rows of 30 columns.
PRESETS: dict[str, tuple[int, int, int]] = {
    "beginner": (9, 9, 10),
    "intermediate": (16, 16, 40),
    "expert": (16, 30, 99),
}

FIRST_MOVES = ("corner", "center", "random")


class FirstClick(StrEnum):
    """What the first click is guaranteed."""

    SAFE = "safe"  # the clicked cell holds no mine
    OPENING = "opening"  # the clicked cell and its neighbours hold no mine
    ANY = "any"  # no guarantee


#: Boards of at most this many cells find their regions (a zero region, touching covered
#: cells) by a walk in Python (:meth:`Game._flood`); larger ones by ``scipy.ndimage``'s
#: labels, whose import alone costs 0.3-0.4 s.
FLOOD_CELLS = 4096


class GameState(StrEnum):
    PLAYING = "playing"
    WON = "won"
    LOST = "lost"


@dataclass(frozen=True)
class BoardSpec:
    """Size and mine count of a game."""

    rows: int
    cols: int
    mines: int

    @classmethod
    def from_preset(cls, name: str) -> BoardSpec:
        if not isinstance(name, str) or name not in PRESETS:
            shown = repr(name) if isinstance(name, str) else describe(name)
            raise InvalidInputError(f"unknown preset {shown}; choose from {', '.join(PRESETS)}")
        return cls(*PRESETS[name])


def first_move(
    policy: str | tuple[int, int], rows: int, cols: int, rng: np.random.Generator | None = None
) -> tuple[int, int]:
    """The cell a first-move policy clicks.

    Args:
        policy: ``"corner"`` (top-left), ``"center"``, ``"random"``, a ``(row, col)`` pair, or
            a string ``"row,col"``.
        rows: Board rows.
        cols: Board columns.
        rng: Generator used by ``"random"``.

    Raises:
        InvalidTypeError: A cell of a type other than a pair of integers.
        InvalidInputError: For an unknown policy or a cell off the board.
    """
    if policy == "corner":
        return 0, 0
    if policy == "center":
        return rows // 2, cols // 2
    if policy == "random":
        rng = rng if rng is not None else np.random.default_rng()
        return int(rng.integers(rows)), int(rng.integers(cols))
    if isinstance(policy, str):
        try:
            # ASCII digits only, as on boards: int() also reads other scripts' digits.
            if not policy.isascii():
                raise ValueError(policy)
            r, c = (int(v) for v in policy.split(","))
        except ValueError:
            raise InvalidInputError(
                f"first move {policy!r}: expected corner, center, random or 'row,col'"
            ) from None
    elif isinstance(policy, tuple | list) and len(policy) == 2:
        r, c = policy
    else:
        raise InvalidTypeError(
            f"first move must be corner, center, random or a (row, col) pair, "
            f"got {describe(policy)}"
        )
    return check_cell((rows, cols), r, c, "first move")


def mine_candidates(rows: int, cols: int, first_click: FirstClick, r: int, c: int) -> np.ndarray:
    """The row-major cells that may hold a mine when the first click is ``(r, c)``."""
    allowed = np.ones((rows, cols), dtype=bool)
    if first_click == FirstClick.SAFE:
        allowed[r, c] = False
    elif first_click == FirstClick.OPENING:
        allowed[max(r - 1, 0) : r + 2, max(c - 1, 0) : c + 2] = False
    return np.flatnonzero(allowed)


def draw_mines(rng: np.random.Generator, candidates: np.ndarray, mines: int) -> np.ndarray:
    """The mines' row-major cells a game places at its first click, drawn from
    :func:`mine_candidates` (what :class:`Game` draws from its generator; the batch engine
    draws the same)."""
    return rng.choice(candidates, size=mines, replace=False)


class Game:
    """One game of Minesweeper, seeded and replayable.

    Mines are placed at the first reveal (so the first-click rule can be honoured) from
    ``numpy.random.default_rng(seed)``; the same seed and first click give the same layout.

    Args:
        rows: Board rows.
        cols: Board columns.
        mines: Number of mines.
        seed: Seed (or Generator) for mine placement.
        first_click: A :class:`FirstClick` rule.
        layout: Optional fixed mine mask (rows x cols, bool); then no placement happens.

    Raises:
        InvalidTypeError: A size, mine count, seed or layout of the wrong type.
        InvalidInputError: A board below 1x1 or too large, mines that do not fit, an unknown
            first-click rule, or a layout of another size or mine count.
    """

    def __init__(
        self,
        rows: int,
        cols: int,
        mines: int,
        *,
        seed: Any = None,
        first_click: FirstClick | str = FirstClick.SAFE,
        layout: np.ndarray | None = None,
    ):
        rows, cols = check_int(rows, "rows"), check_int(cols, "cols")
        mines = check_int(mines, "mines")
        if rows < 1 or cols < 1:
            raise InvalidInputError(f"board must be at least 1x1, got {rows}x{cols}")
        if rows * cols > MAX_CELLS:
            raise InvalidInputError(f"board {rows}x{cols} too large (limit {MAX_CELLS} cells)")
        try:
            self.first_click = FirstClick(first_click)
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"unknown first-click rule {describe(first_click)}; choose from "
                + ", ".join(f.value for f in FirstClick)
            ) from None
        reserved = {
            FirstClick.SAFE: 1,
            FirstClick.OPENING: min(rows, 3) * min(cols, 3),
            FirstClick.ANY: 0,
        }[self.first_click]
        if mines > rows * cols - reserved:
            raise InvalidInputError(
                f"{mines} mines do not fit a {rows}x{cols} board with first click "
                f"'{self.first_click}' (at most {rows * cols - reserved})"
            )
        self.rows, self.cols, self.mines = rows, cols, mines
        try:
            self.rng = np.random.default_rng(seed)
        except (TypeError, ValueError) as exc:  # (a wrong type, or a negative integer)
            error = InvalidTypeError if isinstance(exc, TypeError) else InvalidInputError
            raise error(
                f"seed must be None, an integer >= 0 or a numpy Generator, got {describe(seed)}"
            ) from None
        self.view = np.full((rows, cols), COVERED, dtype=np.int8)
        self.state = GameState.PLAYING
        self.moves: list[tuple[str, int, int]] = []
        self.revealed = 0
        self.exploded: tuple[int, int] | None = None
        self.mine: np.ndarray | None = None
        self._numbers: np.ndarray | None = None
        self._zero_labels: np.ndarray | None = None
        self._zero_slices: list | None = None
        if layout is not None:
            self._set_layout(_mine_mask(layout))

    @classmethod
    def from_preset(cls, name: str, **kwargs: Any) -> Game:
        """A game of a named preset (``beginner``, ``intermediate``, ``expert``)."""
        spec = BoardSpec.from_preset(name)
        return cls(spec.rows, spec.cols, spec.mines, **kwargs)

    @property
    def safe_cells(self) -> int:
        return self.rows * self.cols - self.mines

    @property
    def over(self) -> bool:
        return self.state != GameState.PLAYING

    def board(self) -> Board:
        """The position as the player sees it (a copy)."""
        return Board(self.view.copy(), self.mines)

    def _set_layout(self, mine: np.ndarray) -> None:
        if mine.shape != (self.rows, self.cols) or int(mine.sum()) != self.mines:
            raise InvalidInputError("layout does not match the board size and mine count")
        self.mine = mine
        numbers = neighbour_sum(mine).astype(np.int8)
        numbers[mine] = -1
        self._numbers = numbers

    def _place_mines(self, r: int, c: int) -> None:
        candidates = mine_candidates(self.rows, self.cols, self.first_click, r, c)
        chosen = draw_mines(self.rng, candidates, self.mines)
        mine = np.zeros(self.rows * self.cols, dtype=bool)
        mine[chosen] = True
        self._set_layout(mine.reshape(self.rows, self.cols))

    def _check_cell(self, r: int, c: int) -> tuple[int, int]:
        r, c = check_cell((self.rows, self.cols), r, c)
        if self.over:
            raise InvalidInputError(f"the game is over ({self.state})")
        return r, c

    def reveal(self, r: int, c: int) -> int:
        """Uncovers a cell; a zero opens its whole zero region (iteratively).

        Returns:
            The number of cells newly uncovered, or -1 if the cell held a mine.

        Raises:
            InvalidTypeError: ``r`` or ``c`` is not an integer.
            InvalidInputError: The cell is off the board, or the game is over.
        """
        r, c = self._check_cell(r, c)
        if self.view[r, c] != COVERED:
            return 0
        if self.mine is None:
            self._place_mines(r, c)
        self.moves.append(("reveal", r, c))
        numbers = self._numbers
        if self.mine[r, c]:
            self.state = GameState.LOST
            self.exploded = (r, c)
            return -1
        if numbers[r, c] != 0:
            self.view[r, c] = numbers[r, c]
            opened = 1
        else:
            opened = self._open_zero_region(r, c)
        self.revealed += opened
        if self.revealed == self.safe_cells:
            self.state = GameState.WON
        return opened

    def _open_zero_region(self, r: int, c: int) -> int:
        if self.rows * self.cols <= FLOOD_CELLS:
            return self._flood(r * self.cols + c)
        # Label zero regions once per layout (scipy, no recursion), then open a region and its
        # border by dilating it inside its bounding box.
        from scipy import ndimage

        if self._zero_labels is None:
            self._zero_labels, _ = ndimage.label(self._numbers == 0, structure=np.ones((3, 3)))
            self._zero_slices = ndimage.find_objects(self._zero_labels)
        label = self._zero_labels[r, c]
        rs, cs = self._zero_slices[label - 1]
        r0, r1 = max(rs.start - 1, 0), min(rs.stop + 1, self.rows)
        c0, c1 = max(cs.start - 1, 0), min(cs.stop + 1, self.cols)
        region = self._zero_labels[r0:r1, c0:c1] == label
        opened = region | (neighbour_sum(region) > 0)  # the region and its border
        view = self.view[r0:r1, c0:c1]
        new = opened & (view == COVERED)
        view[new] = self._numbers[r0:r1, c0:c1][new]
        return int(new.sum())

    def _flood(self, start: int) -> int:
        """Opens the zero region of the zero at row-major index ``start`` and its border
        (the covered cells of them), as the labels do, by a walk over the zeros: on a small
        board cheaper than the import of ``scipy.ndimage`` alone (0.4 s of a run's start)."""
        rows, cols = self.rows, self.cols
        numbers = self._numbers.reshape(-1).tolist()
        covered = (self.view.reshape(-1) == COVERED).tolist()
        opened = []
        seen = {start}
        stack = [start]
        while stack:  # (zeros, whether shown or not, as a label takes them all)
            r, c = divmod(stack.pop(), cols)
            for rr in range(max(r - 1, 0), min(r + 2, rows)):
                row = rr * cols
                for j in range(row + max(c - 1, 0), row + min(c + 2, cols)):
                    if covered[j]:
                        covered[j] = False
                        opened.append(j)
                    if numbers[j] == 0 and j not in seen:
                        seen.add(j)
                        stack.append(j)
        flat = self.view.reshape(-1)
        flat[opened] = self._numbers.reshape(-1)[opened]
        return len(opened)

    def flag(self, r: int, c: int) -> None:
        """Toggles a flag on a covered cell (flags are the player's marks, never checked
        against the mines, but there are no more of them than mines: the position would be
        no :class:`~mscsp.board.Board`).

        Raises:
            InvalidTypeError: ``r`` or ``c`` is not an integer.
            InvalidInputError: The cell is off the board, the game is over, or every flag
                is placed already.
        """
        r, c = self._check_cell(r, c)
        if self.view[r, c] == COVERED:
            if np.count_nonzero(self.view == FLAG) >= self.mines:
                raise InvalidInputError(f"no flag left: {self.mines} flags are placed already")
            self.view[r, c] = FLAG
        elif self.view[r, c] == FLAG:
            self.view[r, c] = COVERED
        else:
            return
        self.moves.append(("flag", r, c))

    def to_dict(self) -> dict[str, Any]:
        """Everything needed to replay the game exactly: layout and moves."""
        return {
            "rows": self.rows,
            "cols": self.cols,
            "mines": self.mines,
            "first_click": str(self.first_click),
            "layout": [] if self.mine is None else np.flatnonzero(self.mine).tolist(),
            "moves": [list(m) for m in self.moves],
            "state": str(self.state),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def replay(cls, record: dict[str, Any] | str | bytes) -> Game:
        """Rebuilds a game from :meth:`to_dict` output (or its JSON) by replaying its moves.

        Raises:
            InvalidTypeError: ``record`` is neither a dict nor JSON text of one.
            InvalidInputError: Text that is not JSON, a missing or malformed field (the
                message names it), or a move the game refuses.
        """
        if isinstance(record, str | bytes | bytearray):
            try:
                record = json.loads(record)
            except (ValueError, RecursionError) as exc:  # (JSONDecodeError is a ValueError)
                raise InvalidInputError(f"game record is not JSON: {exc}") from None
        if not isinstance(record, dict):
            raise InvalidTypeError(f"game record must be a dict, got {describe(record)}")
        missing = [key for key in _RECORD_KEYS if key not in record]
        if missing:
            raise InvalidInputError(f"game record has no {', '.join(map(repr, missing))}")
        game = cls(
            record["rows"], record["cols"], record["mines"], first_click=record["first_click"]
        )
        layout, moves = record["layout"], record["moves"]
        if not isinstance(layout, list) or not isinstance(moves, list):
            raise InvalidTypeError(
                f"game record's 'layout' and 'moves' must be lists, got "
                f"{describe(layout)} and {describe(moves)}"
            )
        if layout or game.mines == 0:  # (no layout yet: mines are placed at the first reveal)
            game._set_layout(_mask_of(layout, game.rows, game.cols))
        for move in moves:
            if not (isinstance(move, list | tuple) and len(move) == 3) or move[0] not in _MOVES:
                raise InvalidInputError(
                    f"game record's move {describe(move)}: expected ['reveal' or 'flag', row, col]"
                )
            kind, r, c = move
            (game.reveal if kind == "reveal" else game.flag)(r, c)
        return game


#: The fields of a game record (:meth:`Game.to_dict`) that replaying needs, and its moves.
_RECORD_KEYS = ("rows", "cols", "mines", "first_click", "layout", "moves")
_MOVES = ("reveal", "flag")


def _mine_mask(layout: Any) -> np.ndarray:
    """A mine mask (array-like of bools or 0/1) as a bool array; its shape is checked by
    :meth:`Game._set_layout`."""
    try:
        array = np.asarray(layout) if isinstance(layout, np.ndarray | list | tuple) else None
    except ValueError:  # ragged rows
        array = None
    if array is None or array.dtype.kind not in "biu":
        raise InvalidTypeError(f"layout must be an array of bools, got {describe(layout)}")
    if array.size and not np.isin(array, (0, 1)).all():
        raise InvalidInputError("layout must hold only bools (or 0 and 1)")
    return array.astype(bool)


def _mask_of(indices: list, rows: int, cols: int) -> np.ndarray:
    """The mine mask of a record's layout: the flat indices of its mines, all distinct."""
    if not all(type(i) is int for i in indices):
        raise InvalidTypeError("game record's 'layout' must be a list of cell indices (ints)")
    if len(set(indices)) != len(indices) or not all(0 <= i < rows * cols for i in indices):
        raise InvalidInputError(
            f"game record's 'layout' must hold distinct cell indices 0 to {rows * cols - 1}"
        )
    mask = np.zeros(rows * cols, dtype=bool)
    mask[indices] = True
    return mask.reshape(rows, cols)
