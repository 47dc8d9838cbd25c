"""Metasweeper's ``.evfs`` sets in an archive: one record per game, as its own ``.evf`` gives;
broken sets give error records; ``--resume`` skips exactly the games already rated."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

ms_toollib = pytest.importorskip("ms_toollib", reason="replays need pip install 'mscsp[replay]'")

from click.testing import CliRunner  # noqa: E402

from mscsp.cli import main  # noqa: E402
from mscsp.replay.archive import analyse_file, set_games, split_set  # noqa: E402

DATA = Path(__file__).parent / "data" / "replays"
#: Three games of the archive fixtures (won, lost, won), written into one set by ms_toollib's
#: Evfs (push, generate_evfs_v0_raw_data, save_evfs_file) with 32-byte checksums.
SET = DATA / "set-3.evfs"
GAMES = ("beginner-00006", "beginner-00003", "intermediate-00001")
#: What a set's game record says beyond the record of the same game as a lone .evf file.
SET_FIELDS = ("file", "set", "game", "game_name")


def evf(name: str) -> bytes:
    return (DATA / "archive" / f"{name}.evf").read_bytes()


def write_set(path: Path, games: list[tuple[str, bytes]], checksum: int = 32) -> Path:
    """An .evfs set of ``(name, evf bytes)`` written by ms_toollib, at ``path``."""
    evfs = ms_toollib.Evfs()
    for name, data in games:
        evfs.push(list(data), name, list(hashlib.sha256(data).digest()[:checksum]))
    evfs.generate_evfs_v0_raw_data()
    assert path.suffix == ".evfs" and not path.exists()
    written = evfs.save_evfs_file(str(path.with_suffix("")))
    assert written == str(path)
    return path


def run(*args: str):
    return CliRunner().invoke(main, ["replay", *args], catch_exceptions=False)


def records_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def by_file(records: list[dict]) -> dict[str, dict]:
    files = [r["file"] for r in records]
    assert len(files) == len(set(files)), "a game recorded twice"
    return {r["file"]: r for r in records}


def without(record: dict, keys: tuple[str, ...]) -> dict:
    return {k: v for k, v in record.items() if k not in keys}


def test_the_fixture_is_ms_toollibs_set_of_three_fixture_games() -> None:
    data = SET.read_bytes()
    evfs = ms_toollib.Evfs(raw_data=list(data))
    evfs.parse()  # a good set: ms_toollib reads it whole
    cells = [evfs[i] for i in range(evfs.len())]
    assert [c.evf_video.file_name for c in cells] == list(GAMES)
    assert [bytes(c.evf_video.raw_data) for c in cells] == [evf(g) for g in GAMES]
    assert [bytes(c.checksum) for c in cells] == [hashlib.sha256(evf(g)).digest() for g in GAMES]
    found, problem = split_set(data)
    assert problem is None
    assert [(name, data[at : at + size]) for name, at, size in found] == [
        (g, evf(g)) for g in GAMES
    ]


@pytest.mark.parametrize("checksum", [0, 1, 32])
def test_the_split_is_ms_toollibs_on_the_sets_it_writes(tmp_path: Path, checksum: int) -> None:
    names = ["é-游戏 1", "b", "intermediate-00001", "x" * 300, "expert-00023"]
    sources = (*GAMES, "beginner-00009", "expert-00023")
    games = [(name, evf(g)) for name, g in zip(names, sources, strict=True)]
    path = write_set(tmp_path / "five.evfs", games, checksum)
    data = path.read_bytes()
    evfs = ms_toollib.Evfs(raw_data=list(data))
    evfs.parse()
    cells = [evfs[i] for i in range(evfs.len())]
    found, problem = split_set(data)
    assert problem is None
    assert [(name, data[at : at + size]) for name, at, size in found] == [
        (c.evf_video.file_name, bytes(c.evf_video.raw_data)) for c in cells
    ]
    assert [name for name, _, _ in found] == names


def test_each_game_of_a_set_is_rated_as_its_own_evf(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    shutil.copy(SET, folder / "session.EVFS")  # found in folders, any case
    shutil.copy(DATA / "beginner-lost.evf", folder / "lone.evf")
    out = tmp_path / "games.jsonl"
    result = run(str(folder), "--out", str(out), "--summary")
    assert result.exit_code == 0, result.output
    records = by_file(records_of(out))
    path = str(folder / "session.EVFS")
    assert set(records) == {f"{path}#1", f"{path}#2", f"{path}#3", str(folder / "lone.evf")}
    assert "4 of 4 files rated, 0 not rated" in result.output
    results = []
    for number, name in enumerate(GAMES, start=1):
        got = records[f"{path}#{number}"]
        assert got["status"] == "ok"
        assert (got["set"], got["game"], got["game_name"]) == (path, number, name)
        alone = analyse_file(str(DATA / "archive" / f"{name}.evf"))
        assert alone["status"] == "ok"
        # Everything but the name: the hash (of the game's own bytes), metrics, clicks, ...
        assert without(got, SET_FIELDS) == without(alone, ("file",))
        assert got["hash"] == hashlib.sha256(evf(name)).hexdigest()
        results.append(got["result"])
    assert results == ["won", "lost", "won"]


def test_a_set_named_alone_is_an_archive(tmp_path: Path) -> None:
    path = shutil.copy(SET, tmp_path / "s.evfs")
    result = run(str(path), "--json")
    assert result.exit_code == 0, result.output
    lines = [json.loads(x) for x in result.output.splitlines() if x.startswith("{")]
    assert [r["file"] for r in lines] == [f"{path}#{n}" for n in (1, 2, 3)]
    assert all(r["status"] == "ok" for r in lines)


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> Path:
    """A folder of good and broken sets, and a good lone .evf."""
    root = tmp_path_factory.mktemp("broken")
    good = SET.read_bytes()
    (root / "good.evfs").write_bytes(good)
    third = good.index(evf(GAMES[2]))
    (root / "cut.evfs").write_bytes(good[: third + 100])  # cut inside the third game
    games = [(g, evf(g)) for g in GAMES]
    # The second game's .evf cut to half (the set's sizes agree): ms_toollib aborts on it.
    games[1] = (GAMES[1], evf(GAMES[1])[: len(evf(GAMES[1])) // 2])
    write_set(root / "bad-game.evfs", games)
    (root / "header.evfs").write_bytes(good[:2])
    (root / "version.evfs").write_bytes(b"\x01" + good[1:])
    (root / "empty.evfs").write_bytes(b"")
    (root / "zeros.evfs").write_bytes(b"\x00" * 100)
    (root / "no-game.evfs").write_bytes(good[:3])
    shutil.copy(DATA / "beginner-lost.evf", root / "lone.evf")
    return root


def test_broken_sets_give_error_records_and_the_run_goes_on(broken: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    result = run(str(broken), "--out", str(out), "--summary")
    assert result.exit_code == 0, result.output
    records = by_file(records_of(out))
    status = {name[len(str(broken)) + 1 :]: r["status"] for name, r in records.items()}
    ok = {"good.evfs#1", "good.evfs#2", "good.evfs#3", "lone.evf"}
    ok |= {"cut.evfs#1", "cut.evfs#2", "bad-game.evfs#1", "bad-game.evfs#3"}
    errors = {"cut.evfs#3", "bad-game.evfs#2", "header.evfs", "version.evfs", "empty.evfs"}
    errors |= {"zeros.evfs", "no-game.evfs"}
    assert status == {**dict.fromkeys(ok, "ok"), **dict.fromkeys(errors, "error")}
    reason = {name: records[str(broken / name)]["reason"] for name in errors}
    assert "truncated .evfs set: game 3:" in reason["cut.evfs#3"]
    assert "bytes left" in reason["cut.evfs#3"]
    assert "corrupt or truncated .evf file" in reason["bad-game.evfs#2"]
    assert "too short" in reason["header.evfs"]
    assert "unsupported .evfs version 1" in reason["version.evfs"]
    assert "empty" in reason["empty.evfs"]
    assert "game 1: its size is 0 bytes" in reason["zeros.evfs"]
    assert "holds no game" in reason["no-game.evfs"]
    cut = records[str(broken / "cut.evfs#3")]
    assert (cut["set"], cut["game"]) == (str(broken / "cut.evfs"), 3)
    assert cut["hash"] == hashlib.sha256((broken / "cut.evfs").read_bytes()).hexdigest()
    # The good games of a broken set are the games of the good one.
    for name in ("cut.evfs#1", "cut.evfs#2", "bad-game.evfs#1", "bad-game.evfs#3"):
        number = name[-1]
        same = records[str(broken / f"good.evfs#{number}")]
        assert without(records[str(broken / name)], SET_FIELDS) == without(same, SET_FIELDS)
    assert f"{len(ok)} of {len(ok) + len(errors)} files rated" in result.output
    for name in errors:
        assert f"{broken / name}: " in result.output


def test_resume_skips_exactly_the_games_done(broken: Path, tmp_path: Path) -> None:
    clean = tmp_path / "clean.jsonl"
    assert run(str(broken), "--out", str(clean)).exit_code == 0
    lines = clean.read_text().splitlines(keepends=True)
    for kept in (2, 5, 9):
        cut = tmp_path / f"cut{kept}.jsonl"
        # A run killed while writing: `kept` whole lines and half of the next.
        cut.write_text("".join(lines[:kept]) + lines[kept][: len(lines[kept]) // 2])
        resumed = run(str(broken), "--out", str(cut), "--resume", "--json")
        assert resumed.exit_code == 0, resumed.output
        now = cut.read_text().splitlines(keepends=True)
        assert now[:kept] == lines[:kept]  # the games done are not rated again
        assert sorted(now) == sorted(lines)  # and none is lost
        printed = {json.loads(x)["file"] for x in resumed.output.splitlines() if x[:1] == "{"}
        rated_again = {r["file"] for r in map(json.loads, lines[kept:]) if r["status"] == "ok"}
        assert printed == rated_again
    again = run(str(broken), "--out", str(clean), "--resume", "--json")
    assert again.exit_code == 0 and clean.read_text().splitlines(keepends=True) == lines
    assert not [x for x in again.output.splitlines() if x.startswith('{"file"')]


def test_a_grown_set_has_only_its_new_game_rated(tmp_path: Path) -> None:
    # Metasweeper adds each game to the end of the open session's set.
    folder = tmp_path / "games"
    folder.mkdir()
    path = folder / "session.evfs"
    write_set(path, [(g, evf(g)) for g in GAMES[:2]])
    out = tmp_path / "out.jsonl"
    assert run(str(folder), "--out", str(out)).exit_code == 0
    before = out.read_text().splitlines(keepends=True)
    assert len(before) == 2
    path.unlink()
    write_set(path, [(g, evf(g)) for g in GAMES])
    assert run(str(folder), "--out", str(out), "--resume").exit_code == 0
    after = out.read_text().splitlines(keepends=True)
    assert after[:2] == before and len(after) == 3
    assert json.loads(after[2])["file"] == f"{path}#3"
    assert json.loads(after[2])["status"] == "ok"


def test_a_set_changed_before_its_game_is_rated_is_tried_again(tmp_path: Path) -> None:
    path = shutil.copy(SET, tmp_path / "s.evfs")
    games, errors = set_games(str(path))
    assert len(games) == 3 and not errors
    Path(path).write_bytes(b"\x00" * 4000)
    record = analyse_file(games[1])
    assert record["status"] == "error" and record["retry"] is True
    assert record["file"] == f"{path}#2" and "changed" in record["reason"]
