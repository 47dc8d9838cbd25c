"""What the page shows beyond the odds (issue 32), through the JSON API: dead cells and
50/50 pairs against a brute force over every layout, ``best``'s "why", the Mines box's
count for a board without a header, and the cell an inconsistent board's error names."""

from __future__ import annotations

import re
import warnings
from itertools import combinations
from math import comb

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web analyser needs pip install 'mscsp[web]'")
pytest.importorskip("httpx", reason="Starlette's test client needs httpx")

with warnings.catch_warnings():  # Starlette 1.x suggests httpx2; httpx works the same here
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

import mscsp  # noqa: E402
from mscsp.board import COVERED, FLAG  # noqa: E402
from mscsp.contradiction import locate_contradiction  # noqa: E402
from mscsp.errors import InconsistentBoardError, format_cell  # noqa: E402
from mscsp.players import get_player  # noqa: E402
from mscsp.players.base import neighbours  # noqa: E402
from mscsp.web import service  # noqa: E402
from mscsp.web.app import create_app  # noqa: E402
from mscsp.web.service import Limits, marks_request, suggest_request  # noqa: E402

#: Most placements the brute force tries per position.
MOST = 50_000


@pytest.fixture(scope="module")
def client() -> TestClient:
    with TestClient(create_app()) as test_client:
        yield test_client


def layouts(board: mscsp.Board) -> list[frozenset] | None:
    """Every set of mines on the covered cells that meets every number and the total
    (``None``: too many to try)."""
    rows, cols = board.shape
    covered = [tuple(map(int, c)) for c in np.argwhere(board.cells == COVERED)]
    left = board.mines - int((board.cells == FLAG).sum())
    if not 0 <= left <= len(covered) or comb(len(covered), left) > MOST:
        return None
    numbers = [
        (tuple(map(int, c)), int(board.cells[tuple(c)])) for c in np.argwhere(board.cells >= 0)
    ]
    found = []
    for chosen in combinations(covered, left):
        mines = set(chosen)
        if all(
            sum(1 for n in neighbours(cell, rows, cols) if n in mines or board.cells[n] == FLAG)
            == value
            for cell, value in numbers
        ):
            found.append(frozenset(mines))
    return found


def brute_marks(board: mscsp.Board, found: list[frozenset]) -> tuple[set, set]:
    """Dead cells and 50/50 pairs, straight from their definitions over every layout."""
    rows, cols = board.shape
    covered = [tuple(map(int, c)) for c in np.argwhere(board.cells == COVERED)]
    always = {c for c in covered if all(c in m for m in found)}
    undecided = [c for c in covered if c not in always and any(c in m for m in found)]

    def shown(cell, mines) -> int:
        return sum(1 for n in neighbours(cell, rows, cols) if n in mines or board.cells[n] == FLAG)

    dead = {c for c in undecided if len({shown(c, m) for m in found if c not in m}) == 1}
    pairs = set()
    for a, b in combinations(undecided, 2):
        if 2 * sum(1 for m in found if a in m) != len(found):
            continue
        if 2 * sum(1 for m in found if b in m) != len(found):
            continue
        if not all((a in m) != (b in m) for m in found):
            continue
        near_a, near_b = set(neighbours(a, rows, cols)), set(neighbours(b, rows, cols))
        told = (near_a ^ near_b) - {a, b}  # cells next to one of them only
        if all(board.cells[n] == FLAG or n in always for n in told):
            pairs.add((a, b))
    return dead, pairs


HANDMADE = [
    "2x3x1\n??\n11\n..\n",  # the classic pair at the top edge
    "3x3x2\n?1.\n?2.\n?1.\n",  # three in a column, two mines: no pair
    "4x3x1\n??1.\n111.\n....\n",  # a pair with a number beside one of them only
    "4x4x2\n??..\n??..\n22..\n....\n",
    "5x3x2\n?1?1?\n?2?2?\n11111\n",
    # Pairs no single number shows to hold one mine (the count around the other shows it):
    "2x7x3\n??\n?1\n??\n?1\n1F\n??\n??\n",
    "2x6x3\n??\n??\n1?\n?2\n??\n1?\n",
]


