"""Chords and misclicks in replays (issue 33): written by ms_toollib's recorder, rated back.

ms_toollib's ``BaseVideo`` chords on a revealed number whose flags match it, at the first
release of a left+right press or at a middle release ("mc"/"mr"), and reads the chord back
as one event of useful level 3 (4 when it hits a mine); a left click on an open cell or a
flag, a press released on an open cell or off the board, and a chord on a covered cell or on
a number whose flags do not match are events of level 0 that change nothing. The games here
come from the archive generator (``bench/players/make_replays.py``) or are scripted by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ms_toollib", reason="replays need pip install 'mscsp[replay]'")

from click.testing import CliRunner  # noqa: E402
from replay_files import record as record_plain  # noqa: E402

from bench.players import make_replays as gen  # noqa: E402
from mscsp.board import COVERED, FLAG, neighbour_sum  # noqa: E402
from mscsp.cli import main  # noqa: E402
from mscsp.game import Game  # noqa: E402
from mscsp.replay import ReaderProcess, rate_replay, read_replay  # noqa: E402

#: Rates well above the generator's defaults, so that a dozen small games show every case.
RATES = {"chord_rate": 0.4, "misclick_rate": 0.25, "wrong_flags": 0.25}


@pytest.fixture(scope="module")
def reader():
    child = ReaderProcess()
    yield child
    child.close()


def rate(data: bytes, reader: ReaderProcess | None = None):
    return rate_replay(read_replay(data, "game.evf", reader=reader))


def generated(preset: str, seed: int, **rates: float) -> tuple[Game, list, bytes]:
    game, actions, name = gen.play(preset, seed, 0.04, 0.05, **rates)
    return game, actions, gen.record(game.mine, actions, gen.EPOCH_US, name)


class Recorder(Game):
    """A game that opens zeros by ms_toollib's rule, written as its search: a zero opens its
    covered neighbours but the flagged ones, then each zero among them in turn."""

    flagged: set[tuple[int, int]] | frozenset[tuple[int, int]] = frozenset()

    def _open_zero_region(self, r: int, c: int) -> int:
        todo, opened = [(r, c)], 0
        while todo:
            cell = todo.pop()
            if self.view[cell] != COVERED or cell in self.flagged:
                continue
            self.view[cell] = self._numbers[cell]
            opened += 1
            if self.view[cell] == 0:
                todo.extend(gen.neighbours(self.rows, self.cols, *cell))
        return opened


def openings(layout: np.ndarray, actions: list) -> tuple[Game, list, int]:
    """The actions that open cells, played here by the rules ms_toollib follows (a click
    opens a covered, unflagged cell; a chord on a number with as many flags around it opens
    its other covered neighbours; a zero opens its unflagged neighbours, see
    :class:`Recorder`; nothing else opens anything): the game at the end, each opening as
    ``(index, kind, at, cells)`` (``cells``: those it opens directly, its safe cells first,
    then the first mine), and how many cells were still covered when their turn came (the
    clicks a rating lists)."""
    rows, cols = layout.shape
    game = Recorder(rows, cols, int(layout.sum()), first_click="any", layout=layout)
    flagged: set[tuple[int, int]] = set()
    game.flagged = flagged  # (the same set: toggled in place below)
    found = []
    rated = 0
    for index, (kind, r, c, *_) in enumerate(actions):
        at = (r, c)
        cells = []
        if kind == "flag":
            flagged.symmetric_difference_update({at})
        elif kind == "click" and game.view[at] == COVERED and at not in flagged:
            cells = [at]
        elif kind in gen.CHORDS and game.view[at] > 0:
            near = gen.neighbours(rows, cols, r, c)
            if sum(x in flagged for x in near) == game.view[at]:
                cells = [x for x in near if game.view[x] == COVERED and x not in flagged]
                cells = [x for x in cells if not layout[x]] + [x for x in cells if layout[x]][:1]
        if not cells:
            continue
        assert not game.over
        found.append((index, "click" if kind == "click" else "chord", at, cells))
        for cell in cells:
            if game.view[cell] == COVERED:  # else a zero opened it a moment ago
                rated += 1
                game.reveal(*cell)
    return game, found, rated


def key(click) -> tuple:
    """What a click's rating says, but for how it was made (kind and mouse cell)."""
    return (
        click.number,
        click.cell,
        click.board.to_text(),
        click.probability,
        click.safest,
        click.best_cell,
        click.safe_cells,
        click.verdict,
        click.cost,
        click.survived,
    )


