"""The per-game session: incremental answers equal one-shot ``mscsp.solve`` exactly."""

from __future__ import annotations

import networkx
import numpy as np
import pytest

import mscsp
from mscsp.board import COVERED
from mscsp.errors import InconsistentBoardError, InvalidInputError
from mscsp.evaluation.harness import RunConfig, play_batch, play_game
from mscsp.evaluation.played_positions import game_positions
from mscsp.game import Game
from mscsp.players import get_player
from mscsp.players.base import cells_of, neighbours, single_point
from mscsp.session import GameSession


def real_games(preset: str, seeds: range, flag_mines: bool = False):
    """Each seeded game's positions in order, as a player meets them."""
    for seed in seeds:
        yield list(
            game_positions(Game.from_preset(preset, seed=seed), (0, 0), flag_mines=flag_mines)
        )


def assert_same(got: mscsp.Solution, board: mscsp.Board | mscsp.Solution) -> None:
    """``got`` (solved with proven mines flagged) against the one-shot solve of ``board``."""
    want = board if isinstance(board, mscsp.Solution) else mscsp.solve(board)
    assert got.weight == want.weight
    for cell, p in want.exact.items():
        assert got.exact.get(cell, 1) == p  # proven mines are flags in ``got``


@pytest.mark.parametrize("flags", [False, True])
@pytest.mark.parametrize(
    ("preset", "seeds"), [("beginner", range(12)), ("intermediate", range(6)), ("expert", range(4))]
)
def test_every_position_of_real_games_as_one_shot(preset, seeds, flags):
    positions = 0
    for boards in real_games(preset, seeds, flags):
        session = GameSession()
        for board in boards:
            got = session.solve(board)
            assert_same(got, board)
            # And the very system one-shot solves once the proven mines are flagged; where
            # the single-point rules are stuck (when players solve), odd for odd.
            flagged = mscsp.solve(session.flagged(board))
            assert got.exact == flagged.exact
            if not session.single_point(board):
                assert len(got.odds) == len(flagged.odds)
                for mine, theirs in zip(got.odds, flagged.odds, strict=True):
                    assert (mine.num, mine.den) == (theirs.num, theirs.den)
                    assert np.array_equal(mine.cells, theirs.cells)
            positions += 1
    assert positions > 20


def test_what_if_equals_solving_the_changed_board():
    rng = np.random.default_rng(5)
    checked = 0
    for preset in ("beginner", "expert"):
        for boards in real_games(preset, range(2)):
            session = GameSession()
            for board in boards:
                flagged = session.flagged(board)
                covered = np.argwhere(flagged.cells == COVERED)
                for r, c in covered[rng.choice(len(covered), size=min(3, len(covered)))]:
                    cell = (int(r), int(c))
                    for value in range(9):
                        cells = flagged.cells.copy()
                        cells[cell] = value
                        try:
                            want = mscsp.solve(mscsp.Board(cells, board.mines))
                        except InconsistentBoardError:
                            with pytest.raises(InconsistentBoardError):
                                session.what_if(flagged, cell, value)
                            continue
                        assert_same(session.what_if(flagged, cell, value), want)
                        checked += 1
                # The session is left at the position: it still solves it as before.
                assert_same(session.solve(board), board)
    assert checked > 50


def test_single_point_pass_finds_what_the_array_rules_find():
    for boards in real_games("intermediate", range(6)):
        session = GameSession()
        mines = np.zeros(boards[0].shape, dtype=bool)
        for board in boards:
            safe, mines = single_point(board.cells, mines)
            assert session.single_point(board) == cells_of(safe)
            assert (session.known(board) == mines).all()
            proven = session.solve(board).mines
            session.add(proven)
            for cell in proven:
                mines[cell] = True


