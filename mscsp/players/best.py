"""``best``: exact inference plus a look-ahead guess, the strongest built-in player.

When no cell is certainly safe, in order:

1. **Forced 50/50s first.** Two cells holding exactly one mine between them, with no other
   unknown neighbour, can never be told apart by later clicks: the coin must be tossed
   anyway, and tossing it now wastes no other risk.
2. **Exact game-tree search** when few mine layouts remain (``tree_layouts``): the layouts
   are enumerated and the click that maximises the exact probability of winning is chosen
   (see :mod:`mscsp.players.endgame`), also on any isolated region with a fixed mine count.
3. **Pseudo 50/50s** (``pseudo``): a cell of a side-by-side pair or 2x2 box that nothing but
   its own cells can inform, and that is a mine only where a coin toss would be lost anyway,
   is clicked now (see :mod:`mscsp.players.fifty`).
4. **Look-ahead.** A *dead* cell (one whose number is already determined) teaches nothing:
   clicking it can always wait, so dead cells are found first (:func:`is_dead`) and are
   neither candidates nor counted as next clicks. Candidates are every living frontier cell
   whose safety is within ``tolerance`` (relative) of the safest, plus a few unconstrained
   representatives when those are competitive. Candidates are probed safest first: for
   every number a candidate could show, the position is solved again, which gives how
   likely that number is, whether some cell then becomes certain (*progress*) and the
   safety of the next click (a blend of the safest and second-safest living cells). The
   score is the chance of surviving this click and the next plus ``progress_weight`` times
   the progress probability; a probe evaluates the likeliest numbers first and stops as
   soon as it cannot beat the best score so far.
   With ``looming``, a pair at 1/2 that one more mine (its *enabler*) would turn into a
   pseudo 50/50 charges every click that leaves it in the game with its risk (half the
   enabler's mine probability); its enabler becomes a candidate.
   With ``depth=2``, the few best of them (score within ``margin`` of the best, at most
   ``width``) are scored one click deeper: for every number a candidate could show, the
   position after is worth the best look-ahead score there (over its own candidates; a
   position with a certain cell, or a won one, is worth the most a score can be), and the
   candidate with the highest expected worth is chosen (:meth:`BestPlayer.look_deeper`).
5. **Domination.** With ``implied``, a cell that is certainly safe after every outcome of
   the chosen click (safe whenever the chosen cell is) and safer now is played first: if it
   is a mine, so is the chosen cell. Otherwise, if every outcome of the chosen click leaves
   the same single safest next cell, and that cell is safer now, it is played first.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..board import COVERED, FLAG, Board, check_board
from ..engine import compiled
from ..errors import InconsistentBoardError, InvalidInputError
from ..probabilities import Solution
from ..session import GameSession, MineMemory
from ..solver import kernel_takes
from ..validate import check_cells, check_grid, check_int, check_number
from . import compiled_play
from .base import Cell, neighbours
from .csp import CspPlayer
from .endgame import region_board, solve_endgame
from .fifty import Looming, looming_fifties, pseudo_fifty

#: Scores closer than this are ties (float noise of sums of exact ratios).
_EPS = 1e-12


def is_dead(cells: np.ndarray, mines: np.ndarray, cell: Cell) -> bool:
    """Whether ``cell``'s number is already determined should it be safe.

    True when its unknown neighbours (covered, not known mines) are exactly the unknown
    neighbours of one revealed number besides ``cell`` itself (or there are none): the
    number then fixes how many mines they hold. A sufficient test, not a complete one; the
    look-ahead finds the other dead cells when it probes them. Answered by the engine
    (:func:`mscsp.engine._regions._is_dead`, compiled or not).

    Args:
        cells: The board's cell codes.
        mines: Cells known to be mines (flags included).
        cell: A covered cell.
    """
    return compiled.dead_cells(cells, mines, [cell])[0]


def dead_cells(cells: np.ndarray, mines: np.ndarray, which: list[Cell]) -> list[bool]:
    """:func:`is_dead` of each cell of ``which``, in one call of the engine.

    Raises:
        InvalidTypeError: ``cells`` or ``mines`` is not an array of the right kind.
        InvalidInputError: ``mines`` is not the board's shape, or a cell of ``which`` is not
            a (row, col) pair on the board.
    """
    check_grid(cells, "cells")
    check_grid(mines, "mines", cells.shape, kinds="b")
    check_cells(which, cells.shape, "which")
    return compiled.dead_cells(cells, mines, which)


@dataclass(frozen=True)
class Probe:
    """What clicking a cell may lead to.

    Attributes:
        cell: The probed cell.
        safety: Probability the cell is safe.
        survive2: Probability of surviving this click and the next one (the next click's
            safety is the blend of the safest and second-safest living cells).
        progress: Probability the click is safe and makes some cell certain.
        dead: The cell's number is already determined (it would teach nothing).
        complete: Every outcome was evaluated (``False``: the probe stopped early because
            it could not beat the best score so far; the figures are partial).
        next_cell: The single safest living next cell, when it is the same cell after every
            outcome (``None`` otherwise).
        implied: Other cells that are certainly safe after every outcome: the probed cell
            being safe implies they are.
    """

    cell: Cell
    safety: float
    survive2: float
    progress: float
    dead: bool
    complete: bool = True
    next_cell: Cell | None = None
    implied: frozenset[Cell] = frozenset()


class Weighed(NamedTuple):
    """What a guess weighs a position by, found once (:meth:`BestPlayer._position`).

    Attributes:
        unknown: Its unknown cells (covered, not known mines).
        checks: What the engine found (:func:`mscsp.engine.compiled.checks`).
        kernel: Whether the engine takes the board (:func:`mscsp.solver.kernel_takes`):
            it then probes it, and made the pseudo 50/50's conditional solves it could.
    """

    unknown: np.ndarray
    checks: compiled.Checks
    kernel: bool


@dataclass(frozen=True)
class NextClick:
    """The best next click after an outcome.

    Attributes:
        safety: Blended safety of the next click (1 when the game is won).
        progress: Some living cell is certainly safe.
        cell: The single safest living cell (``None`` when tied or won).
    """

    safety: float
    progress: bool
    cell: Cell | None


class BestPlayer(CspPlayer):
    """Exact inference, forced 50/50s early, endgame search, look-ahead guesses.

    Args:
        backend: Counting backend name.
        tolerance: Candidates have safety at least ``(1 - tolerance)`` times the best.
        progress_weight: Weight of the progress probability in the score.
        blend: Weight of the second-safest living cell in the next click's safety.
        tree_layouts: Run the exact game-tree search when at most this many layouts remain.
        tree_budget: Most (position, click) pairs the game-tree search evaluates.
        pseudo: Click a pseudo 50/50 (:mod:`mscsp.players.fifty`) before the look-ahead.
        looming: Let the look-ahead charge a click that leaves a looming 50/50 in the game
            with its risk, and weigh the enablers that settle it.
        implied: Play a safer cell that the chosen one being safe implies safe, first.
        depth: Clicks the look-ahead scores its best candidates by: 1 (the next click's
            safety) or 2 (the best look-ahead score after each number, see
            :meth:`look_deeper`).
        margin: At depth 2, the candidates whose score is within this (absolute) of the
            best are scored one click deeper, at most ``width`` of them, the best first.
        width: See ``margin``.

    Attributes:
        reason: The rule behind the last guess: ``pair`` (forced 50/50), ``endgame``,
            ``region`` (exact search), ``pseudo`` (pseudo 50/50), ``lookahead``,
            ``dominated`` (a safer next cell played first), ``implied`` (a safer cell the
            chosen one implies safe played first), ``dead`` (nothing lives) or
            ``looming`` (the look-ahead, with looming 50/50s on the board).
        looked: At depth 2, the candidates the last look-ahead scored one click deeper,
            best first, each with its two-click value (``None`` when its evaluation stopped
            early because it could not win).
    """

    name = "best"

    def __init__(
        self,
        backend: str = "dss",
        tolerance: float = 0.1,
        progress_weight: float = 0.1,
        blend: float = 0.2,
        tree_layouts: int = 200,
        tree_budget: int = 200_000,
        pseudo: bool = True,
        looming: bool = True,
        implied: bool = True,
        depth: int = 1,
        margin: float = 0.05,
        width: int = 4,
    ):
        super().__init__(backend)
        self.tolerance = check_number(tolerance, "tolerance", 0.0, 1.0)
        self.progress_weight = check_number(progress_weight, "progress_weight", 0.0)
        self.blend = check_number(blend, "blend", 0.0, 1.0)
        self.tree_layouts = check_int(tree_layouts, "tree_layouts")
        self.tree_budget = check_int(tree_budget, "tree_budget")
        self.pseudo = pseudo
        self.looming = looming
        self.implied = implied
        if depth not in (1, 2):
            raise InvalidInputError(f"depth must be 1 or 2, not {depth}")
        if width < 1:
            raise InvalidInputError(f"width must be at least 1, not {width}")
        self.depth = depth
        self.margin = margin
        self.width = width
        # Positions one click ahead are solved in a session of their own, so the game's
        # session stays at the real board.
        self.ahead = GameSession(self.backend)
        self.looked: list[tuple[Cell, float | None]] = []
        self.reason = ""
        # What the last look-ahead weighed (board, solution, candidates, keep), for
        # callers that explain the guess (the web analyser's "why"); None: no look-ahead.
        self.considered: tuple[Board, Solution, list[Cell], Callable[[Cell], float]] | None = None
        self.outgrown = math.inf  # fewest layouts at which this game's search gave up
        self._flagged: tuple = (None, None, None)  # (board, session, board flagged)
        # The last position weighed: (board, solution, session, whether with the rules'
        # patterns, its Weighed), see _position.
        self._weighed: tuple = (None, None, None, False, None)
        self._lookaheads: dict[tuple[int, int, int], compiled_play.Lookahead] = {}

    def new_game(self) -> None:
        super().new_game()
        self.ahead.reset()
        self.outgrown = math.inf

    @property
    def engine_looks_ahead(self) -> bool:  # type: ignore[override]
        """Whether the compiled engine makes the guesses where none of the rules before the
        look-ahead may apply (:func:`mscsp.engine._lookahead.rules_may_apply`), handing the others
        to :meth:`guess`: there the guess is the look-ahead's alone, which the engine makes
        as :class:`~mscsp.players.lookahead.LookaheadPlayer` does. Not at depth 2, without
        ``implied``, nor for a subclass that guesses its own way."""
        return type(self) is BestPlayer and self.depth == 1 and self.implied

    def engine_settings(self) -> tuple[float, ...]:
        """The engine's look-ahead settings (:class:`mscsp.players.compiled_play.Lookahead`)."""
        layouts = float(min(self.tree_layouts, compiled.LAYOUTS_CAP))
        return (self.tolerance, self.progress_weight, self.blend, 1.0, layouts)

    def engine_lookahead(self, rows: int, cols: int, mines: int) -> compiled_play.Lookahead | None:
        if not self.engine_looks_ahead:
            return None
        key = (rows, cols, mines)
        if key not in self._lookaheads:
            self._lookaheads[key] = compiled_play.Lookahead(self.engine_settings())
        return self._lookaheads[key]

    def guess(self, board: Board, solution: Solution, rng: np.random.Generator) -> Cell:
        self.looked = []
        self.considered = None
        move, self.reason = self._guess(board, solution)
        return move

    def _guess(self, board: Board, solution: Solution) -> tuple[Cell, str]:
        """The guess and the rule that chose it (see :attr:`reason`)."""
        flagged = self.memory.flagged(board)
        self._flagged = (flagged, self.memory, flagged)  # (flagged already)
        pair = forced_pair(flagged, solution)
        if pair is not None:
            return pair, "pair"
        if solution.weight <= self.tree_layouts and solution.weight < self.outgrown:
            move = solve_endgame(flagged, self.tree_layouts, self.tree_budget)
            if move is not None:
                return move[0], "endgame"
            # The search outgrew its budget: skip it until fewer layouts are left.
            self.outgrown = solution.weight
        weighed = self._position(flagged, solution, self.memory, True)
        found = weighed.checks
        for region in found.regions:
            sub = region_board(flagged, region, self.tree_layouts)
            move = None if sub is None else solve_endgame(sub, self.tree_layouts, self.tree_budget)
            if move is not None:
                return move[0], "region"
        if self.pseudo:
            # (The conditional solves the kernel could not make exactly in the checks are
            # made on the plain dss counter, which the kernel answers, not the cache.)
            counter = self.backend.inner if weighed.kernel else self.backend
            cell = pseudo_fifty(flagged, solution, counter, lambda c: not found.dead[c], found)
            if cell is not None:
                return cell, "pseudo"
        cells, keep, looming = self.weigh(flagged, solution)
        self.considered = (flagged, solution, cells, keep)
        scored, dead = self.lookahead(flagged, solution, cells, keep, self.probe_margin())
        if not scored:
            # Only dead cells: nothing to learn, so the safest (first in order) is played.
            return dead[0].cell, "looming" if looming else "dead"
        best = self.choose(flagged, solution, scored, keep)
        cell, rule = self.first(best, 1.0 - solution.probabilities)
        return cell, "looming" if looming and rule != "implied" else rule

    def weigh(
        self, flagged: Board, solution: Solution
    ) -> tuple[list[Cell], Callable[[Cell], float], list[Looming]]:
        """What the look-ahead weighs in a position.

        Args:
            flagged: The position (proven mines flagged).
            solution: Its solution.

        Returns:
            The candidates (:meth:`candidates`, then the enablers of looming 50/50s that
            could beat them, :meth:`settlers`), the factor a cell's score is multiplied by
            (the share of the looming risk the click leaves: 1 without any) and the
            looming 50/50s (none without ``looming``).
        """
        found = self.checks(flagged, solution) if self.looming else None
        looming = looming_fifties(flagged, solution, found) if found is not None else []
        cells = self.candidates(flagged, solution)
        cells += [c for c in self.settlers(flagged, solution, looming) if c not in cells]

        def keep(cell: Cell) -> float:
            # A click that leaves a looming 50/50 in the game keeps its risk.
            return math.prod(1.0 - x.risk for x in looming if not x.settles(cell))

        return cells, keep, looming

    def first(self, chosen: Probe, safety: np.ndarray) -> tuple[Cell, str]:
        """The cell played for the chosen candidate, and the rule: ``implied``,
        ``dominated`` or ``lookahead`` (see :attr:`reason`).

        Domination: a cell that is safe whenever the chosen one is, and safer now, goes
        first (if it is a mine, so is the chosen cell); nothing is lost by clicking it.
        Else the chosen click's single safest next cell, when it is safer now.

        Args:
            chosen: The chosen candidate's probe (complete).
            safety: Every cell's chance of being safe (``1 - probabilities``).
        """
        safer = [c for c in chosen.implied if safety[c] > chosen.safety + _EPS]
        if self.implied and safer:
            return min(safer, key=lambda c: (-safety[c], c)), "implied"
        nxt = chosen.next_cell
        if nxt is not None and safety[nxt] > chosen.safety + _EPS:
            return nxt, "dominated"
        return chosen.cell, "lookahead"

    def probe_margin(self) -> float:
        """How far below the best look-ahead score probes are still evaluated fully."""
        return self.margin if self.depth > 1 else 0.0

    def choose(
        self,
        board: Board,
        solution: Solution,
        scored: list[tuple[float, Probe]],
        keep: Callable[[Cell], float],
    ) -> Probe:
        """The candidate to play among the scored ones (best first): the best, or at
        depth 2 the best one click deeper."""
        if self.depth > 1:
            return self.look_deeper(board, solution, scored, keep)
        return scored[0][1]

    def lookahead(
        self,
        board: Board,
        solution: Solution,
        cells: list[Cell],
        keep: Callable[[Cell], float] = lambda cell: 1.0,
        margin: float = 0.0,
        memory: GameSession | None = None,
    ) -> tuple[list[tuple[float, Probe]], list[Probe]]:
        """Probes ``cells`` in turn, each stopped once it cannot come within ``margin``.

        Args:
            board: The position (proven mines flagged).
            solution: Its solution.
            cells: The candidates, in order.
            keep: The factor a cell's score is multiplied by (looming risks it leaves).
            margin: Probes are evaluated fully while they can score within this of the best.
            memory: The session the position is solved in (the game's by default).

        Returns:
            The living probes evaluated fully with their scores, the best first (the first
            in ``cells`` order among equal scores) and the others in ``cells`` order; and
            the dead probes in ``cells`` order.
        """
        scored: list[tuple[float, Probe]] = []
        dead: list[Probe] = []
        score = 0.0
        factors = [keep(cell) for cell in cells]
        at = 0
        while at < len(cells):
            best = score if scored else None
            run = self.probe_run(board, solution, cells[at:], factors[at:], best, margin, memory)
            if not run:  # one cell at a time (or the kernel handed this one back)
                beat = (score - margin) / factors[at] if scored else None
                cell = cells[at]
                if run is None:
                    run = [self.probe(board, solution, cell, beat, memory)]
                else:
                    run = [self.probe_python(board, solution, cell, beat, memory or self.memory)]
            for probe in run:
                factor = factors[at]
                at += 1
                if probe.dead:
                    dead.append(probe)
                elif probe.complete:
                    value = factor * self.score(probe)
                    if not scored or value > score + _EPS:
                        score = value
                        scored.insert(0, (value, probe))
                    else:
                        scored.append((value, probe))
        return scored, dead

    def probe_run(
        self,
        board: Board,
        solution: Solution,
        cells: list[Cell],
        factors: list[float],
        score: float | None,
        margin: float,
        memory: GameSession | None = None,
    ) -> list[Probe] | None:
        """The look-ahead's probes of ``cells`` in turn by one call of the engine
        (:func:`mscsp.engine.compiled.probes`, compiled or not), up to the first cell it hands
        back (``[]``: the first); ``None`` where it cannot run (a board not the engine's, or
        a subclass that probes or scores its own way: it keeps :meth:`probe`, one cell at a
        time).

        Args:
            factors: Each cell's factor (:meth:`lookahead`'s ``keep``).
            score: The best score so far (``None``: none yet).
            margin: Probes stop as soon as they cannot come within this of the best score
                (see :meth:`lookahead`).
        """
        memory = memory or self.memory
        own = type(self).probe is BestPlayer.probe and type(self).score is BestPlayer.score
        if not own or not self._kernel_takes(board, solution, memory):
            return None
        found = compiled.probes(
            self.flagged_in(board, memory),
            solution.probabilities,
            solution.weight,
            cells,
            factors,
            score,
            margin,
            self.progress_weight,
            self.blend,
        )
        if found is None:
            return None
        return [self._probe_of(cells[j], solution, answer) for j, answer in enumerate(found)]

    def look_deeper(
        self,
        board: Board,
        solution: Solution,
        scored: list[tuple[float, Probe]],
        keep: Callable[[Cell], float] = lambda cell: 1.0,
    ) -> Probe:
        """The candidate with the best two-click value among the few best look-ahead scores.

        The candidates scored within ``margin`` of the best (at most ``width``, best first)
        are valued by :meth:`two_click`; evaluations stop as soon as they cannot beat the
        best value so far. The values are kept in :attr:`looked`.

        Args:
            board: The position (proven mines flagged).
            solution: Its solution.
            scored: Probes with their look-ahead scores, the best first (as
                :meth:`lookahead` gives them).
            keep: The factor a cell's value is multiplied by (looming risks it leaves).
        """
        near = [item for item in scored[1:] if item[0] >= scored[0][0] - self.margin]
        top = [scored[0], *sorted(near, key=lambda item: -item[0])][: self.width]
        self.looked = []  # (called on its own, as well as by a guess)
        if len(top) == 1:
            return top[0][1]
        best, score = top[0][1], 0.0
        for i, (_, probe) in enumerate(top):
            factor = keep(probe.cell)
            value = self.two_click(board, solution, probe.cell, score / factor if i else None)
            self.looked.append((probe.cell, None if value is None else factor * value))
            if value is not None and (i == 0 or factor * value > score + _EPS):
                best, score = probe, factor * value
        return best

    def two_click(
        self, board: Board, solution: Solution, cell: Cell, beat: float | None = None
    ) -> float | None:
        """The expected look-ahead score after clicking ``cell`` (0 when it is a mine).

        For every number the cell could show, the position after is worth the best
        look-ahead score there (:meth:`worth`), weighted by the number's probability.

        Args:
            board: The position (proven mines flagged).
            solution: Its solution.
            cell: The cell to value.
            beat: Stop (``None``) as soon as the value cannot exceed this.
        """
        top = 1.0 + self.progress_weight  # the most any score can be
        left = 1.0 - float(solution.probabilities[cell])
        value = 0.0
        for number in self.numbers(board, solution, cell):
            if beat is not None and value + left * top <= beat + _EPS:
                return None
            try:
                after = self.memory.what_if(board, cell, number)
            except InconsistentBoardError:
                continue
            if not after.weight:
                continue
            p = after.weight / solution.weight
            left -= p
            value += p * self.worth(after)
        return value

    def worth(self, after: Solution) -> float:
        """The best look-ahead score in a solved position.

        A position with a certain cell left to click, or a won one, is worth the most a
        score can be (``1 + progress_weight``); otherwise the best score of its living
        candidates, or of its dead ones when none lives.
        """
        top = 1.0 + self.progress_weight
        if after.safe or all(odd.num == odd.den for odd in after.odds):
            return top
        board = after.board
        # (Also keeps only this position's clusters in the session's cache.)
        self.ahead.reduce(board)
        cells = self.candidates(board, after, self.ahead)
        scored, dead = self.lookahead(board, after, cells, memory=self.ahead)
        if scored:
            return scored[0][0]
        return max(self.score(probe) for probe in dead)

    def settlers(self, board: Board, solution: Solution, looming: list[Looming]) -> list[Cell]:
        """Enablers of looming 50/50s that could beat the candidates once their risk counts.

        An enabler is added when it is living and its safety is within ``tolerance`` of the
        safest cell's after that cell pays every looming risk.
        """
        if not looming:
            return []
        weighed = self._position(board, solution, self.memory, False)
        safety = 1.0 - solution.probabilities
        top = float(np.where(weighed.unknown, safety, -1.0).max())
        bound = (1.0 - self.tolerance) * top * math.prod(1.0 - x.risk for x in looming)
        cells = sorted({x.enabler for x in looming}, key=lambda c: (-safety[c], c))
        return [c for c in cells if safety[c] >= bound and not weighed.checks.dead[c]]

    def checks(self, board: Board, solution: Solution) -> compiled.Checks:
        """What the guess asks about a position of the game, by one call of the engine
        (:func:`mscsp.engine.compiled.checks`), kept for the position's next questions: its
        isolated regions, pairs and boxes, the pseudo 50/50 rule's conditional solves
        (where the kernel takes the board), its dead cells (known mines: flags and cells
        at probability 1) and the representatives of its unconstrained unknown cells.

        Args:
            board: The position (proven mines flagged).
            solution: Its solution.
        """
        return self._position(board, solution, self.memory, True).checks

    def _position(
        self, board: Board, solution: Solution, memory: MineMemory, rules: bool
    ) -> Weighed:
        """:class:`Weighed` of a position solved in ``memory`` (with the rules' patterns
        with ``rules``), kept for the position's next questions."""
        held_board, held_solution, held_memory, held_rules, held = self._weighed
        same = held_board is board and held_solution is solution and held_memory is memory
        if same and (held_rules or not rules):
            return held
        probs = solution.probabilities
        mines = (board.cells == FLAG) | (probs == 1.0)
        if self._flagged[2] is board and self._flagged[1] is memory:
            unknown = board.cells == COVERED  # (its known mines flagged: the covered cells)
        else:
            unknown = memory.unknown(board)
        free = np.zeros(board.cells.shape, dtype=bool)
        for odd in solution.odds:
            if isinstance(odd.cells, np.ndarray):
                free = odd.cells & unknown
        kernel = kernel_takes(memory.counter.inner, board)
        found = compiled.checks(board, mines, free, rules, bool(rules and self.pseudo and kernel))
        weighed = Weighed(unknown, found, kernel)
        self._weighed = (board, solution, memory, rules, weighed)
        return weighed

    def score(self, probe: Probe) -> float:
        """The look-ahead value of a probe: survive two clicks, plus a little progress."""
        return probe.survive2 + self.progress_weight * probe.progress

    def candidates(
        self, board: Board, solution: Solution, memory: MineMemory | None = None
    ) -> list[Cell]:
        """Living cells near the safest, safest first (row-major among equals).

        Every living frontier cell within ``tolerance`` of the safest cell, and a few
        unconstrained representatives when unconstrained cells are that safe. When no
        living cell is within reach, every living cell; when none lives, the safest cell.
        ``memory`` is the session the position is solved in (the game's by default).
        """
        weighed = self._position(board, solution, memory or self.memory, False)
        found = weighed.checks
        safety = np.where(weighed.unknown, 1.0 - solution.probabilities, -1.0)
        bound = (1.0 - self.tolerance) * float(safety.max())
        ranked: list[tuple[float, Cell]] = []
        free_safety = None
        free: list[Cell] = []
        for odd in solution.odds:
            if isinstance(odd.cells, np.ndarray):
                free_safety = 1.0 - odd.num / odd.den
                free = found.representatives
            elif odd.num < odd.den:
                ranked.extend((1.0 - odd.num / odd.den, cell) for cell in odd.cells)
        ranked.sort(key=lambda sc: (-sc[0], sc[1]))
        living = [(s, c) for s, c in ranked if not found.dead[c]]
        chosen = [c for s, c in living if s >= bound]
        if free_safety is not None and free_safety >= bound:
            # Unconstrained cells go in order of safety with the frontier ones.
            at = sum(1 for s, _ in living if s >= bound and s > free_safety)
            chosen[at:at] = free
        if chosen:
            return chosen
        if living or free:
            return [c for _, c in living] + free
        return [ranked[0][1]]

    def numbers(self, board: Board, solution: Solution, cell: Cell) -> list[int]:
        """The numbers ``cell`` could show, likeliest first (nearest the expected one).

        A probe that evaluates them in this order can stop soonest: its bound falls fastest.
        """
        rows, cols = board.shape
        nbrs = neighbours(cell, rows, cols)
        known = sum(1 for n in nbrs if board.cells[n] == FLAG)
        open_ = sum(1 for n in nbrs if board.cells[n] == COVERED)
        expected = known + sum(
            float(solution.probabilities[n]) for n in nbrs if board.cells[n] == COVERED
        )
        return sorted(range(known, known + open_ + 1), key=lambda v: abs(v - expected))

    def probe(
        self,
        board: Board,
        solution: Solution,
        cell: Cell,
        beat: float | None = None,
        memory: GameSession | None = None,
    ) -> Probe:
        """Solves the position once per number ``cell`` could show.

        Args:
            board: The position (proven mines flagged).
            solution: Its solution.
            cell: The cell to probe.
            beat: Stop (``complete=False``) as soon as the score cannot exceed this.
            memory: The session the position is solved in (the game's by default).
        """
        memory = memory or self.memory
        if self._kernel_takes(board, solution, memory):
            fast = self.probe_compiled(self.flagged_in(board, memory), solution, cell, beat)
            if fast is not None:
                return fast
        return self.probe_python(board, solution, cell, beat, memory)

    def _kernel_takes(self, board: Board, solution: Solution, memory: MineMemory) -> bool:
        """Whether the engine probes ``board`` (:func:`mscsp.solver.kernel_takes`), as the
        position's checks found where they were made."""
        held_board, held_solution, held_memory, _, held = self._weighed
        if held_board is board and held_solution is solution and held_memory is memory:
            return held.kernel
        return kernel_takes(memory.counter.inner, board)

    def flagged_in(self, board: Board, memory: GameSession) -> Board:
        """``memory.flagged(board)``, made once per position (a look-ahead probes one
        position many times)."""
        if self._flagged[0] is not board or self._flagged[1] is not memory:
            self._flagged = (board, memory, memory.flagged(board))
        return self._flagged[2]

    def probe_compiled(
        self, flagged: Board, solution: Solution, cell: Cell, beat: float | None = None
    ) -> Probe | None:
        """:meth:`probe` by the engine (:func:`mscsp.engine.compiled.probe`, compiled or not),
        or ``None`` where it hands the cell back; the outcomes' probabilities are within
        about 1e-13 of the exact ones."""
        found = compiled.probe(
            flagged,
            solution.probabilities,
            solution.weight,
            cell,
            beat,
            self.progress_weight,
            self.blend,
        )
        return None if found is None else self._probe_of(cell, solution, found)

    @staticmethod
    def _probe_of(cell: Cell, solution: Solution, found: tuple) -> Probe:
        """The :class:`Probe` of a compiled probe's answer (:func:`mscsp.engine.compiled.probe`)."""
        survive, progress, complete, results, next_cell, implied = found
        safety = 1.0 - float(solution.probabilities[cell])
        if not complete:
            return Probe(cell, safety, survive, progress, False, False)
        return Probe(
            cell, safety, survive, progress, results <= 1, True, next_cell, implied - {cell}
        )

    def probe_python(
        self,
        board: Board,
        solution: Solution,
        cell: Cell,
        beat: float | None,
        memory: GameSession,
    ) -> Probe:
        """:meth:`probe` by solving each outcome with ``memory`` (exact)."""
        total = solution.weight
        safety = 1.0 - float(solution.probabilities[cell])
        left = safety  # probability of the outcomes not yet evaluated
        survive = progress = 0.0
        results: list[NextClick] = []
        implied: set[Cell] | None = None
        complete = True
        for value in self.numbers(board, solution, cell):
            if (
                beat is not None
                and survive + left + self.progress_weight * (progress + left) <= beat + _EPS
            ):
                complete = False
                break
            try:
                after = memory.what_if(board, cell, value)
            except InconsistentBoardError:
                continue
            if not after.weight:
                continue
            p = after.weight / total
            left -= p
            nxt = self.next_click(after)
            results.append(nxt)
            implied = set(after.safe) if implied is None else implied & set(after.safe)
            survive += p * nxt.safety
            if nxt.progress:
                progress += p
        if not complete:
            return Probe(cell, safety, survive, progress, False, False)
        nexts = {nxt.cell for nxt in results}
        return Probe(
            cell,
            safety,
            survive,
            progress,
            len(results) <= 1,
            True,
            nexts.pop() if len(nexts) == 1 else None,
            frozenset(implied or ()) - {cell},
        )

    def next_click(self, after: Solution) -> NextClick:
        """How safe the next click is in a solved position.

        Dead cells are left out, certain ones included: a safe cell that teaches nothing is
        no progress. The next click's safety blends the safest and second-safest living
        cells; a won position (only mines left) is safe.
        """
        board = after.board
        probs = after.probabilities
        mines = (board.cells == FLAG) | (probs == 1.0)
        ranked: list[tuple[float, Cell | None]] = []
        fallback = 0.0
        for odd in after.odds:
            if odd.num == odd.den:
                continue
            value = 1.0 - odd.num / odd.den
            fallback = max(fallback, value)
            if isinstance(odd.cells, np.ndarray):
                ranked.extend([(value, None)] * min(int(odd.cells.sum()), 2))
            else:
                ranked.extend((value, c) for c in odd.cells)
        # Safest first: the first two living cells (free cells live).
        ranked.sort(key=lambda vc: -vc[0])
        cells = [c for _, c in ranked if c is not None]
        dead = dict(zip(cells, compiled.dead_cells(board.cells, mines, cells), strict=True))
        living = [(value, c) for value, c in ranked if c is None or not dead[c]][:2]
        if not living:
            # Won (nothing but mines left) or only dead cells: the safest is the next click.
            return NextClick(fallback if fallback else 1.0, False, None)
        first = living[0][0]
        second = living[1][0] if len(living) > 1 else first
        cell = living[0][1] if len(living) == 1 or second < first - _EPS else None
        return NextClick((1.0 - self.blend) * first + self.blend * second, first == 1.0, cell)