def test_marks_match_the_brute_force(positions):
    checked = with_dead = with_pair = 0
    boards = [mscsp.parse_board(text) for text in HANDMADE] + [b for b, _ in positions[:120]]
    for board in boards:
        found = layouts(board)
        if not found:
            continue
        answer = marks_request({"board": board.to_text()}, Limits())
        dead, pairs = brute_marks(board, found)
        assert {tuple(c) for c in answer["dead"]} == dead, board.to_text()
        assert {(tuple(a), tuple(b)) for a, b in answer["fifty_fifty"]} == pairs, board.to_text()
        assert answer["note"] is None and answer["board"] == board.to_text()
        checked += 1
        with_dead += bool(dead)
        with_pair += bool(pairs)
    # Not vacuous: the brute force met dead cells and pairs on some of these boards.
    assert checked > 80 and with_dead > 10 and with_pair >= 2


def test_marks_route_and_its_limits(client, monkeypatch):
    answer = client.post("/api/marks", json={"board": HANDMADE[0]}).json()
    assert answer["fifty_fifty"] == [[[0, 0], [0, 1]]]
    assert answer["dead"] == [[0, 0], [0, 1]]  # each shows 1 whenever it is the safe one
    refused = client.post("/api/marks", json={"board": HANDMADE[0], "backend": "dss"})
    assert refused.status_code == 400 and "unknown field" in refused.json()["error"]["message"]
    # Past the server's cap on undecided cells, dead cells are skipped with a note; the
    # 50/50s are still found.
    monkeypatch.setattr(service, "MAX_DEAD_CELLS", 1)
    capped = marks_request({"board": HANDMADE[0]}, Limits())
    assert capped["dead"] is None and "2 undecided cells" in capped["note"]
    assert capped["fifty_fifty"] == [[[0, 0], [0, 1]]]


def test_a_board_without_a_header_takes_the_mines_field(client):
    text = "???\n?1?\n???\n"
    missing = client.post("/api/solve", json={"board": text})
    assert missing.status_code == 400
    error = missing.json()["error"]
    assert error["kind"] == "parse" and error["missing"] == "mines"
    assert "Mines box" in error["message"] and "--mines" not in error["message"]
    answer = client.post("/api/solve", json={"board": text, "mines": 1}).json()
    assert answer["board"].startswith("3x3x1\n") and answer["mines"] == 1
    want = mscsp.solve(mscsp.parse_board(text, mines=1)).probabilities
    assert np.allclose(np.array(answer["probabilities"], dtype=float), want, equal_nan=True)
    # A malformed text is a malformed text, with or without a count: not "missing mines".
    bad = client.post("/api/solve", json={"board": "??x\n?1?\n"}).json()["error"]
    assert "missing" not in bad and bad["column"] == 3


BAD = [
    "3x3x1\n2??\n???\n???\n",
    "2x2x1\n2?\n??\n",
    "4x1x1\n1??1\n",
    "5x3x2\n1?1..\n???1.\n1?1..\n",
]


def named_cell(board: mscsp.Board) -> tuple[int, int]:
    """The cell ``mscsp probs`` names for an inconsistent board: the solver's, or else the
    one :func:`locate_contradiction` finds."""
    with pytest.raises(InconsistentBoardError) as caught:
        mscsp.solve(board)
    return caught.value.cell or locate_contradiction(board)


@pytest.mark.parametrize("text", BAD)
def test_an_inconsistent_board_names_its_cell(client, text):
    response = client.post("/api/solve", json={"board": text})
    assert response.status_code == 422
    error = response.json()["error"]
    board = mscsp.parse_board(text)
    assert error["kind"] == "inconsistent" and error["board"] == board.to_text()
    assert error["cell"] == list(named_cell(board))
    assert format_cell(error["cell"]) in error["message"]


