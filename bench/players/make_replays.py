"""Writes an archive of replay files played by our players with human-like noise.

Each game is played on a seeded board by ``best`` or ``csp-minprob`` (chosen per game);
with probability ``--noise`` a move is replaced by a click on a random covered cell (a
careless guess, often needless), and now and then a mine is flagged (and unflagged before a
careless click on it): flags are notes that the replay rating ignores. With probability
``--chord-rate`` a turn is a chord instead: on a revealed number whose covered neighbours are
all known (safe or mines, by the exact odds), the mines are flagged and the number chorded
(both buttons, or the middle one), which opens the rest at once; a ``--wrong-flags`` share of
the chords are made on a wrong flag (a safe neighbour flagged instead of a mine), and lose
the game (the zeros they open stop at the wrong flag: the games are played on the replay
rating's engine, which opens cells as ms_toollib's recorder does). With probability
``--misclick-rate`` a turn starts with a misclick, which opens nothing: a left click on an
open cell or on a flag, a press on a covered cell released on an open one or off the board,
or a chord on a covered cell. The moves are fed to ms_toollib's
recorder (``BaseVideo``, 16-pixel cells, each click at the cell's centre) as
``tests/replay_files.py`` does, and the game's start and end times are set to a date spread
over ``--months`` months (ms_toollib's recorder stamps the wall clock, which cannot be set:
the two big-endian microsecond fields at bytes 18-33 of the ``.evf`` v4 header are
rewritten). Games last a few milliseconds of recorded time, so 3BV/s is not meaningful.

    python bench/players/make_replays.py OUT_DIR --games 3000 --seed 1
    python bench/players/make_replays.py tests/data/replays/archive --games 24 --small

Files are named ``<preset>-<index>.evf``; the same seed writes the same games (dates
included; only the bytes of the recorder's wall-clock fields that are not rewritten may
differ). With ``--chord-rate 0 --misclick-rate 0`` the games are those written before chords
and misclicks were added (the fixtures in ``tests/data/replays/archive`` are ``--seed 7
--games 36``).
"""

from __future__ import annotations

import argparse
import struct
import sys
from pathlib import Path

import numpy as np

from mscsp.board import neighbour_sum
from mscsp.game import Game
from mscsp.players import get_player
from mscsp.replay import _RecordedGame
from mscsp.solver import solve

PIX = 16
PRESETS = {"beginner": (9, 9, 10), "intermediate": (16, 16, 40), "expert": (16, 30, 99)}
#: Where the evf v4 header keeps its start and end times (big-endian u64, microseconds).
TIME_FIELDS = 18
#: 2026-01-01T00:00:00Z, the first date of the archive.
EPOCH_US = 1_767_225_600_000_000
MONTH_US = 30 * 86_400 * 1_000_000
#: The mouse events of each action, all at the cell's centre. A chord is both buttons (the
#: first release chords) or the middle one; ``misclick`` is a left click that opens nothing
#: (on an open cell or a flag); ``slip`` (press on a cell, release elsewhere) is in
#: :func:`record`.
_EVENTS = {
    "click": ("lc", "lr"),
    "flag": ("rc", "rr"),
    "chord": ("lc", "rc", "lr", "rr"),
    "middle": ("mc", "mr"),
    "misclick": ("lc", "lr"),
}
#: The actions that chord.
CHORDS = ("chord", "middle")


def neighbours(rows: int, cols: int, r: int, c: int) -> list[tuple[int, int]]:
    """The cells around ``(r, c)``, in row-major order."""
    return [
        (i, j)
        for i in range(max(r - 1, 0), min(r + 2, rows))
        for j in range(max(c - 1, 0), min(c + 2, cols))
        if (i, j) != (r, c)
    ]