def test_generated_games_rate_each_opening_once(reader) -> None:
    seen = {"chord": 0, "middle": 0, "misclick": 0, "slip": 0, "off board": 0, "chord lost": 0}
    seen["wrong flag by a zero"] = 0
    for index in range(12):
        preset = ("beginner", "intermediate")[index % 2]
        game, actions, data = generated(preset, 500 + index, **RATES)
        replay = read_replay(data, "game.evf", reader=reader)
        rating = rate_replay(replay)
        played, found, rated = openings(game.mine, actions)
        # The generator's engine, the rules here and the rating agree on the game.
        assert rating.result == str(game.state) == str(played.state)
        assert rating.final_board == played.board()
        assert np.array_equal(game.view, played.view)
        # One action per opening, misclicks left out, chords listed once with their cells.
        assert [(a.kind, a.at, list(a.cells)) for a in replay.actions] == [
            (kind, at, cells) for _, kind, at, cells in found
        ]
        assert len(rating.clicks) == rated
        assert [c.number for c in rating.clicks] == list(range(1, rated + 1))
        for click in rating.clicks:
            assert click.board.cells[click.cell] == COVERED
            if click.kind == "chord":
                assert click.board.cells[click.at] > 0
                assert max(abs(click.cell[0] - click.at[0]), abs(click.cell[1] - click.at[1])) == 1
        lost = rating.lost_click
        assert (lost is None) == (rating.result == "won")
        if lost is not None:
            assert lost is rating.clicks[-1] and game.mine[lost.cell]
            assert all(c.survived for c in rating.clicks[:-1])
            last = found[-1]
            assert lost.kind == last[1] and lost.cell == last[3][-1]
            seen["chord lost"] += last[1] == "chord"
            # A wrong flag left covered beside the zeros its chord opened.
            cells = rating.final_board.cells
            zeros = neighbour_sum(cells == 0) > 0
            seen["wrong flag by a zero"] += bool((zeros & (cells == COVERED) & ~game.mine).any())
        opening = {index for index, *_ in found}
        for index, (kind, _r, _c, *to) in enumerate(actions):
            if kind in gen.CHORDS and index in opening:
                seen[kind] += 1
            elif kind in ("misclick", "slip", "middle"):
                seen["off board" if kind == "slip" and to[0] is None else kind] += 1
    # The games above exercise every case (the seeds are fixed).
    assert all(seen.values()), seen


def test_misclicks_change_nothing(reader) -> None:
    tried = 0
    for seed in range(700, 706):
        game, actions, data = generated(
            "intermediate", seed, chord_rate=0.2, misclick_rate=0.5, wrong_flags=0.0
        )
        _, found, _ = openings(game.mine, actions)
        opening = {index for index, *_ in found}
        clean = [a for i, a in enumerate(actions) if a[0] == "flag" or i in opening]
        misclicks = len(actions) - len(clean)
        tried += misclicks
        with_them = rate(data, reader)
        without = rate(gen.record(game.mine, clean, gen.EPOCH_US, "x"), reader)
        # The same clicks, rated the same, and no more guesses.
        assert [(key(c), c.kind, c.at) for c in with_them.clicks] == [
            (key(c), c.kind, c.at) for c in without.clicks
        ]
        assert with_them.summary() == without.summary()
        assert with_them.replay.actions == without.replay.actions
        # They are in the file all the same: ms_toollib counts each as one more click, and
        # none as an effective one.
        more = with_them.replay.metrics["cl"] - without.replay.metrics["cl"]
        assert more == misclicks
        assert with_them.replay.metrics["ce"] == without.replay.metrics["ce"]
    assert tried >= 10


