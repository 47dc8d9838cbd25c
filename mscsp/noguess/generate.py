"""Lays boards that need no guess from the first click, each with its certificate.

A try draws a layout (seeded, under the first-click rule), opens the first click, then
settles covered cells with the cheapest rule that makes progress, keeping each use of a
rule as one step of the certificate:

1. **one number** (its mines all found: the rest safe; as many covered cells as mines
   missing: all mines), on a work list of the numbers whose neighbourhood changed;
2. **two numbers** near each other (the subset rule and the 1-2 overlap rule), only when
   (1) is stuck;
3. **the exact forcing set** of :func:`mscsp.explain.explain_cell`, only when (1) and (2)
   are stuck: :func:`mscsp.solve` finds the certain cells, with the mine total, and the
   forcing set of one of them (numbers alone where they suffice, else numbers and the
   total) becomes the step.

A try whose position has no certain cell left is stuck: the layout is drawn again. Most
tries fail a few steps after the opening, so the work on a layout grows only as it
survives: a compiled pass (:mod:`._filter`, numba) plays rules (1) and (2) first, in tens
of microseconds; a layout they do not solve is decided by a dry run, the same compiled rules
until they are stuck and then one exact solve that settles every certain cell at once, and
so on; only a layout kept is played again, in Python, to write its steps, the forcing sets
(the costly part) included.

Why rejection and not repair (moving mines where the solver is stuck): every board is then
a plain uniform draw among the layouts the rules solve, which players and the comparison
with other generators can rely on.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..board import neighbour_sum
from ..errors import InconsistentBoardError, InvalidInputError, SolverLimitError
from ..game import FirstClick, draw_mines, first_move, mine_candidates
from .certificate import FORMAT, MAX_STEP_CELLS, MAX_STEP_NUMBERS, MAX_STEP_SETTLES, VERSION

#: How many of its checks (one per 4,096 nodes of a search) one forcing-set search may
#: make before the generator tries another cell: about a quarter of a second here. The
#: search is exact and exponential in the worst case, and a board that needs such a step is
#: hardly the board a player wants. Counted in steps, not seconds, so that a seed gives the
#: same boards on any machine and under any load (a clock once cut searches short on a
#: loaded machine, and the boards of a seed changed).
EXPLAIN_CHECKS = 64
#: Certain cells the exact stage tries to explain before it calls the board stuck.
EXPLAIN_TRIES = 6


@dataclass(frozen=True)
class Settings:
    """What boards to lay.

    Attributes:
        rows: Board rows.
        cols: Board columns.
        mines: Mines.
        first_click: ``"opening"`` (the cell and its neighbours hold no mine) or ``"safe"``.
        first_move: ``"corner"``, ``"center"``, ``"random"`` or ``"ROW,COL"``.
        min_3bv: Fewest clicks a board needs (its 3BV).
        max_3bv: Most clicks a board needs (``None``: no bound).
        max_total_steps: Most steps that may need the mine total (``None``: no bound).
        max_step_numbers: Most numbers one step may cite.
        max_tries: Layouts drawn at most for one board before giving up.
        exact: Whether the exact stage runs where the one- and two-number rules are stuck
            (without it a layout those rules do not solve is drawn again: cheaper per
            layout, more layouts per board, no step that needs the total).
    """

    rows: int
    cols: int
    mines: int
    first_click: str = FirstClick.OPENING.value
    first_move: str = "corner"
    min_3bv: int = 0
    max_3bv: int | None = None
    max_total_steps: int | None = None
    max_step_numbers: int = MAX_STEP_NUMBERS
    max_tries: int = 200_000
    exact: bool = True

    def check(self) -> None:
        """Raises :class:`InvalidInputError` for settings no board can meet."""
        if self.first_click not in (FirstClick.OPENING.value, FirstClick.SAFE.value):
            raise InvalidInputError(
                f"--first-click {self.first_click}: a no-guess board needs a safe first click "
                "(safe or opening)"
            )
        if self.rows < 1 or self.cols < 1 or self.rows * self.cols > 10_000:
            raise InvalidInputError(
                f"board {self.rows}x{self.cols}: no-guess boards are 1 to 10000 cells"
            )
        reserved = 1 if self.first_click == "safe" else min(self.rows, 3) * min(self.cols, 3)
        if not 0 <= self.mines <= self.rows * self.cols - reserved:
            raise InvalidInputError(
                f"{self.mines} mines do not fit a {self.rows}x{self.cols} board with first "
                f"click '{self.first_click}' (at most {self.rows * self.cols - reserved})"
            )
        if not 1 <= self.max_step_numbers <= MAX_STEP_NUMBERS:
            raise InvalidInputError(
                f"--max-step-numbers must be 1 to {MAX_STEP_NUMBERS} (the checker's limit)"
            )
        if self.max_3bv is not None and self.max_3bv < self.min_3bv:
            raise InvalidInputError(
                f"--max-3bv {self.max_3bv} is below --min-3bv {self.min_3bv}: no board fits"
            )
        if self.first_move not in ("corner", "center", "random"):
            first_move(self.first_move, self.rows, self.cols)  # (checks "ROW,COL")


@dataclass(frozen=True)
class Step:
    """One deduction: cells settled by the numbers cited (and the total, where marked).

    Attributes:
        numbers: The revealed numbers cited, row-major indices.
        safe: Cells shown safe (opened next), row-major indices.
        mines: Cells shown to be mines (marked), row-major indices.
        total: Whether the mine total is part of the reason.
        rule: Which stage found it (``"single"``, ``"pair"``, ``"exact"``); not written.
    """

    numbers: tuple[int, ...]
    safe: tuple[int, ...] = ()
    mines: tuple[int, ...] = ()
    total: bool = False
    rule: str = "single"

    def to_json(self, cols: int) -> dict[str, Any]:
        """The step as the boards file writes it (cells as ``[row, col]``)."""

        def cells(indices: tuple[int, ...]) -> list[list[int]]:
            return [list(divmod(i, cols)) for i in indices]

        return {
            "numbers": cells(self.numbers),
            "safe": cells(self.safe),
            "mines": cells(self.mines),
            "total": self.total,
        }


@dataclass(frozen=True)
class Generated:
    """One board with its certificate.

    Attributes:
        rows: Board rows.
        cols: Board columns.
        mines: Mines.
        layout: The mines, row-major indices, ascending.
        start: The first click ``(row, col)``.
        first_click: Its rule.
        bv3: The board's 3BV (clicks needed without flags: openings and lone numbers).
        steps: The certificate.
        tries: Layouts drawn for it (this one included).
    """

    rows: int
    cols: int
    mines: int
    layout: tuple[int, ...]
    start: tuple[int, int]
    first_click: str
    bv3: int
    steps: tuple[Step, ...]
    tries: int = 1

    @property
    def total_steps(self) -> int:
        """Steps that need the mine total."""
        return sum(step.total for step in self.steps)

    @property
    def largest_step(self) -> int:
        """Most numbers one step cites."""
        return max((len(step.numbers) for step in self.steps), default=0)

    def to_record(self, index: int) -> dict[str, Any]:
        """The board's line of the boards file."""
        return {
            "board": index,
            "rows": self.rows,
            "cols": self.cols,
            "mines": self.mines,
            "layout": list(self.layout),
            "first_click": list(self.start),
            "first_click_rule": self.first_click,
            "3bv": self.bv3,
            "steps": [step.to_json(self.cols) for step in self.steps],
        }


