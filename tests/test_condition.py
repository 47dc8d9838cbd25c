"""The look-ahead's probes by conditioning the position's count (``mscsp.engine._condition``) give
what solving every outcome's board gives (``conditioned`` off), on the guesses of real
games: from the position solved again, and from the engine's own answer, whose proven
mines are flagged only afterwards."""

from __future__ import annotations

import numpy as np
import pytest

from mscsp.board import COVERED, FLAG
from mscsp.engine import compiled
from mscsp.evaluation.harness import RunConfig, play_game
from mscsp.players.lookahead import LookaheadPlayer

pytestmark = pytest.mark.skipif(compiled.numba_missing(), reason="the kernel needs numba")


class Recording(LookaheadPlayer):
    """``csp-lookahead`` guessing in Python, keeping every position it guesses in."""

    engine_looks_ahead = False

    def __init__(self):
        super().__init__()
        self.views: list[np.ndarray] = []

    def guess(self, board, solution, rng=None):
        self.views.append(board.cells.copy())
        return super().guess(board, solution, rng)


def _guess_views(rows: int, cols: int, mines: int, games: range) -> list[np.ndarray]:
    player = Recording()
    config = RunConfig("csp-lookahead", rows, cols, mines, seed=11)
    for index in games:
        play_game(player, config, index)
    return player.views


def _probes(cells, mines, now, x, e, base, conditioned, scratch):
    from mscsp.engine import _probe

    rows, cols = now.shape
    flat = cells.reshape(-1)
    which = np.flatnonzero((flat == COVERED) & (now.reshape(-1) < 1.0)).astype(np.int64)[:24]
    found = np.empty((len(which), 5))
    implied = np.empty((len(which), flat.size), dtype=np.bool_)
    done, _ = _probe.probe_cells(
        flat, rows, cols, mines, which, np.ones(len(which)), now.reshape(-1), x, e, np.nan,
        0.0, 0.1, 0.2, found, implied, scratch, base, conditioned,
    )  # fmt: skip
    return done, found[:done], implied[:done]


@pytest.mark.parametrize(("rows", "cols", "mines", "games"), [(9, 9, 10, 40), (16, 30, 99, 12)])
def test_conditioned_probes_are_the_solved_ones(rows, cols, mines, games):
    compiled.load()
    from mscsp.engine import _condition, _kernel, _probe
    from mscsp.engine._kernel_status import APPROX, DONE, FLOAT_MAP, SURE_MINE

    views = _guess_views(rows, cols, mines, range(games))
    assert len(views) > games // 2
    n = rows * cols
    compared = 0
    for view in views:
        out, probs, free, odds = compiled.scratch(rows, cols)
        flat = view.reshape(-1).copy()
        status = _kernel.solve_flat(
            flat, rows, cols, mines, out, probs, free, odds, False, FLOAT_MAP
        )
        assert status in (DONE, APPROX)
        cells = flat.copy()  # the proven mines flagged, as the engine's guess does
        for i in range(n):
            if cells[i] == COVERED:
                proven = odds[i] == odds[n + i] if status == DONE else odds[n + i] & SURE_MINE
                cells[i] = FLAG if proven else COVERED
        now = probs.copy()
        x, e = _probe.weight_of(status, out)
        from_answer = _condition.decode_base(cells, mines, out)
        probe_scratch = compiled.scratch(rows, cols)
        solved = _probes(cells, mines, now, x, e, from_answer, False, probe_scratch)
        again, usable = _probe.position(cells, rows, cols, mines, probe_scratch)
        assert usable
        for base in (from_answer, again):
            done, found, implied = _probes(cells, mines, now, x, e, base, True, probe_scratch)
            assert done == solved[0]
            np.testing.assert_allclose(found, solved[1], rtol=0, atol=1e-12)
            assert (implied == solved[2]).all()
            compared += done
    assert compared > 50