def test_a_board_from_another_game_starts_afresh():
    first, second = (boards[len(boards) // 2] for boards in real_games("expert", range(2)))
    session = GameSession()
    assert_same(session.solve(first), first)
    assert_same(session.solve(second), second)  # cells went back to covered
    # A remembered mine shown as a number: another game.
    board = mscsp.parse_board("11\n??\n", mines=1)
    session.sync(board)
    session.add([(1, 0)])
    assert session.known(board)[1, 0]
    board.cells[1, 0] = 1
    assert not session.known(board).any()
    # A flag taken back from a cell no number proves a mine: its memory is gone too.
    flagged = mscsp.parse_board("1F\n??\n", mines=1)
    assert session.solve(flagged).exact == mscsp.solve(flagged).exact
    unflagged = mscsp.parse_board("1?\n??\n", mines=1)
    assert_same(session.solve(unflagged), unflagged)


@pytest.mark.parametrize("every", [1, 3])
def test_an_adopted_position_answers_as_one_followed_click_by_click(every):
    """A session given each position (or every third) with its proven mines by ``adopt``,
    as a compiled game hands them over, and fed the positions between by ``sync``: the
    same mines, single-point cells, solutions and what-ifs as a session that followed
    every click."""
    checked = 0
    for boards in real_games("expert", range(2)):
        followed, adopted = GameSession(), GameSession()
        for step, board in enumerate(boards):
            if step % every == 0:
                known = np.flatnonzero(followed.known(board))
                adopted.adopt(board, known)
                assert (adopted.known(board) == followed.known(board)).all()
                assert (adopted.unknown(board) == followed.unknown(board)).all()
                # A copy with the proven mines flagged is the same position.
                flagged = adopted.flagged(board)
                assert (adopted.unknown(flagged) == followed.unknown(board)).all()
            assert adopted.single_point(board) == followed.single_point(board)
            assert (adopted.known(board) == followed.known(board)).all()
            got, want = adopted.solve(board), followed.solve(board)
            assert got.exact == want.exact and got.weight == want.weight
            covered = np.argwhere(followed.unknown(board))
            if len(covered):
                cell = tuple(int(x) for x in covered[len(covered) // 2])
                for value in range(3):
                    try:
                        then = followed.what_if(board, cell, value)
                    except InconsistentBoardError:
                        with pytest.raises(InconsistentBoardError):
                            adopted.what_if(board, cell, value)
                        continue
                    assert adopted.what_if(board, cell, value).exact == then.exact
            followed.add(want.mines)
            adopted.add(want.mines)
            checked += 1
    assert checked > 20


def test_adopt_refuses_mines_that_are_not_the_boards():
    board = mscsp.parse_board("1?\n??\n", mines=1)
    session = GameSession()
    for bad in (np.array([4]), np.array([-1]), np.array([1.0]), np.array([0])):
        with pytest.raises(InvalidInputError, match="mine indices"):
            session.adopt(board, bad)
    session.adopt(board, np.array([3, 3]))
    assert session.known(board).sum() == 1 and session.known(board)[1, 1]
    assert session.solve(board).exact == mscsp.solve(session.flagged(board)).exact


def test_inconsistent_positions_fail_as_one_shot():
    session = GameSession()
    for text, mines in (("1.\n.?\n", 0), ("3?\n??\n", 2), ("F2\n??\n", 1), ("1?\n1?\n", 2)):
        board = mscsp.parse_board(text, mines=mines)
        with pytest.raises(InconsistentBoardError):
            mscsp.solve(board)
        with pytest.raises(InconsistentBoardError):
            session.solve(board)


@pytest.mark.parametrize("strategy", ["csp-minprob", "best"])
def test_a_players_games_do_not_depend_on_the_games_before(strategy):
    config = RunConfig(strategy, 9, 9, 10, seed=8)
    together = play_batch(config, list(range(6)))
    apart = play_batch(config, [5, 4]) + play_batch(config, [0, 1, 2, 3])
    strip = lambda rs: sorted((r.index, r.won, r.moves, r.guesses) for r in rs)  # noqa: E731
    assert strip(together) == strip(apart)
    fresh = [play_game(get_player(strategy), config, i) for i in range(6)]
    assert strip(fresh) == strip(together)


def graph_isolated_regions(board):
    """Reference: covered regions that the rest of the board cannot inform (networkx).

    Covered cells (flags aside) are joined when they touch or share a revealed number; a
    region all of whose cells touch a number has no unconstrained cell, so the numbers
    around it see only its own cells, and clicks elsewhere never show anything about it.
    """
    cells_arr = board.cells
    rows, cols = cells_arr.shape
    graph = networkx.Graph()
    graph.add_nodes_from(map(tuple, np.argwhere(cells_arr == COVERED).tolist()))
    constrained = set()
    for r, c in np.argwhere(cells_arr >= 0).tolist():
        seen = [n for n in neighbours((r, c), rows, cols) if n in graph]
        constrained.update(seen)
        graph.add_edges_from((seen[0], n) for n in seen[1:])
    for cell in list(graph):
        graph.add_edges_from((cell, n) for n in neighbours(cell, rows, cols) if n in graph)
    return [
        sorted(region)
        for region in networkx.connected_components(graph)
        if all(cell in constrained for cell in region)
    ]


@pytest.mark.parametrize("path", ["uncompiled", "compiled"])
def test_isolated_regions_are_the_graphs(path, monkeypatch):
    from mscsp.engine import compiled
    from mscsp.session import isolated_regions

    if path == "uncompiled":
        monkeypatch.setattr(compiled, "enabled", False)
    elif compiled.numba_missing():
        pytest.skip("the compiled path needs numba")
    else:
        compiled.load()

    found = 0
    for preset, seeds in (("beginner", range(10)), ("intermediate", range(4))):
        for boards in real_games(preset, seeds, flag_mines=True):
            for board in boards:
                regions = isolated_regions(board)
                assert regions == graph_isolated_regions(board)
                found += bool(regions)
    assert found > 5
    assert isolated_regions(mscsp.parse_board("??\n??\n", mines=1)) == []


def test_a_cell_code_that_means_nothing_is_refused():
    cells = np.array([[1, -1], [-1, -1]], dtype=np.int8)
    board = mscsp.Board(cells, 1)
    cells[0, 1] = -5  # changed behind the Board's back, which refuses -5 when it is made
    with pytest.raises(InvalidInputError, match="-5"):
        GameSession().solve(board)
