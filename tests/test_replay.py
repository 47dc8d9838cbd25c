"""Replays: files written by ms_toollib's recorder, read back and rated click by click."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

pytest.importorskip("ms_toollib", reason="replays need pip install 'mscsp[replay]'")

from replay_files import played_game, random_game, record  # noqa: E402

from mscsp.board import COVERED, FLAG  # noqa: E402
from mscsp.errors import InvalidInputError  # noqa: E402
from mscsp.game import Game  # noqa: E402
from mscsp.reference import brute_force  # noqa: E402
from mscsp.replay import _replay_from, rate_replay, read_replay  # noqa: E402


def ms_pluck(data: bytes) -> list[float]:
    """ms_toollib's own pluck after every event of an .evf file."""
    import ms_toollib

    video = ms_toollib.EvfVideo(raw_data=list(data), file_name="game.evf")
    video.parse()
    video.analyse()
    video.analyse_for_features(["pluck"])
    return [event.key_dynamic_params.pluck for event in video.events]


def expected_verdict(number: int, cell, probs: dict) -> str:
    """The verdict rules restated over brute-force odds."""
    p, low = probs[cell], min(probs.values())
    if number == 1 or (p > 0 and all(v == p for v in probs.values())):
        return "forced"
    if p == 0:
        return "certain"
    return "best guess" if p == low else "avoidable risk"


@pytest.mark.parametrize("seed", range(4))
def test_played_game_reads_back_as_played(seed: int) -> None:
    game, clicks = played_game(9, 9, 10, seed)
    replay = read_replay(record(game.mine, clicks), "game.evf")
    assert (replay.rows, replay.cols, replay.mines) == (9, 9, 10)
    assert np.array_equal(replay.layout, game.mine)
    assert [a.cells[0] for a in replay.actions] == [(r, c) for _, r, c in clicks]
    rating = rate_replay(replay)
    assert rating.final_board == game.board()
    assert rating.result == str(game.state)
    assert [c.cell for c in rating.clicks] == [(r, c) for _, r, c in clicks]


@pytest.mark.parametrize("seed", range(6))
def test_verdicts_agree_with_brute_force(seed: int) -> None:
    game, clicks = random_game(5, 5, 4, seed)
    rating = rate_replay(read_replay(record(game.mine, clicks), "game.evf"))
    assert len(rating.clicks) == len(clicks)
    for click in rating.clicks:
        probs = brute_force(click.board)
        assert click.probability == probs[click.cell]
        assert click.safest == min(probs.values())
        assert click.safe_cells == sum(v == 0 for v in probs.values())
        assert click.verdict == expected_verdict(click.number, click.cell, probs)
        if click.verdict == "avoidable risk":
            assert click.cost == probs[click.cell] - min(probs.values()) > 0
        else:
            assert click.cost == 0
        assert click.survived == (not game.mine[click.cell])
    assert rating.result == str(game.state)
    lost = rating.lost_click
    assert (lost is None) == (game.state == "won")
    if lost is not None:
        assert lost is rating.clicks[-1] and lost.cell == game.exploded


@pytest.mark.parametrize("seed", range(8))
def test_luck_is_ms_toollib_pluck(seed: int) -> None:
    """-log10(luck) is ms_toollib's pluck; a lost game's pluck is infinite (f64::MAX) after
    the loss and, before it, the same as the luck of the guesses survived."""
    game, clicks = played_game(8, 8, 12, seed)
    data = record(game.mine, clicks)
    rating = rate_replay(read_replay(data, "game.evf"))
    plucks = ms_pluck(data)
    expected = Fraction(1)
    for click in rating.clicks[1:]:
        if click.survived:
            expected *= 1 - brute_or_exact(click)
    assert rating.luck == expected
    finite = [p for p in plucks if p < 1e300]
    assert -rating.summary()["luck_log10"] == pytest.approx(finite[-1], abs=1e-9)
    if game.state == "lost":
        assert plucks[-1] > 1e300
    else:
        assert plucks[-1] == pytest.approx(-math.log10(rating.luck), abs=1e-9)


def brute_or_exact(click) -> Fraction:
    """The clicked cell's odds, by brute force where the board is small enough."""
    return brute_force(click.board)[click.cell] if _small(click.board) else click.probability


