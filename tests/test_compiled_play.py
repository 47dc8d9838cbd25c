"""The compiled game engine (``mscsp.players.compiled_play``) plays the pure players' games move for
move, and its kernel's exact odds are the solution's."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from conftest import repo_env
from game_results import game_rows

from mscsp.board import COVERED
from mscsp.engine import compiled
from mscsp.evaluation.harness import RunConfig, play_game, play_on_engine
from mscsp.game import PRESETS, Game
from mscsp.players import compiled_play, get_player
from mscsp.solver import solve

pytestmark = pytest.mark.skipif(compiled.numba_missing(), reason="the compiled engine needs numba")


def _record(strategy: str, preset: str, games: int, seed: int, on_engine: bool) -> list:
    """Every game's clicks (as the game records them) and result."""
    played = []
    game_class = Game

    class Recorded(game_class):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            played.append(self)

    config = RunConfig(strategy, *PRESETS[preset], seed=seed)
    player = get_player(strategy)
    saved = compiled.enabled
    compiled.enabled = on_engine
    if on_engine:
        compiled.load()
    try:
        import mscsp.evaluation.harness as harness

        harness.Game, original = Recorded, harness.Game
        try:
            results = [play_game(player, config, i) for i in range(games)]
        finally:
            harness.Game = original
    finally:
        compiled.enabled = saved
    return [
        (g.moves, g.state, g.revealed, g.exploded, r.won, r.moves, r.guesses, r.cleared)
        for g, r in zip(played, results, strict=True)
    ]


def _fractions(solution) -> dict:
    """Every covered cell's exact odds."""
    found = {}
    for odd in solution.odds:
        cells = odd.cells
        if isinstance(cells, np.ndarray):
            cells = [(int(r), int(c)) for r, c in np.argwhere(cells)]
        for cell in cells:
            found[cell] = Fraction(odd.num, odd.den)
    return found


@pytest.mark.parametrize(
    ("preset", "games"), [("beginner", 120), ("intermediate", 40), ("expert", 25)]
)
def test_minprob_plays_the_same_games_on_the_engine(preset, games):
    engine = _record("csp-minprob", preset, games, 11, on_engine=True)
    pure = _record("csp-minprob", preset, games, 11, on_engine=False)
    assert engine == pure
    assert {won for *_, won, _, _, _ in engine} == {True, False}  # both outcomes met


def test_engine_is_used_only_where_it_can_be(monkeypatch):
    compiled.load()
    game = Game(9, 9, 10, seed=1)
    assert not compiled_play.usable(game)  # no mines placed yet
    game.reveal(0, 0)
    assert compiled_play.usable(game)
    monkeypatch.setattr(compiled, "enabled", False)
    assert not compiled_play.usable(game)
    monkeypatch.setattr(compiled, "enabled", True)
    big = Game(70, 70, 500, seed=1)
    big.reveal(0, 0)
    assert not compiled_play.usable(big)  # beyond the kernel's boards


def test_stepped_game_gives_the_sessions_solutions():
    """Stopping at every guess, the engine hands over the solution the pure solver gives
    for the board with the known mines flagged, and its exact odds are that solution's."""
    compiled.load()
    done = 0
    for seed in range(6):
        game = Game(16, 30, 99, seed=seed)
        game.reveal(0, 0)
        played = compiled_play.CompiledGame(game)
        stops = 0
        while played.run(stop_at_guess=True):
            board = played.board()
            solution = played.solution()
            compiled.enabled = False
            try:
                expected = solve(board)
            finally:
                compiled.enabled = True
            exact = _fractions(expected)
            assert _fractions(solution) == exact
            assert solution.weight == expected.weight
            stopped = played.status == compiled_play._engine().GUESS
            if stopped:  # counted in 64 bits: no safe cell left, the kernel's exact odds
                assert not solution.safe
                odds = played.scratch[3]
                n = game.rows * game.cols
                for (r, c), fraction in exact.items():
                    i = r * game.cols + c
                    assert Fraction(int(odds[i]), int(odds[n + i])) == fraction
                done += 1
            played.remember(solution.mines)
            if solution.safe:
                played.click(solution.safe, guess=False)
            else:
                played.click([solution.best_move], guess=True)
                stops += 1
        moves, guesses = played.finish()
        assert guesses == stops
        assert game.over
        # The game's record replays to the same end.
        assert game.revealed == int((game.view != COVERED).sum())
        replayed = Game.replay(game.to_dict())
        assert (replayed.view == game.view).all()
        assert replayed.state == game.state
    assert done  # the kernel answered some guesses itself


