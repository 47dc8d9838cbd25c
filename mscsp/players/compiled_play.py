"""Whole games on the compiled engine (numba, :mod:`mscsp.engine._game_loop`): the same games as the
pure players, move for move, at a fraction of the time.

The players built on exact inference spend most of a game's time on turns that need no
decision: single-point rules, propagation, a count that proves cells safe. The engine plays
those turns, and ``csp-minprob``'s guesses, in compiled code on the game's own view, and
hands a turn back to Python only where its kernel does (numbers beyond 64 bits, components
too large) or where the player decides the guesses itself (``best``): then
:meth:`CompiledGame.solution` is the very :class:`~mscsp.probabilities.Solution` the
player's session would give, and :meth:`CompiledGame.click` plays its answer.

Used only for boards of at most :data:`MAX_CELLS` cells counted by the default backend,
once :func:`mscsp.engine.compiled.ready` says the kernel is loaded.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache, lru_cache
from itertools import repeat

import numpy as np

from ..board import COVERED, Board, neighbour_counts
from ..engine import compiled
from ..game import Game, GameState
from ..probabilities import Solution
from ..solver import solve

#: Largest board the engine plays (the kernel's own limit on the pure path's hand-over).
MAX_CELLS = 4096


@cache
def _engine():
    from ..engine import _game_loop as module

    return module


def usable(game: Game) -> bool:
    """Whether ``game`` can be played on the engine now (counts towards the kernel's
    warm-up, as a solve does)."""
    return game.rows * game.cols <= MAX_CELLS and game.mine is not None and compiled.ready()


def batch_usable(rows: int, cols: int, games: int) -> bool:
    """Whether ``games`` games of a rows x cols board can be played as a
    :class:`CompiledBatch` now (they count towards the kernel's warm-up, as solves do)."""
    return rows * cols <= MAX_CELLS and compiled.ready(games)


@lru_cache(maxsize=16)
def _neighbours(rows: int, cols: int) -> np.ndarray:
    return neighbour_counts(rows, cols).reshape(-1).astype(np.int64)


class Lookahead:
    """The settings of the look-ahead guess on the engine (:mod:`mscsp.engine._lookahead`) and
    its memory of the guesses in the first positions of games, for one board size and mine
    count (the games of a run start in a few positions: each is looked ahead once).

    Args:
        settings: Tolerance, progress weight, blend, whether ``best``'s rules are on (1 or
            0) and the most layouts its endgame search runs at (see
            :meth:`~mscsp.players.best.BestPlayer.engine_settings`).
    """

    def __init__(self, settings: tuple[float, ...]):
        from ..engine import _lookahead  # (numba's: the engine is loaded by then)

        self.settings = np.array(settings, dtype=np.float64)
        self.keys = np.zeros((_lookahead.MEMO_SLOTS, _lookahead.MEMO_OPEN + 1), dtype=np.int64)
        self.cells = np.zeros(_lookahead.MEMO_SLOTS, dtype=np.int64)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What the engine is given."""
        return self.settings, self.keys, self.cells


#: What the engine is given where it does not look ahead.
_NOT_LOOKING = (np.empty(0), np.empty((0, 1), dtype=np.int64), np.empty(0, dtype=np.int64))


class _Engine:
    """The arrays the engine plays a game in (a board of ``rows`` x ``cols`` with ``mines``),
    and the turns Python decides on them (see :func:`play_turns`)."""

    def __init__(self, rows: int, cols: int, mines: int, lookahead: Lookahead | None = None):
        engine = _engine()
        self.rows, self.cols, self.mines = rows, cols, mines
        # Where the engine guesses by the look-ahead (``csp-lookahead``).
        self.lookahead = _NOT_LOOKING if lookahead is None else lookahead.arrays()
        n = rows * cols
        self.known = np.zeros(n, dtype=np.uint8)
        self.state = np.zeros(engine.FIELDS, dtype=np.int64)
        self.clicks = np.empty(n, dtype=np.int64)
        self.scratch = (
            *compiled.scratch(rows, cols),
            np.empty(n, dtype=np.int8),  # the board with the known mines flagged
            np.zeros(n, dtype=np.uint8),  # cells to click
            np.empty(n, dtype=np.int64),  # the flood fill's stack
            np.zeros(n, dtype=np.uint8),  # the numbers with no unknown cell left
        )
        self.status = engine.OVER
        self.view = np.empty(n, dtype=np.int8)
        self.numbers = np.empty(n, dtype=np.int8)

    def run(self, stop_at_guess: bool = False, approx: bool = False) -> bool:
        """Plays on until the games end (``False``) or Python must decide this turn
        (``True``: see :meth:`solution`). An engine that guesses by the look-ahead stops
        only at the guesses it hands back, whatever ``stop_at_guess`` says."""
        raise NotImplementedError

    def board(self) -> Board:
        """The position now, known mines flagged (a copy)."""
        flagged = np.where(self.known.astype(bool), np.int8(-2), self.view)
        return Board(flagged.reshape(self.rows, self.cols), self.mines)

    def solution(self) -> Solution:
        """The exact solution of :meth:`board` (the kernel's answer where it has one)."""
        board = self.board()
        out, probs, free = self.scratch[:3]
        found = compiled.decode(board, int(self.status), out, probs.copy(), free.copy())
        return found if found is not None else solve(board)

    def known_flat(self) -> np.ndarray:
        """The cells proven mines so far (row-major indices)."""
        return np.flatnonzero(self.known)

    def remember(self, cells: list[tuple[int, int]]) -> None:
        """Cells proven mines."""
        for r, c in cells:
            self.known[r * self.cols + c] = 1

    def click(self, cells: list[tuple[int, int]], guess: bool) -> None:
        """Clicks ``cells`` one by one as the harness does, until the game ends."""
        engine = _engine()
        self.state[engine.GUESSES] += guess
        stack = self.scratch[6]
        cols = self.cols
        for r, c in cells:
            if engine.click(
                self.view, self.numbers, cols, r * cols + c, self.state, self.clicks, stack
            ):
                return


class CompiledGame(_Engine):
    """A game in progress on the engine; its outcome is written back with :meth:`finish`.

    Args:
        game: A game whose first click is made (its mines are placed).
        lookahead: Where the engine guesses by the look-ahead (``csp-lookahead``), its
            settings and memory for this board size and mine count; ``None``: it does not.
    """

    def __init__(self, game: Game, lookahead: Lookahead | None = None):
        super().__init__(game.rows, game.cols, game.mines, lookahead)
        engine = _engine()
        self.game = game
        self.view = game.view.reshape(-1)  # the game's own view, written in place
        self.numbers = game._numbers.reshape(-1)
        self.state[engine.REVEALED] = game.revealed
        self.state[engine.SAFE_CELLS] = game.safe_cells
        # (A first click may end the game: on a mine, or opening the whole board.)
        self.state[engine.STATE] = {GameState.WON: engine.WON, GameState.LOST: engine.LOST}.get(
            game.state, engine.PLAYING
        )

    def run(self, stop_at_guess: bool = False, approx: bool = False) -> bool:
        """Plays on until the game ends (``False``) or Python must decide this turn
        (``True``: see :meth:`solution`); with ``approx``, positions whose exact odds need
        Python integers are played on floating-point odds (rollouts)."""
        engine = _engine()
        if self.over:
            return False
        game = (self.view, self.numbers, self.cols, self.mines, self.known, self.state)
        nbrs = _neighbours(self.rows, self.cols)
        if len(self.lookahead[0]):
            self.status = engine.play_looking(
                *game, self.clicks, nbrs, self.lookahead, self.scratch
            )
        else:
            self.status = engine.play(*game, self.clicks, nbrs, stop_at_guess, approx, self.scratch)
        return self.status != engine.OVER

    @property
    def over(self) -> bool:
        return int(self.state[_engine().STATE]) != _engine().PLAYING

    def finish(self) -> tuple[int, int]:
        """Writes the outcome into the game; the clicks counted and the guesses."""
        engine = _engine()
        game, st = self.game, self.state
        at_row, at_col = np.divmod(self.clicks[: st[engine.CLICKS]], game.cols)
        game.moves += zip(repeat("reveal"), at_row.tolist(), at_col.tolist(), strict=False)
        game.revealed = int(st[engine.REVEALED])
        if st[engine.STATE] == engine.WON:
            game.state = GameState.WON
        elif st[engine.STATE] == engine.LOST:
            game.state = GameState.LOST
            game.exploded = divmod(int(st[engine.EXPLODED]), game.cols)
        return int(st[engine.MOVES]), int(st[engine.GUESSES])


class CompiledBatch(_Engine):
    """Many games of one board size played in one compiled call, ``csp-minprob``'s way:
    Python only draws the layouts, decides the rare turns the engine hands back (see
    :func:`play_turns`) and reads the results.

    Args:
        rows: Board rows.
        cols: Board columns.
        layouts: Each game's mines (games x mines, row-major cells).
        firsts: Each game's first click (row-major cell).
        lookahead: See :class:`CompiledGame`.
    """

    def __init__(
        self,
        rows: int,
        cols: int,
        layouts: np.ndarray,
        firsts: np.ndarray,
        lookahead: Lookahead | None = None,
    ):
        super().__init__(rows, cols, layouts.shape[1], lookahead)
        self.layouts = np.ascontiguousarray(layouts, dtype=np.int64)
        self.firsts = np.ascontiguousarray(firsts, dtype=np.int64)
        self.cursor = np.zeros(2, dtype=np.int64)
        #: Per game: won, safe cells uncovered, cells clicked (the first included), guesses.
        self.results = np.zeros((len(layouts), 4), dtype=np.int64)

    def run(self, stop_at_guess: bool = False, approx: bool = False) -> bool:
        engine = _engine()
        self.status = engine.play_games(
            self.layouts,
            self.firsts,
            self.cols,
            self.cursor,
            self.results,
            (self.view, self.numbers, self.known, self.state, self.clicks),
            _neighbours(self.rows, self.cols),
            self.scratch,
            self.lookahead,
        )
        return self.status != engine.OVER

    def finish(self) -> tuple[int, int]:
        """The clicks and guesses of all the games (each game's are in :attr:`results`)."""
        clicks, guesses = self.results[:, 2:].sum(axis=0)
        return int(clicks), int(guesses)


def play_turns(
    played: _Engine,
    guess: Callable[[Solution], tuple[int, int]] | None = None,
    approx: bool = False,
) -> tuple[int, int]:
    """Plays ``played`` to the end; Python decides the turns the engine hands back: the
    solution's safe cells, else a guess (``guess(solution)``, whom the engine then asks at
    every guess; without it, ``csp-minprob``'s, which the engine makes itself). ``approx``:
    see :meth:`CompiledGame.run`. Returns the clicks and guesses, written into the game
    (a batch's: see :meth:`CompiledBatch.finish`)."""
    while played.run(stop_at_guess=guess is not None, approx=approx):
        solution = played.solution()
        played.remember(solution.mines)
        if solution.safe:
            played.click(solution.safe, guess=False)
        else:
            cell = solution.best_move if guess is None else guess(solution)
            played.click([cell], guess=True)
    return played.finish()


def play_out(game: Game) -> bool:
    """Plays ``game`` (its mines placed) to the end as ``csp-minprob`` does, on
    floating-point odds where the exact ones would need Python integers (a rollout's base
    policy: not move for move ``csp-minprob``, but close and never waiting on Python for
    it); whether it is won."""
    play_turns(CompiledGame(game), approx=True)
    return game.state == GameState.WON


def _flush_caches() -> None:
    """Empties numba's cache of every compiled function here: numba keys a function's
    cache on its own file only, and a caller's would keep the code of a callee whose file
    changed (the kernel's sources are one program, so they are compiled again together)."""
    from numba.core.registry import CPUDispatcher

    from ..engine import (
        _checks,
        _condition,
        _endgame,
        _kernel,
        _kernel_ties,
        _lookahead,
        _probe,
        _regions,
    )

    modules = (_kernel, _kernel_ties, _condition, _probe, _regions, _checks, _lookahead, _endgame)
    for module in (*modules, _engine()):
        for value in vars(module).values():
            if isinstance(value, CPUDispatcher) and value._cache is not None:
                value._cache.flush()


def warm() -> None:
    """Compiles the kernel and the engine afresh by playing a small game and solving a
    board (what a sources' change needs: see :func:`_flush_caches`), then writes
    :func:`mscsp.engine.compiled.stamp`; then the endgame search, and its
    :func:`mscsp.engine.compiled.endgame_stamp`."""
    compiled.skip_warm_up()  # (the engine's calls below compile what they call)
    _flush_caches()
    game = Game(9, 9, 10, seed=0)
    game.reveal(0, 0)
    play_turns(CompiledGame(game), guess=lambda solution: solution.best_move)
    play_out(Game(9, 9, 10, seed=0, layout=game.mine))
    layouts = np.flatnonzero(game.mine.reshape(-1))[None, :]
    play_turns(CompiledBatch(9, 9, layouts, np.zeros(1, dtype=np.int64)))
    looking = Lookahead((0.1, 0.1, 0.2, 1.0, 200.0))  # (best's engine)
    safest = lambda solution: solution.best_move  # noqa: E731
    play_turns(CompiledGame(Game(9, 9, 10, seed=0, layout=game.mine), looking), safest)
    play_turns(CompiledBatch(9, 9, layouts, np.zeros(1, dtype=np.int64), looking), safest)
    empty = Board(np.full((9, 9), COVERED, dtype=np.int8), 10)
    compiled.solve_small(empty)
    compiled.probe(empty, np.full((9, 9), 10 / 81), math.comb(81, 10), (0, 0), None, 0.1, 0.2)
    compiled.isolated_regions(empty.cells)
    compiled.pairs(empty.cells, 0)
    compiled.boxes(empty.cells)
    compiled.representatives(empty.cells, empty.cells == COVERED, 3)
    compiled.checks(empty, empty.cells == -2, empty.cells == COVERED)
    compiled.dead_cells(empty.cells, empty.cells == -2, [(0, 0)])
    compiled.Feasibility(2, [[0, 1]], [1], (0, 1)).walk(True, 1, 0)
    path = compiled.stamp()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()
    path.with_suffix(".lock").unlink(missing_ok=True)
    # Then what only best uses (until its stamp, best searches endgames in Python).
    compiled.compile_endgame()


if __name__ == "__main__":  # the compile that mscsp.engine.compiled starts (see its ready)
    warm()
