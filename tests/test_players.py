"""Rules of every strategy on hand-made positions."""

from __future__ import annotations

import sys
import types
from fractions import Fraction

import numpy as np
import pytest

from mscsp import Game, InvalidInputError, parse_board, solve
from mscsp.backends import get_backend
from mscsp.constraints import build_system
from mscsp.players import PLAYERS, ProbabilityPlayer, get_player
from mscsp.players.base import MineMemory, single_point
from mscsp.players.best import BestPlayer, forced_pair, is_dead
from mscsp.players.csp import edge_distance, edge_heuristic
from mscsp.players.endgame import enumerate_layouts, region_board, solve_endgame
from mscsp.players.limited import sample_component
from mscsp.reduce import reduce_system
from mscsp.session import isolated_regions

RNG = np.random.default_rng(0)

# (0,1) sees a+b=1, (1,1) sees a+b+c=1, (2,1) sees b+c=1 over column 2 = (a, b, c):
# b is the mine; single-point rules see nothing, any global reasoning clears a and c.
SUBSET = "01?\n01?\n01?\n"


def test_single_point_clears_around_satisfied_number():
    board = parse_board("F1?\n???\n", mines=2)
    safe, mines = single_point(board.cells, np.zeros(board.shape, bool))
    assert sorted(zip(*np.nonzero(safe), strict=True)) == [(0, 2), (1, 0), (1, 1), (1, 2)]
    assert mines[0, 0] and mines.sum() == 1


def test_single_point_flags_then_clears():
    # The 1 at (0,0) has one unknown neighbour (1,0): a mine; then (0,1)'s 1 is satisfied.
    board = parse_board("11?\n???\n", mines=3)
    board.cells[1, 1] = 1  # (0,0) now sees only (1,0) covered
    safe, mines = single_point(board.cells, np.zeros(board.shape, bool))
    assert mines[1, 0] and mines.sum() == 1
    assert {(int(r), int(c)) for r, c in zip(*np.nonzero(safe), strict=True)} == {(0, 2), (1, 2)}


def test_sps_guesses_where_rules_search_succeeds():
    board = parse_board(SUBSET, mines=1)
    sps = get_player("sps")
    move = sps.next_moves(board, np.random.default_rng(1))
    assert sps.turn_guesses == 1 and len(move) == 1
    rules = get_player("rules")
    assert rules.next_moves(board, RNG) == [(0, 2), (2, 2)]
    assert rules.turn_guesses == 0


@pytest.mark.parametrize("name", ["csp-random", "csp-minprob", "csp-edge", "csp-limited", "best"])
def test_csp_players_clear_subset_cells(name):
    player = get_player(name)
    assert sorted(player.next_moves(parse_board(SUBSET, mines=1), RNG)) == [(0, 2), (2, 2)]
    assert player.turn_guesses == 0


def guess_positions(seeds=range(4), preset="beginner", size=None):
    """Positions where csp inference is stuck, from seeded games played by csp-minprob."""
    player = get_player("csp-minprob")
    for seed in seeds:
        game = Game(*size, seed=seed) if size else Game.from_preset(preset, seed=seed)
        game.reveal(0, 0)
        player.new_game()
        while not game.over:
            board = game.board()
            moves = player.next_moves(board, RNG)
            if player.turn_guesses:
                yield board, moves[0]
            for cell in moves:
                game.reveal(*cell)
                if game.over:
                    break


def test_csp_minprob_picks_lowest_exact_probability():
    seen = 0
    for board, move in guess_positions():
        exact = solve(board).exact
        assert exact[move] == min(exact.values())
        seen += 1
    assert seen > 0


def test_csp_random_never_guesses_a_proven_mine():
    player = get_player("csp-random")
    board = parse_board("1???\n", mines=2)  # (0,1) is a proven mine, the rest 50/50
    moves = set()
    for seed in range(10):
        player.new_game()
        moves.update(player.next_moves(board, np.random.default_rng(seed)))
    assert moves == {(0, 2), (0, 3)}