def _small(board) -> bool:
    covered = int((board.cells == COVERED).sum())
    return math.comb(covered, board.mines) <= 20_000


def chord_game(seed: int) -> tuple[Game, list]:
    """A game with a wrong flag, right flags, and a chord that opens cells, then a loss."""
    rows, cols = 8, 8
    for attempt in range(50):
        game = Game(rows, cols, 10, seed=seed * 100 + attempt)
        game.reveal(0, 0)
        for r, c in np.argwhere(game.view > 0):
            near = [
                (i, j)
                for i in range(max(r - 1, 0), min(r + 2, rows))
                for j in range(max(c - 1, 0), min(c + 2, cols))
                if game.view[i, j] == COVERED
            ]
            safe = [x for x in near if not game.mine[x]]
            if safe and len(safe) < len(near):
                wrong = next(
                    (int(i), int(j))
                    for i, j in np.argwhere((game.view == COVERED) & ~game.mine)
                    if (int(i), int(j)) not in near
                )
                flags = [x for x in near if game.mine[x]]
                mine = next(
                    (int(i), int(j)) for i, j in np.argwhere(game.mine) if (i, j) not in flags
                )
                actions = [("click", 0, 0), ("flag", *wrong)]
                actions += [("flag", *x) for x in flags]
                actions += [("chord", int(r), int(c)), ("click", *mine)]
                return game, actions
    raise AssertionError("no chord found")


def test_chords_count_as_the_cells_they_open_and_flags_are_ignored() -> None:
    game, actions = chord_game(1)
    replay = read_replay(record(game.mine, actions), "game.evf")
    kinds = [a.kind for a in replay.actions]
    assert kinds == ["click", "chord", "click"]
    chord = replay.actions[1]
    r, c = chord.at
    opened = [
        (i, j)
        for i in range(max(r - 1, 0), min(r + 2, 8))
        for j in range(max(c - 1, 0), min(c + 2, 8))
        if game.view[i, j] == COVERED and not game.mine[i, j]
    ]
    assert list(chord.cells) == sorted(opened)
    rating = rate_replay(replay)
    chorded = [x for x in rating.clicks if x.kind == "chord"]
    assert [x.cell for x in chorded] == sorted(opened)
    for k, x in enumerate(chorded):
        # Each cell is rated with the chord's cells before it already open.
        assert x.at == (r, c) and x.board.cells[x.cell] == COVERED
        assert all(x.board.cells[y.cell] >= 0 for y in chorded[:k])
    assert not any((x.board.cells == FLAG).any() for x in rating.clicks)
    assert rating.result == "lost" and rating.lost_click is rating.clicks[-1]


@pytest.fixture(scope="module")
def game_file() -> bytes:
    game, clicks = played_game(9, 9, 10, 2)
    return record(game.mine, clicks)


@pytest.mark.parametrize("cut", [0.1, 0.3, 0.5, 0.8, 0.95])
def test_truncated_file_is_refused(game_file: bytes, cut: float, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    data = game_file[: int(len(game_file) * cut)]
    with pytest.raises(InvalidInputError, match="corrupt"):
        read_replay(data, "game.evf")
    assert list(tmp_path.iterdir()) == []  # ms_toollib's crash.log stays out of the way


@pytest.mark.parametrize("seed", range(6))
def test_garbled_file_never_crashes(game_file: bytes, seed: int) -> None:
    rng = np.random.default_rng(seed)
    data = bytearray(game_file)
    for i in rng.choice(len(data), size=8, replace=False):
        data[i] = int(rng.integers(256))
    try:
        rating = rate_replay(read_replay(bytes(data), "game.evf"))
    except InvalidInputError as exc:
        assert str(exc)
    else:
        assert rating.clicks


@pytest.mark.parametrize("ext", ["avf", "rmv", "mvf"])
def test_other_formats_refuse_garbage(game_file: bytes, ext: str) -> None:
    with pytest.raises(InvalidInputError, match=f"corrupt or truncated .{ext}"):
        read_replay(game_file, f"game.{ext}")


def test_unknown_extension_and_empty_file(game_file: bytes) -> None:
    with pytest.raises(InvalidInputError, match="unknown replay format"):
        read_replay(game_file, "game.txt")
    with pytest.raises(InvalidInputError, match="empty"):
        read_replay(b"", "game.evf")


def test_other_game_mode_is_refused(game_file: bytes) -> None:
    # Metasweeper's v4 header: version, summary, settings, rows, cols, mines (2), cell size,
    # then the game mode (2 bytes, big-endian); 6 is "strong no-guess".
    assert game_file[0] == 4
    data = bytearray(game_file)
    data[8:10] = (6).to_bytes(2, "big")
    with pytest.raises(InvalidInputError, match="game mode 6"):
        read_replay(bytes(data), "game.evf")


def test_replay_that_opens_nothing_is_refused() -> None:
    raw = {
        "rows": 3,
        "cols": 3,
        "mines": 1,
        "mode": 0,
        "software": "",
        "player": "",
        "board": [[-1, 1, 0], [1, 1, 0], [0, 0, 0]],
        "actions": [],
    }
    with pytest.raises(InvalidInputError, match="opens no cell"):
        _replay_from(raw, "evf")


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mscsp", "replay", *args], capture_output=True, text=True
    )