def cell_by_cell(layout: np.ndarray, actions: list) -> list:
    """The same game without chords, flags or misclicks: each chord's cells clicked one by
    one in the order the rating takes them (a click on a cell that a zero opened just before
    opens nothing)."""
    _, found, _ = openings(layout, actions)
    return [("click", *cell) for _, _, _, cells in found for cell in cells]


@pytest.mark.parametrize(
    ("preset", "seed", "result"),
    [("beginner", 510, "lost"), ("intermediate", 505, "won"), ("intermediate", 511, "lost")],
)
def test_chords_rate_like_their_cells_clicked_one_by_one(reader, preset, seed, result) -> None:
    game, actions, data = generated(preset, seed, **RATES)
    chorded = rate(data, reader)
    assert chorded.result == result
    if result == "lost":  # on a wrong flag
        assert chorded.lost_click.kind == "chord"
    plain = rate(gen.record(game.mine, cell_by_cell(game.mine, actions), 0, "x"), reader)
    assert any(c.kind == "chord" for c in chorded.clicks)
    assert all(c.kind == "click" for c in plain.clicks)
    assert [key(c) for c in chorded.clicks] == [key(c) for c in plain.clicks]
    assert chorded.result == plain.result and chorded.final_board == plain.final_board
    assert chorded.luck == plain.luck
    assert chorded.summary() == plain.summary()


#: Four mines around (1, 1), a 4, on the corners of its square, and no zero beside it.
CORNERS = [(0, 0), (0, 2), (2, 0), (2, 2)]


def corners_layout() -> np.ndarray:
    layout = np.zeros((5, 6), dtype=bool)
    for cell in [*CORNERS, (4, 5)]:
        layout[cell] = True
    return layout


@pytest.mark.parametrize(
    ("flags", "cells"),
    [
        # (0, 0) is left unflagged, (2, 1) flagged instead: the mine comes first in
        # row-major order, before three safe cells (a rating that stopped there, or went on
        # past the loss, dropped them or refused the file).
        ([(0, 2), (2, 0), (2, 2), (2, 1)], [(0, 1), (1, 0), (1, 2), (0, 0)]),
        # Two wrong flags: two mines opened at once; the game ends at the first.
        ([(2, 0), (2, 2), (2, 1), (1, 2)], [(0, 1), (1, 0), (0, 0)]),
    ],
)
def test_chord_on_wrong_flags_loses_by_the_chord(tmp_path, flags, cells) -> None:
    layout = corners_layout()
    assert all(neighbour_sum(layout)[x] > 0 for x in cells[:-1])  # no cascades
    actions = [("click", 1, 1), *(("flag", *x) for x in flags), ("chord", 1, 1)]
    data = record_plain(layout, actions)
    replay = read_replay(data, "game.evf")
    assert [(a.kind, a.at) for a in replay.actions] == [("click", (1, 1)), ("chord", (1, 1))]
    assert list(replay.actions[1].cells) == cells
    assert replay.actions[1].opened >= set(cells)
    rating = rate_replay(replay)
    assert rating.result == "lost"
    chord = rating.clicks[1:]
    assert [c.cell for c in chord] == cells and all(c.kind == "chord" for c in chord)
    assert rating.lost_click is chord[-1] and chord[-1].cell == (0, 0)
    assert all(c.survived for c in chord[:-1])
    for k, click in enumerate(chord):
        assert click.board.cells[click.cell] == COVERED
        assert all(click.board.cells[x.cell] > 0 for x in chord[:k])  # the earlier ones open
    # The safe cells the chord opened show open after the game, the mine hit covered.
    assert all(rating.final_board.cells[x] > 0 for x in cells[:-1])
    # Rated as the same cells clicked one by one.
    plain = rate_replay(
        read_replay(
            record_plain(layout, [("click", 1, 1)] + [("click", *x) for x in cells]), "game.evf"
        )
    )
    assert [key(c) for c in rating.clicks] == [key(c) for c in plain.clicks]
    # And so through the command line.
    path = tmp_path / "game.evf"
    path.write_bytes(data)
    done = CliRunner().invoke(main, ["replay", "--json", str(path)])
    assert done.exit_code == 0, done.output
    out = json.loads(done.output)
    assert out["summary"]["result"] == "lost"
    assert out["summary"]["lost_click"] == len(out["clicks"]) == 1 + len(cells)
    assert [c["kind"] for c in out["clicks"]] == ["click"] + ["chord"] * len(cells)


