"""The archive report draws each worst mistake's board as the heat map PNG (the clicked and
the safest cell framed), prints 3BV/s only where it is a speed and never with an exponent,
and export counts its instances in good English (issue 50)."""

from __future__ import annotations

import base64
import copy
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ms_toollib", reason="replays need pip install 'mscsp[replay]'")
pytest.importorskip("matplotlib")

import matplotlib.pyplot as plt  # noqa: E402
from click.testing import CliRunner  # noqa: E402
from PIL import Image  # noqa: E402

import mscsp  # noqa: E402
from mscsp.cli import main  # noqa: E402
from mscsp.cli.export import export as export_command  # noqa: E402
from mscsp.display.heatmap import BEST_COLOUR, CLICK_COLOUR, Mark, heatmap_figure  # noqa: E402
from mscsp.errors import InvalidInputError  # noqa: E402
from mscsp.replay.report import (  # noqa: E402
    MIN_TIME,
    SPEED_NOTE,
    html_report,
    speed,
    summarise,
    summary_rows,
    summary_text,
)

FIXTURES = Path(__file__).parent / "data" / "replays" / "archive"
#: Generated games of every preset; the expert and intermediate ones were recorded in a
#: millisecond or two, so ms_toollib gives them 3BV/s of 50,000 and more.
NAMES = (
    "beginner-00003.evf",
    "beginner-00027.evf",
    "intermediate-00001.evf",
    "intermediate-00013.evf",
    "expert-00002.evf",
    "expert-00005.evf",
)
BOARD_IMG = re.compile(r"<img class='board' alt='[^']*' src='data:image/png;base64,([^']+)'>")
#: A number written with an exponent (``1.9e+05``).
EXPONENT = re.compile(r"\d[eE][+-]?\d")


@pytest.fixture(scope="module")
def rated(tmp_path_factory) -> tuple[Path, list[dict], str, str]:
    """The games rated by ``mscsp replay --report --summary``: folder, records, page, text."""
    root = tmp_path_factory.mktemp("boards")
    games = root / "games"
    games.mkdir()
    for name in NAMES:
        (games / name).write_bytes((FIXTURES / name).read_bytes())
    log, report = root / "log.jsonl", root / "report.html"
    result = CliRunner().invoke(
        main, ["replay", str(games), "--out", str(log), "--report", str(report), "--summary"]
    )
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert sum(r["status"] == "ok" for r in records) == len(NAMES)
    return games, records, report.read_text(), result.output


def test_each_worst_mistake_is_an_inline_png_of_its_board(rated) -> None:
    _, records, page, _ = rated
    worst = summarise(records)["worst"]
    assert len(worst) >= 3  # the games hold mistakes, or this proves little
    images = BOARD_IMG.findall(page)
    assert len(images) == len(worst) == page.count("<img class='board'")
    assert "<pre>" not in page and "board not drawn" not in page
    for data, mistake in zip(images, worst, strict=True):
        png = base64.b64decode(data, validate=True)
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
        with Image.open(io.BytesIO(png)) as image:
            image.verify()
        with Image.open(io.BytesIO(png)) as image:
            width, height = image.size
            pixels = np.asarray(image.convert("RGB"))
        assert width > 300 and height > 300
        colours = {tuple(p) for p in pixels.reshape(-1, 3)}
        assert _rgb(CLICK_COLOUR) in colours and _rgb(BEST_COLOUR) in colours
        # (the picture is of this mistake's board: its size is in the title)
        board = mscsp.parse_board(mistake["board"])
        assert (board.rows, board.cols) == {
            "beginner": (9, 9),
            "intermediate": (16, 16),
            "expert": (16, 30),
        }[mistake["board_name"]]


def _rgb(colour: str) -> tuple[int, ...]:
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))


