"""The game engine: first-click rules, flood fill, win/loss, replay."""

from __future__ import annotations

import numpy as np
import pytest

import mscsp
from mscsp.board import COVERED, FLAG, neighbour_sum
from mscsp.game import PRESETS, first_move


@pytest.mark.parametrize("seed", range(200))
def test_first_click_rules_hold(seed):
    r, c = seed % 9, (seed * 7) % 9
    safe = mscsp.Game(9, 9, 70, seed=seed, first_click="safe")
    assert safe.reveal(r, c) >= 1
    opening = mscsp.Game(9, 9, 70, seed=seed, first_click="opening")
    opening.reveal(r, c)
    assert not opening.mine[max(r - 1, 0) : r + 2, max(c - 1, 0) : c + 2].any()
    assert opening.view[r, c] == 0


def test_any_rule_can_lose_on_the_first_click():
    losses = 0
    for seed in range(60):
        game = mscsp.Game(4, 4, 12, seed=seed, first_click="any")
        losses += game.reveal(0, 0) == -1
    assert 20 < losses < 60  # 12/16 of first clicks hit a mine


def test_same_seed_same_layout_and_different_seeds_differ():
    layouts = []
    for seed in (1, 1, 2):
        game = mscsp.Game.from_preset("expert", seed=seed)
        game.reveal(0, 0)
        layouts.append(game.mine.copy())
    assert np.array_equal(layouts[0], layouts[1])
    assert not np.array_equal(layouts[0], layouts[2])
    assert layouts[0].sum() == PRESETS["expert"][2]
    assert layouts[0].shape == (16, 30)


def test_flood_fill_opens_a_huge_sparse_board_without_recursion():
    game = mscsp.Game(1000, 1000, 4000, seed=5)
    opened = game.reveal(500, 500)
    assert opened > 900_000
    revealed = game.view != COVERED
    numbers = neighbour_sum(game.mine)
    # Every revealed cell shows its true number, and every revealed zero opened its
    # neighbours.
    assert np.array_equal(game.view[revealed], numbers[revealed])
    zeros = (game.view == 0).astype(np.int8)
    assert not (neighbour_sum(zeros).astype(bool) & ~revealed & ~game.mine).any()


def test_win_and_loss_are_detected():
    layout = np.array([[False, False, True, False, True]])  # . 1 * 2 *
    game = mscsp.Game(1, 5, 2, layout=layout)
    assert game.reveal(0, 0) == 2
    assert game.reveal(0, 1) == 0  # already open
    assert game.state == "playing"
    assert game.reveal(0, 3) == 1
    assert game.state == "won"
    assert game.view.tolist() == [[0, 1, COVERED, 2, COVERED]]
    lost = mscsp.Game(1, 5, 2, layout=layout)
    assert lost.reveal(0, 2) == -1
    assert lost.state == "lost"
    with pytest.raises(mscsp.InvalidInputError, match="over"):
        lost.reveal(0, 0)


def test_save_and_replay_reproduce_the_game():
    game = mscsp.Game.from_preset("intermediate", seed=9, first_click="opening")
    game.reveal(3, 3)
    rng = np.random.default_rng(0)
    while not game.over:
        covered = np.argwhere(game.view == COVERED)
        game.flag(*(int(v) for v in covered[0]))
        game.flag(*(int(v) for v in covered[0]))
        r, c = covered[rng.integers(len(covered))]
        game.reveal(int(r), int(c))
    copy = mscsp.Game.replay(game.to_json())
    assert copy.state == game.state
    assert np.array_equal(copy.view, game.view)
    assert np.array_equal(copy.mine, game.mine)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"rows": 0, "cols": 5, "mines": 1}, "at least 1x1"),
        ({"rows": 3, "cols": 3, "mines": 9}, "do not fit"),
        ({"rows": 3, "cols": 3, "mines": 1, "first_click": "opening"}, "do not fit"),
        ({"rows": 5, "cols": 5, "mines": 1, "first_click": "maybe"}, "unknown first-click"),
        ({"rows": 2000, "cols": 2000, "mines": 1}, "too large"),
    ],
)
def test_bad_game_settings_are_rejected(kwargs, fragment):
    with pytest.raises(mscsp.InvalidInputError, match=fragment):
        mscsp.Game(**kwargs)


def test_first_move_policies():
    assert first_move("corner", 16, 30) == (0, 0)
    assert first_move("center", 16, 30) == (8, 15)
    assert first_move("3,3", 16, 30) == (3, 3)
    r, c = first_move("random", 16, 30, np.random.default_rng(1))
    assert 0 <= r < 16 and 0 <= c < 30
    with pytest.raises(mscsp.InvalidInputError):
        first_move("99,0", 16, 30)
    with pytest.raises(mscsp.InvalidInputError):
        first_move("edge", 16, 30)


def test_small_boards_open_zero_regions_as_the_labels_do(monkeypatch):
    """The walk of small boards (:meth:`Game._flood`) and the labels of large ones open the
    same cells, flags and cells shown before included, on every click of random games."""
    import mscsp.game

    rng = np.random.default_rng(12)
    zero_clicks = 0
    for _ in range(60):
        rows, cols = (int(x) for x in rng.integers(2, 20, size=2))
        mines = int(rng.integers(1, rows * cols // 4 + 2))
        layout = np.zeros(rows * cols, dtype=bool)
        layout[rng.choice(rows * cols, min(mines, rows * cols - 1), replace=False)] = True
        layout = layout.reshape(rows, cols)
        games = []
        for limit in (rows * cols, 0):  # the walk, then the labels
            monkeypatch.setattr(mscsp.game, "FLOOD_CELLS", limit)
            games.append(mscsp.Game(rows, cols, int(layout.sum()), layout=layout))
        safe = np.argwhere(~layout)
        for r, c in safe[rng.permutation(len(safe))[:8]]:
            if rng.random() < 0.3:  # a flag on a cell a region would open
                for game in games:
                    placed = np.count_nonzero(game.view == FLAG)
                    if game.view[r, c] == COVERED and placed < game.mines:
                        game.flag(int(r), int(c))
                continue
            opened = []
            for game, limit in zip(games, (rows * cols, 0), strict=True):
                monkeypatch.setattr(mscsp.game, "FLOOD_CELLS", limit)
                if not game.over:
                    opened.append(game.reveal(int(r), int(c)))
            assert len(set(opened)) <= 1
            zero_clicks += bool(opened) and opened[0] > 1
            assert np.array_equal(games[0].view, games[1].view)
            assert games[0].state == games[1].state
    assert zero_clicks > 20
