"""Solving the positions of one game incrementally.

A click changes a few numbers; most of the frontier is as it was. :class:`GameSession`
keeps a game's board in a :class:`MineMemory` (each number's needed
mines and unknown neighbours, updated from the cells that change) and splits the live
numbers into *clusters*: numbers joined, directly or not, by the unknown cells they share.
Nothing outside a cluster constrains it, so its groups, its reduction
(:func:`~mscsp.reduce.reduce_system`) and its components' counts depend only on its
numbers, their needs and their unknown cells. Each cluster's result is kept under that key:
the clusters a click did not touch are neither rebuilt, reduced nor counted again, only
combined (:func:`~mscsp.probabilities.combine`) with the others and the unconstrained cells.

The answers are those of :func:`mscsp.solve` on the board with the remembered mines
flagged, exactly: the same fractions and, where the single-point rules are stuck (when
players solve), the same groups (numbered by their first cell, row-major) and components in
the same order. Only the current position's clusters are kept, so memory follows the
frontier, not the length of the game.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .backends import DEFAULT_BACKEND, Backend, get_backend
from .board import COVERED, FLAG, Board, check_board
from .constraints import Cell, Component, ComponentCount, System, frontier_groups
from .engine import compiled
from .errors import InconsistentBoardError, InvalidInputError, format_cell
from .probabilities import Solution, combine
from .reduce import Reduction, reduce_system
from .solver import CountCache, kernel_solves
from .validate import check_int, check_pair

#: The 8 neighbour directions, row-major.
_OFFSETS = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc)


@lru_cache(maxsize=16)
def neighbour_table(rows: int, cols: int) -> tuple[list[tuple[int, ...]], list[Cell]]:
    """Each cell's neighbours (row-major indices, in the order of ``_OFFSETS``) on a rows x
    cols board, and the ``(row, col)`` of each index."""
    index = np.pad(np.arange(rows * cols).reshape(rows, cols), 1, constant_values=-1)
    shifted = np.stack(
        [index[1 + dr : rows + 1 + dr, 1 + dc : cols + 1 + dc].ravel() for dr, dc in _OFFSETS],
        axis=1,
    )
    around = [tuple(k for k in row if k >= 0) for row in shifted.tolist()]
    return around, [divmod(i, cols) for i in range(rows * cols)]


class MineMemory:
    """Per-game memory of the board, kept up to date from the cells that change.

    Proven mines stay mines, so a player keeps them between turns and solves the board with
    them flagged: fewer unknowns and fewer constraints. The harness never flags, so the
    memory holds them. It also keeps, for every revealed number, the mines it still needs
    and its unknown neighbours (covered, not known mines): a click touches the numbers
    around the cells it reveals and nothing else, so the single-point rules run only where
    something changed instead of over the whole board.

    The memory follows the boards it is given: cells that went from covered to revealed or
    flagged since the last board are applied one by one, and flags may come and go on
    proven mines. Any other change (another board shape or mine total, a remembered mine
    shown revealed, a flag taken back from a cell not proven a mine) starts it afresh from
    that board, as for a new game without :meth:`~mscsp.players.base.Player.new_game`.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forgets everything (the next board starts the memory afresh)."""
        self._total = -1
        self.shape: tuple[int, ...] = ()
        self.version = 0  # changes whenever the board or the known mines do
        self._stale = False  # numbers not kept since adopt (see _catch_up)

    def _start(self, board: Board) -> None:
        rows, cols = self.shape = board.shape
        n = rows * cols
        self._total = board.mines
        self._seen_bytes = np.full(n, COVERED, dtype=np.int8).tobytes()  # the board as last seen
        self._around, self._coords = neighbour_table(rows, cols)
        self._code = [COVERED] * n  # cell codes as last seen
        self._mine = bytearray(n)  # proven mines and flags
        self._flag_only = bytearray(n)  # flags not (yet) proven to be mines
        self._need = [0] * n  # numbers: mines still needed around
        self._open = [0] * n  # numbers: unknown neighbours
        self._free = bytearray(b"\x01") * n  # unknown cells next to no number
        self._live: dict[int, tuple[int, ...]] = {}  # numbers with unknown neighbours: those
        self._clear: set[int] = set()  # live numbers needing no more mines
        self._dirty: list[int] = []  # numbers whose counts changed since the last pass
        self._broken: set[int] = set()  # numbers no layout can meet
        self._stale = False
        self.version += 1

    def sync(self, board: Board) -> None:
        """Brings the memory up to ``board`` (see the class description).

        Raises:
            InvalidTypeError: ``board`` is not a :class:`~mscsp.board.Board`.
        """
        check_board(board)
        cells = board.cells.reshape(-1).astype(np.int8, copy=False)
        data = cells.tobytes()
        if board.mines != self._total or board.cells.shape != self.shape:
            self._start(board)
        elif data == self._seen_bytes:  # (cheaper than comparing arrays)
            return
        elif self._stale:
            seen = np.frombuffer(self._seen_bytes, dtype=np.int8)
            moved = cells != seen
            now = cells[moved]
            flags = ((now == COVERED) | (now == FLAG)).all()
            if flags and np.frombuffer(self._mine, dtype=bool)[moved].all():
                # Only flags put on proven mines or taken off them (a flagged copy of the
                # board): the position is the same, the numbers still need no counting.
                self._seen_bytes = data
                self.version += 1
                return
            self._catch_up()
        changed = np.flatnonzero(cells != np.frombuffer(self._seen_bytes, dtype=np.int8))
        self.version += 1
        code, mine = self._code, self._mine
        shown = []
        # A covered cell may be revealed (unless it is a known mine) or flagged; a flag may
        # be taken off a cell proven a mine (a player flagging its proven mines on a copy of
        # the board keeps its memory). Anything else: another game, from scratch.
        for i, v in zip(changed.tolist(), cells[changed].tolist(), strict=True):
            old = code[i]
            if v >= 0:
                if old != COVERED or mine[i]:
                    break
                shown.append((i, v))
            elif v == FLAG and old == COVERED:
                code[i] = FLAG
                if not mine[i]:
                    self._flag_only[i] = 1
                    self._add_mine(i)
            elif v == COVERED and old == FLAG and not self._flag_only[i]:
                code[i] = COVERED
            elif v in (COVERED, FLAG):
                break
            else:
                raise InvalidInputError(f"{v} is not a cell code (cell {self._coords[i]})")
        else:
            if shown:
                self._reveal(shown)
            self._seen_bytes = data
            return
        self._start(board)
        self.sync(board)

    def _reveal(self, shown: list[tuple[int, int]]) -> None:
        """Numbers shown on cells that were unknown."""
        code, need, open_, free, mine = self._code, self._need, self._open, self._free, self._mine
        around, dirty = self._around, self._dirty
        for i, v in shown:
            code[i] = v
        new = {i for i, _ in shown}
        for i, v in shown:
            free[i] = 0
            mines = unknown = 0
            for j in around[i]:
                free[j] = 0
                if code[j] >= 0:
                    if j not in new:  # a number already there: one unknown neighbour less
                        open_[j] -= 1
                        dirty.append(j)
                elif mine[j]:
                    mines += 1
                else:
                    unknown += 1
            need[i] = v - mines
            open_[i] = unknown
            # Most new numbers are zeros inside an opened region: nothing left to decide.
            if unknown or need[i]:
                dirty.append(i)

    def _add_mine(self, i: int) -> None:
        self.version += 1
        self._mine[i] = 1
        if self._stale:  # (the numbers are counted when caught up)
            return
        self._free[i] = 0
        for j in self._around[i]:
            if self._code[j] >= 0:
                self._need[j] -= 1
                self._open[j] -= 1
                self._dirty.append(j)

    def _settle(self) -> None:
        """Runs the single-point rules from the numbers that changed, to a fixpoint.

        A number needing all of its unknown neighbours makes them mines (which changes the
        numbers around them); the live and the satisfied numbers are kept track of.
        """
        if self._stale:
            self._catch_up()
        code, mine, need, open_, around = (
            self._code,
            self._mine,
            self._need,
            self._open,
            self._around,
        )
        live, clear, broken, dirty = self._live, self._clear, self._broken, self._dirty
        while dirty:
            batch = set(dirty)
            dirty.clear()
            for j in batch:
                n, o = need[j], open_[j]
                if broken:
                    broken.discard(j)
                if 0 < n < o:  # most often: still live, not decided
                    live[j] = tuple([k for k in around[j] if code[k] == COVERED and not mine[k]])
                    if clear:
                        clear.discard(j)
                elif o <= 0:
                    if n:
                        broken.add(j)
                    if live.pop(j, None) is not None:
                        clear.discard(j)
                elif n == o:
                    for k in around[j]:
                        if code[k] == COVERED and not mine[k]:
                            self._add_mine(k)
                    # (j comes back dirty, with no unknown neighbour left)
                else:  # needs no more mines, or cannot be met (fewer than none, too many)
                    live[j] = tuple([k for k in around[j] if code[k] == COVERED and not mine[k]])
                    if n:
                        broken.add(j)
                        clear.discard(j)
                    else:
                        clear.add(j)

    def known(self, board: Board) -> np.ndarray:
        """Cells known to be mines on ``board`` (a new array; flags included)."""
        self.sync(board)
        return np.frombuffer(self._mine, dtype=bool).reshape(board.shape).copy()

    def flagged(self, board: Board) -> Board:
        """``board`` with every remembered mine flagged."""
        return Board(np.where(self.known(board), FLAG, board.cells).astype(np.int8), board.mines)

    def add(self, cells: list[Cell]) -> None:
        """Remembers ``cells`` as mines (cells of the board last given).

        Raises:
            InvalidInputError: No board was given yet, or a cell is off it.
            InvalidTypeError: A cell is not a pair of integers.
        """
        if not self.shape:
            raise InvalidInputError("no board yet: give the session a board first")
        cols = self.shape[1]
        for r, c in (check_pair(self.shape, cell) for cell in cells):
            i = r * cols + c
            if not self._mine[i]:
                self._add_mine(i)

    def adopt(self, board: Board, mines: np.ndarray) -> None:
        """Takes ``board`` as the position, with the cells at row-major indices ``mines``
        (and its flags) proven mines: :meth:`sync` and :meth:`add` for a compiled game,
        which proves its mines itself and hands over only its guesses.

        Cheaper than they are: the numbers' bookkeeping (the single-point rules, a
        session's clusters) is not kept; the first call that needs it counts it afresh
        from the position (:meth:`_catch_up`), and :meth:`known`, :meth:`flagged` and
        :meth:`unknown` answer from the mines alone.

        Raises:
            InvalidTypeError: ``board`` is not a :class:`~mscsp.board.Board`.
            InvalidInputError: An index of ``mines`` is off the board, not an integer, or
                a revealed cell.
        """
        check_board(board)
        cells = board.cells.reshape(-1).astype(np.int8, copy=False)
        flat = np.asarray(mines).reshape(-1)
        if flat.size and (
            flat.dtype.kind not in "iu"
            or flat.min() < 0
            or flat.max() >= cells.size
            or (cells[flat] >= 0).any()
        ):
            raise InvalidInputError(
                f"mine indices must be integers in [0, {cells.size}) of cells not revealed"
            )
        if board.mines != self._total or board.cells.shape != self.shape:
            self._start(board)
        mine = np.zeros(cells.size, dtype=np.uint8)
        mine[flat] = 1
        mine[cells == FLAG] = 1
        self._mine = bytearray(mine.tobytes())
        self._seen_bytes = cells.tobytes()
        self._stale = True
        self.version += 1

    def _catch_up(self) -> None:
        """Counts the numbers' bookkeeping afresh for the position and the mines
        :meth:`adopt` took."""
        shape = self.shape
        cells = np.frombuffer(self._seen_bytes, dtype=np.int8).reshape(shape)
        mines = np.flatnonzero(np.frombuffer(self._mine, dtype=np.uint8))
        board = Board(cells.copy(), self._total)
        self._start(board)
        # The mines first, while no number is shown: each number then counts them.
        for i in mines.tolist():
            self._add_mine(i)
        self.sync(board)

    def single_point(self, board: Board) -> list[Cell]:
        """The single-point rules to a fixpoint, from the numbers that changed.

        The same cells as :func:`mscsp.players.base.single_point` on the whole board; the
        mines found are remembered.

        Returns:
            The safe cells, row-major.
        """
        self.sync(board)
        self._settle()
        safe = {k for j in self._clear for k in self._live[j]}
        return [self._coords[i] for i in sorted(safe)]

    def unknown(self, board: Board) -> np.ndarray:
        """Covered cells not known to be mines."""
        return (board.cells == COVERED) & ~self.known(board)


#: A live number: its flat index, the mines it still needs, its unknown cells (flat).
Number = tuple[int, int, tuple[int, ...]]


@dataclass
class Cluster:
    """The reduced constraint system of one cluster of numbers.

    Attributes:
        cells: Board cells of each group, groups numbered by their first cell.
        reduction: The cluster's reduction (its components are split on first use: a turn
            that propagation alone settles never needs them).
        counts: The components' counts, once asked for.
    """

    cells: list[tuple[Cell, ...]]
    reduction: Reduction
    counts: list[ComponentCount] | None = None


@dataclass(frozen=True)
class _Merged(Reduction):
    """A reduction put together from the clusters' (their components are already split)."""

    parts: tuple[Component, ...] = ()

    @property
    def components(self) -> list[Component]:  # type: ignore[override]
        return list(self.parts)


