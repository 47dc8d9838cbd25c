"""``best`` on compiled code gives Python's answers: its probes (``mscsp.engine._probe``) and its
endgame search (``mscsp.engine._endgame``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mscsp
from mscsp.board import COVERED, Board, neighbour_sum
from mscsp.engine import compiled
from mscsp.errors import InconsistentBoardError
from mscsp.evaluation.harness import RunConfig, play_game
from mscsp.game import PRESETS
from mscsp.players.best import BestPlayer, Probe, is_dead
from mscsp.players.endgame import solve_endgame
from mscsp.solver import solve

pytestmark = pytest.mark.skipif(compiled.numba_missing(), reason="the compiled probe needs numba")


class _Both(BestPlayer):
    """Probes every candidate both ways, keeps the pairs and plays the exact one."""

    def __init__(self) -> None:
        super().__init__()
        self.pairs: list[tuple[Probe, Probe | None]] = []

    def probe(self, board, solution, cell, beat=None, memory=None):
        memory = memory or self.memory
        exact = self.probe_python(board, solution, cell, beat, memory)
        fast = self.probe_compiled(memory.flagged(board), solution, cell, beat)
        self.pairs.append((exact, fast))
        return exact


@pytest.mark.parametrize(
    ("preset", "games"), [("beginner", 40), ("intermediate", 25), ("expert", 6)]
)
def test_compiled_probe_matches_the_exact_probe(preset, games):
    compiled.load()
    player = _Both()
    config = RunConfig("best", *PRESETS[preset], seed=4242)
    for index in range(games):
        play_game(player, config, index)
    compared = [(a, b) for a, b in player.pairs if b is not None]
    assert len(compared) > 20
    assert len(compared) >= 0.95 * len(player.pairs)
    for exact, fast in compared:
        assert (fast.cell, fast.dead, fast.complete, fast.next_cell, fast.implied) == (
            exact.cell,
            exact.dead,
            exact.complete,
            exact.next_cell,
            exact.implied,
        )
        assert fast.safety == exact.safety
        # Far below the ties best allows between scores (1e-12).
        assert fast.survive2 == pytest.approx(exact.survive2, abs=1e-13)
        assert fast.progress == pytest.approx(exact.progress, abs=1e-13)
    # Both kinds of answer were compared: early positions (counts beyond 64 bits) and late.
    assert any(not exact.complete for exact, _ in compared)


def test_outcome_weights_match_exact_counts():
    # Each outcome's weight, from the kernel's floating-point answer (counts beyond 64
    # bits: an expert board early) or its exact one, against the exact weight.
    compiled.load()
    from mscsp.engine import _probe

    rng = np.random.default_rng(5)
    checked = {"exact": 0, "float": 0}
    for _ in range(40):
        # Expert boards with a few scattered numbers: small components, counts beyond 64
        # bits; beginner boards a quarter open: exact counts.
        rows, cols, mines, share = (16, 30, 99, 0.05) if rng.random() < 0.5 else (9, 9, 10, 0.25)
        mine = np.zeros(rows * cols, dtype=bool)
        mine[rng.choice(rows * cols, mines, replace=False)] = True
        mine = mine.reshape(rows, cols)
        around = np.zeros((rows, cols), dtype=np.int8)
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if dr or dc:
                    shifted = np.zeros_like(mine)
                    shifted[max(dr, 0) : rows + min(dr, 0), max(dc, 0) : cols + min(dc, 0)] = mine[
                        max(-dr, 0) : rows - max(dr, 0), max(-dc, 0) : cols - max(dc, 0)
                    ]
                    around += shifted
        cells = np.full((rows, cols), COVERED, dtype=np.int8)
        shown = (rng.random((rows, cols)) < share) & ~mine
        cells[shown] = around[shown]
        board = Board(cells, mines)
        try:
            exact = solve(board).weight
        except InconsistentBoardError:
            continue
        out, probs, free, odds = compiled.scratch(rows, cols)
        status = compiled._kernel()(
            cells.reshape(-1), rows, cols, mines, out, probs, free, odds, False, True
        )
        if status not in (1, 4):  # (DONE, APPROX; a component too large is handed back)
            continue
        x, e = _probe.weight_of(status, out)
        assert math.ldexp(x, e) / exact == pytest.approx(1.0, abs=1e-13)
        checked["exact" if status == 1 else "float"] += 1
    assert checked["exact"] > 3 and checked["float"] > 3


def test_kernel_tells_an_inconsistent_board_from_one_beyond_its_limits():
    from mscsp.engine._kernel_status import INCONSISTENT

    compiled.load()
    cells = np.full((3, 3), COVERED, dtype=np.int8)
    cells[1, 1] = 3
    cells[0, 0] = 0  # a 0 next to the 3 leaves it five cells for three mines: fine
    out, probs, free, odds = compiled.scratch(3, 3)
    ok = compiled._kernel()(cells.reshape(-1), 3, 3, 3, out, probs, free, odds, False, False)
    assert ok != INCONSISTENT
    cells[1, 1] = 8  # but not for eight
    bad = compiled._kernel()(cells.reshape(-1), 3, 3, 8, out, probs, free, odds, False, False)
    assert bad == INCONSISTENT
    with pytest.raises(InconsistentBoardError):
        solve(Board(cells, 8))


def _endgame_positions(runs: tuple[tuple[str, int], ...], seed: int) -> list[Board]:
    """Every position where ``best`` considered its endgame search (few layouts left), in
    the given numbers of games per preset, proven mines flagged."""
    positions = []

    class Recording(BestPlayer):
        def _guess(self, board, solution):
            if solution.weight <= self.tree_layouts:
                positions.append(self.memory.flagged(board))
            return super()._guess(board, solution)

    player = Recording()
    for preset, games in runs:
        config = RunConfig("best", *PRESETS[preset], seed=seed)
        for index in range(games):
            play_game(player, config, index)
    return positions


def test_compiled_endgame_search_is_the_python_search():
    # Every endgame position of a few games, at the default budget and at budgets small
    # enough to make the search give up: the same answers, given up at the same point.
    compiled.load()
    positions = _endgame_positions((("beginner", 150), ("intermediate", 80)), seed=99)
    assert len(positions) > 15
    saved = compiled.enabled
    gave_up = 0
    try:
        for board in positions:
            for budget in (200_000, 400, 60):
                compiled.enabled = True
                fast = solve_endgame(board, 200, budget)
                compiled.enabled = False
                slow = solve_endgame(board, 200, budget)
                assert fast == slow
                gave_up += fast is None
    finally:
        compiled.enabled = saved
    assert gave_up


def test_compiled_dead_cells_are_the_python_ones(monkeypatch):
    """The compiled dead cells, one call for many, against ``is_dead`` cell by cell on the
    engine's functions run by Python (numba switched off)."""
    compiled.load()
    rng = np.random.default_rng(8)
    checked = 0
    for _ in range(30):
        cells = rng.choice(
            np.array([COVERED, COVERED, COVERED, 0, 1, 2, 3, -2], dtype=np.int8), (8, 9)
        )
        mines = rng.random((8, 9)) < 0.1
        which = [tuple(int(x) for x in c) for c in np.argwhere(cells == COVERED)]
        found = compiled.dead_cells(cells, mines, which)
        with monkeypatch.context() as patched:
            patched.setattr(compiled, "enabled", False)
            assert found == [is_dead(cells, mines, c) for c in which]
            checked += sum(is_dead(cells, mines, c) for c in which)
    assert checked > 10  # dead cells were among them