def test_a_cold_cache_is_compiled_in_the_background(tmp_path):
    """Where numba's cache lacks the kernel, a process past the warm-up starts the compile
    in the background and goes on answering on the pure path; once it is done, the next
    process uses the kernel at once."""
    env = {**repo_env(), "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    code = (
        "import numpy, mscsp; from mscsp.engine import compiled; "
        "b = mscsp.Board(numpy.full((9, 9), -1, dtype=numpy.int8), 10); "
        "[mscsp.solve(b) for _ in range(compiled.WARMUP + 1)]; "
        "s = mscsp.solve(b); "
        "print(compiled._loaded, s.exact[(0, 0)], compiled.stamp().with_suffix('.lock').exists()); "
        "compiled._compiling.wait(timeout=600); print(compiled.stamp().exists())"
    )
    first = _run(code, env).split("\n")
    assert first == ["False 10/81 True", "True"]
    again = (
        "import numpy, mscsp; from mscsp.engine import compiled; "
        "b = mscsp.Board(numpy.full((9, 9), -1, dtype=numpy.int8), 10); "
        "[mscsp.solve(b) for _ in range(compiled.WARMUP)]; "
        "print(compiled.ready(), compiled.stamp().with_suffix('.lock').exists())"
    )
    assert _run(again, env) == "True False"


def _run(code: str, env: dict[str, str]) -> str:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout.strip()


