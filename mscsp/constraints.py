"""From a board to its constraint system: frontier, groups, components.

Cells touching exactly the same set of revealed numbers are interchangeable, so the system is
stated over *groups* of cells: a group of ``n`` cells holds ``x`` mines in ``C(n, x)`` ways.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from typing import NamedTuple

import numpy as np

from .board import COVERED, FLAG, Board
from .errors import InconsistentBoardError, counted, format_cell, unmet_number
from .runtime.deadline import Deadline

Cell = tuple[int, int]


class Component(NamedTuple):
    """An independent part of the frontier, the unit every backend counts.

    Immutable, compared and hashed by value (a named tuple: a solve makes many, and a tuple
    is made several times faster than a frozen dataclass).

    Attributes:
        sizes: Number of cells in each group.
        constraints: ``(group indices, mines)`` pairs: the groups' mines must sum to ``mines``.
        cells: Board cells of each group (for mapping results back; backends ignore it).
    """

    sizes: tuple[int, ...]
    constraints: tuple[tuple[tuple[int, ...], int], ...]
    cells: tuple[tuple[Cell, ...], ...] = ()

    @property
    def n_cells(self) -> int:
        return sum(self.sizes)

    @property
    def n_groups(self) -> int:
        return len(self.sizes)


class ComponentCount(NamedTuple):
    """Exact solution counts of one component, by number of mines ``k`` in the component.

    Immutable, compared by value (a named tuple, like :class:`Component`).

    Attributes:
        counts: ``counts[k]``: cell-level solutions with ``k`` mines.
        cell_counts: ``cell_counts[g][k]``: solutions with ``k`` mines in which one given cell
            of group ``g`` holds a mine (the same for every cell of the group).
        exact: False when a backend hit a limit and sampled instead of counting.
    """

    counts: tuple[int, ...]
    cell_counts: tuple[tuple[int, ...], ...]
    exact: bool = True

    @property
    def total(self) -> int:
        return sum(self.counts)


class System(NamedTuple):
    """The whole board as a group-level constraint system, before reductions.

    One constraint per revealed number next to covered cells: the mines of its groups sum to
    the mines the number still needs. Stored sparsely (each constraint lists its groups), so
    the size grows with the frontier, never with its square. Cells the single-point rules
    settle while building (next to a number that needs all or none of its covered cells)
    form up to two extra groups, listed in :attr:`settled` and in no constraint.

    Attributes:
        sizes: Cells per group.
        cells: Board cells of each group, row-major; frontier groups are numbered by their
            first cell, the settled groups come last.
        constraints: ``(group indices, mines)`` per number, group indices ascending.
        numbers: ``(row, col)`` of each constraint's number.
        unconstrained: Mask of covered cells next to no revealed number.
        remaining: Mines not yet flagged.
        settled: ``(group, mines)`` of the groups settled while building (all safe: 0 mines;
            all mines: their size).

    Immutable (a named tuple, made faster than a frozen dataclass).
    """

    sizes: list[int]
    cells: list[tuple[Cell, ...]]
    constraints: list[tuple[tuple[int, ...], int]]
    numbers: list[Cell]
    unconstrained: np.ndarray
    remaining: int
    settled: Sequence[tuple[int, int]] = ()

    @property
    def frontier(self) -> list[Cell]:
        """Covered cells next to at least one revealed number."""
        return [cell for group in self.cells for cell in group]

    @property
    def n_unconstrained(self) -> int:
        return int(np.count_nonzero(self.unconstrained))


# The 8 neighbour directions.
_DIRS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
#: Code of the padding around the board: neither a number nor covered nor a flag.
_OUTSIDE = -3


def build_system(board: Board, deadline: Deadline | None = None) -> System:
    """States the board's constraints over groups of interchangeable frontier cells.

    The array work looks only at revealed numbers and their 8 neighbours (gathered from a
    padded copy of the board): it counts covered cells and flags around every number and
    applies the single-point rules once, which settles most of a real game's frontier
    (known mines a player never flags, cells next to satisfied numbers). What follows loops
    over the rest of the frontier only, so it costs little on small boards and grows
    linearly with the frontier on large ones. Boards up to :data:`SMALL_BOARD` cells take
    :func:`_build_small` instead, which gives the same system faster where numpy's fixed
    cost per call would dominate.

    Args:
        board: The position.
        deadline: Stops the work with :class:`~mscsp.errors.SolverLimitError` when passed.

    Raises:
        InconsistentBoardError: A number has more flags around it than its value, or fewer
            covered cells than it still needs, or the rules make a cell both safe and a mine.
    """
    if board.cells.size <= SMALL_BOARD:
        return _build_small(board)
    cells = board.cells
    rows, cols = cells.shape
    covered = cells == COVERED
    n_flags = int(np.count_nonzero(cells == FLAG))
    remaining = board.mines - n_flags
    if remaining < 0:
        raise InconsistentBoardError(f"{n_flags} flags but only {board.mines} mines")
    # Flat indices into the board padded by one cell of "outside" (so every number has 8
    # neighbour indices); row-major, like the board.
    width = cols + 2
    padded = np.full((rows + 2, width), _OUTSIDE, dtype=np.int8)
    padded[1:-1, 1:-1] = cells
    flat = padded.ravel()
    numbers = np.flatnonzero(flat >= 0)
    if not len(numbers):  # an untouched board: every covered cell is alike
        return System([], [], [], [], covered, remaining)
    # 32-bit indices: a million-cell board gathers millions of them.
    numbers = numbers.astype(np.int32)
    around = numbers[:, None] + np.array([dr * width + dc for dr, dc in _DIRS], dtype=np.int32)
    seen = flat[around]
    open_ = seen == COVERED
    open_nb = covered_nb = open_.sum(axis=1)
    flags_nb = (seen == FLAG).sum(axis=1)
    need = flat[numbers] - flags_nb
    _check(flat, numbers, need, open_nb, width, (flags_nb, 0, covered_nb))

    # The single-point rules, once: a number needing all of its covered neighbours makes
    # them mines, one needing none makes them safe.
    live = open_nb > 0
    full, empty = live & (need == open_nb), live & (need == 0)
    mark = np.zeros(len(flat), dtype=np.int8)  # 1: settled mine, 2: settled safe
    mark[around[open_ & full[:, None]]] = 1
    mark[around[open_ & empty[:, None]]] |= 2
    if (mark == 3).any():
        _clash_array(flat, numbers, full, empty, int(np.flatnonzero(mark == 3)[0]), width)
    settled_groups = [(np.flatnonzero(mark == m), m % 2) for m in (2, 1)]
    settled_groups = [(where, mine) for where, mine in settled_groups if len(where)]
    if settled_groups:
        marks = mark[around]
        forced = (marks == 1).sum(axis=1)
        need = need - forced
        open_ &= marks == 0
        open_nb = open_.sum(axis=1)
        _check(flat, numbers, need, open_nb, width, (flags_nb, forced, covered_nb))
    active = open_nb > 0
    number_idx, direction = np.nonzero(open_[active])
    pair_cell = around[active][number_idx, direction]
    if deadline is not None:
        deadline.check()

    # A cell's group is the set of numbers around it (pairs come number by number, so each
    # set is listed in ascending order). Groups are numbered by their first cell.
    seen_by: dict[int, list[int]] = {}
    for number, cell in zip(number_idx.tolist(), pair_cell.tolist(), strict=True):
        seen_by.setdefault(cell, []).append(number)
    frontier = sorted(seen_by)
    group_of: dict[tuple[int, ...], int] = {}
    group_cells: list[list[Cell]] = []
    for cell in frontier:
        key = tuple(seen_by[cell])
        g = group_of.setdefault(key, len(group_cells))
        if g == len(group_cells):
            group_cells.append([])
        r, c = divmod(cell, width)
        group_cells[g].append((r - 1, c - 1))
    if deadline is not None:
        deadline.check()

    numbers = numbers[active]
    members: list[list[int]] = [[] for _ in range(len(numbers))]
    for key, g in group_of.items():
        for number in key:
            members[number].append(g)
    sizes = [len(group) for group in group_cells]
    group_tuples = [tuple(group) for group in group_cells]
    settled = []
    for where, mine in settled_groups:
        settled.append((len(sizes), mine * len(where)))
        sizes.append(len(where))
        rs, cs = np.divmod(where, width)
        group_tuples.append(tuple(zip((rs - 1).tolist(), (cs - 1).tolist(), strict=True)))
    unconstrained = covered.copy()
    near = np.array(frontier + [int(i) for where, _ in settled_groups for i in where])
    if len(near):
        unconstrained[near // width - 1, near % width - 1] = False
    nr, nc = np.divmod(numbers, width)
    return System(
        sizes=sizes,
        cells=group_tuples,
        constraints=[(tuple(m), t) for m, t in zip(members, need[active].tolist(), strict=True)],
        numbers=list(zip((nr - 1).tolist(), (nc - 1).tolist(), strict=True)),
        unconstrained=unconstrained,
        remaining=remaining,
        settled=settled,
    )


#: Boards up to this many cells are built by :func:`_build_small` (Python integers and
#: lists): there the array code's fixed cost (some thirty numpy calls) dominates, and the
#: small road's cost follows the frontier, not the number of revealed numbers.
SMALL_BOARD = 4096

#: Byte translation tables from the board's ``int8`` codes (as unsigned bytes: covered
#: 255, flag 254) to one byte per cell: 1 where covered, 1 where flagged, 1 where revealed,
#: and the revealed number itself (0 elsewhere).
_IS_COVERED = bytes(int(b == COVERED % 256) for b in range(256))
_IS_FLAG = bytes(int(b == FLAG % 256) for b in range(256))
_IS_NUMBER = bytes(int(b <= 8) for b in range(256))
_VALUE = bytes(b if b <= 8 else 0 for b in range(256))


def _build_small(board: Board) -> System:
    """:func:`build_system` on Python integers and lists: the same system, the same errors.

    Each property of the board (covered, flagged, revealed, the numbers' values) becomes
    one Python integer with a byte per cell ("lanes"). Sums over every cell's neighbours
    are then a few shifts and additions (:func:`_around_sums`), and so are the checks and
    the single-point rules for every number at once. The lanes span only the rows from the
    one above the first revealed number to the one below the last (no other cell is a
    number or next to one), so a nearly untouched board costs little. Only the numbers
    left with undecided cells are visited one by one, in row-major order, their neighbours
    in the order of ``_DIRS``, as the array code does: groups, constraints and the first
    number an error names come out identical (``tests/test_fast_paths.py`` checks this on
    real-game positions and on random boards).
    """
    cells = board.cells
    rows, cols = cells.shape
    whole = cells.astype(np.int8, copy=False).tobytes()
    n_flags = whole.count(FLAG % 256)
    remaining = board.mines - n_flags
    if remaining < 0:
        raise InconsistentBoardError(f"{n_flags} flags but only {board.mines} mines")
    covered_bytes = whole.translate(_IS_COVERED)
    number_bytes = whole.translate(_IS_NUMBER)
    first = number_bytes.find(1)
    if first < 0:  # an untouched board: every covered cell is alike
        return System([], [], [], [], _mask(bytearray(covered_bytes), cols), remaining)
    # The rows that matter (see above); cell i of them is cell i + offset of the board.
    top = max(first // cols - 1, 0)
    offset = top * cols
    n = (min(number_bytes.rfind(1) // cols + 2, rows) - top) * cols
    tables = _shape_tables(n // cols, cols)
    if n == len(whole):
        raw, coords = whole, tables.coords
        covered = int.from_bytes(covered_bytes, "little")
        numbers = int.from_bytes(number_bytes, "little")
    else:
        raw = whole[offset : offset + n]
        coords = _window_coords(top, n // cols, cols)
        covered = int.from_bytes(covered_bytes[offset : offset + n], "little")
        numbers = int.from_bytes(number_bytes[offset : offset + n], "little")
    values = int.from_bytes(raw.translate(_VALUE), "little")
    flags = int.from_bytes(raw.translate(_IS_FLAG), "little") if n_flags else 0
    flags_near = _around_sums(flags, tables) if flags else 0
    open_near = _around_sums(covered, tables)
    # Every number needs value - flags mines among its covered neighbours. (``parts``: what
    # an error message says of a number, see _check_lanes.)
    first_check = (numbers, values, flags_near, flags_near + open_near)
    first_parts = (flags_near, 0, open_near)

    # The single-point rules, once: a number needing all of its covered neighbours makes
    # them mines, one needing none makes them safe.
    live = numbers & _nonzero(open_near, tables)
    full = live ^ (live & _nonzero(values ^ (flags_near + open_near), tables))
    empty = live ^ (live & _nonzero(values ^ flags_near, tables))
    mines = covered & _nonzero(_around_sums(full, tables), tables) if full else 0
    safe = covered & _nonzero(_around_sums(empty, tables), tables) if empty else 0
    if mines or safe:
        undecided = covered ^ mines ^ safe
        undecided_near = _around_sums(undecided, tables)
        mines_near = _around_sums(mines, tables)
        # Again, with the settled mines taken off and only the undecided cells open. The
        # bounds are within the first check's, so passing this one passes both; only on a
        # failure is the first check's error (or the clash of the rules) looked for first.
        low = flags_near + mines_near
        second_check = (numbers, values, low, low + undecided_near)
        if mines & safe or _bad_numbers(*second_check, tables):
            _check_lanes(raw, coords, *first_check, tables, first_parts)
            if mines & safe:
                first = (mines & safe).to_bytes(n, "little").find(1)
                _clash_lanes(raw, coords, full, empty, first, tables)
            parts = (flags_near, mines_near, open_near)
            _check_lanes(raw, coords, *second_check, tables, parts)
    else:
        _check_lanes(raw, coords, *first_check, tables, first_parts)
        undecided, undecided_near, mines_near = covered, open_near, 0
    # The numbers still with undecided cells, row-major: one constraint each.
    active = (numbers & _nonzero(undecided_near, tables)).to_bytes(n, "little")
    around = tables.around
    is_open = undecided.to_bytes(n, "little")
    taken = (flags_near + mines_near).to_bytes(n, "little")
    live_numbers: list[int] = []
    needs: list[int] = []
    seen_by: dict[int, list[int]] = {}
    i = active.find(1)
    while i >= 0:
        k = len(live_numbers)
        live_numbers.append(i)
        needs.append(raw[i] - taken[i])
        for j in around[i]:
            if is_open[j]:
                seen_by.setdefault(j, []).append(k)
        i = active.find(1, i + 1)

    # A cell's group is the set of numbers around it; groups are numbered by first cell.
    group_tuples, members = frontier_groups(seen_by, len(live_numbers), coords)
    sizes = [len(group) for group in group_tuples]
    settled = []
    for where, mine in ((safe, 0), (mines, 1)):
        if where:
            found = _cells_of(where, n, coords)
            settled.append((len(sizes), mine * len(found)))
            sizes.append(len(found))
            group_tuples.append(found)
    # Covered cells next to no number: none of those rows, and the rest of the board.
    near_numbers = _nonzero(_around_sums(numbers, tables), tables)
    here = (covered & ~near_numbers).to_bytes(n, "little")
    if n == len(whole):
        unconstrained = bytearray(here)
    else:
        unconstrained = bytearray(covered_bytes)
        unconstrained[offset : offset + n] = here
    return System(
        sizes=sizes,
        cells=group_tuples,
        constraints=[(tuple(m), need) for m, need in zip(members, needs, strict=True)],
        numbers=[coords[i] for i in live_numbers],
        unconstrained=_mask(unconstrained, cols),
        remaining=remaining,
        settled=settled,
    )


def _mask(cells: bytearray, cols: int) -> np.ndarray:
    """A byte of 0 or 1 per cell as a boolean board mask (writable: it shares ``cells``)."""
    return np.frombuffer(cells, dtype=bool).reshape(-1, cols)


#: Above this many cells, :func:`_cells_of` finds them with numpy (a fixed cost of about
#: 2 us) rather than one ``bytes.find`` each (0.1 us).
_FIND_ONE_BY_ONE = 16


def _cells_of(lanes: int, n: int, coords: list[Cell]) -> tuple[Cell, ...]:
    """The ``(row, col)`` of each cell whose byte is 1 (at least one), row-major."""
    data = lanes.to_bytes(n, "little")
    if data.count(1) > _FIND_ONE_BY_ONE:
        found = np.flatnonzero(np.frombuffer(data, dtype=np.uint8)).tolist()
    else:
        found = []
        i = data.find(1)
        while i >= 0:
            found.append(i)
            i = data.find(1, i + 1)
    return itemgetter(*found)(coords) if len(found) > 1 else (coords[found[0]],)


def _nonzero(x: int, tables: _ShapeTables) -> int:
    """A byte of 1 where ``x``'s byte is not zero, 0 elsewhere (every byte below 128).

    Adding 127 sets bit 7 of a byte exactly when the byte is not zero.
    """
    return ((x + tables.sevens) >> 7) & tables.ones


def _at_most(low: int, high: int, tables: _ShapeTables) -> int:
    """A byte of 1 where ``low``'s byte is at most ``high``'s (every byte below 128)."""
    return ((high + tables.highs - low) >> 7) & tables.ones


def _bad_numbers(numbers: int, values: int, low: int, high: int, tables: _ShapeTables) -> int:
    """A byte of 1 on each number whose value is not within ``low..high``."""
    fine = _at_most(low, values, tables) & _at_most(values, high, tables)
    return numbers ^ (numbers & fine)


def _check_lanes(
    raw: bytes,
    coords: list[Cell],
    numbers: int,
    values: int,
    low: int,
    high: int,
    tables: _ShapeTables,
    parts: tuple[int, int, int],
) -> None:
    """Raises on the first number (row-major) whose value is not within ``low..high``:
    the mines already around it, and those plus its undecided neighbours (``coords``: the
    board cell of each lane; ``parts``: the flags, settled mines and covered cells around
    each cell, for the message)."""
    bad = _bad_numbers(numbers, values, low, high, tables)
    if bad:
        i = bad.to_bytes(len(raw), "little").find(1)
        flags, forced, covered = (_byte(lane, i) for lane in parts)
        _fail(raw[i], coords[i], flags, forced, covered, _byte(high, i) - _byte(low, i))


def _byte(lane: int, i: int) -> int:
    """Byte ``i`` of a lane (0 for the lane 0)."""
    return (lane >> (8 * i)) & 0xFF


def _clash_lanes(
    raw: bytes, coords: list[Cell], full: int, empty: int, cell: int, tables: _ShapeTables
) -> None:
    """Raises on a covered cell that one number makes a mine and another safe
    (:func:`_clash`), naming the first such numbers around it."""
    around = tables.around[cell]
    mine_by = next(j for j in around if _byte(full, j))
    safe_by = next(j for j in around if _byte(empty, j))
    _clash(coords[cell], (raw[mine_by], coords[mine_by]), (raw[safe_by], coords[safe_by]))


def _clash_array(
    flat: np.ndarray, numbers: np.ndarray, full: np.ndarray, empty: np.ndarray, x: int, width: int
) -> None:
    """:func:`_clash_lanes` on the padded flat board of :func:`build_system`."""
    makes_mine = np.zeros(len(flat), dtype=bool)
    makes_mine[numbers[full]] = True
    makes_safe = np.zeros(len(flat), dtype=bool)
    makes_safe[numbers[empty]] = True
    around = [x + dr * width + dc for dr, dc in _DIRS]
    mine_by = next(j for j in around if makes_mine[j])
    safe_by = next(j for j in around if makes_safe[j])

    def number(j: int) -> tuple[int, Cell]:
        r, c = divmod(j, width)
        return int(flat[j]), (r - 1, c - 1)

    r, c = divmod(x, width)
    _clash((r - 1, c - 1), number(mine_by), number(safe_by))


@dataclass(frozen=True)
class _ShapeTables:
    """What :func:`_build_small` needs of a board shape, computed once per shape.

    Attributes:
        around: Row-major index of each cell's neighbours, in the order of ``_DIRS``.
        coords: ``(row, col)`` of each index.
        cols: Columns.
        inner_left: A byte of 255 on every cell not in the first column (0 elsewhere).
        inner_right: The same off the last column.
        board: A byte of 255 on every cell.
        ones: A byte of 1 on every cell.
        sevens: A byte of 127 on every cell.
        highs: A byte of 128 on every cell.
    """

    around: list[tuple[int, ...]]
    coords: list[Cell]
    cols: int
    inner_left: int
    inner_right: int
    board: int
    ones: int
    sevens: int
    highs: int


@lru_cache(maxsize=64)
def _shape_tables(rows: int, cols: int) -> _ShapeTables:
    around = []
    for r in range(rows):
        for c in range(cols):
            around.append(
                tuple(
                    (r + dr) * cols + c + dc
                    for dr, dc in _DIRS
                    if 0 <= r + dr < rows and 0 <= c + dc < cols
                )
            )

    def each_cell(value: int, skip: int | None = None) -> int:
        row = bytes(0 if c == skip else value for c in range(cols))
        return int.from_bytes(row * rows, "little")

    return _ShapeTables(
        around=around,
        coords=[divmod(i, cols) for i in range(rows * cols)],
        cols=cols,
        inner_left=each_cell(255, skip=0),
        inner_right=each_cell(255, skip=cols - 1),
        board=each_cell(255),
        ones=each_cell(1),
        sevens=each_cell(127),
        highs=each_cell(128),
    )


@lru_cache(maxsize=256)
def _window_coords(top: int, rows: int, cols: int) -> list[Cell]:
    """``(row, col)`` of each cell of the ``rows`` board rows from row ``top`` on."""
    return [(top + r, c) for r in range(rows) for c in range(cols)]


def _around_sums(x: int, tables: _ShapeTables) -> int:
    """Given a byte of 0 or 1 per cell, the byte-per-cell sums over each cell's 8 neighbours
    (at most 8: no byte carries into the next)."""
    # Horizontal: each cell plus its left and right neighbours (a cell moved past its row's
    # end is dropped by the column masks), then those row sums from the rows above and below.
    row = x + ((x << 8) & tables.inner_left) + ((x >> 8) & tables.inner_right)
    step = 8 * tables.cols
    return ((row + (row << step) + (row >> step)) & tables.board) - x


def _fail(value: int, cell: Cell, flags: int, forced: int, covered: int, undecided: int) -> None:
    """Raises :func:`~mscsp.errors.unmet_number`'s error."""
    raise unmet_number(value, cell, flags, forced, covered, undecided)


def _clash(cell: Cell, mine_by: tuple[int, Cell], safe_by: tuple[int, Cell]) -> None:
    """Raises on a covered ``cell`` that the number ``mine_by`` (value, cell) needs as a
    mine while the number ``safe_by`` already has all its mines: the error names the number
    that needs the mine."""
    (need, at), (full, other) = mine_by, safe_by
    why = "makes it safe" if full == 0 else f"already touches its {counted(full, 'flag')}"
    raise InconsistentBoardError(
        f"the {need} at {format_cell(at)} needs the covered cell {format_cell(cell)} to be a "
        f"mine, but the {full} at {format_cell(other)} {why}",
        at,
    )


def _check(
    flat: np.ndarray,
    numbers: np.ndarray,
    need: np.ndarray,
    room: np.ndarray,
    width: int,
    parts: tuple[np.ndarray, np.ndarray | int, np.ndarray],
) -> None:
    """Raises on the first number that needs more mines than it has undecided cells, or
    fewer than zero (the error names its cell; ``parts``: the flags, settled mines and
    covered cells around each number, for the message)."""
    bad = (need < 0) | (need > room)
    if bad.any():
        i = int(np.argmax(bad))
        r, c = divmod(int(numbers[i]), width)
        flags, forced, covered = (int(p if np.isscalar(p) else p[i]) for p in parts)
        _fail(int(flat[numbers[i]]), (r - 1, c - 1), flags, forced, covered, int(room[i]))


def frontier_groups(
    seen_by: dict[int, list[int]], n_numbers: int, coords: Sequence[Cell]
) -> tuple[list[tuple[Cell, ...]], list[list[int]]]:
    """Frontier cells grouped by the numbers around them (a group per set of numbers).

    Args:
        seen_by: For each frontier cell (a row-major index), its numbers in ascending order.
        n_numbers: How many numbers there are.
        coords: The ``(row, col)`` of each row-major index.

    Returns:
        The cells of each group, groups numbered by their first cell (row-major), and each
        number's groups in ascending order.
    """
    group_of: dict[tuple[int, ...], list[Cell]] = {}
    groups: list[list[Cell]] = []
    members: list[list[int]] = [[] for _ in range(n_numbers)]
    for k in sorted(seen_by):
        key = tuple(seen_by[k])
        group = group_of.get(key)
        if group is None:
            for number in key:
                members[number].append(len(groups))
            group_of[key] = group = []
            groups.append(group)
        group.append(coords[k])
    return [tuple(group) for group in groups], members
