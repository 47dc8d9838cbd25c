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
survives: rules (1) and (2) are compiled (:mod:`._rules`, numba) and log their steps as they
go, in tens of microseconds a layout; where they are stuck, a dry run on a copy decides the
layout (one exact solve settles every certain cell at once, the rules play on, and so on)
before the try itself goes on with the exact stage's forcing sets, the costly part, one
certain cell at a time.

Why rejection and not repair (moving mines where the solver is stuck): every board is then
a plain uniform draw among the layouts the rules solve, which players and the comparison
with other generators can rely on.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

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
    """One try: what is known of a layout, and the steps that made it known (rules (1) and
    (2) by the compiled rules of :mod:`._rules`, which log their steps; the exact stage's
    steps here, each with the number of logged steps before it)."""

    def __init__(self, gen: Generator, numbers: np.ndarray):
        self.gen = gen
        self.numbers = numbers
        n = len(numbers)
        self.state = np.zeros(n, np.int8)  # 0 covered and unknown, 1 open, 2 known mine
        self.queued = np.zeros(n, np.bool_)
        self.work = np.empty(n, np.int64)
        #: Open numbers that may still touch a covered unknown cell (the pair rules' set).
        self.border = np.zeros(n, np.bool_)
        self.ctl = np.zeros(4, np.int64)
        # The rules' log: a step settles at least one unknown cell, so n rows suffice.
        self.log = np.empty((n, 4), np.int64)
        self.log_cells = np.empty(n, np.int64)
        self.exact_steps: list[tuple[int, Step]] = []
        self.total_steps = 0

    def fork(self) -> _Play:
        """A copy to play on (the dry run's), this try left as it is."""
        other = _Play.__new__(_Play)
        other.__dict__.update(
            {k: v.copy() if isinstance(v, np.ndarray | list) else v for k, v in vars(self).items()}
        )
        other.numbers = self.numbers  # (never written)
        return other

    def _arrays(self) -> tuple:
        return (self.numbers, self.state, self.queued, self.work, self.border, self.ctl)

    def reveal(self, cell: int) -> None:
        """Opens a safe cell; a zero opens its region and border, as the game does."""
        gen = self.gen
        gen.rules.reveal(cell, *self._arrays(), gen.rows, gen.cols, gen.stack, gen.order)

    def settle(self, safe: list[int] | tuple[int, ...], mines: list[int] | tuple[int, ...]) -> None:
        """Marks ``mines`` and opens ``safe`` (cells as row-major indices)."""
        gen = self.gen
        gen.rules.settle_step(
            np.array(safe, np.int64),
            np.array(mines, np.int64),
            *self._arrays(),
            gen.rows,
            gen.cols,
            gen.stack,
            gen.order,
        )

    def apply(self, step: Step) -> None:
        """Adds an exact step and settles its cells."""
        self.exact_steps.append((int(self.ctl[self.gen.rules.STEPS]), step))
        self.total_steps += step.total
        self.settle(step.safe, step.mines)

    def rules(self, goal: int) -> bool:
        """Rules (1) and (2) until every safe cell is open (``True``) or they are stuck."""
        gen = self.gen
        return gen.rules.play_rules(
            *self._arrays(),
            goal,
            gen.rows,
            gen.cols,
            gen.pairs,
            gen.stack,
            gen.order,
            self.log,
            self.log_cells,
        )

    def steps(self) -> list[Step]:
        """Every step in the order it was taken: the logged ones, the exact ones between."""
        rows = self.log[: self.ctl[self.gen.rules.STEPS]].tolist()
        cells = self.log_cells[: self.ctl[self.gen.rules.CELLS]].tolist()
        exact = iter(self.exact_steps)
        after, step = next(exact, (None, None))
        out: list[Step] = []
        at = 0
        for k, (a, b, n_safe, n_mines) in enumerate(rows):
            while after == k:
                out.append(step)
                after, step = next(exact, (None, None))
            out.append(
                Step(
                    (a,) if b < 0 else (a, b),
                    tuple(cells[at : at + n_safe]),
                    tuple(cells[at + n_safe : at + n_safe + n_mines]),
                    rule="single" if b < 0 else "pair",
                )
            )
            at += n_safe + n_mines
        while after is not None:
            out.append(step)
            after, step = next(exact, (None, None))
        return out

    def exact(self) -> bool:
        """One step by the exact forcing set of a certain cell; whether one was found."""
        from ..board import COVERED, FLAG, Board
        from ..explain import _Position, explain_cell
        from ..runtime.deadline import StepBudget
        from ..solver import solve

        gen, state, numbers = self.gen, self.state, self.numbers
        cells = np.where(state == 1, numbers, np.where(state == 2, FLAG, COVERED))
        cells = cells.astype(np.int8).reshape(gen.rows, gen.cols)
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

    def finish(self, goal: int) -> bool:
        """Plays on from where rules (1) and (2) are stuck, the exact stage first; whether
        every safe cell was opened without a guess."""
        while True:
            try:
                if not self.exact():
                    return False
            except (SolverLimitError, InconsistentBoardError):
                return False
            if self.rules(goal):
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
        from . import _rules

        settings.check()
        self.settings = settings
        self.rows, self.cols = settings.rows, settings.cols
        self.rng = np.random.default_rng(seed)
        self.nbrs = neighbours(self.rows, self.cols)
        self.tries = 0
        self.pairs = settings.max_step_numbers >= 2
        # One or two numbers and no total: the pair rules already find every such step
        # (for two numbers the bounds on their shared cells are exact), so the exact stage
        # could add nothing and is skipped.
        self.exact = settings.exact and not (
            settings.max_step_numbers <= 2 and settings.max_total_steps == 0
        )
        _rules.warm()
        self.rules = _rules
        n = self.rows * self.cols
        # Scratch of the compiled rules, shared by every try: a stack and the order cells
        # opened in.
        self.stack = np.empty(n, np.int64)
        self.order = np.empty(n, np.int64)
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
        start, goal = r * self.cols + c, flat.size - settings.mines
        numbers = self.rules.layout_numbers(flat, self.rows, self.cols)
        bv3 = None
        if settings.min_3bv > 0 or settings.max_3bv is not None:
            bv3 = three_bv(numbers.tolist(), self.nbrs)
            if bv3 < settings.min_3bv or (settings.max_3bv is not None and bv3 > settings.max_3bv):
                return None
        play = _Play(self, numbers)
        play.reveal(start)
        # Rules (1) and (2) first: most layouts are stuck a few steps after the opening. One
        # they leave stuck is decided by a dry run (an exact solve settles every certain
        # cell at once) before any forcing set is written, the costly part.
        if not play.rules(goal) and not (
            self.exact and self._dry_run(play.fork(), goal) and play.finish(goal)
        ):
            return None
        if settings.max_total_steps is not None and play.total_steps > settings.max_total_steps:
            return None
        return Generated(
            self.rows,
            self.cols,
            settings.mines,
            tuple(sorted(chosen.tolist())),
            (r, c),
            settings.first_click,
            three_bv(numbers.tolist(), self.nbrs) if bv3 is None else bv3,
            tuple(_split(play.steps())),
        )

    def _dry_run(self, play: _Play, goal: int) -> bool:
        """Whether the exact stage and the rules open every safe cell of ``play``, stuck
        where rules (1) and (2) stopped: one exact solve settles every certain cell at once,
        the rules play on to where they are stuck again, and so on. What
        :meth:`_Play.finish` decides without writing forcing sets: the cells certain at a
        point only grow as cells are settled, so the order changes no answer."""
        from ..board import COVERED, FLAG, Board
        from ..solver import solve

        cols, state = self.cols, play.state
        while True:
            cells = np.where(state == 1, play.numbers, np.where(state == 2, FLAG, COVERED))
            try:
                solution = solve(
                    Board(cells.astype(np.int8).reshape(self.rows, cols), self.settings.mines)
                )
            except (SolverLimitError, InconsistentBoardError):
                return False
            safe = [r * cols + c for r, c in solution.safe if state[r * cols + c] == 0]
            mines = [r * cols + c for r, c in solution.mines if state[r * cols + c] == 0]
            if not safe and not mines:
                return False
            play.settle(safe, mines)
            if play.rules(goal):
                return True

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