def test_edge_heuristic_prefers_border_within_tolerance():
    board = parse_board("?????\n?????\n?????\n?????\n?????\n", mines=5)
    probs = np.full(board.shape, 0.2)
    probs[2, 2] = 0.17  # within 0.05 of the minimum: the border wins
    unknown = np.ones(board.shape, bool)
    cell = edge_heuristic(board, probs, unknown, 0)
    assert edge_distance(5, 5)[cell] == 0
    # Among border cells, equation (4) favours corners (fewest neighbours).
    assert cell in {(0, 0), (0, 4), (4, 0), (4, 4)}
    probs[2, 2] = 0.1  # clearly safer: taken despite the distance
    assert edge_heuristic(board, probs, unknown, 0) == (2, 2)


def test_limited_sampling_finds_every_solution_when_caps_allow():
    components = [
        component
        for board, _ in guess_positions(seeds=range(6), preset="intermediate")
        for component in reduce_system(build_system(board)).components
    ]
    assert any(component.n_groups > 3 for component in components)
    backend = get_backend("dss")
    for component in components:
        sample = sample_component(component, RNG, 10**6, 10**7)
        assert len(set(xs for xs, _ in sample)) == len(sample)
        assert sum(w for _, w in sample) == backend.count(component).total
        capped = sample_component(component, RNG, 2, 10**7)
        assert len(capped) == min(2, len(sample))


RING = "??????\n??111?\n??1?1?\n??111?\n??????\n"


def test_probe_marks_dead_cells():
    board = parse_board(RING, mines=6)
    player = BestPlayer()
    solution = solve(board)
    assert player.probe(board, solution, (2, 3)).dead  # every neighbour is revealed
    probe = player.probe(board, solution, (0, 0))
    assert not probe.dead
    assert probe.safety == pytest.approx(1 - solution.probabilities[0, 0])


def test_best_avoids_dead_cells(monkeypatch):
    board = parse_board(RING, mines=6)
    # The ring has certainly safe cells, which domination would rightly play instead.
    player = BestPlayer(tree_layouts=0, implied=False)
    monkeypatch.setattr(BestPlayer, "candidates", lambda self, b, s: [(2, 3), (0, 0)])
    assert player.guess(board, solve(board), RNG) == (0, 0)


def test_dead_cells_found_before_probing_are_dead():
    # A row over a row of ones: each cell's number would be fixed by the 1 below it.
    wall = parse_board("???\n111\n", mines=1)
    assert all(is_dead(wall.cells, wall.cells == -2, (0, c)) for c in range(3))
    player = BestPlayer()
    found = 0
    for board, _ in guess_positions(seeds=range(3), preset="intermediate"):
        solution = solve(board)
        mines = solution.probabilities == 1.0
        for odd in solution.odds:
            if isinstance(odd.cells, np.ndarray) or odd.num in (0, odd.den):
                continue
            for cell in odd.cells:
                if is_dead(board.cells, mines, cell):
                    found += 1
                    assert player.probe(board, solution, cell).dead
    assert found > 0


def test_probe_scores_a_winning_click_as_survival():
    board = parse_board("??\n", mines=1)  # a safe click wins: nothing but the mine is left
    player = BestPlayer()
    probe = player.probe(board, solve(board), (0, 0))
    assert probe.safety == probe.survive2 == 0.5


def test_next_click_counts_only_living_certain_cells_as_progress():
    player = BestPlayer()
    # (1,2) is a 0: (0,1) and (0,2) are safe, but both numbers are already fixed.
    dead_safe = player.next_click(solve(parse_board("???\n110\n", mines=1)))
    assert dead_safe.safety == 1.0 and not dead_safe.progress
    # (0,0) and (0,1) are safe, and (0,1) would show something new.
    living_safe = player.next_click(solve(parse_board("???\n01?\n01?\n", mines=1)))
    assert living_safe.safety == 1.0 and living_safe.progress