@pytest.mark.parametrize("shape", [(9, 9), (16, 30)])
def test_marks_frame_their_cells_and_are_named_in_the_key(shape) -> None:
    rows, cols = shape
    game = mscsp.Game(rows, cols, 10, seed=5, first_click="opening")
    game.reveal(rows // 2, cols // 2)
    solution = mscsp.solve(game.board())
    covered = [tuple(int(v) for v in rc) for rc in np.argwhere(game.board().cells < 0)]
    clicked, safest = covered[0], covered[-1]
    marks = [Mark(clicked, "clicked cell", CLICK_COLOUR), Mark(safest, "safest cell", BEST_COLOUR)]
    fig = heatmap_figure(solution, marks=marks, suggest=False)
    try:
        (board,) = [ax for ax in fig.axes if ax.get_label() == "board"]
        (key,) = [ax for ax in fig.axes if ax.get_label() == "key"]
        names = {p.get_label() for p in key.patches if p.get_label()}
        assert {"clicked cell", "safest cell"} <= names and "suggested move" not in names
        frames = {
            (p.get_edgecolor()[:3], p.get_xy())
            for p in board.patches
            if not p.get_fill() and p.get_width() == 1
        }
        expected = {
            (tuple(v / 255 for v in _rgb(colour)), (c - 0.5, r - 0.5))
            for colour, (r, c) in ((CLICK_COLOUR, clicked), (BEST_COLOUR, safest))
        }
        assert frames == expected  # the two marks, and no suggested move
    finally:
        plt.close(fig)
    with pytest.raises(InvalidInputError, match="not on the"):
        heatmap_figure(solution, marks=[Mark((rows, 0), "off")])


def test_two_marks_on_one_cell_both_show() -> None:
    game = mscsp.Game(9, 9, 10, seed=2, first_click="opening")
    game.reveal(4, 4)
    solution = mscsp.solve(game.board())
    cell = tuple(int(v) for v in np.argwhere(game.board().cells < 0)[0])
    fig = heatmap_figure(solution, marks=[Mark(cell, "a"), Mark(cell, "b", BEST_COLOUR)])
    try:
        (board,) = [ax for ax in fig.axes if ax.get_label() == "board"]
        sizes = sorted(p.get_width() for p in board.patches if not p.get_fill())
        assert len(sizes) == 3 and sizes[0] < sizes[1] <= 1  # inset inside each other
    finally:
        plt.close(fig)


def test_a_board_that_cannot_be_drawn_leaves_the_report_with_its_text(rated) -> None:
    _, records, _, _ = rated
    records = copy.deepcopy(records)
    summary = summarise(records)
    summary["worst"][0]["board"] = "9x9x10\n<script>\n"  # a damaged log
    summary["worst"][1]["best_cell"] = ["<b>", 1]
    page = html_report(summary, records)
    assert page.count("(board not drawn: ") == 2
    assert "&lt;script&gt;" in page and "<script>" not in page
    assert page.count("<img class='board'") == len(summary["worst"]) - 2
    assert page.count("<img class='plot'") == 2


def test_3bv_s_is_a_speed_only_for_games_with_a_time(rated) -> None:
    _, records, page, text = rated
    ok = [r for r in records if r["status"] == "ok"]
    # The generated games: ms_toollib's 3BV/s of those recorded in a millisecond or two
    # is 50,000 and more, the others none or 0.
    assert max(r["metrics"]["bbbv_s"] or 0 for r in ok) > 10_000
    assert all(r["metrics"]["rtime"] < MIN_TIME and speed(r) is None for r in ok)
    summary = summarise(records)
    for rows in (summary_rows(summary["groups"], "mode"), summary_rows(summary["trends"], "month")):
        for row in rows:
            assert row[8] == "-"
    for shown in (page, text, summary_text(summary)):
        assert not EXPONENT.search(_without_images(shown)), EXPONENT.search(shown)
        assert "1.9e+05" not in shown
    assert SPEED_NOTE in text and page.count("3BV/s: the mean over games") == 2

    # A person's game, with its time: the speed with two decimals, as its neighbours.
    timed = copy.deepcopy(ok)
    for record, (rtime, bbbv_s) in zip(timed, [(12.5, 1.23456), (20.0, 2.5)], strict=False):
        record["metrics"] = {**record["metrics"], "rtime": rtime, "bbbv_s": bbbv_s}
    assert speed(timed[0]) == 1.23456
    group = {g["board"]: g for g in summarise(timed)["groups"]}["beginner"]
    (row,) = [r for r in summary_rows([group], "mode")]
    assert row[8] == f"{(1.23456 + 2.5) / 2:.2f}" == "1.87"
    assert re.fullmatch(r"\d+\.\d{2}", row[6])  # accuracy: 2 decimals too
    assert all(re.fullmatch(r"-|\d+\.\d{3}", row[i]) for i in (4, 5, 9))  # luck, IOE


def _without_images(page: str) -> str:
    return re.sub(r"src='data:image/png;base64,[^']*'", "", page)


def test_export_counts_in_the_singular_and_plural(tmp_path: Path) -> None:
    board = Path(mscsp.__file__).parent / "data" / "example.txt"
    one = ["--per", "position", "--kind", "wmc"]
    result = CliRunner().invoke(export_command, [str(board), "--out", str(tmp_path / "a"), *one])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("wrote 1 mcc instance of 1 position to ")
    result = CliRunner().invoke(export_command, [str(board), "--out", str(tmp_path / "b")])
    assert result.exit_code == 0, result.output
    assert re.match(r"wrote \d+ mcc instances of 1 position to ", result.output)
