"""bench/players/lookahead_on_engine.py: its guesses are best's look-ahead's."""

from __future__ import annotations

import numpy as np

from bench.players.lookahead_on_engine import COLS, MINES, ROWS, guess
from mscsp import _engine, compiled, compiled_play
from mscsp._kernel_status import COUNTED
from mscsp.game import Game, first_move
from mscsp.harness import game_seeds
from mscsp.players import get_player
from mscsp.players.fifty import looming_fifties


def test_the_engines_look_ahead_guesses_as_best_does():
    """Where best guesses by its look-ahead (no 50/50 or endgame rule, no looming 50/50)
    and the kernel probes every candidate, the experiment's guess is best's."""
    compiled.load()
    best = get_player("best")
    probe_scratch = compiled.scratch(ROWS, COLS)
    compared = 0
    for index in range(40):
        layout, _, move = game_seeds(5, index)
        game = Game(ROWS, COLS, MINES, seed=layout)
        game.reveal(*first_move("corner", ROWS, COLS, np.random.default_rng(move)))
        played = compiled_play.CompiledGame(game)
        best.new_game()
        while played.run(stop_at_guess=True):
            cell, skipped = guess(played, 0.1, 1000, probe_scratch)
            board = played.board()
            assert board.cells.reshape(-1)[cell] == -1  # a covered cell
            if played.status in (_engine.GUESS, COUNTED) and not skipped:
                solution = played.solution()
                best.memory.adopt(board, played.known_flat())
                theirs, reason = best._guess(board, solution)
                if reason in ("lookahead", "dominated", "implied") and not looming_fifties(
                    best.memory.flagged(board), solution
                ):
                    assert divmod(cell, COLS) == theirs
                    compared += 1
            played.click([divmod(cell, COLS)], guess=True)
    assert compared >= 20