def test_candidates_are_living_and_near_the_safest():
    player = BestPlayer(tolerance=0.1)
    checked = 0
    for board, _ in guess_positions(seeds=range(10), preset="intermediate"):
        player.new_game()
        solution = solve(board)
        safety = 1 - solution.probabilities
        mines = solution.probabilities == 1.0
        living = {
            cell
            for odd in solution.odds
            if not isinstance(odd.cells, np.ndarray) and 0 < odd.num < odd.den
            for cell in odd.cells
            if not is_dead(board.cells, mines, cell)
        }
        free = any(isinstance(odd.cells, np.ndarray) for odd in solution.odds)
        cells = player.candidates(board, solution)
        assert cells and len(set(cells)) == len(cells)
        if not living and not free:
            assert len(cells) == 1  # all dead: the safest of them
            continue
        frontier = [c for c in cells if c in living]
        assert len(frontier) + (3 if free else 0) >= len(cells)
        best = max(safety[c] for c in cells)
        # Every living frontier cell within 10 % of the safest candidate is a candidate.
        assert {c for c in living if safety[c] >= 0.9 * best + 1e-12} <= set(cells)
        checked += 1
    assert checked > 3


def test_forced_pair_detected_only_when_isolated():
    pair = parse_board("11\n??\n", mines=1)
    assert forced_pair(pair, solve(pair)) in {(1, 0), (1, 1)}
    open_pair = parse_board("11\n??\n??\n", mines=2)
    assert forced_pair(open_pair, solve(open_pair)) is None


def test_endgame_search_values():
    pair = parse_board("11\n??\n", mines=1)
    cell, win = solve_endgame(pair)
    assert win == 0.5 and cell in {(1, 0), (1, 1)}
    # One mine next to the 1; the end cells are safe and clicking one tells which side.
    assert solve_endgame(parse_board("??1??\n", mines=1)) == ((0, 0), 1.0)
    # Two mines: a 50/50 next to the 1 and another among the end cells.
    assert solve_endgame(parse_board("??1??\n", mines=2))[1] == 0.5


def exhaustive_win(board):
    """Win chance of perfect play, trying every covered cell at every node (no pruning)."""
    cells, layouts = enumerate_layouts(board, 10**6)
    rows, cols = board.shape

    def shown(layout, cell, opened):
        stack, seen = [cell], []
        opened = opened | {cell}
        while stack:
            r, c = stack.pop()
            nb = [(r + a, c + b) for a in (-1, 0, 1) for b in (-1, 0, 1) if (a, b) != (0, 0)]
            nb = [x for x in nb if 0 <= x[0] < rows and 0 <= x[1] < cols]
            value = sum(
                board.cells[x] == -2 or (x in cells and layout >> cells.index(x) & 1) for x in nb
            )
            seen.append(((r, c), value))
            if value == 0:
                for x in nb:
                    if x in cells and x not in opened:
                        opened = opened | {x}
                        stack.append(x)
        return frozenset(opened), tuple(sorted(seen))

    memo = {}

    def value(states, opened):
        if (states, opened) in memo:
            return memo[states, opened]
        todo = [
            x
            for i, x in enumerate(cells)
            if x not in opened and any(not s >> i & 1 for s in states)
        ]
        if len(states) == 1 or not todo:
            return Fraction(1)
        best = Fraction(0)
        for x in todo:
            i = cells.index(x)
            parts = {}
            for s in states:
                if not s >> i & 1:
                    o, seen = shown(s, x, opened)
                    parts.setdefault((o, seen), []).append(s)
            won = sum(len(p) * value(tuple(p), o) for (o, _), p in parts.items())
            best = max(best, won / len(states))
        memo[states, opened] = best
        return best

    return value(tuple(layouts), frozenset())