def header(settings: Settings, seed: int) -> dict[str, Any]:
    """The boards file's first line."""
    return {"format": FORMAT, "version": VERSION, "seed": seed, "settings": asdict(settings)}


def within(rows: int, cols: int, reach: int) -> list[tuple[int, ...]]:
    """Each cell's other cells within ``reach`` rows and columns, row-major indices."""
    return [
        tuple(
            rr * cols + cc
            for rr in range(max(r - reach, 0), min(r + reach + 1, rows))
            for cc in range(max(c - reach, 0), min(c + reach + 1, cols))
            if (rr, cc) != (r, c)
        )
        for r in range(rows)
        for c in range(cols)
    ]


def neighbours(rows: int, cols: int) -> list[tuple[int, ...]]:
    """Each cell's neighbours, row-major indices."""
    return within(rows, cols, 1)


def near_cells(rows: int, cols: int) -> list[tuple[int, ...]]:
    """Each cell's cells within two rows and two columns (those that can share a neighbour)."""
    return within(rows, cols, 2)


def three_bv(numbers: list[int], nbrs: list[tuple[int, ...]]) -> int:
    """Clicks that clear the board without flags: one per zero region, one per safe number
    that touches no zero."""
    seen = [False] * len(numbers)
    clicks = 0
    for i, value in enumerate(numbers):
        if value != 0 or seen[i]:
            continue
        clicks += 1
        seen[i] = True
        todo = [i]
        while todo:
            for j in nbrs[todo.pop()]:
                if not seen[j]:
                    seen[j] = True
                    if numbers[j] == 0:
                        todo.append(j)
    return clicks + sum(1 for i, value in enumerate(numbers) if value > 0 and not seen[i])