def test_cli_table_and_json(tmp_path, game_file: bytes) -> None:
    path = tmp_path / "game.evf"
    path.write_bytes(game_file)
    done = run_cli(str(path))
    assert done.returncode == 0, done.stderr
    assert "verdict" in done.stdout and "luck:" in done.stdout
    table = run_cli(str(path), "--guesses").stdout
    rows = [line for line in table.splitlines() if line.lstrip()[:1].isdigit()]
    assert rows and not any(" certain" in line for line in rows)
    out = json.loads(run_cli(str(path), "--json").stdout)
    assert out["summary"]["result"] == "won"
    assert len(out["clicks"]) == out["summary"]["clicks"]
    assert len(rows) == sum(c["verdict"] != "certain" for c in out["clicks"])
    assert {c["verdict"] for c in out["clicks"]} <= {
        "forced",
        "certain",
        "best guess",
        "avoidable risk",
    }


def test_cli_bad_files_exit_2(tmp_path, game_file: bytes) -> None:
    cases = {"cut.evf": game_file[:40], "game.txt": game_file, "empty.evf": b""}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        done = run_cli(str(tmp_path / name))
        assert done.returncode == 2, (name, done.stderr)
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("mscsp: error:")
    assert run_cli(str(tmp_path / "missing.evf")).returncode == 2


def test_shipped_example_is_the_documented_game() -> None:
    """tests/data/replays/beginner-lost.evf: the user guide's worked example."""
    from pathlib import Path

    data = (Path(__file__).parent / "data" / "replays" / "beginner-lost.evf").read_bytes()
    game, clicks = played_game(9, 9, 10, 42, "rules")
    rating = rate_replay(read_replay(data, "beginner-lost.evf"))
    assert np.array_equal(rating.replay.layout, game.mine)
    assert [c.cell for c in rating.clicks] == [(r, c) for _, r, c in clicks]
    assert rating.result == "lost" and rating.final_board == game.board()
    assert [c.verdict for c in rating.clicks if c.verdict != "certain"] == [
        "forced",
        "avoidable risk",
        "best guess",
    ]


def test_missing_ms_toollib_exits_4(tmp_path, game_file: bytes) -> None:
    # A package of that name that cannot be imported stands in for one not installed.
    shadow = tmp_path / "shadow" / "ms_toollib"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('not installed')\n")
    path = tmp_path / "game.evf"
    path.write_bytes(game_file)
    env = dict(os.environ, PYTHONPATH=f"{shadow.parent}{os.pathsep}{os.getcwd()}")
    done = subprocess.run(
        [sys.executable, "-m", "mscsp", "replay", str(path)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 4, done.stderr
    assert "mscsp[replay]" in done.stderr


def test_user_guide_example_is_the_commands_output() -> None:
    from pathlib import Path

    guide = (Path(__file__).parents[1] / "docs" / "user-guide.md").read_text("utf-8")
    command = "$ mscsp replay tests/data/replays/beginner-lost.evf\n"
    shown = guide[guide.index(command) + len(command) :].split("```", 1)[0]
    done = subprocess.run(
        [sys.executable, "-m", "mscsp", "replay", "tests/data/replays/beginner-lost.evf"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[1],
    )
    assert done.returncode == 0 and done.stdout == shown