def guess_positions(seed: int, preset: str = "expert"):
    """Positions of a game ``best`` plays where no cell is certain (it must guess)."""
    game = mscsp.Game.from_preset(preset, seed=seed, first_click="opening")
    player = get_player("best")
    player.new_game()
    rng = np.random.default_rng(0)
    turn = 0
    while not game.over:
        board = game.board()
        if turn and not mscsp.solve(board).safe:
            yield board
        turn += 1
        for move in player.next_moves(board, rng):
            game.reveal(*move)
            if game.over:
                break


def test_why_gives_the_numbers_behind_bests_guess():
    seen = 0
    for seed in range(1, 6):
        for board in guess_positions(seed):
            answer = suggest_request({"board": board.to_text()}, Limits())
            why = answer["why"]
            assert answer["guess"] and why["cell"] == answer["move"]
            solution = mscsp.solve(board)
            pick = why["pick"]
            p = solution.exact[tuple(answer["move"])]
            assert pick["cell"] == answer["move"] and pick["safety"] == pytest.approx(1 - p)
            if why["rule"] != "lookahead":
                continue
            seen += 1
            runner = why["runner_up"]
            w = why["progress_weight"]
            for entry in (pick, runner) if runner else (pick,):
                q = solution.exact[tuple(entry["cell"])]
                assert entry["safety"] == pytest.approx(1 - q)
                assert entry["survive2"] <= entry["safety"] + 1e-12
                assert entry["progress"] <= entry["safety"] + 1e-12
                assert entry["score"] == pytest.approx(entry["survive2"] + w * entry["progress"])
            if runner is None:
                assert why["candidates"] == 1
                continue
            assert runner["cell"] != pick["cell"] and why["candidates"] >= 2
            assert why["lead"] == pytest.approx(pick["score"] - runner["score"])
            assert why["lead"] >= -1e-12  # the pick is the best of every candidate, in full
            break  # one look-ahead guess per game is enough
    assert seen >= 3


def test_why_for_a_certain_cell_and_for_other_players():
    game = mscsp.Game.from_preset("expert", seed=3, first_click="opening")
    game.reveal(8, 15)
    board = game.board()
    answer = suggest_request({"board": board.to_text()}, Limits())
    assert not answer["guess"] and answer["why"]["rule"] == "certain"
    assert answer["why"]["pick"]["safety"] == 1.0
    # The turn opens some of the certain safe cells; they are certain safe cells all the same.
    safe = set(mscsp.solve(board).safe)
    assert {tuple(m) for m in answer["moves"]} <= safe
    for name in ("csp-minprob", "search"):  # search's rollouts pick: no look-ahead "why"
        other = suggest_request({"board": board.to_text(), "player": name}, Limits())
        assert other["why"] is None


def test_a_pair_found_by_best_is_a_marked_pair():
    """``best`` tosses a forced 50/50 first: the page marks that pair as a 50/50."""
    found = 0
    for seed in range(20, 40):
        for board in guess_positions(seed):
            answer = suggest_request({"board": board.to_text()}, Limits())
            if answer["why"]["rule"] != "pair":
                continue
            marks = marks_request({"board": board.to_text()}, Limits())
            assert any(answer["move"] in pair for pair in marks["fifty_fifty"])
            found += 1
            break
        if found >= 2:
            break
    assert found >= 1


def test_the_missing_count_message_names_no_cli_flag_anywhere(client):
    """The page's words for a missing count: the same answer from every endpoint that reads
    a board."""
    for path in ("/api/solve", "/api/marks", "/api/explain", "/api/suggest"):
        error = client.post(path, json={"board": "??\n11\n"}).json()["error"]
        assert error["missing"] == "mines" and not re.search(r"--\w", error["message"])