class _Play:
    """One try: what is known of a layout, and the steps that made it known."""

    def __init__(self, gen: Generator, numbers: list[int]):
        self.gen = gen
        self.numbers = numbers
        n = len(numbers)
        self.state = [0] * n  # 0 covered and unknown, 1 open, 2 known mine
        self.open = 0
        self.known_mines = 0
        self.queued = [False] * n
        self.work: list[int] = []
        self.steps: list[Step] = []
        #: Open numbers that may still touch a covered unknown cell (the pair rules' set).
        self.border: set[int] = set()
        self.total_steps = 0

    def _touch(self, cell: int) -> None:
        """Queues the open numbers around ``cell`` (and itself if open) for the one-number
        rule: their covered neighbours changed."""
        state, queued, work = self.state, self.queued, self.work
        for j in (cell, *self.gen.nbrs[cell]):
            if state[j] == 1 and not queued[j]:
                queued[j] = True
                work.append(j)

    def reveal(self, cell: int) -> None:
        """Opens a safe cell; a zero opens its region and border, as the game does."""
        state, numbers, nbrs = self.state, self.numbers, self.gen.nbrs
        if state[cell]:
            return
        state[cell] = 1
        self.open += 1
        opened = [cell]
        todo = [cell] if numbers[cell] == 0 else []
        while todo:
            for j in nbrs[todo.pop()]:
                if state[j] == 0:
                    state[j] = 1
                    self.open += 1
                    opened.append(j)
                    if numbers[j] == 0:
                        todo.append(j)
        for j in opened:
            self._touch(j)
            if numbers[j] > 0:
                self.border.add(j)

    def apply(self, step: Step) -> None:
        self.steps.append(step)
        self.total_steps += step.total
        for j in step.mines:
            if self.state[j] == 0:
                self.state[j] = 2
                self.known_mines += 1
                self._touch(j)
        for j in step.safe:
            self.reveal(j)

    def singles(self) -> None:
        """The one-number rule until no queued number settles anything."""
        state, numbers, nbrs, work, queued = (
            self.state,
            self.numbers,
            self.gen.nbrs,
            self.work,
            self.queued,
        )
        goal = len(numbers) - self.gen.settings.mines
        while work and self.open < goal:  # (no step after the last safe cell is open)
            i = work.pop()
            queued[i] = False
            if numbers[i] == 0:
                continue
            unknown = [j for j in nbrs[i] if state[j] == 0]
            if not unknown:
                continue
            need = numbers[i] - sum(1 for j in nbrs[i] if state[j] == 2)
            if need == 0:
                self.apply(Step((i,), safe=tuple(unknown)))
            elif need == len(unknown):
                self.apply(Step((i,), mines=tuple(unknown)))

    def pairs(self) -> bool:
        """One use of the subset or overlap rule on two nearby numbers; whether one applied."""
        state, numbers, nbrs, near = self.state, self.numbers, self.gen.nbrs, self.gen.near
        frontier: dict[int, tuple[frozenset[int], int]] = {}
        border = self.border
        for i in sorted(border):
            unknown = frozenset(j for j in nbrs[i] if state[j] == 0)
            if unknown:
                frontier[i] = (unknown, numbers[i] - sum(1 for j in nbrs[i] if state[j] == 2))
            else:
                border.discard(i)  # (for good: an open number never gets a covered cell back)
        for a, (ua, ka) in frontier.items():
            for b in near[a]:
                if b < a or b not in frontier:
                    continue  # each pair once: both directions are checked below
                ub, kb = frontier[b]
                shared = ua & ub
                if not shared:
                    continue
                only_a, only_b = ua - shared, ub - shared
                # Mines in the shared cells: at least what each number cannot put in its
                # own cells, at most what either needs.
                low = max(0, ka - len(only_a), kb - len(only_b))
                high = min(len(shared), ka, kb)
                safe: set[int] = set()
                mines: set[int] = set()
                for own, k in ((only_a, ka), (only_b, kb)):
                    if own and k - low == 0:
                        safe |= own
                    elif own and k - high == len(own):
                        mines |= own
                if low == high and shared:
                    if low == 0:
                        safe |= shared
                    elif low == len(shared):
                        mines |= shared
                if safe or mines:
                    self.apply(
                        Step(
                            (min(a, b), max(a, b)),
                            tuple(sorted(safe)),
                            tuple(sorted(mines)),
                            rule="pair",
                        )
                    )
                    return True
        return False

    def exact(self) -> bool:
        """One step by the exact forcing set of a certain cell; whether one was found."""
        from ..board import COVERED, FLAG, Board
        from ..explain import _Position, explain_cell
        from ..runtime.deadline import StepBudget
        from ..solver import solve

        gen, state, numbers = self.gen, self.state, self.numbers
        cells = np.array(
            [numbers[i] if s == 1 else (FLAG if s == 2 else COVERED) for i, s in enumerate(state)],
            dtype=np.int8,
        ).reshape(gen.rows, gen.cols)
        board = Board(cells, gen.settings.mines)
        solution = solve(board)
        certain = [(c, "safe") for c in solution.safe] + [(c, "mine") for c in solution.mines]
        certain = [(c, v) for c, v in certain if state[c[0] * gen.cols + c[1]] == 0]
        if not certain:
            return False
        position = _Position(board)
        budget = gen.settings.max_total_steps
        fallback: Step | None = None
        for cell, value in certain[:EXPLAIN_TRIES]:
            try:
                why = explain_cell(board, cell, value, StepBudget(EXPLAIN_CHECKS), position)
            except SolverLimitError:
                continue
            cited = tuple(sorted(r * gen.cols + c for r, c in why.numbers))
            if len(cited) > gen.settings.max_step_numbers or self._cells_of(cited) > (
                MAX_STEP_CELLS
            ):
                continue
            index = cell[0] * gen.cols + cell[1]
            step = Step(
                cited,
                (index,) if value == "safe" else (),
                (index,) if value == "mine" else (),
                why.uses_total,
                "exact",
            )
            if not why.uses_total:
                self.apply(step)
                return True
            if fallback is None and (budget is None or self.total_steps < budget):
                fallback = step
        if fallback is None:
            return False
        self.apply(fallback)
        return True

    def _cells_of(self, cited: tuple[int, ...]) -> int:
        """Covered cells around ``cited`` (what the checker ranges over), plus one."""
        state, nbrs = self.state, self.gen.nbrs
        return len({j for i in cited for j in nbrs[i] if state[j] == 0}) + 1

    def solve(self) -> bool:
        """Plays the try to the end; whether every safe cell was opened without a guess."""
        goal = len(self.numbers) - self.gen.settings.mines
        while self.open < goal:
            self.singles()
            if self.open >= goal:
                break
            if self.gen.settings.max_step_numbers >= 2 and self.pairs():
                continue
            if not self.gen._exact:
                return False
            try:
                if not self.exact():
                    return False
            except (SolverLimitError, InconsistentBoardError):
                return False
        return True


