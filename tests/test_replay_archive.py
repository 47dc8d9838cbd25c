"""Archives of replays: folders rated in parallel, a resumable log, bad files, the summary."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ms_toollib", reason="replays need pip install 'mscsp[replay]'")

from click.testing import CliRunner  # noqa: E402
from replay_files import played_game, random_game, record  # noqa: E402

from mscsp.board import parse_board  # noqa: E402
from mscsp.cli import main  # noqa: E402
from mscsp.errors import MscspError, SolverLimitError  # noqa: E402
from mscsp.evaluation.harness import wilson  # noqa: E402
from mscsp.replay import ReaderProcess, rate_replay, read_replay  # noqa: E402
from mscsp.replay.archive import (  # noqa: E402
    Lookahead,
    _exact_values,
    analyse_file,
    collect,
    guess_value,
)
from mscsp.solver import solve  # noqa: E402

FIXTURES = Path(__file__).parent / "data" / "replays" / "archive"


def run(*args: str):
    return CliRunner().invoke(main, ["replay", *args], catch_exceptions=False)


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    """A folder of six good games (one in a subfolder, one with an upper-case extension),
    a text file to skip, and four bad replays."""
    root = tmp_path_factory.mktemp("archive")
    (root / "sub").mkdir()
    for seed in range(3):
        game, clicks = played_game(9, 9, 10, seed)
        (root / f"played{seed}.evf").write_bytes(record(game.mine, clicks))
    for seed in range(2):
        game, clicks = random_game(9, 9, 10, seed + 10)
        (root / "sub" / f"random{seed}.evf").write_bytes(record(game.mine, clicks))
    game, clicks = played_game(16, 16, 40, 5)
    (root / "sub" / "upper.EVF").write_bytes(record(game.mine, clicks))
    (root / "notes.txt").write_text("not a replay")
    good = (root / "played0.evf").read_bytes()
    (root / "truncated.evf").write_bytes(good[: len(good) // 2])
    (root / "empty.avf").write_bytes(b"")
    (root / "garbage.rmv").write_bytes(os.urandom(3000))
    (root / "set.evfs").write_bytes(b"\x00" * 100)
    return root


GOOD = 6
BAD = 4


def records_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_collect_walks_folders_and_globs(archive: Path) -> None:
    files, missing = collect([str(archive)])
    names = sorted(Path(f).name for f in files)
    assert "notes.txt" not in names and "upper.EVF" in names
    assert len(files) == GOOD + BAD and not missing
    globbed, _ = collect([str(archive / "played*.evf"), str(archive / "played1.evf")])
    assert sorted(Path(f).name for f in globbed) == ["played0.evf", "played1.evf", "played2.evf"]
    _, missing = collect([str(archive / "nothing-here.evf")])
    assert missing[0]["status"] == "error" and "no such file" in missing[0]["reason"]


def test_bad_files_are_listed_and_the_run_goes_on(archive: Path, tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    result = run(str(archive), "--out", str(out), "--summary")
    assert result.exit_code == 0, result.output
    records = records_of(out)
    assert len(records) == GOOD + BAD
    errors = {Path(r["file"]).name: r["reason"] for r in records if r["status"] == "error"}
    assert set(errors) == {"truncated.evf", "empty.avf", "garbage.rmv", "set.evfs"}
    assert "empty" in errors["empty.avf"]
    assert "corrupt or truncated .evfs set" in errors["set.evfs"]
    assert f"{GOOD} of {GOOD + BAD} files rated, {BAD} not rated" in result.output
    for name in errors:
        assert name in result.output


def test_an_enormous_file_is_refused_unread(tmp_path: Path) -> None:
    big = tmp_path / "huge.evf"
    with big.open("wb") as f:
        f.truncate(64 * 1024 * 1024)
    record_ = analyse_file(str(big))
    assert record_["status"] == "error" and "too large" in record_["reason"]
    assert record_["hash"].startswith("size:")


def test_workers_and_resume_give_the_clean_runs_records(archive: Path, tmp_path: Path) -> None:
    clean = tmp_path / "clean.jsonl"
    assert run(str(archive), "--out", str(clean)).exit_code == 0
    parallel = tmp_path / "parallel.jsonl"
    assert run(str(archive), "--out", str(parallel), "--workers", "2").exit_code == 0
    assert sorted(clean.read_text().splitlines()) == sorted(parallel.read_text().splitlines())
    # A run killed while writing: three whole lines and half of the fourth.
    lines = clean.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:3]) + lines[3][: len(lines[3]) // 2])
    refused = run(str(archive), "--out", str(cut))
    assert refused.exit_code != 0 and "--resume" in refused.output
    resumed = run(str(archive), "--out", str(cut), "--resume", "--progress")
    assert resumed.exit_code == 0, resumed.output
    assert sorted(cut.read_text().splitlines()) == sorted(clean.read_text().splitlines())
    # Resumed again: nothing left to rate, nothing written twice.
    assert run(str(archive), "--out", str(cut), "--resume").exit_code == 0
    assert len(cut.read_text().splitlines()) == len(lines)


def test_a_changed_file_is_rated_again(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    game, clicks = played_game(9, 9, 10, 1)
    target = folder / "a.evf"
    target.write_bytes(record(game.mine, clicks))
    out = tmp_path / "out.jsonl"
    assert run(str(folder), "--out", str(out)).exit_code == 0
    game, clicks = played_game(9, 9, 10, 2)
    target.write_bytes(record(game.mine, clicks))
    assert run(str(folder), "--out", str(out), "--resume").exit_code == 0
    hashes = {r["hash"] for r in records_of(out)}
    assert len(hashes) == 2


def test_resume_needs_out(archive: Path) -> None:
    result = run(str(archive), "--resume")
    assert result.exit_code == 2 and "--out" in result.output


def three_bv(layout: np.ndarray) -> int:
    """3BV restated: openings (connected zero regions) plus numbered cells next to no zero."""
    rows, cols = layout.shape
    near = np.zeros_like(layout, dtype=int)
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            shifted = np.zeros_like(near)
            shifted[max(dr, 0) : rows + min(dr, 0), max(dc, 0) : cols + min(dc, 0)] = layout[
                max(-dr, 0) : rows + min(-dr, 0), max(-dc, 0) : cols + min(-dc, 0)
            ]
            near += shifted
    zero = ~layout & (near == 0)
    seen = np.zeros_like(zero)
    by_zero = np.zeros_like(zero)
    openings = 0
    for r, c in np.argwhere(zero):
        if seen[r, c]:
            continue
        openings += 1
        stack = [(r, c)]
        seen[r, c] = True
        while stack:
            y, x = stack.pop()
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    ny, nx = y + dy, x + dx
                    if 0 <= ny < rows and 0 <= nx < cols:
                        by_zero[ny, nx] = True
                        if zero[ny, nx] and not seen[ny, nx]:
                            seen[ny, nx] = True
                            stack.append((ny, nx))
    return openings + int((~layout & ~zero & ~by_zero).sum())


def fixture_files() -> list[Path]:
    return sorted(FIXTURES.glob("*.evf"))


def test_fixtures_are_commit_sized() -> None:
    files = fixture_files()
    assert len(files) >= 24
    assert sum(f.stat().st_size for f in files) < 500_000


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: p.name)
def test_fixture_records_agree_with_an_independent_recomputation(path: Path) -> None:
    data = path.read_bytes()
    replay = read_replay(data, path.name)
    got = analyse_file(str(path), pluck=True)
    assert got["status"] == "ok" and got["date"].startswith("2026-")
    assert got["metrics"]["bbbv"] == three_bv(replay.layout)
    rating = rate_replay(replay)
    guesses = [c for c in rating.clicks if c.guess]
    assert [c["number"] for c in got["clicks"]] == [c.number for c in guesses]
    losses = []
    for click, rec in zip(guesses, got["clicks"], strict=True):
        # The odds of every guess, from a fresh solve of the board before it.
        exact = solve(click.board).exact
        assert rec["probability"] == pytest.approx(float(exact[click.cell]))
        assert rec["safest"] == pytest.approx(float(min(exact.values())))
        assert rec["loss"] >= 0 and 0 <= rec["value"] <= rec["best_value"] + 1e-12 <= 1 + 1e-12
        assert rec["loss"] == pytest.approx(rec["best_value"] - rec["value"], abs=1e-12)
        if rec["source"] != "exact":
            # The fixtures stay within the look-ahead's budget: only needless guesses (a
            # certain-safe cell left) are valued by survival.
            assert (rec["source"] == "survival") == (rec["safe_cells"] > 0)
        if rec["source"] == "survival":
            assert rec["loss"] == pytest.approx(float(exact[click.cell] - min(exact.values())))
        losses.append(rec["loss"])
    expected = 100.0 if not losses else 100.0 * (1 - sum(losses) / len(losses))
    assert got["accuracy"] == pytest.approx(expected)
    luck = 1.0
    for click in guesses:
        if click.survived:
            luck *= 1 - float(solve(click.board).exact[click.cell])
    assert got["summary"]["luck"] == pytest.approx(luck)
    # ms_toollib's pluck is -log10 of the same luck (the fixtures have no chords), infinite
    # (null) once a mine is hit.
    pluck = got["metrics"]["pluck"]
    if got["result"] == "won":
        assert pluck == pytest.approx(-got["summary"]["luck_log10"], abs=1e-9)
    else:
        assert pluck is None
    needless = sum(any(v == 0 for v in solve(c.board).exact.values()) for c in guesses)
    assert got["needless_guesses"] == needless


def test_every_fixture_click_has_the_odds_of_a_fresh_solve() -> None:
    for path in fixture_files()[:12]:
        rating = rate_replay(read_replay(path.read_bytes(), path.name))
        for click in rating.clicks:
            exact = solve(click.board).exact
            assert click.probability == exact[click.cell], (path.name, click.number)
            assert click.safest == min(exact.values())


def test_exact_values_of_a_hand_counted_position() -> None:
    # Three cells in a row, one mine: an end cell is safe 2/3 of the time and then tells
    # where the mine is; the middle one is safe as often but leaves a coin toss.
    board = parse_board("3x1x1\n???")
    played, best = _exact_values(board, (0, 1), 30)
    assert played == pytest.approx(1 / 3) and best == pytest.approx(2 / 3)
    played, best = _exact_values(board, (0, 0), 30)
    assert played == pytest.approx(2 / 3) and best == pytest.approx(2 / 3)


def lookahead_of(click):
    """``best``'s look-ahead at a guess, recomputed from scratch through its own guess: a
    fresh player's move, its reason, and every candidate it weighed probed in full, with its
    keep factor and the function that scores any cell; ``None`` where the look-ahead did not
    run (a certain-safe cell, forced or pseudo 50/50s, its own endgame search)."""
    from mscsp.players.best import BestPlayer

    player = BestPlayer()
    player.new_game()
    safe, solution = player.infer(click.board)
    if safe:
        return None
    move = player.guess(click.board, solution, np.random.default_rng(0))
    if player.considered is None:
        return None
    flagged, solution, cells, keep = player.considered
    scored, dead = player.lookahead(flagged, solution, cells, keep, math.inf)

    def value(cell):
        return keep(cell) * player.score(player.probe(flagged, solution, cell))

    top = 1 + player.progress_weight
    return player, move, scored, dead, value, top


@pytest.mark.parametrize("name", ["expert-00005.evf", "expert-00008.evf"])
def test_lookahead_values_agree_with_best_recomputed_independently(name: str) -> None:
    path = FIXTURES / name
    got = analyse_file(str(path))
    rating = rate_replay(read_replay(path.read_bytes(), path.name))
    guesses = {c.number: c for c in rating.clicks if c.guess}
    checked = charged = 0
    for rec in got["clicks"]:
        if rec["source"] != "lookahead":
            continue
        found = lookahead_of(guesses[rec["number"]])
        if found is None:
            continue  # best would not look ahead here (its own rules came first)
        player, move, scored, dead, value, top = found
        cell = tuple(rec["cell"])
        # depth 1: best plays its top-scoring living candidate, or a safer cell before it.
        pick = scored[0][0] if scored else value(dead[0].cell)
        assert player.reason in ("lookahead", "dominated", "implied", "looming", "dead")
        played = pick if cell in (move, scored[0][1].cell if scored else move) else value(cell)
        assert rec["value"] == pytest.approx(played / top, abs=1e-9)
        assert rec["best_value"] == pytest.approx(max(pick, played) / top, abs=1e-9)
        assert rec["loss"] == pytest.approx(max(0.0, pick - played) / top, abs=1e-9)
        checked += 1
        charged += rec["loss"] > 0
    assert checked >= 5 and charged >= 1


def test_a_guess_at_the_cell_best_picks_loses_nothing() -> None:
    from dataclasses import replace

    path = FIXTURES / "expert-00008.evf"
    rating = rate_replay(read_replay(path.read_bytes(), path.name))
    checked = 0
    for click in (c for c in rating.clicks if c.guess and not c.safe_cells):
        found = lookahead_of(click)
        if found is None:
            continue
        player, move, scored, dead, value, top = found
        solved = solve(click.board).exact
        at_best = replace(click, cell=move, probability=solved[move])
        # No exact search (0 layouts): the look-ahead values it, as in any game.
        rec = guess_value(at_best, 0, Lookahead())
        assert rec["source"] == "lookahead"
        assert rec["loss"] == 0 and rec["value"] == rec["best_value"] > 0
        if scored:
            assert rec["best_value"] == pytest.approx(scored[0][0] / top, abs=1e-9)
        checked += 1
    assert checked >= 5


def test_the_lookahead_budget_falls_back_to_survival() -> None:
    path = FIXTURES / "expert-00002.evf"
    rating = rate_replay(read_replay(path.read_bytes(), path.name))
    guesses = [c for c in rating.clicks if c.guess and not c.safe_cells]
    spent = Lookahead(budget=0)
    for click in guesses:
        rec = guess_value(click, 0, spent)
        assert rec["source"] == "survival" and spent.probed == 0
        assert rec["loss"] == pytest.approx(float(click.probability - click.safest))
    # Every probe is counted, and a budget is never overspent: the guesses it cannot
    # afford are valued by survival.
    whole = Lookahead()
    assert {guess_value(click, 0, whole)["source"] for click in guesses} == {"lookahead"}
    small = Lookahead(budget=whole.probed // 2)
    sources = [guess_value(click, 0, small)["source"] for click in guesses]
    assert "lookahead" in sources and "survival" in sources
    assert 0 < small.probed <= whole.probed // 2


def test_how_a_game_was_lost() -> None:
    for seed in range(10, 20):
        game, clicks = random_game(9, 9, 10, seed)
        rating = rate_replay(read_replay(record(game.mine, clicks), "g.evf"))
        lost = rating.lost_click
        if lost is None:
            continue
        exact = solve(lost.board).exact
        p, low = exact[lost.cell], min(exact.values())
        if lost.number == 1 or all(v == p for v in exact.values()):
            kind = "forced"
        elif p == low:
            kind = "good guess"
        else:
            kind = "mistake"
        path_record = analyse_file_from(record(game.mine, clicks))
        assert path_record["loss"]["kind"] == kind
        assert path_record["loss"]["click"] == lost.number


def analyse_file_from(data: bytes) -> dict:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "g.evf"
        path.write_bytes(data)
        return analyse_file(str(path))


def test_summary_exports(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    shutil.copytree(FIXTURES, folder)
    (folder / "bad.evf").write_bytes(b"nonsense")
    csv_file, summary_file = tmp_path / "games.csv", tmp_path / "summary.json"
    result = run(
        str(folder),
        "--csv",
        str(csv_file),
        "--summary-json",
        str(summary_file),
        "--json",
        "--summary",
    )
    assert result.exit_code == 0, result.output
    lines = [json.loads(x) for x in result.output.splitlines() if x.startswith("{")]
    records = [x for x in lines if "summary" not in x or "file" in x]
    summary = json.loads(summary_file.read_text())
    assert lines[-1] == {"summary": summary}
    rows = list(csv.DictReader(io.StringIO(csv_file.read_text())))
    assert len(rows) == summary["files"] == len(fixture_files()) + 1
    assert summary["errors"][0]["file"].endswith("bad.evf")
    ok = [r for r in records if r.get("status") == "ok"]
    for group in summary["groups"]:
        mine = [r for r in ok if r["board"] == group["board"] and r["mode"] == group["mode"]]
        wins = sum(r["result"] == "won" for r in mine)
        assert group["games"] == len(mine) and group["wins"] == wins
        assert group["win_rate_95"] == pytest.approx(list(wilson(wins, len(mine))))
        assert group["accuracy"] == pytest.approx(np.mean([r["accuracy"] for r in mine]))
    months = {(t["board"], t["month"]) for t in summary["trends"]}
    assert months == {(r["board"], r["date"][:7]) for r in ok}
    worst = summary["worst"][0]
    assert worst["loss"] == max(c["loss"] for r in ok for c in r["clicks"])


def test_html_report_in_the_browser(driver, tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    result = run(str(FIXTURES), "--report", str(report))
    assert result.exit_code == 0, result.output
    driver.get(report.as_uri())
    assert "Archive report" in driver.title or "archive report" in driver.title
    images = driver.find_elements("css selector", "img.plot")
    assert len(images) == 2
    boards = driver.find_elements("css selector", "img.board")
    assert boards and not driver.find_elements("css selector", "pre")  # every board drawn
    images += boards
    for image in images:
        assert driver.execute_script("return arguments[0].naturalWidth", image) > 100
    tables = driver.find_elements("css selector", "table")
    assert "intermediate" in tables[0].text and "expert" in tables[0].text
    shots = os.environ.get("MSCSP_SCREENSHOTS")
    driver.save_screenshot(str(Path(shots or tmp_path) / "archive-report.png"))


def outcome(read, data: bytes, name: str):
    """What reading gives: the replay's actions, or the error's type and text."""
    try:
        return read_replay(data, name, reader=read).actions
    except MscspError as exc:
        return type(exc).__name__, str(exc)


def test_a_kept_reader_answers_as_a_child_per_file() -> None:
    game, clicks = played_game(9, 9, 10, 2)
    good = record(game.mine, clicks)
    rng = np.random.default_rng(0)
    files = [(good, "a.evf")]
    for cut in (0.1, 0.5, 0.9):
        files += [(good[: int(len(good) * cut)], "a.evf"), (good, "a.evf")]
    for _ in range(6):
        data = bytearray(good)
        for i in rng.choice(len(data), size=8, replace=False):
            data[i] = int(rng.integers(256))
        files += [(bytes(data), "a.evf"), (good, "a.avf"), (good, "a.evf")]
    kept = ReaderProcess()
    try:
        for data, name in files:
            assert outcome(kept, data, name) == outcome(None, data, name)
        # A child killed from outside (or dead on a file) is replaced for the next one.
        kept._start().kill()
        assert outcome(kept, good, "a.evf") == outcome(None, good, "a.evf")
        with pytest.raises(SolverLimitError):
            read_replay(good, "a.evf", timeout=1e-6, reader=kept)
        assert outcome(kept, good, "a.evf") == outcome(None, good, "a.evf")
    finally:
        kept.close()


def test_kill_9_and_resume_give_the_clean_runs_records(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    clean, killed = tmp_path / "clean.jsonl", tmp_path / "killed.jsonl"
    assert run(str(FIXTURES), "--out", str(clean)).exit_code == 0
    command = [sys.executable, "-m", "mscsp", "replay", str(FIXTURES), "--out", str(killed)]
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while child.poll() is None and (not killed.exists() or killed.read_text().count("\n") < 5):
            time.sleep(0.05)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    written = killed.read_text().count("\n")
    assert 5 <= written < len(fixture_files()), "killed mid-run"
    assert run(str(FIXTURES), "--out", str(killed), "--resume").exit_code == 0
    assert sorted(killed.read_text().splitlines()) == sorted(clean.read_text().splitlines())


def brute_click_value(layouts: frozenset, revealed: frozenset, cell, shape) -> float:
    """The chance of winning after clicking ``cell`` with best play after, by brute force
    over every layout (a frozenset of mines) still possible."""
    rows, cols = shape
    groups: dict[int, set] = {}
    for layout in layouts:
        if cell not in layout:
            shown = sum(
                (cell[0] + dr, cell[1] + dc) in layout for dr in (-1, 0, 1) for dc in (-1, 0, 1)
            )
            groups.setdefault(shown, set()).add(layout)
    return sum(
        len(group) / len(layouts) * brute_value(frozenset(group), revealed | {cell}, shape)
        for group in groups.values()
    )


_BRUTE: dict = {}


def brute_value(layouts: frozenset, revealed: frozenset, shape) -> float:
    """The chance of winning a position with best play (one layout left: won)."""
    if len(layouts) == 1:
        return 1.0
    key = (layouts, revealed)
    if key not in _BRUTE:
        rows, cols = shape
        cells = [(r, c) for r in range(rows) for c in range(cols) if (r, c) not in revealed]
        _BRUTE[key] = max(brute_click_value(layouts, revealed, c, shape) for c in cells)
    return _BRUTE[key]


@pytest.mark.parametrize("seed", range(6))
def test_exact_values_against_a_brute_force_game_tree(seed: int) -> None:
    from itertools import combinations

    from mscsp.game import Game

    rows, cols, mines = 3, 4, 3
    rng = np.random.default_rng(seed)
    layout = np.zeros((rows, cols), dtype=bool)
    layout.flat[rng.choice(rows * cols, size=mines, replace=False)] = True
    game = Game(rows, cols, mines, first_click="any", layout=layout)
    safe = [tuple(map(int, x)) for x in np.argwhere(~layout)]
    game.reveal(*safe[rng.integers(len(safe))])
    if game.over:
        pytest.skip("the first click won")
    board = game.board()
    revealed = frozenset(tuple(map(int, x)) for x in np.argwhere(board.cells >= 0))
    covered = [(r, c) for r in range(rows) for c in range(cols) if (r, c) not in revealed]

    def fits(layout: frozenset) -> bool:
        return all(
            board.cells[cell]
            == sum((cell[0] + a, cell[1] + b) in layout for a in (-1, 0, 1) for b in (-1, 0, 1))
            for cell in revealed
        )

    layouts = frozenset(frozenset(m) for m in combinations(covered, mines) if fits(frozenset(m)))
    best = brute_value(layouts, revealed, (rows, cols))
    for cell in covered:
        played, best_value = _exact_values(board, cell, 1000)
        assert played == pytest.approx(brute_click_value(layouts, revealed, cell, (rows, cols)))
        assert best_value == pytest.approx(best)


def test_a_time_limit_is_no_verdict_and_resume_rates_it_again(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    game, clicks = played_game(9, 9, 10, 3)
    (folder / "a.evf").write_bytes(record(game.mine, clicks))
    out = tmp_path / "out.jsonl"
    # A solve limit of one microsecond: the game is not judged.
    assert run(str(folder), "--out", str(out), "--time-limit", "0.000001").exit_code == 0
    first = records_of(out)
    assert first[0]["status"] == "error" and first[0]["retry"] is True
    assert run(str(folder), "--out", str(out), "--resume").exit_code == 0
    assert records_of(out)[-1]["status"] == "ok"


@pytest.mark.parametrize("option", ["--csv", "--summary-json", "--report"])
def test_an_output_that_cannot_be_written_is_refused_before_the_run(option, tmp_path):
    missing = tmp_path / "no-such-folder" / "out.file"
    for path, words in ((missing, "does not exist"), (tmp_path, "is a folder")):
        result = CliRunner().invoke(main, ["replay", str(FIXTURES), option, str(path)])
        assert result.exit_code == 2, result.output
        assert words in result.output and "==>" not in result.output
        assert len(result.output.strip().splitlines()) == 1