def test_what_if_on_the_kernel_gives_the_clusters_answer(monkeypatch):
    """``GameSession.what_if`` solves small boards whole on the kernel: the same odds and
    weight as its own cluster-by-cluster answer, the same errors."""
    from mscsp.errors import InconsistentBoardError
    from mscsp.session import GameSession

    compiled.load()
    compared = 0
    for seed in range(3):
        game = Game(16, 30, 99, seed=seed)
        game.reveal(0, 0)
        session = GameSession()
        rng = np.random.default_rng(seed)
        while not game.over:
            board = game.board()
            safe = session.single_point(board)
            if safe:
                for cell in safe:
                    game.reveal(*cell)
                continue
            solution = session.solve(board)
            frontier = [
                c
                for odd in solution.odds
                if not isinstance(odd.cells, np.ndarray)
                for c in odd.cells
                if odd.num < odd.den
            ]
            for cell in frontier[:: max(1, len(frontier) // 4)]:
                for value in range(9):
                    answers = []
                    for on_kernel in (True, False):
                        monkeypatch.setattr(compiled, "enabled", on_kernel)
                        try:
                            after = session.what_if(board, cell, value)
                            answers.append((_fractions(after), after.weight))
                        except InconsistentBoardError:
                            answers.append("inconsistent")
                    monkeypatch.setattr(compiled, "enabled", True)
                    assert answers[0] == answers[1]
                    compared += answers[0] != "inconsistent"
            cells = solution.safe or [solution.best_move]
            for cell in cells if solution.safe else [cells[int(rng.integers(len(cells)))]]:
                game.reveal(*cell)
    assert compared > 100


def _guess_positions(seeds):
    """The positions where csp-minprob guesses in expert games (first click in the corner)
    of ``seeds``, each with the kernel's arguments for it (its scratch arrays fresh)."""
    for seed in seeds:
        game = Game(16, 30, 99, seed=seed)
        game.reveal(0, 0)
        played = compiled_play.CompiledGame(game)
        while played.run(stop_at_guess=True):
            board = played.board()
            scratch = compiled.scratch(*board.shape)
            yield board, (board.cells.reshape(-1), *board.shape, board.mines, *scratch, True)
            solution = played.solution()
            played.remember(solution.mines)
            played.click(solution.safe or [solution.best_move], guess=not solution.safe)


def test_floating_point_odds_are_near_the_exact_ones():
    """Where the exact odds need Python integers, the kernel's ``approx`` map (rollouts)
    is within 1e-9 of them, its classes of equal odds are exact (the safest cells share
    one), the look-ahead's map without classes is the same, and the rollout policy built
    on the map wins about as often."""
    from mscsp.engine._kernel_status import (
        APPROX,
        COUNTED,
        EXACT,
        FLOAT_MAP,
        FLOAT_TIED,
        SURE_MINE,
        SURE_SAFE,
    )

    compiled.load()
    kernel = compiled._kernel()
    compared = 0
    for board, args in _guess_positions(range(4)):
        cells, _, _, _, out, probs, free, odds, _ = args
        if kernel(*args, EXACT) == COUNTED:
            assert kernel(*args, FLOAT_MAP) == APPROX
            untied = (probs.copy(), odds[cells.size :].copy())
            assert kernel(*args, FLOAT_TIED) == APPROX
            assert np.array_equal(untied[0], probs, equal_nan=True)
            assert np.array_equal(untied[1], odds[cells.size :])
            solution = solve(board)
            exact = solution.probabilities
            covered = board.cells == COVERED
            assert np.allclose(probs[covered], exact[covered], rtol=0, atol=1e-9)
            # What the map says is certain, and which cells share their odds, is exact.
            fractions = _fractions(solution)
            shared = {}
            for i in np.flatnonzero(covered):
                cell = divmod(int(i), board.cols)
                assert (odds[cells.size + i] == SURE_SAFE) == (fractions[cell] == 0)
                assert (odds[cells.size + i] == SURE_MINE) == (fractions[cell] == 1)
                if odds[i] >= 0:  # (-1: not trusted to order cells)
                    assert shared.setdefault(int(odds[i]), fractions[cell]) == fractions[cell]
            lowest = min(fractions[divmod(int(i), board.cols)] for i in np.flatnonzero(covered))
            safest = {
                int(odds[i])
                for i in np.flatnonzero(covered)
                if fractions[divmod(int(i), board.cols)] == lowest
            }
            assert len(safest) == 1 or -1 in safest
            compared += 1
    assert compared >= 4
    wins = {"exact": 0, "approx": 0}
    config = RunConfig("csp-minprob", *PRESETS["expert"], seed=3)
    player = get_player("csp-minprob")
    for index in range(150):
        wins["exact"] += play_game(player, config, index).won
        layout_seed = np.random.SeedSequence(3, spawn_key=(index, 0))
        game = Game(16, 30, 99, seed=layout_seed)
        game.reveal(0, 0)
        wins["approx"] += compiled_play.play_out(game)
    assert abs(wins["exact"] - wins["approx"]) <= 5


@pytest.mark.parametrize(
    ("preset", "games", "first_click", "first_move"),
    [
        ("beginner", 150, "safe", "corner"),
        ("beginner", 150, "any", "random"),
        ("intermediate", 40, "opening", "center"),
        ("expert", 25, "safe", "corner"),
    ],
)
def test_a_batch_plays_the_pure_players_games(preset, games, first_click, first_move):
    """Games played all at once on the engine (``play_on_engine``, what ``mscsp play`` uses
    for ``csp-minprob``) are the pure player's, game for game."""
    config = RunConfig(
        "csp-minprob", *PRESETS[preset], seed=23, first_click=first_click, first_move=first_move
    )
    compiled.load()
    batch = play_on_engine(config, list(range(games)))
    player = get_player("csp-minprob")
    saved = compiled.enabled
    compiled.enabled = False
    try:
        pure = [play_game(player, config, i) for i in range(games)]
    finally:
        compiled.enabled = saved
    assert game_rows(batch) == game_rows(pure)
    assert {r.won for r in pure} == {True, False}


def test_the_lookahead_on_the_engine_leaves_float_ties_to_exact_odds():
    """``csp-lookahead`` on the engine, as on the pure road, game for game. In game 1586
    of seed 4242 two cells of equal odds (different groups) came out of the
    floating-point map 2e-17 apart: the engine's look-ahead then probed only one, guessed
    it, and played the game with one guess fewer than the pure player (same clicks, another
    order). Such a position is now handed to Python, which compares exact odds."""
    config = RunConfig("csp-lookahead", 16, 30, 99, seed=4242, first_click="safe")
    games = [1586, *range(12)]
    compiled.load()
    batch = play_on_engine(config, games)
    player = get_player("csp-lookahead")
    saved = compiled.enabled
    compiled.enabled = False
    try:
        pure = [play_game(player, config, i) for i in games]
    finally:
        compiled.enabled = saved
    assert game_rows(batch) == game_rows(pure)


def test_a_game_lost_at_its_first_click_stays_lost():
    """With first click ``any``, a first click on a mine ends the game on the engine too
    (it once played on from there, and could count the game won)."""
    config = RunConfig("csp-minprob", 9, 9, 30, seed=2, first_click="any", first_move="random")
    compiled.load()
    player = get_player("csp-minprob")
    lost_at_once = [r for r in (play_game(player, config, i) for i in range(60)) if r.moves == 1]
    assert lost_at_once and not any(r.won for r in lost_at_once)
    assert all(r.cleared == 0 for r in lost_at_once)


def test_binomials_modulo_a_prime():
    """The kernel's ``C(n, high - s) mod p`` against Python's integers, ranges that run
    past 0 and n included."""
    from math import comb

    from mscsp.engine._kernel_ties import PRIMES, _binomials

    for n, high, count in [(0, 0, 1), (1, 3, 5), (7, 4, 3), (480, 99, 40), (480, 470, 30)]:
        p = int(PRIMES[n % len(PRIMES)])
        wanted = [comb(n, high - s) % p if 0 <= high - s <= n else 0 for s in range(count)]
        assert _binomials(n, high, count, p).tolist() == wanted


def test_whether_the_kernel_is_compiled_is_told_without_numba(tmp_path):
    """A long run asks whether the engine is compiled before it plays (to wait for a first
    compile rather than play beside it): the answer needs no numba import, and a numba
    cache of its own (another NUMBA_CACHE_DIR) starts uncompiled."""
    compiled.load()
    assert compiled.compiled_here()
    script = (
        "import sys\n"
        "from mscsp.engine import compiled\n"
        "print(compiled.compiled_here(), 'numba' in sys.modules)\n"
    )
    env = {**repo_env(), "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["False", "False"]


def test_one_process_compiles_at_a_time(tmp_path):
    """A compile empties numba's cache first, so two at once could undo each other: the
    lock is taken atomically, refused while young, taken over once abandoned."""
    script = (
        "import os\n"
        "from mscsp.engine import compiled\n"
        "lock = compiled.stamp().with_suffix('.lock')\n"
        "try:\n"
        "    print(compiled._take_lock(), compiled._take_lock())\n"
        "    os.utime(lock, (0, 0))  # (abandoned long ago)\n"
        "    print(compiled._take_lock())\n"
        "finally:\n"
        "    lock.unlink(missing_ok=True)\n"
    )
    env = {**repo_env(), "NUMBA_CACHE_DIR": str(tmp_path)}  # (a lock of its own)
    assert _run(script, env).split("\n") == ["True False", "True"]


def test_a_players_solves_count_components_beyond_the_node_budget_of_exact_answers():
    """The engine's turns and the look-ahead's probes (``approx`` set) enumerate components
    that the exact answers of ``solve`` leave to the pure path (more search nodes than its
    budget), and their map is the pure path's (within 1e-9), with what is certain exact."""
    from mscsp.engine._kernel_status import APPROX, DONE, EXACT, FALLBACK, FLOAT_MAP, SURE_MINE

    compiled.load()
    kernel = compiled._kernel()
    compared = 0
    for board, args in _guess_positions(range(600)):  # (the engine counts the rest)
        cells, _, _, _, out, probs, free, odds, _ = args
        if kernel(*args, EXACT) == FALLBACK:
            status = kernel(*args, FLOAT_MAP)
            assert status in (APPROX, DONE)
            solution = solve(board)
            covered = board.cells == COVERED
            exact = solution.probabilities
            assert np.allclose(probs[covered], exact[covered], rtol=0, atol=1e-9)
            if status == APPROX:
                sure = (odds[cells.size :] & SURE_MINE) != 0
                assert np.array_equal(sure[covered.reshape(-1)], (exact == 1.0)[covered])
            compared += 1
            if compared >= 2:
                break
    assert compared >= 2