class Generator:
    """Lays no-guess boards one after another from one seeded generator.

    The same settings and seed give the same boards, in the same order.

    Args:
        settings: What boards to lay.
        seed: The seed of :func:`numpy.random.default_rng`.

    Raises:
        InvalidInputError: Settings no board can meet.
    """

    def __init__(self, settings: Settings, seed: int):
        settings.check()
        self.settings = settings
        self.rows, self.cols = settings.rows, settings.cols
        self.rng = np.random.default_rng(seed)
        self.nbrs = neighbours(self.rows, self.cols)
        self.near = near_cells(self.rows, self.cols)
        self.tries = 0
        self._pairs = settings.max_step_numbers >= 2
        # One or two numbers and no total: the pair rules already find every such step
        # (for two numbers the bounds on their shared cells are exact), so the exact stage
        # could add nothing and is skipped.
        self._exact = settings.exact and not (
            settings.max_step_numbers <= 2 and settings.max_total_steps == 0
        )
        self._filter = _compiled_filter()
        self._fixed = (
            None
            if settings.first_move == "random"
            else first_move(settings.first_move, self.rows, self.cols)
        )

    def _start(self) -> tuple[int, int]:
        if self._fixed is not None:
            return self._fixed
        return first_move("random", self.rows, self.cols, self.rng)

    def attempt(self) -> Generated | None:
        """One try: a fresh layout, solved by the rules; ``None`` if it needs a guess or
        misses the settings."""
        settings = self.settings
        self.tries += 1
        r, c = self._start()
        candidates = mine_candidates(self.rows, self.cols, FirstClick(settings.first_click), r, c)
        chosen = draw_mines(self.rng, candidates, settings.mines)
        flat = np.zeros(self.rows * self.cols, dtype=np.bool_)
        flat[chosen] = True
        if self._filter is not None:
            cheap = self._filter.cheap_solves(
                flat, self.rows, self.cols, r * self.cols + c, self._pairs
            )
            if not cheap and not self._exact:
                return None  # (the Python rules below would be stuck just the same)
        grid = flat.reshape(self.rows, self.cols)
        numbers = np.where(grid, -1, neighbour_sum(grid)).reshape(-1).tolist()
        # (3BV first only where it is bounded: it costs as much as the compiled rules, on
        # every layout drawn; else it is counted on the boards kept alone.)
        bounded = settings.min_3bv > 0 or settings.max_3bv is not None
        bv3 = three_bv(numbers, self.nbrs) if bounded else None
        if bounded and (
            bv3 < settings.min_3bv or (settings.max_3bv is not None and bv3 > settings.max_3bv)
        ):
            return None
        # The rules alone are stuck somewhere: decide the layout by a dry run (the exact
        # solve settles every certain cell at once) before writing forcing sets, the
        # costly part, for a layout that may well be stuck later.
        stuck = self._exact and self._filter is not None and not cheap
        if stuck and not self._dry_run(flat, r * self.cols + c):
            return None
        play = _Play(self, numbers)
        play.reveal(r * self.cols + c)
        if not play.solve():
            return None
        if settings.max_total_steps is not None and play.total_steps > settings.max_total_steps:
            return None
        steps = tuple(_split(play.steps))
        return Generated(
            self.rows,
            self.cols,
            settings.mines,
            tuple(sorted(chosen.tolist())),
            (r, c),
            settings.first_click,
            three_bv(numbers, self.nbrs) if bv3 is None else bv3,
            steps,
        )

    def _dry_run(self, flat: np.ndarray, start: int) -> bool:
        """Whether the rules and the exact stage open every safe cell of the layout
        ``flat`` from ``start``: the compiled rules to where they are stuck, then one exact
        solve that settles every certain cell at once, and so on. What :class:`_Play`
        decides without writing steps: the cells certain at a point only grow as cells are
        settled, so the order of the rules changes no answer."""
        from ..board import COVERED, FLAG, Board
        from ..solver import solve

        compiled, rows, cols = self._filter, self.rows, self.cols
        numbers = compiled.layout_numbers(flat, rows, cols)
        state = np.zeros(rows * cols, np.int8)
        stack = np.empty(rows * cols, np.int64)
        goal = rows * cols - self.settings.mines
        none = np.empty(0, np.int64)
        opened = compiled.settle(np.array([start]), none, numbers, state, rows, cols, stack)
        while True:
            opened = compiled.advance(numbers, state, opened, goal, rows, cols, self._pairs, stack)
            if opened >= goal:
                return True
            cells = np.where(state == 1, numbers, np.where(state == 2, FLAG, COVERED))
            try:
                solution = solve(
                    Board(cells.astype(np.int8).reshape(rows, cols), self.settings.mines)
                )
            except (SolverLimitError, InconsistentBoardError):
                return False
            safe = [r * cols + c for r, c in solution.safe if state[r * cols + c] == 0]
            mines = [r * cols + c for r, c in solution.mines if state[r * cols + c] == 0]
            if not safe and not mines:
                return False
            opened += compiled.settle(
                np.array(safe, np.int64),
                np.array(mines, np.int64),
                numbers,
                state,
                rows,
                cols,
                stack,
            )

    def next_board(self) -> Generated:
        """The next board that needs no guess.

        Raises:
            SolverLimitError: ``max_tries`` layouts drawn and none fits the settings.
        """
        first = self.tries
        while self.tries - first < self.settings.max_tries:
            found = self.attempt()
            if found is not None:
                return Generated(**{**found.__dict__, "tries": self.tries - first})
        raise SolverLimitError(
            f"no board fits the settings in {self.settings.max_tries} layouts; loosen "
            "--min-3bv/--max-3bv, --max-total-steps or --max-step-numbers"
        )

    def boards(self, count: int) -> Iterator[Generated]:
        """``count`` boards, one by one."""
        for _ in range(count):
            yield self.next_board()