def representatives(board: Board, mask: np.ndarray, count: int = 3) -> list[Cell]:
    """A few unconstrained cells: those with the fewest unknown neighbours (corners first),
    ties in row-major order (by the engine, :func:`mscsp.engine._regions.fewest_covered`).

    Raises:
        InvalidTypeError: ``board`` is not a Board, ``mask`` not a bool array or ``count``
            not an integer.
        InvalidInputError: ``mask`` is not the board's shape, or ``count`` is negative.
    """
    check_board(board)
    check_grid(mask, "mask", board.shape, kinds="b")
    count = check_int(count, "count")
    return compiled.representatives(board.cells, mask, count)


def forced_pair(board: Board, solution: Solution) -> Cell | None:
    """A cell of a forced 50/50: two cells, one mine, no other unknown neighbour.

    Isolated cells are touched only by numbers whose other neighbours are known, so two of
    them at probability 1/2 share their numbers: they form one group (one ``CellOdds``) whose
    mine count is fixed at one, and no later click can tell them apart.
    """
    rows, cols = board.cells.shape
    for odd in solution.odds:
        cells = odd.cells
        if isinstance(cells, np.ndarray) or len(cells) != 2 or 2 * odd.num != odd.den:
            continue
        isolated = all(
            board.cells[n] != COVERED or n in cells
            for cell in cells
            for n in neighbours(cell, rows, cols)
        )
        if isolated:
            return cells[0]
    return None