@dataclass(frozen=True)
class Reduced:
    """The whole position after propagation, cluster by cluster.

    Attributes:
        clusters: The clusters, each with its :class:`Cluster` result.
        safe: Cells propagation proves safe, row-major.
        mines: Cells propagation proves to be mines, row-major.
    """

    clusters: list[Cluster]
    safe: list[Cell]
    mines: list[Cell]


class GameSession(MineMemory):
    """Per-game solver state: feed it the board after each click, ask for probabilities.

    It is a :class:`MineMemory` (proven mines, single-point rules)
    that also solves: :meth:`reduce` and :meth:`solve` answer for the board last given
    with the remembered mines flagged, :meth:`what_if` for that board with one more cell
    revealed, and each reuses the clusters earlier calls met unchanged.

    Args:
        backend: Counting backend name or instance; it is wrapped in a
            :class:`~mscsp.solver.CountCache`, so components met in earlier games are not
            counted again either.

    Example:
        >>> session = GameSession()
        >>> # each turn: session.single_point(board), then session.solve(board)
    """

    def __init__(self, backend: str | Backend = DEFAULT_BACKEND):
        counter = get_backend(backend)
        self.counter = counter if isinstance(counter, CountCache) else CountCache(counter)
        super().__init__()

    def reset(self) -> None:
        super().reset()
        self._results: dict[tuple[Number, ...], Cluster] = {}
        self._split: tuple[int, list[tuple[Number, ...]], dict[int, int]] | None = None

    def reduce(self, board: Board) -> Reduced:
        """Propagation on ``board`` (remembered mines flagged), cluster by cluster."""
        self.sync(board)
        self._settle()
        keys = self._clusters()[1]
        clusters = [self._result(key) for key in keys]
        # Only this position's clusters are kept (and what_if's, until the next position):
        # the cache grows with the frontier, not with the length of the game.
        self._results = dict(zip(keys, clusters, strict=True))
        return self._reduced(clusters)

    def solve(self, board: Board) -> Solution:
        """Exact probabilities of ``board`` with the remembered mines flagged.

        Equal to ``mscsp.solve(self.flagged(board))``.

        Raises:
            InconsistentBoardError: The numbers admit no placement of the mines.
        """
        return self.solution(self.reduce(board))

    def solution(self, reduced: Reduced) -> Solution:
        """The exact probabilities of the position :meth:`reduce` gave ``reduced`` for."""
        flagged = Board(self._flagged_cells(), self._total)
        return self._combine(flagged, reduced, self._free_mask())

    def what_if(self, board: Board, cell: Cell, value: int) -> Solution:
        """Exact probabilities should ``cell`` of ``board`` show ``value``.

        Equal to ``mscsp.solve`` of ``board``, remembered mines flagged, with ``cell`` set
        to ``value``; the session is left at ``board``. The compiled kernel solves small
        boards whole; elsewhere only the clusters around ``cell`` are solved again.

        Raises:
            InconsistentBoardError: No mine layout shows ``value`` there (or ``cell`` is a
                proven mine).
            InvalidTypeError: ``cell`` or ``value`` of the wrong type.
            InvalidInputError: ``cell`` is off the board or not covered, or ``value`` is no
                number 0-8.
        """
        self.sync(board)
        cell = check_pair(self.shape, cell)
        if check_int(value, "value") > 8:
            raise InvalidInputError(f"value must be a number 0-8, got {value}")
        self._settle()
        i = cell[0] * self.shape[1] + cell[1]
        if self._code[i] != COVERED:
            raise InvalidInputError(f"cell {format_cell(cell)} is not covered")
        if self._mine[i]:
            raise InconsistentBoardError("a proven mine cannot show a number", cell)
        cells = self._flagged_cells()
        cells[cell] = value
        after = Board(cells, self._total)
        # The compiled kernel solves the whole board faster than the clusters around the
        # cell are solved again here; the same odds (only the cells of a group fixed safe
        # or mined may come in another order). It hands back what it cannot answer.
        if kernel_solves(self.counter.inner, after):
            solution = compiled.solve_small(after)
            if solution is not None:
                return solution
        split, cluster_of = self._clusters()[1:]
        near = self._around[i]
        touched = {cluster_of[k] for k in (i, *near) if k in cluster_of}
        numbers: list[Number] = []
        for index in sorted(touched):
            for j, need, cells in split[index]:
                if i in cells:
                    cells = tuple(k for k in cells if k != i)
                    if not cells:
                        if need:
                            raise InconsistentBoardError(
                                "this number cannot be met", self._coords[j]
                            )
                        continue
                numbers.append((j, need, cells))
        unknown = tuple(k for k in near if self._code[k] == COVERED and not self._mine[k])
        need = value - sum(self._mine[k] for k in near)
        if need < 0 or need > len(unknown):
            raise InconsistentBoardError(f"no layout shows {value} here", cell)
        if unknown:
            numbers.append((i, need, unknown))
        numbers.sort()
        clusters = [self._result(part) for part in _connected(numbers)]
        clusters += [self._result(split[k]) for k in range(len(split)) if k not in touched]
        free = self._free_mask()
        free[max(cell[0] - 1, 0) : cell[0] + 2, max(cell[1] - 1, 0) : cell[1] + 2] = False
        return self._combine(after, self._reduced(clusters), free)

    def _clusters(self) -> tuple[int, list[tuple[Number, ...]], dict[int, int]]:
        """The live numbers split into clusters, and the cluster of each unknown cell
        (kept until the board or the known mines change)."""
        if self._split is None or self._split[0] != self.version:
            if self._broken:
                where = self._coords[min(self._broken)]
                raise InconsistentBoardError("this number cannot be met", where)
            need = self._need
            numbers = [(j, need[j], cells) for j, cells in sorted(self._live.items())]
            split = _connected(numbers)
            cluster_of = {
                k: c for c, part in enumerate(split) for _, _, cells in part for k in cells
            }
            self._split = (self.version, split, cluster_of)
        return self._split

    def _result(self, numbers: tuple[Number, ...]) -> Cluster:
        """The cluster's reduced system, from the cache when its numbers were seen."""
        found = self._results.get(numbers)
        if found is None:
            found = self._results[numbers] = self._reduce_cluster(numbers)
        return found

    def _reduce_cluster(self, numbers: tuple[Number, ...]) -> Cluster:
        # A cell's group is the set of numbers around it; groups are numbered by first cell.
        seen_by: dict[int, list[int]] = {}
        for n, (_, _, cells) in enumerate(numbers):
            for k in cells:
                seen_by.setdefault(k, []).append(n)
        cells, members = frontier_groups(seen_by, len(numbers), self._coords)
        # The cluster alone as a system: no unconstrained cells, no mine total (the
        # reduction reads neither).
        system = System(
            sizes=[len(group) for group in cells],
            cells=cells,
            constraints=[
                (tuple(m), need) for m, (_, need, _) in zip(members, numbers, strict=True)
            ],
            numbers=[self._coords[j] for j, _, _ in numbers],
            unconstrained=np.zeros(0, dtype=bool),
            remaining=0,
        )
        return Cluster(cells, reduce_system(system))

    def _reduced(self, clusters: list[Cluster]) -> Reduced:
        safe: list[Cell] = []
        mines: list[Cell] = []
        for cluster in clusters:
            for g, x in cluster.reduction.fixed:
                group = cluster.cells[g]
                if x == 0:
                    safe.extend(group)
                elif x == len(group):
                    mines.extend(group)
        return Reduced(clusters, sorted(safe), sorted(mines))

    def _combine(self, board: Board, reduced: Reduced, free: np.ndarray) -> Solution:
        """The clusters' results as one system and reduction, combined."""
        # Global group numbers by first cell, as build_system numbers them.
        order = sorted(
            (group[0], c, g)
            for c, cluster in enumerate(reduced.clusters)
            for g, group in enumerate(cluster.cells)
        )
        number = {(c, g): n for n, (_, c, g) in enumerate(order)}
        cells = [reduced.clusters[c].cells[g] for _, c, g in order]
        fixed = sorted(
            (number[c, g], x)
            for c, cluster in enumerate(reduced.clusters)
            for g, x in cluster.reduction.fixed
        )
        parts = []
        for cluster in reduced.clusters:
            if cluster.counts is None:
                cluster.counts = [self.counter.count(c) for c in cluster.reduction.components]
            parts.extend(zip(cluster.reduction.components, cluster.counts, strict=True))
        parts.sort(key=lambda part: part[0].cells[0][0])
        # Only what combine reads: the groups, the unconstrained cells, the mines left.
        system = System(
            sizes=[len(group) for group in cells],
            cells=cells,
            constraints=[],
            numbers=[],
            unconstrained=free,
            remaining=board.mines - self._mine.count(1),
        )
        reduction = _Merged(fixed, system, {}, tuple(part for part, _ in parts))
        return combine(board, system, reduction, [count for _, count in parts])

    def _flagged_cells(self) -> np.ndarray:
        mine = np.frombuffer(self._mine, dtype=bool).reshape(self.shape)
        seen = np.frombuffer(self._seen_bytes, dtype=np.int8).reshape(self.shape)
        return np.where(mine, np.int8(FLAG), seen).astype(np.int8)

    def _free_mask(self) -> np.ndarray:
        return np.frombuffer(self._free, dtype=bool).reshape(self.shape).copy()


