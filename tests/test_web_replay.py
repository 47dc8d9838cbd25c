"""``POST /api/replay``: replay files uploaded to the analyser (in-process test client)."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("starlette", reason="the web analyser needs pip install 'mscsp[web]'")
pytest.importorskip("httpx", reason="Starlette's test client needs httpx")
pytest.importorskip("ms_toollib", reason="replays need pip install 'mscsp[replay]'")

from replay_files import played_game, random_game, record  # noqa: E402

with warnings.catch_warnings():  # Starlette 1.x suggests httpx2; httpx works the same here
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from mscsp.game import Game  # noqa: E402
from mscsp.replay import rate_replay, rating_json, read_replay  # noqa: E402
from mscsp.web.app import create_app  # noqa: E402
from mscsp.web.service import Limits  # noqa: E402


@pytest.fixture(scope="module")
def client() -> TestClient:
    with TestClient(create_app(Limits(max_body=64 * 1024, max_cells=2000))) as test_client:
        yield test_client


def upload(client: TestClient, data: bytes, name: str = "game.evf", kind=None):
    headers = {"content-type": kind or "application/octet-stream"}
    return client.post("/api/replay", params={"name": name}, content=data, headers=headers)


def test_upload_answers_the_rating(client: TestClient) -> None:
    game, clicks = random_game(9, 9, 10, 3)
    data = record(game.mine, clicks)
    answer = upload(client, data)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    expected = rating_json(rate_replay(read_replay(data, "game.evf")))
    assert body == expected
    assert body["final_board"] == game.board().to_text()
    assert body["summary"]["result"] == "lost"


def test_bad_uploads(client: TestClient) -> None:
    game, clicks = played_game(9, 9, 10, 1)
    data = record(game.mine, clicks)
    cut = upload(client, data[:50])
    assert cut.status_code == 400 and cut.json()["error"]["kind"] == "invalid"
    assert "corrupt" in cut.json()["error"]["message"]
    assert upload(client, data, "game.png").json()["error"]["kind"] == "invalid"
    wrong_type = upload(client, data, kind="application/json")
    assert wrong_type.status_code == 415
    big = upload(client, b"\0" * (64 * 1024 + 1))
    assert big.status_code == 413 and big.json()["error"]["kind"] == "too_large"


def test_board_past_the_server_limit(client: TestClient) -> None:
    # 50x50 = 2500 cells, over this server's 2000: a game lost on its first click.
    game = Game(50, 50, 300, seed=4)
    game.reveal(0, 0)
    mine = tuple(int(v) for v in next(iter(zip(*game.mine.nonzero(), strict=True))))
    answer = upload(client, record(game.mine, [("click", *mine)]))
    assert answer.status_code == 413 and answer.json()["error"]["kind"] == "too_large"