def _random_boards(seed: int, count: int, codes=(COVERED, COVERED, COVERED, 0, 1, 2, 3, -2)):
    """Boards of random cell codes (covered, numbers, flags): many isolated regions and
    side-by-side pairs of every kind."""
    rng = np.random.default_rng(seed)
    codes = np.array(codes, dtype=np.int8)
    for _ in range(count):
        cells = rng.choice(codes, tuple(int(x) for x in rng.integers(2, 12, size=2)))
        yield Board(cells, int((cells == -2).sum() + (cells == COVERED).sum() // 2))


def test_compiled_board_patterns_are_the_array_codes(monkeypatch):
    """Isolated regions, ``best``'s side-by-side pairs, 2x2 boxes and unconstrained
    representatives: the engine's functions compiled and run by Python agree."""
    from mscsp.players.best import representatives
    from mscsp.players.fifty import _pairs, box_patterns
    from mscsp.session import isolated_regions

    def patterns(board: Board, mask: np.ndarray) -> tuple:
        pairs = tuple(_pairs(board.cells, missing) for missing in (0, 1, 2))
        few = tuple(representatives(board, mask, count) for count in (1, 3, 5))
        return isolated_regions(board), *pairs, *few, list(box_patterns(board.cells))

    compiled.load()
    boards = list(_random_boards(9, 300))
    boards += _random_boards(11, 100, codes=(COVERED, COVERED, COVERED, -2, -2, 1))  # boxes
    rng = np.random.default_rng(10)
    masks = [(b.cells == COVERED) & (rng.random(b.shape) < 0.7) for b in boards]
    fast = [patterns(b, m) for b, m in zip(boards, masks, strict=True)]
    monkeypatch.setattr(compiled, "enabled", False)
    slow = [patterns(b, m) for b, m in zip(boards, masks, strict=True)]
    assert fast == slow
    assert sum(bool(f[0]) for f in fast) > 50  # isolated regions were found
    assert all(sum(bool(f[k]) for f in fast) > 20 for k in (1, 2, 3))  # and pairs
    assert sum(len(f[6]) == 5 for f in fast) > 100  # five representatives, tied or not
    assert sum(bool(f[7]) for f in fast) > 10  # and boxes


def test_one_compiled_call_probes_as_one_cell_at_a_time():
    """The look-ahead probes its candidates in one compiled call (``probe_run``): the same
    scores, probes and dead cells as probing them one by one, at the margins of depth 1
    and 2, on every look-ahead position of a few games."""
    compiled.load()
    positions = []

    class Recording(BestPlayer):
        def lookahead(self, board, solution, cells, keep=lambda cell: 1.0, margin=0.0, memory=None):
            if memory is None:
                positions.append((self.memory.flagged(board), solution, cells, keep))
            return super().lookahead(board, solution, cells, keep, margin, memory)

    class OneByOne(BestPlayer):
        def probe(self, *args, **kwargs):  # (a subclass's own probe: one cell at a time)
            return super().probe(*args, **kwargs)

    recording = Recording()
    for preset, games in (("intermediate", 20), ("expert", 8)):
        config = RunConfig("best", *PRESETS[preset], seed=31)
        for index in range(games):
            play_game(recording, config, index)
    assert len(positions) > 30
    batched, single = BestPlayer(), OneByOne()
    ran = 0
    for board, solution, cells, keep in positions:
        for margin in (0.0, 0.05):
            got = batched.lookahead(board, solution, cells, keep, margin)
            assert got == single.lookahead(board, solution, cells, keep, margin)
        ran += batched.probe_run(board, solution, cells, [1.0] * len(cells), None, 0.0) is not None
    assert ran == len(positions)  # every one went through the compiled call


def test_the_kernels_probability_map_is_the_solutions():
    """``compiled.probability_map`` (what the pseudo 50/50's conditional solves read) is
    the map of the Solution ``solve`` builds, wherever the kernel answers whole: every
    position of a few real games, and each with a covered cell flagged (as those solves
    assume a mine there)."""
    from mscsp.evaluation.played_positions import game_positions
    from mscsp.game import Game

    compiled.load()
    rng = np.random.default_rng(6)
    answered = 0
    for preset, seed in [(name, n) for name in ("beginner", "intermediate") for n in range(6)]:
        game = Game.from_preset(preset, seed=seed)
        for board in game_positions(game, (0, 0), flag_mines=True):
            covered = np.argwhere(board.cells == COVERED)
            if not len(covered):
                continue
            given = board.cells.copy()
            given[tuple(covered[rng.integers(len(covered))])] = -2
            for position in (board, Board(given, board.mines)):
                found = compiled.probability_map(position)
                if found is None:
                    continue
                try:
                    want = solve(position).probabilities
                except InconsistentBoardError:
                    raise AssertionError("the kernel answered an inconsistent board") from None
                assert np.array_equal(found, want, equal_nan=True)
                answered += 1
    assert answered > 50


def test_compiled_layouts_are_the_python_layouts():
    """The endgame's layouts (``mscsp.engine._endgame.layouts``): the same cells and layouts in
    the same order as Python's enumeration, given up at the same limit, with and without
    the mine count, on random small boards and on every endgame position of a few games."""
    from mscsp.players.endgame import enumerate_layouts

    compiled.load()
    compiled.compile_endgame()
    boards = list(_random_boards(21, 100, codes=(COVERED, COVERED, 0, 1, 2, 3, -2)))
    rng = np.random.default_rng(22)
    for _ in range(300):  # consistent boards: a layout, most safe cells shown, a few flags
        rows, cols = (int(x) for x in rng.integers(3, 9, size=2))
        game = mscsp.Game(rows, cols, int(rng.integers(1, rows * cols // 3 + 1)), seed=rng)
        game.reveal(0, 0)
        shown = np.zeros((rows, cols), dtype=bool)
        for r, c in np.argwhere(~game.mine):
            shown[r, c] = rng.random() < 0.7
        cells = np.where(shown, neighbour_sum(game.mine), COVERED).astype(np.int8)
        cells[game.mine & (rng.random((rows, cols)) < 0.3)] = -2
        boards.append(Board(cells, game.mines))
    boards += _endgame_positions((("beginner", 60), ("intermediate", 30)), seed=5)
    saved = compiled.enabled
    counted = given_up = 0
    try:
        for board in boards:
            for limit, any_count in ((200, False), (200, True), (5, False), (0, True)):
                compiled.enabled = True
                fast = enumerate_layouts(board, limit, any_count)
                compiled.enabled = False
                slow = enumerate_layouts(board, limit, any_count)
                assert fast == slow
                counted += bool(slow and slow[1])
                given_up += slow is None
    finally:
        compiled.enabled = saved
    assert counted > 200 and given_up > 100


def test_the_compiled_entries_refuse_what_is_not_theirs():
    """The compiled helpers read their arrays without bounds checks: a board that is no
    Board, cells off the board, lengths that differ and a negative limit are refused with
    the project's errors before any compiled code runs."""
    from mscsp.errors import InvalidInputError, InvalidTypeError

    compiled.load()
    board = Board(np.full((3, 4), COVERED, dtype=np.int8), 2)
    now = np.full((3, 4), 2 / 12)
    with pytest.raises(InvalidTypeError):
        compiled.probability_map(board.cells)
    with pytest.raises(InvalidTypeError):
        compiled.endgame_layouts("3x4", 10, False)
    with pytest.raises(InvalidInputError, match="limit"):
        compiled.endgame_layouts(board, -1, False)
    with pytest.raises(InvalidTypeError, match="limit"):
        compiled.endgame_layouts(board, 2.5, False)
    for cells in ([(3, 0)], [(0, -1)], [(0.0, 1.0)], [(0, 1, 2)]):
        with pytest.raises(InvalidInputError, match="cells"):
            compiled.probes(board, now, 66, cells, [1.0], None, 0.0, 0.1, 0.2)
    with pytest.raises(InvalidInputError, match="factors"):
        compiled.probes(board, now, 66, [(0, 0), (0, 1)], [1.0], None, 0.0, 0.1, 0.2)
    with pytest.raises(InvalidTypeError):
        compiled.probes(board.cells, now, 66, [(0, 0)], [1.0], None, 0.0, 0.1, 0.2)
    # And in range, they answer.
    assert compiled.probability_map(board) is not None
    assert len(compiled.probes(board, now, 66, [(0, 0)], [1.0], None, 0.0, 0.1, 0.2)) == 1


def _checks_both_ways(boards, monkeypatch) -> tuple[list, list]:
    """``compiled.checks`` of every board (known mines: its flags; representatives among
    its covered cells), with the kernel loaded and run uncompiled."""
    compiled.load()

    def one(board: Board) -> compiled.Checks:
        cells = board.cells
        return compiled.checks(board, cells == -2, cells == COVERED, True, True)

    fast = [one(b) for b in boards]
    with monkeypatch.context() as patched:
        patched.setattr(compiled, "enabled", False)
        slow = [one(b) for b in boards]
    return fast, slow


def test_one_engine_call_answers_every_check_of_a_guess(monkeypatch):
    """``compiled.checks``, the one engine call a guess makes, gives each check's answer
    as its own function does (isolated regions, pairs, boxes, dead cells, representatives)
    and each conditional solve of the pseudo 50/50 rule as ``given_mine`` does, on random
    boards and real positions; compiled and uncompiled, the very same answers."""
    from mscsp.players.best import representatives
    from mscsp.players.fifty import _pairs, box_patterns, given_mine, pair_patterns
    from mscsp.session import isolated_regions

    boards = list(_random_boards(31, 150))
    boards += _random_boards(32, 60, codes=(COVERED, COVERED, COVERED, -2, -2, 1))  # boxes
    boards += _endgame_positions((("beginner", 30), ("intermediate", 10)), seed=33)
    fast, slow = _checks_both_ways(boards, monkeypatch)
    asked = none = 0
    for board, found, other in zip(boards, fast, slow, strict=True):
        cells, mines = board.cells, board.cells == -2
        assert np.array_equal(found.dead, other.dead)
        for name in ("regions", "pairs", "loose", "boxes", "representatives", "given"):
            assert getattr(found, name) == getattr(other, name), name
        assert found.regions == isolated_regions(board)
        assert found.pairs == pair_patterns(cells)
        assert found.loose == _pairs(cells, 1)
        assert found.boxes == list(box_patterns(cells))
        assert found.representatives == representatives(board, cells == COVERED)
        for r, c in np.argwhere((cells == COVERED) & ~mines).tolist():
            assert found.dead[r, c] == is_dead(cells, mines, (r, c))
        for cell, after in found.given.items():
            want = given_mine(board, cell, "dss")
            asked += 1
            if after is None:
                assert want is None
                none += 1
            else:
                assert want is not None and all(want[c] == p for c, p in after.items())
    assert asked > 100 and none > 10


def test_the_engine_uncompiled_probes_to_the_same_bits(monkeypatch):
    """``best``'s look-ahead probes run by Python (the engine's functions uncompiled, as
    before the kernel is loaded) give the compiled probes' very numbers, bit for bit: a
    game's look-ahead values do not depend on when its process loaded the kernel."""
    compiled.load()
    positions = []

    class Recording(BestPlayer):
        def lookahead(self, board, solution, cells, keep=lambda cell: 1.0, margin=0.0, memory=None):
            if memory is None and len(positions) < 25:
                positions.append((self.memory.flagged(board), solution, cells))
            return super().lookahead(board, solution, cells, keep, margin, memory)

    with monkeypatch.context() as patched:  # (every guess in Python, none by the engine)
        patched.setattr(compiled, "enabled", False)
        config = RunConfig("best", *PRESETS["intermediate"], seed=34)
        for index in range(40):
            if len(positions) == 25:
                break
            play_game(Recording(), config, index)
    assert len(positions) == 25

    def probes(board, solution, cells):
        factors = [1.0] * len(cells)
        now, weight = solution.probabilities, solution.weight
        return compiled.probes(board, now, weight, cells, factors, None, 0.0, 0.1, 0.2)

    fast = [probes(*position) for position in positions]
    monkeypatch.setattr(compiled, "enabled", False)
    slow = [probes(*position) for position in positions]
    assert fast == slow
    assert sum(len(found) for found in fast if found) > 50


def test_best_plays_without_numba_the_games_it_plays_on_the_kernel():
    """With numba missing (blocked from import: a module that imported it would fail),
    ``best``'s checks and probes run on the engine's functions uncompiled: the same games
    as on the kernel."""
    import subprocess
    import sys

    from conftest import repo_env

    code = (
        "import sys; sys.modules['numba'] = None\n"
        "from mscsp.evaluation.harness import RunConfig, play_game\n"
        "from mscsp.game import PRESETS\n"
        "from mscsp.players import get_player\n"
        "config = RunConfig('best', *PRESETS['beginner'], seed=35)\n"
        "player = get_player('best')\n"
        "print([(r.won, r.moves, r.guesses) for r in (play_game(player, config, i) "
        "for i in range(12))])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=repo_env(), check=True
    )
    compiled.load()
    config = RunConfig("best", *PRESETS["beginner"], seed=35)
    player = BestPlayer()
    kernel = [
        (r.won, r.moves, r.guesses) for r in (play_game(player, config, i) for i in range(12))
    ]
    assert done.stdout.strip() == str(kernel)
    assert sum(guesses for _, _, guesses in kernel) > 6