def test_chord_whose_zero_wins_before_its_last_cell() -> None:
    # One mine, (2, 0), flagged; the numbers (1, 0), (1, 1), (2, 1) clicked. The chord on
    # (1, 0) opens (0, 0), a zero whose cascade opens (0, 1) and the rest: the game is won
    # before the chord's second cell, open by then, comes (it was refused as "clicks go on
    # after the game ended").
    layout = np.zeros((3, 3), dtype=bool)
    layout[2, 0] = True
    actions = [("click", 1, 0), ("click", 1, 1), ("click", 2, 1), ("flag", 2, 0)]
    actions.append(("chord", 1, 0))
    replay = read_replay(record_plain(layout, actions), "game.evf")
    assert list(replay.actions[-1].cells) == [(0, 0), (0, 1)]
    rating = rate_replay(replay)
    assert rating.result == "won"
    assert [(c.kind, c.cell) for c in rating.clicks] == [
        ("click", (1, 0)),
        ("click", (1, 1)),
        ("click", (2, 1)),
        ("chord", (0, 0)),
    ]


def no_flags(rating) -> bool:
    """Whether no board a click was rated on shows a flag (flags never inform the odds)."""
    return all((c.board.cells != FLAG).all() for c in rating.clicks)


def test_wrong_flag_beside_a_zero_the_chord_opens() -> None:
    layout = np.zeros((4, 6), dtype=bool)
    for cell in [(0, 1), (0, 5), (3, 5)]:
        layout[cell] = True
    # (0, 3), a zero, is flagged instead of the mine (0, 1); the chord opens (1, 3), a zero
    # beside it, whose opening stops at the flag in ms_toollib (it went past it in the
    # rating's engine, and the file was refused as corrupt).
    actions = [("click", 1, 2), ("flag", 0, 3), ("chord", 1, 2)]
    replay = read_replay(record_plain(layout, actions), "game.evf")
    chord = replay.actions[1]
    assert chord.kind == "chord" and chord.flags == {(0, 3)}
    assert (0, 3) not in chord.opened and (1, 3) in chord.opened
    rating = rate_replay(replay)
    assert rating.result == "lost"
    assert [(c.kind, c.cell) for c in rating.clicks] == [
        ("click", (1, 2)),
        ("chord", (0, 2)),
        ("chord", (1, 1)),
        ("chord", (1, 3)),
        ("chord", (0, 1)),
    ]
    assert rating.lost_click is rating.clicks[-1]
    # The wrong flag stays covered beside the zeros, and shows covered, not flagged.
    assert rating.final_board.cells[0, 3] == COVERED
    assert rating.final_board.cells[1, 3] == 0
    assert no_flags(rating)
    # Rated as the same cells clicked one by one, the wrong flag standing.
    cells = [("click", *c.cell) for c in rating.clicks[1:]]
    plain = rate_replay(read_replay(record_plain(layout, [*actions[:2], *cells]), "game.evf"))
    assert all(c.kind == "click" for c in plain.clicks)
    assert [key(c) for c in rating.clicks] == [key(c) for c in plain.clicks]