def _compiled_filter() -> Any:
    """The compiled rules of :mod:`._filter` (its first pass and dry run), or ``None``
    without numba (then every layout is played in Python: the same boards, more slowly)."""
    try:
        from . import _filter
    except ImportError:
        return None
    _filter.warm()
    return _filter


def _split(steps: list[Step]) -> Iterator[Step]:
    """Steps as written: one that settles more cells than the checker takes at once (a
    number's neighbours never do) is cut into pieces with the same reason."""
    for step in steps:
        if len(step.safe) + len(step.mines) <= MAX_STEP_SETTLES:
            yield step
            continue
        cells = [(j, True) for j in step.safe] + [(j, False) for j in step.mines]
        for k in range(0, len(cells), MAX_STEP_SETTLES):
            part = cells[k : k + MAX_STEP_SETTLES]
            yield Step(
                step.numbers,
                tuple(j for j, s in part if s),
                tuple(j for j, s in part if not s),
                step.total,
                step.rule,
            )


@dataclass
class Tally:
    """Totals of a run, for the summary."""

    boards: int = 0
    tries: int = 0
    steps: int = 0
    total_steps: int = 0
    largest_step: int = 0
    bv3: list[int] = field(default_factory=list)

    def add(self, board: Generated) -> None:
        self.boards += 1
        self.tries += board.tries
        self.steps += len(board.steps)
        self.total_steps += board.total_steps
        self.largest_step = max(self.largest_step, board.largest_step)
        self.bv3.append(board.bv3)