def chord_spots(game: Game) -> list[tuple[tuple[int, int], list, list]]:
    """The revealed numbers a careful player may chord: every covered neighbour known (a
    mine or safe in every layout, flags aside) and one safe at least; each with its covered
    safe neighbours and its mines."""
    solution = solve(game.board())
    safe, mines = set(solution.safe), set(solution.mines)
    spots = []
    for r, c in np.argwhere(game.view > 0):
        near = [x for x in neighbours(game.rows, game.cols, r, c) if game.view[x] == -1]
        if any(x in safe for x in near) and all(x in safe or x in mines for x in near):
            spot = (int(r), int(c))
            spots.append((spot, [x for x in near if x in safe], [x for x in near if x in mines]))
    return spots


def misclick(game: Game, flagged: set, rng: np.random.Generator) -> tuple:
    """A click that opens nothing: a left click on an open cell or a flag, a press on a
    covered cell released on an open neighbour or off the board, or a chord on a covered
    cell."""
    rows, cols = game.view.shape
    opened = [tuple(map(int, x)) for x in np.argwhere(game.view >= 0)]
    covered = [tuple(map(int, x)) for x in np.argwhere(game.view == -1)]
    covered = [x for x in covered if x not in flagged]
    kind = int(rng.integers(5))
    if kind == 1 and flagged:
        return ("misclick", *sorted(flagged)[rng.integers(len(flagged))])
    press = covered[rng.integers(len(covered))]
    if kind == 2:
        near = [x for x in neighbours(rows, cols, *press) if game.view[x] >= 0]
        if near:
            return ("slip", *press, near[rng.integers(len(near))])
    if kind == 3:
        return ("slip", *press, None)
    if kind == 4:
        return ("middle", *press)
    return ("misclick", *opened[rng.integers(len(opened))])


