"""``POST /api/read-image``: a screenshot pasted or dropped on the analyser, read on the
server with the model its operator named (``mscsp serve --obr-model``), never one a request
names (in-process test client; the page's half in ``test_web_image_page.py``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web analyser needs pip install 'mscsp[web]'")
pytest.importorskip("httpx", reason="Starlette's test client needs httpx")
pytest.importorskip("PIL", reason="screenshots need Pillow: pip install 'mscsp[replay]'")

from click.testing import CliRunner  # noqa: E402
from test_screen import POSITION, codes, draw, png, recogniser_model  # noqa: E402

with warnings.catch_warnings():  # Starlette 1.x suggests httpx2; httpx works the same here
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from mscsp.board import parse_board  # noqa: E402
from mscsp.cli import main  # noqa: E402
from mscsp.screen import MODEL_ENV, UNREADABLE_MARK  # noqa: E402
from mscsp.web.app import create_app  # noqa: E402
from mscsp.web.service import Limits, meta  # noqa: E402


def post(client: TestClient, data: bytes, kind: str = "application/octet-stream"):
    headers = {"content-type": kind}
    return client.post(
        "/api/read-image", params={"name": "shot.png"}, content=data, headers=headers
    )


def test_a_server_without_a_model_says_how_to_start_one() -> None:
    assert meta(Limits())["reads_images"] is False
    with TestClient(create_app(Limits())) as client:
        answer = post(client, png(draw(POSITION)))
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["kind"] == "unavailable" and "--obr-model" in error["message"]


def test_bad_images_are_refused_in_one_line(tmp_path) -> None:
    pytest.importorskip("ms_toollib")
    model = tmp_path / "params.onnx"
    model.write_bytes(b"never read: these images are refused first")
    limits = Limits(obr_model=str(model), max_image=4096)
    assert meta(limits)["reads_images"] is True and meta(limits)["limits"]["max_image"] == 4096
    with TestClient(create_app(limits)) as client:
        not_image = post(client, b"30x16x99\n" + b"?" * 480)
        too_large = post(client, b"\x89PNG" + bytes(5000))
        as_json = post(client, b"{}", kind="application/json")
        blank = post(client, png(np.full((60, 80, 3), 192, np.uint8)))
    assert (not_image.status_code, not_image.json()["error"]["kind"]) == (400, "invalid")
    assert "not an image" in not_image.json()["error"]["message"]
    assert (too_large.status_code, too_large.json()["error"]["kind"]) == (413, "too_large")
    assert as_json.status_code == 415
    assert blank.status_code == 400 and "no board found" in blank.json()["error"]["message"]


def test_a_screenshot_comes_back_as_board_text_to_check() -> None:
    model = recogniser_model()
    with TestClient(create_app(Limits(obr_model=model))) as client:
        answer = post(client, png(draw(POSITION, 24, 24)))
    assert answer.status_code == 200, answer.text
    read = answer.json()
    assert (read["rows"], read["cols"]) == codes(POSITION).shape
    assert "flags" in read["note"]
    lines = read["board"].split()
    truth = POSITION.split()
    for r, line in enumerate(lines):
        for c, ch in enumerate(line):  # a doubt where it is unsure, never a wrong value
            if [r, c] in read["unreadable"]:
                assert ch == UNREADABLE_MARK
            else:
                assert ch == ("?" if truth[r][c] in "?F" else truth[r][c])
    if not read["unreadable"]:
        assert parse_board(read["board"], mines=10).shape == codes(POSITION).shape


def test_serve_refuses_a_model_that_is_not_there_at_start(tmp_path, monkeypatch) -> None:
    pytest.importorskip("ms_toollib")
    monkeypatch.delenv(MODEL_ENV, raising=False)
    missing = tmp_path / "params.onnx"
    result = CliRunner().invoke(main, ["serve", "--port", "0", "--obr-model", str(missing)])
    (line,) = result.output.strip().splitlines()
    assert result.exit_code == 4
    assert line.startswith(f"mscsp: error: no readable model file at {str(missing)!r}")
