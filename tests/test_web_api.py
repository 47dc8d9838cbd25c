"""The web analyser's JSON API, in-process with Starlette's test client (and httpx for bursts)."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
import warnings
from fractions import Fraction
from importlib import resources

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web analyser needs pip install 'mscsp[web]'")
httpx = pytest.importorskip("httpx", reason="Starlette's test client needs httpx")

from click.testing import CliRunner  # noqa: E402

with warnings.catch_warnings():  # Starlette 1.x suggests httpx2; httpx works the same here
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

import mscsp  # noqa: E402
from mscsp.backends import BACKENDS  # noqa: E402
from mscsp.cli import main  # noqa: E402
from mscsp.display.heatmap import COLOUR_STOPS  # noqa: E402
from mscsp.display.render import solution_json  # noqa: E402
from mscsp.errors import BackendUnavailableError  # noqa: E402
from mscsp.game import PRESETS  # noqa: E402
from mscsp.players import PLAYERS, get_player  # noqa: E402
from mscsp.web.app import Runner, create_app  # noqa: E402
from mscsp.web.service import Cost, Limits, error_body  # noqa: E402

EXAMPLE = resources.files("mscsp.data").joinpath("example.txt").read_text("utf-8")


@pytest.fixture(scope="module")
def client() -> TestClient:
    with TestClient(create_app()) as test_client:
        yield test_client


def post(client: TestClient, path: str, body) -> httpx.Response:
    return client.post(path, json=body)


def expected(board: mscsp.Board, backend: str = "dss", exact: bool = False) -> dict:
    """What ``mscsp.solve`` says, in the ``probs --json`` shape, plus the layout count."""
    solution = mscsp.solve(board, backend=backend)
    out = solution_json(solution, backend, exact=exact)
    out["solutions"] = str(solution.weight)
    return out


def assert_matches(answer: dict, board: mscsp.Board, backend: str = "dss") -> None:
    want = expected(board, backend)
    for key, value in want.items():
        assert answer[key] == value, key
    assert answer["board"] == board.to_text()
    exact = mscsp.solve(board).exact
    assert {(r, c): f for r, c, f, _ in answer["cells"]} == {
        cell: str(f) for cell, f in exact.items()
    }


def test_solve_has_every_field_of_probs_json(client):
    cli = CliRunner().invoke(main, ["probs", "--json", "--exact"])
    assert cli.exit_code == 0, cli.output
    answer = post(client, "/api/solve", {"board": EXAMPLE, "exact": True}).json()
    for key, value in json.loads(cli.output).items():
        assert answer[key] == value, key
    assert_matches(answer, mscsp.parse_board(EXAMPLE))
    assert answer["time_limit"] == Limits().time_limit
    assert answer["seconds"] >= 0


def test_solve_answers_equal_the_library_on_real_positions(client, positions):
    for board, _ in positions[:40]:
        answer = post(client, "/api/solve", {"board": board.to_text()})
        assert answer.status_code == 200, answer.text
        assert_matches(answer.json(), board)


def test_groups_share_their_odds_and_kinds_agree(client, positions):
    for board, _ in positions[:40]:
        answer = post(client, "/api/solve", {"board": board.to_text()}).json()
        by_group: dict[int, set[str]] = {}
        for _, _, fraction, group in answer["cells"]:
            by_group.setdefault(group, set()).add(fraction)
        assert set(by_group) == set(range(len(answer["groups"])))
        for index, group in enumerate(answer["groups"]):
            (fraction,) = by_group[index]  # one exact probability per group
            value = Fraction(fraction)
            size = sum(1 for cell in answer["cells"] if cell[3] == index)
            assert group["size"] == size
            if group["kind"] == "safe":
                assert value == 0
            elif group["kind"] == "mine":
                assert value == 1
            else:
                assert 0 < value < 1
            assert (group["component"] is not None) == (group["kind"] == "frontier")


def test_solve_options_mines_backend_exact_time_limit(client):
    headerless = "1??\n???\n"
    answer = post(client, "/api/solve", {"board": headerless, "mines": 1}).json()
    assert_matches(answer, mscsp.parse_board(headerless, mines=1))
    assert "exact" not in answer
    for name, cls in BACKENDS.items():
        if not cls.supported() or name == "external":  # (a program: the operator's to name)
            continue
        answer = post(client, "/api/solve", {"board": "1??\n???\n", "mines": 1, "backend": name})
        assert answer.status_code == 200, answer.text
        assert_matches(answer.json(), mscsp.parse_board(headerless, mines=1), backend=name)
    capped = post(client, "/api/solve", {"board": EXAMPLE, "time_limit": 1e9}).json()
    assert capped["time_limit"] == Limits().time_limit
    lower = post(client, "/api/solve", {"board": EXAMPLE, "time_limit": 5}).json()
    assert lower["time_limit"] == 5


def error_of(response: httpx.Response, status: int, kind: str) -> dict:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["kind"] == kind
    assert error["message"]
    return error


def test_library_errors_come_back_with_their_kind_and_place(client):
    parse = error_of(post(client, "/api/solve", {"board": "3x2x1\n1?x\n???\n"}), 400, "parse")
    assert (parse["line"], parse["column"], parse["exit_code"]) == (2, 3, 2)
    ragged = error_of(post(client, "/api/solve", {"board": "3x2x1\n1??\n??\n"}), 400, "parse")
    assert ragged["line"] == 3
    missing = error_of(post(client, "/api/solve", {"board": "1??\n"}), 400, "parse")
    assert missing["line"] is None and "mine count" in missing["message"]
    inconsistent = post(client, "/api/solve", {"board": "2?\n??\n", "mines": 1})
    error = error_of(inconsistent, 422, "inconsistent")
    assert error["exit_code"] == 3 and error["board"] == "2x2x1\n2?\n??\n"
    unknown = post(client, "/api/solve", {"board": EXAMPLE, "backend": "nope"})
    assert "may name: dss, " in error_of(unknown, 400, "invalid")["message"]
    game = mscsp.Game(16, 30, 99, seed=0, first_click="opening")
    game.reveal(8, 15)
    slow = post(client, "/api/solve", {"board": game.board().to_text(), "time_limit": 1e-7})
    error = error_of(slow, 422, "limit")
    assert error["exit_code"] == 5 and error["board"] == game.board().to_text()


def test_unavailable_backend_maps_to_its_own_kind():
    status, body = error_body(BackendUnavailableError("needs pip install 'mscsp[sat]'"))
    assert status == 422
    assert body["error"] == {
        "kind": "unavailable",
        "message": "needs pip install 'mscsp[sat]'",
        "exit_code": 4,
    }


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ([1, 2], "JSON object"),
        ({}, "'board'"),
        ({"board": 7}, "'board' must be str"),
        ({"board": EXAMPLE, "exact": "yes"}, "'exact' must be bool"),
        ({"board": EXAMPLE, "mines": True}, "'mines' must be int"),
        ({"board": EXAMPLE, "time_limit": "1"}, "'time_limit' must be"),
        ({"board": EXAMPLE, "colour": "red"}, "unknown field(s) colour"),
    ],
)
def test_malformed_requests_are_refused(client, body, needle):
    assert needle in error_of(post(client, "/api/solve", body), 400, "request")["message"]


def test_bad_values_and_bodies(client):
    negative = post(client, "/api/solve", {"board": "1??\n", "mines": -1})
    assert "non-negative" in error_of(negative, 400, "invalid")["message"]
    late = post(client, "/api/solve", {"board": EXAMPLE, "time_limit": -2})
    error_of(late, 400, "invalid")
    headers = {"content-type": "application/json"}
    broken = client.post("/api/solve", content=b'{"board": ', headers=headers)
    assert "not valid JSON" in error_of(broken, 400, "request")["message"]
    nan = client.post("/api/solve", content=b'{"board": "1?", "time_limit": NaN}', headers=headers)
    error_of(nan, 400, "request")
    deep = client.post("/api/solve", content=b"[" * 100_000, headers=headers)
    error_of(deep, 400, "request")
    plain = client.post("/api/solve", content=b"board", headers={"content-type": "text/plain"})
    error_of(plain, 415, "request")
    assert client.get("/api/solve").status_code == 405


def test_size_limits():
    small = TestClient(create_app(Limits(max_body=2000, max_cells=50)))
    big_board = "10x10x5\n" + "??????????\n" * 10
    error_of(post(small, "/api/solve", {"board": big_board}), 413, "too_large")
    error_of(post(small, "/api/suggest", {"board": big_board}), 413, "too_large")
    error_of(post(small, "/api/solve", {"board": "?" * 3000}), 413, "too_large")
    error_of(post(small, "/api/play", {"preset": "expert"}), 413, "too_large")
    answer = post(small, "/api/solve", {"board": "5x5x3\n" + "?????\n" * 5})
    assert answer.status_code == 200


def test_a_concurrent_burst_gets_the_same_answers_as_solve(positions):
    boards = [board for board, _ in positions[:24]] + [mscsp.parse_board(EXAMPLE)] * 4
    app = create_app(Limits(workers=4))

    async def burst() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            return await asyncio.gather(
                *(http.post("/api/solve", json={"board": b.to_text()}) for b in boards)
            )

    for board, answer in zip(boards, asyncio.run(burst()), strict=True):
        assert answer.status_code == 200, answer.text
        assert_matches(answer.json(), board)


def test_runner_stops_waiting_at_the_hard_limit():
    runner = Runner(Limits(time_limit=0.2, workers=1))

    def slow(body, limits):
        time.sleep(body)
        return {"slept": body}

    async def two_slow_requests():
        return await asyncio.gather(
            runner.run(slow, 3.0, Cost.CHEAP), runner.run(slow, 0.0, Cost.CHEAP)
        )

    (status, first), (busy, _) = asyncio.run(two_slow_requests())
    assert status == 422 and first["error"]["kind"] == "limit"
    assert busy == 503  # never got the only thread in time
    runner.threads.submit(time.sleep, 0).result()  # the stuck thread is free again
    assert asyncio.run(runner.run(slow, 0.0, Cost.CHEAP)) == (200, {"slept": 0.0})
    runner.close()


def game_after(preset: str, seed: int, moves: list) -> mscsp.Game:
    game = mscsp.Game.from_preset(preset, seed=seed, first_click="safe")
    for kind, r, c in moves:
        (game.reveal if kind == "reveal" else game.flag)(r, c)
    return game


def test_play_replays_the_seeded_game(client):
    fresh = post(client, "/api/play", {"preset": "beginner", "seed": 3}).json()
    assert fresh["board"] == "9x9x10\n" + "?????????\n" * 9
    assert (fresh["state"], fresh["exploded"], fresh["covered"]) == ("playing", None, 81)
    covered = np.argwhere(game_after("beginner", 3, [["reveal", 4, 4]]).view == mscsp.COVERED)
    moves = [["reveal", 4, 4], ["flag", *(int(v) for v in covered[0])]]
    answer = post(client, "/api/play", {"preset": "beginner", "seed": 3, "moves": moves}).json()
    game = game_after("beginner", 3, moves)
    assert answer["board"] == game.board().to_text()
    assert answer["flags"] == 1 and "layout" not in answer
    mine = [int(v) for v in np.argwhere(game.mine & (game.view == mscsp.COVERED))[0]]
    lost = post(
        client,
        "/api/play",
        {"preset": "beginner", "seed": 3, "moves": [*moves, ["reveal", *mine]]},
    ).json()
    assert (lost["state"], lost["exploded"]) == ("lost", mine)
    assert lost["layout"] == [[int(r), int(c)] for r, c in np.argwhere(game.mine)]
    opening = {"preset": "expert", "seed": 2, "first_click": "opening", "moves": [["reveal", 0, 0]]}
    answer = post(client, "/api/play", opening).json()
    assert answer["board"].splitlines()[1][0] == "."  # the opening rule's zero
    assert answer["first_click"] == "opening" and answer["cols"] == 30
    other = post(client, "/api/play", {"preset": "beginner", "seed": 4, "moves": moves}).json()
    assert other["board"] == game_after("beginner", 4, moves).board().to_text()


def test_play_errors(client):
    off = post(client, "/api/play", {"moves": [["reveal", 9, 0]]})
    assert "off the 9x9 board" in error_of(off, 400, "invalid")["message"]
    error_of(post(client, "/api/play", {"moves": [["dig", 0, 0]]}), 400, "request")
    error_of(post(client, "/api/play", {"moves": [["reveal", 0, True]]}), 400, "request")
    error_of(post(client, "/api/play", {"preset": "huge"}), 400, "invalid")
    error_of(post(client, "/api/play", {"first_click": "never"}), 400, "invalid")
    error_of(post(client, "/api/play", {"seed": -1}), 400, "invalid")
    error_of(post(client, "/api/play", {"moves": [["flag", 0, 0]] * 200}), 413, "too_large")
    game = mscsp.Game.from_preset("beginner", seed=0, first_click="safe")
    game.reveal(0, 0)
    mine = [int(v) for v in np.argwhere(game.mine)[0]]
    over = post(client, "/api/play", {"moves": [["reveal", 0, 0], ["reveal", *mine]] * 2})
    assert "game is over" in error_of(over, 400, "invalid")["message"]


def test_suggest_is_what_the_player_does(client, positions):
    for board, _ in positions[:8]:
        answer = post(client, "/api/suggest", {"board": board.to_text(), "seed": 1}).json()
        player = get_player("best")
        moves = player.next_moves(board, np.random.default_rng(1))
        assert answer["moves"] == [list(m) for m in moves]
        assert answer["move"] == list(moves[0])
        assert answer["guess"] == (player.turn_guesses > 0)
    board = positions[0][0]
    for name in PLAYERS:
        answer = post(client, "/api/suggest", {"board": board.to_text(), "player": name})
        assert answer.status_code == 200, (name, answer.text)
        r, c = answer.json()["move"]
        assert board.cells[r, c] == mscsp.COVERED
    game = mscsp.Game(16, 30, 99, seed=15, first_click="opening")
    game.reveal(8, 15)  # the single-point rules find nothing here: the solver must run
    slow = {"board": game.board().to_text(), "time_limit": 1e-7}
    assert error_of(post(client, "/api/suggest", slow), 422, "limit")["exit_code"] == 5
    bad_backend = {"board": board.to_text(), "backend": "nope"}
    error_of(post(client, "/api/suggest", bad_backend), 400, "invalid")
    headerless = {"board": "1??\n???\n", "mines": 1, "player": "csp-minprob"}
    assert post(client, "/api/suggest", headerless).json()["move"] in ([0, 2], [1, 2])
    unknown = post(client, "/api/suggest", {"board": board.to_text(), "player": "oracle"})
    assert "choose from" in error_of(unknown, 400, "invalid")["message"]
    done = post(client, "/api/suggest", {"board": "2x1x0\n..\n"})
    assert "no covered cell" in error_of(done, 400, "invalid")["message"]


def test_meta_lists_the_registries_and_the_palette(client):
    meta = client.get("/api/meta").json()
    # Every backend a request may name: all but those that run a program (docs/security.md).
    offered = {name: cls for name, cls in BACKENDS.items() if name != "external"}
    assert [b["name"] for b in meta["backends"]] == list(offered)
    assert {b["name"]: b["available"] for b in meta["backends"]} == {
        name: cls.supported() for name, cls in offered.items()
    }
    assert meta["players"] == list(PLAYERS)
    assert meta["presets"] == {k: list(v) for k, v in PRESETS.items()}
    assert meta["palette"]["stops"] == [list(s) for s in COLOUR_STOPS]
    assert meta["example"] == EXAMPLE


def test_page_and_assets_with_security_headers(client):
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"
    for asset, kind in [("app.js", "javascript"), ("style.css", "css"), ("favicon.svg", "svg")]:
        response = client.get(f"/static/{asset}")
        assert response.status_code == 200 and kind in response.headers["content-type"]
    assert client.get("/static/../service.py").status_code == 404
    assert client.get("/api/meta").headers["cache-control"] == "no-store"


def test_loopback_server_refuses_other_host_names():
    local = TestClient(create_app(allowed_hosts=["127.0.0.1"]), base_url="http://127.0.0.1")
    assert local.get("/api/meta").status_code == 200
    assert local.get("/api/meta", headers={"host": "evil.example"}).status_code == 421


def test_import_mscsp_does_not_load_the_web_stack():
    code = (
        "import sys, mscsp, mscsp.cli, mscsp.display.heatmap; "
        "print([m for m in ('starlette', 'uvicorn', 'httpx', 'anyio', 'matplotlib') "
        "if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_serve_command_answers_on_localhost():
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "mscsp", "serve", "--port", str(port), "--time-limit", "5"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        meta = None
        for _ in range(100):  # up to about 20 s for the server to start
            try:
                meta = httpx.get(f"http://127.0.0.1:{port}/api/meta", timeout=2).json()
                break
            except httpx.TransportError:
                time.sleep(0.2)
        assert meta is not None, "the server did not start"
        assert meta["limits"]["time_limit"] == 5
        answer = httpx.post(f"http://127.0.0.1:{port}/api/solve", json={"board": EXAMPLE})
        assert_matches(answer.json(), mscsp.parse_board(EXAMPLE))
    finally:
        server.terminate()
        _, err = server.communicate(timeout=20)
    assert f"http://127.0.0.1:{port}/" in err


def test_serve_on_a_busy_port_is_a_one_line_error():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "mscsp", "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 2
    assert "cannot listen on 127.0.0.1" in result.stderr and "Traceback" not in result.stderr


def test_serve_refuses_bad_options():
    result = CliRunner().invoke(main, ["serve", "--port", "70000"])
    assert result.exit_code == 2
    # 0 is no limit, as on every command (tests/test_cli_vocabulary.py); below 0 is refused.
    result = CliRunner().invoke(main, ["serve", "--time-limit", "-1"])
    assert result.exit_code == 2