def play(
    preset: str,
    seed: int,
    noise: float,
    flag_rate: float,
    chord_rate: float = 0.0,
    misclick_rate: float = 0.0,
    wrong_flags: float = 0.0,
) -> tuple[Game, list, str]:
    """One game to its end: the game, its actions, and the player's name.

    Actions are ``(kind, row, col)`` with a kind of :data:`_EVENTS`, or ``("slip", row,
    col, to)``: pressed on the cell, released on ``to`` (``None``: off the board)."""
    rows, cols, mines = PRESETS[preset]
    rng = np.random.default_rng(seed)
    # best is slow on expert boards: it plays a third of the small boards only.
    name = "best" if preset != "expert" and rng.random() < 0.33 else "csp-minprob"
    bot = get_player(name)
    bot.new_game()
    # Openings stop at flags, as in ms_toollib's recorder: the set is the game's own.
    game = _RecordedGame(rows, cols, mines, seed=seed)
    actions: list[tuple[str, int, int]] = []
    flagged: set[tuple[int, int]] = set()
    game.flags = flagged

    def click(r: int, c: int) -> None:
        if (r, c) in flagged:  # a flagged cell does not open: unflag it first
            flagged.discard((r, c))
            actions.append(("flag", r, c))
        actions.append(("click", r, c))
        game.reveal(r, c)

    def flag(cell: tuple[int, int]) -> None:  # toggles
        flagged.symmetric_difference_update({cell})
        actions.append(("flag", *cell))

    def chord(spot: tuple[int, int], safe: list, mines: list) -> None:
        wrong = None
        # A wrong flag takes a mine's place (the zeros the chord opens stop at it).
        if wrong_flags and rng.random() < wrong_flags:
            wrong = safe[rng.integers(len(safe))]
            missed = mines[rng.integers(len(mines))]
            mines = [x for x in mines if x != missed]
            if missed in flagged:
                flag(missed)
            flag(wrong)
        for cell in mines:
            if cell not in flagged:
                flag(cell)
        actions.append((CHORDS[rng.integers(2)], *spot))
        for cell in neighbours(rows, cols, *spot):
            # Safe cells first: in this engine the game ends at the mine (and is not won
            # before it: the wrong flag stays covered).
            if game.view[cell] == -1 and cell not in flagged and not game.mine[cell]:
                game.reveal(*cell)
        if wrong is not None:
            game.reveal(*missed)

    click(rows // 2, cols // 2)
    while not game.over:
        covered = [tuple(map(int, x)) for x in np.argwhere(game.view == -1)]
        if rng.random() < flag_rate:
            # Careless flags go on mines only (wrong flags come with the chords), so that
            # without chords the games are those written before them (the fixtures).
            cell = covered[rng.integers(len(covered))]
            if game.mine[cell] and cell not in flagged:
                flagged.add(cell)
                actions.append(("flag", *cell))
        # New draws only where their rate is not 0: with both at 0 the games are as before.
        if misclick_rate and rng.random() < misclick_rate:
            actions.append(misclick(game, flagged, rng))
        if rng.random() < noise:
            moves = [covered[rng.integers(len(covered))]]
        elif chord_rate and rng.random() < chord_rate and (spots := chord_spots(game)):
            chord(*spots[rng.integers(len(spots))])
            continue
        else:
            moves = bot.next_moves(game.board(), rng)
        for r, c in moves:
            if game.view[r, c] == -1:
                click(int(r), int(c))
            if game.over:
                break
    return game, actions, name


def record(layout: np.ndarray, actions: list, when_us: int, player: str) -> bytes:
    """The ``.evf`` bytes of the game, dated ``when_us`` (microseconds since 1970)."""
    import ms_toollib

    def at(cell: tuple[int, int] | None) -> tuple[int, int]:
        if cell is None:
            # Off the board: the one point past it BaseVideo.step takes, the corner past
            # the last cell (at any other it aborts the process).
            return layout.shape[0] * PIX, layout.shape[1] * PIX
        return cell[0] * PIX + PIX // 2, cell[1] * PIX + PIX // 2

    numbers = neighbour_sum(layout).astype(int)
    numbers[layout] = -1
    video = ms_toollib.BaseVideo(numbers.tolist(), PIX)
    for kind, r, c, *to in actions:
        if kind == "slip":  # pressed on the cell, released on another or off the board
            video.step("lc", at((r, c)))
            video.step("lr", at(to[0]))
            continue
        for event in _EVENTS[kind]:
            video.step(event, at((r, c)))
    if video.game_board_state not in (3, 4):
        raise ValueError("the game did not end")
    video.player_identifier = player
    video.generate_evf_v4_raw_data()
    data = bytearray(video.raw_data)
    start, end = struct.unpack_from(">QQ", data, TIME_FIELDS)
    struct.pack_into(">QQ", data, TIME_FIELDS, when_us, when_us + (end - start))
    return bytes(data)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--noise", type=float, default=0.04, help="chance of a random click")
    parser.add_argument("--flags", type=float, default=0.05, help="chance of a flag per move")
    parser.add_argument(
        "--chord-rate", type=float, default=0.1, help="chance a move is a chord (where one fits)"
    )
    parser.add_argument(
        "--misclick-rate", type=float, default=0.02, help="chance of a misclick before a move"
    )
    parser.add_argument(
        "--wrong-flags", type=float, default=0.02, help="share of chords made on a wrong flag"
    )
    parser.add_argument("--months", type=int, default=6)
    parser.add_argument("--small", action="store_true", help="beginner and intermediate only")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    presets = ["beginner", "intermediate"] + ([] if args.small else ["expert"])
    rng = np.random.default_rng(args.seed)
    for index in range(args.games):
        preset = presets[index % len(presets)]
        game, actions, name = play(
            preset,
            args.seed * 1_000_003 + index,
            args.noise,
            args.flags,
            args.chord_rate,
            args.misclick_rate,
            args.wrong_flags,
        )
        when = EPOCH_US + int(rng.integers(args.months * MONTH_US))
        data = record(game.mine, actions, when, name)
        (args.out / f"{preset}-{index:05d}.evf").write_bytes(data)
        print(f"\r{index + 1}/{args.games}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)


if __name__ == "__main__":
    main()