#: Mines at (0, 3) and (4, 3): two rooms of zeros joined by one zero, (2, 3).
ROOMS = ((5, 7), [(0, 3), (4, 3)])


def rooms_layout() -> np.ndarray:
    layout = np.zeros(ROOMS[0], dtype=bool)
    for cell in ROOMS[1]:
        layout[cell] = True
    return layout


def test_wrong_flag_beside_a_zero_a_click_opens_then_opened_by_a_click() -> None:
    layout = rooms_layout()
    # (2, 3), the zero between the rooms, is flagged; a click on (2, 0) opens the left room
    # only. The player unflags (2, 3) and clicks it: an ordinary click, certain safe (a zero
    # is open beside it), which opens the right room and wins.
    actions = [("flag", 2, 3), ("click", 2, 0), ("flag", 2, 3), ("click", 2, 3)]
    replay = read_replay(record_plain(layout, actions), "game.evf")
    first, second = replay.actions
    assert (first.kind, first.at, first.flags) == ("click", (2, 0), {(2, 3)})
    assert (2, 3) not in first.opened and (2, 4) not in first.opened
    assert (second.kind, second.at, second.flags) == ("click", (2, 3), frozenset())
    rating = rate_replay(replay)
    assert rating.result == "won"
    assert [(c.kind, c.cell, c.verdict) for c in rating.clicks] == [
        ("click", (2, 0), "forced"),
        ("click", (2, 3), "certain"),
    ]
    board = rating.clicks[1].board.cells
    assert board[2, 3] == COVERED and board[2, 2] == 0
    assert (board[:, 4:] == COVERED).all()  # the right room
    assert rating.clicks[1].probability == 0
    assert no_flags(rating)


def test_opening_goes_through_covered_cells_only() -> None:
    layout = rooms_layout()
    # (2, 3) and (3, 0), zeros, are flagged; a click on (0, 0) opens the left room but them.
    # Both are unflagged and (2, 3) is clicked: its opening goes into the right room, not
    # through the open left room to (3, 0), which a last click opens.
    actions = [("flag", 2, 3), ("flag", 3, 0), ("click", 0, 0), ("flag", 3, 0), ("flag", 2, 3)]
    actions += [("click", 2, 3), ("click", 3, 0)]
    rating = rate_replay(read_replay(record_plain(layout, actions), "game.evf"))
    assert rating.result == "won"
    assert [(c.cell, c.verdict) for c in rating.clicks] == [
        ((0, 0), "forced"),
        ((2, 3), "certain"),
        ((3, 0), "certain"),
    ]
    assert rating.clicks[2].board.cells[3, 0] == COVERED
    assert (rating.clicks[2].board.cells[:, 4:] >= 0).all()
    assert no_flags(rating)


def test_no_chords_or_misclicks_write_the_fixture_games(tmp_path) -> None:
    # tests/data/replays/archive was written by --seed 7 before chords and misclicks existed:
    # with their rates at 0 the generator still writes those games (the files differ in the
    # times from the recorder's wall clock only).
    args = ["--games", "4", "--seed", "7", "--chord-rate", "0", "--misclick-rate", "0"]
    gen.main([str(tmp_path), *args])
    fixtures = Path(__file__).parent / "data" / "replays" / "archive"
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [
        "beginner-00000.evf",
        "beginner-00003.evf",
        "expert-00002.evf",
        "intermediate-00001.evf",
    ]
    for name in names:
        new = read_replay((tmp_path / name).read_bytes(), name)
        old = read_replay((fixtures / name).read_bytes(), name)
        assert np.array_equal(new.layout, old.layout), name
        assert new.actions == old.actions, name
        assert (new.player, new.start_time) == (old.player, old.start_time), name
