"""``best``'s look-ahead pruning and its endgame-search budget, on positions from real games."""

from __future__ import annotations

import numpy as np
from test_players import guess_positions

from mscsp import solve
from mscsp.players.best import _EPS, BestPlayer

RNG = np.random.default_rng(0)


def test_pruned_probes_choose_what_full_probes_choose():
    """Stopping a probe early (likeliest numbers first) never changes the chosen cell."""
    player = BestPlayer(tree_layouts=0, pseudo=False, looming=False, implied=False)
    checked = 0
    for board, _ in guess_positions(seeds=range(8), preset="intermediate"):
        player.new_game()
        solution = player.memory.solution(player.memory.reduce(board))
        flagged = player.memory.flagged(board)
        if solution.safe:
            continue
        full = [player.probe(flagged, solution, c) for c in player.candidates(flagged, solution)]
        living = [p for p in full if not p.dead]
        if not living:
            continue
        best = living[0]
        for probe in living[1:]:
            if player.score(probe) > player.score(best) + _EPS:
                best = probe
        expected = best.cell
        safety = 1.0 - solution.probabilities
        if best.next_cell is not None and safety[best.next_cell] > best.safety + _EPS:
            expected = best.next_cell
        assert player.guess(board, solution, RNG) == expected
        checked += 1
    assert checked > 5


def test_a_search_that_outgrew_its_budget_waits_for_fewer_layouts():
    player = BestPlayer(tree_layouts=10**4, tree_budget=1, pseudo=False)
    for board, _ in guess_positions(seeds=range(20), size=(6, 6, 7)):
        player.new_game()
        solution = solve(board)
        if 2 < solution.weight <= 10**4 and not solution.safe:
            break
    else:
        raise AssertionError("no small position")
    player.guess(board, solution, RNG)
    assert player.reason != "endgame"
    assert player.outgrown == solution.weight
    player.new_game()
    assert player.outgrown > 10**4