def _connected(numbers: list[Number]) -> list[tuple[Number, ...]]:
    """``numbers`` split into clusters sharing unknown cells, each in the given order,
    clusters ordered by their first number."""
    seeing: dict[int, list[int]] = {}
    for n, (_, _, cells) in enumerate(numbers):
        for k in cells:
            seeing.setdefault(k, []).append(n)
    seen = [False] * len(numbers)
    parts = []
    for start in range(len(numbers)):
        if seen[start]:
            continue
        seen[start] = True
        stack = [start]
        part = []
        while stack:
            n = stack.pop()
            part.append(n)
            for k in numbers[n][2]:
                for m in seeing[k]:
                    if not seen[m]:
                        seen[m] = True
                        stack.append(m)
        part.sort()
        parts.append(tuple(numbers[n] for n in part))
    return parts


def isolated_regions(board: Board) -> list[list[Cell]]:
    """Covered regions that the rest of the board cannot inform, nor they the rest.

    Covered cells (flags aside) are joined when they touch or share a revealed number; a
    region all of whose cells touch a number has no unconstrained cell, so the numbers
    around it see only its own cells, and clicks elsewhere never show anything about it.
    Regions come sorted, in order of their first cell (row-major). Found by the engine
    (:func:`mscsp.engine.compiled.isolated_regions`, compiled or not).

    Raises:
        InvalidTypeError: ``board`` is not a :class:`~mscsp.board.Board`.
    """
    check_board(board)
    return compiled.isolated_regions(board.cells)