def test_endgame_search_matches_exhaustive_search():
    checked = 0
    for board, _ in guess_positions(seeds=range(60), size=(4, 5, 5)):
        found = enumerate_layouts(board, 16)
        if found is None:
            continue
        move = solve_endgame(board, 16)
        assert move is not None
        assert move[1] == pytest.approx(float(exhaustive_win(board)))
        checked += 1
    assert checked > 5


def test_isolated_regions_keep_their_exact_probabilities():
    # Cut out of the board, an isolated region with a fixed mine count has the same exact
    # probabilities as on the whole board: nothing outside informs it.
    checked = 0
    for board, _ in guess_positions(seeds=range(12), preset="expert"):
        memory = MineMemory()
        memory.known(board)
        memory.add(solve(board).mines)
        flagged = memory.flagged(board)
        full = solve(flagged).exact
        for region in isolated_regions(flagged):
            sub = region_board(flagged, region, 500)
            if sub is not None:
                exact = solve(sub).exact
                assert all(exact[cell] == full[cell] for cell in region)
                checked += 1
    assert checked > 3


def test_enumerated_layouts_match_exact_count():
    checked = 0
    for board, _ in guess_positions(seeds=range(8), size=(5, 6, 6)):
        found = enumerate_layouts(board, 5000)
        weight = solve(board).weight
        if found is None:
            assert weight > 5000
        else:
            assert len(found[1]) == weight
            checked += 1
            move = solve_endgame(board, 200, budget=500)
            if move is not None:  # winning needs the first click to survive
                cell, win = move
                assert 0 < win <= 1 - solve(board).probabilities[cell] + 1e-12
    assert checked > 3


def test_probability_player_follows_the_map():
    board = parse_board("???\n???\n", mines=1)
    probs = np.array([[0.5, 0.1, 0.3], [0.0, 0.0, 0.9]])
    player = ProbabilityPlayer(lambda b: probs)
    assert player.next_moves(board, RNG) == [(1, 0)] and player.turn_guesses == 0
    batch = ProbabilityPlayer(lambda b: probs, safe_below=0.1)
    assert batch.next_moves(board, RNG) == [(0, 1), (1, 0), (1, 1)]
    board.cells[1, 0] = board.cells[1, 1] = 0
    assert player.next_moves(board, RNG) == [(0, 1)] and player.turn_guesses == 1


def test_registry_and_errors():
    assert list(PLAYERS)[:2] == ["sps", "rules"] and "best" in PLAYERS
    for name, cls in PLAYERS.items():
        assert cls.name == name and cls.__doc__
    with pytest.raises(InvalidInputError, match="choose from"):
        get_player("nope")
    with pytest.raises(InvalidInputError, match="csp-edge"):
        get_player("csp-edge", bogus=1)
    with pytest.raises(InvalidInputError, match="heuristic"):
        get_player("csp-limited", heuristic="nope")


def test_learner_spec_loads_lazily(monkeypatch):
    registry = pytest.importorskip("learners.registry")
    if not registry.SYSTEMS["learner"].supported():
        pytest.skip("needs mscsp[ml]")
    calls = []

    def learner_player(path):
        calls.append(path)
        return ProbabilityPlayer(lambda b: np.zeros(b.shape))

    # The registry imports the module its entry names only now: a stand-in module shows it.
    module = types.ModuleType("learners.nets.learner")
    module.make_learner = learner_player
    monkeypatch.setitem(sys.modules, "learners.nets.learner", module)
    player = get_player("learner:models/x.npz")
    assert isinstance(player, ProbabilityPlayer) and calls == ["models/x.npz"]


def test_mine_memory_resets_on_new_layout():
    memory = MineMemory()
    board = parse_board("11\n??\n", mines=1)
    memory.sync(board)
    memory.add([(1, 0)])
    assert memory.known(board)[1, 0]
    board.cells[1, 0] = 2  # a remembered mine shows as revealed: another game
    assert not memory.known(board).any()


def test_exact_probability_fraction_type():
    board = parse_board("11\n??\n", mines=1)
    assert solve(board).exact[(1, 0)] == Fraction(1, 2)
