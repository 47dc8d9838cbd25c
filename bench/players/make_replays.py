"""Writes an archive of replay files played by our players with human-like noise.

Each game is played on a seeded board by ``best`` or ``csp-minprob`` (chosen per game);
with probability ``--noise`` a move is replaced by a click on a random covered cell (a
careless guess, often needless), and now and then a mine is flagged (and unflagged before a
careless click on it): flags are notes that the replay rating ignores. The moves are fed to
ms_toollib's recorder (``BaseVideo``, 16-pixel cells, each click at the cell's centre) as
``tests/replay_files.py`` does, and the game's start and end times are set to a date spread
over ``--months`` months (ms_toollib's recorder stamps the wall clock, which cannot be set:
the two big-endian microsecond fields at bytes 18-33 of the ``.evf`` v4 header are
rewritten). Games last a few milliseconds of recorded time, so 3BV/s is not meaningful.

    python bench/players/make_replays.py OUT_DIR --games 3000 --seed 1
    python bench/players/make_replays.py tests/data/replays/archive --games 24 --small

Files are named ``<preset>-<index>.evf``; the same seed writes the same games (dates
included; only the bytes of the recorder's wall-clock fields that are not rewritten may
differ).
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

PIX = 16
PRESETS = {"beginner": (9, 9, 10), "intermediate": (16, 16, 40), "expert": (16, 30, 99)}
#: Where the evf v4 header keeps its start and end times (big-endian u64, microseconds).
TIME_FIELDS = 18
#: 2026-01-01T00:00:00Z, the first date of the archive.
EPOCH_US = 1_767_225_600_000_000
MONTH_US = 30 * 86_400 * 1_000_000
_EVENTS = {"click": ("lc", "lr"), "flag": ("rc", "rr")}


def play(preset: str, seed: int, noise: float, flag_rate: float) -> tuple[Game, list, str]:
    """One game to its end: the game, its actions, and the player's name."""
    rows, cols, mines = PRESETS[preset]
    rng = np.random.default_rng(seed)
    # best is slow on expert boards: it plays a third of the small boards only.
    name = "best" if preset != "expert" and rng.random() < 0.33 else "csp-minprob"
    bot = get_player(name)
    bot.new_game()
    game = Game(rows, cols, mines, seed=seed)
    actions: list[tuple[str, int, int]] = []
    flagged: set[tuple[int, int]] = set()

    def click(r: int, c: int) -> None:
        if (r, c) in flagged:  # a flagged cell does not open: unflag it first
            flagged.discard((r, c))
            actions.append(("flag", r, c))
        actions.append(("click", r, c))
        game.reveal(r, c)

    click(rows // 2, cols // 2)
    while not game.over:
        covered = [tuple(map(int, x)) for x in np.argwhere(game.view == -1)]
        if rng.random() < flag_rate:
            # Flags go on mines only: a flag on a safe cell would stop ms_toollib's cascades
            # (and not this engine's), and the two boards would part.
            cell = covered[rng.integers(len(covered))]
            if game.mine[cell] and cell not in flagged:
                flagged.add(cell)
                actions.append(("flag", *cell))
        if rng.random() < noise:
            moves = [covered[rng.integers(len(covered))]]
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

    numbers = neighbour_sum(layout).astype(int)
    numbers[layout] = -1
    video = ms_toollib.BaseVideo(numbers.tolist(), PIX)
    for kind, r, c in actions:
        for event in _EVENTS[kind]:
            video.step(event, (r * PIX + PIX // 2, c * PIX + PIX // 2))
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
    parser.add_argument("--months", type=int, default=6)
    parser.add_argument("--small", action="store_true", help="beginner and intermediate only")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    presets = ["beginner", "intermediate"] + ([] if args.small else ["expert"])
    rng = np.random.default_rng(args.seed)
    for index in range(args.games):
        preset = presets[index % len(presets)]
        game, actions, name = play(preset, args.seed * 1_000_003 + index, args.noise, args.flags)
        when = EPOCH_US + int(rng.integers(args.months * MONTH_US))
        data = record(game.mine, actions, when, name)
        (args.out / f"{preset}-{index:05d}.evf").write_bytes(data)
        print(f"\r{index + 1}/{args.games}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)


if __name__ == "__main__":
    main()
