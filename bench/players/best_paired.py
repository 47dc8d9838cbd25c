"""Paired comparison of two players (or two versions of one) on the same seeded games.

Both runs are ``mscsp play --log`` logs with the same board, first-click rule, first move
and seed, so game ``i`` has the same mine layout in both. Only the games where exactly one
side won carry information about which is stronger; the sign test on them gives
``z = (b - a) / sqrt(a + b)`` (``a``: only the first won, ``b``: only the second).

Usage::

    PYTHONPATH=$PWD python -m mscsp play -s best --preset expert -n 2000 --seed 1000000 \\
        --out bench/results/new.jsonl
    python bench/players/best_paired.py bench/results/old.jsonl bench/results/new.jsonl [--json]
    python bench/players/best_paired.py --markdown OLD1 NEW1 OLD2 NEW2 ...  # a row per pair
    python bench/players/best_paired.py --divergence --markdown LOG1 LOG2 ...  # divergence

**Divergence mode** (``--play``) gives the same paired result for about half the CPU when
a change touches only some guesses. It plays every game with the new ``best``; at each
guess made by one of the ``--watch`` rules (the ``reason`` of the guess) it also asks the
old player, given the same position. Until the two choices first differ the two players
play the same game, so only the games where they did differ are played again by the old
player; the others count the new result for both. The log (JSONL, resumable) has one row
per game: index, new won, old won, diverged::

    PYTHONPATH=$PWD python bench/players/best_paired.py --play --preset expert -n 2000 \\
        --seed 1000 --old pseudo=false --watch pseudo --out bench/results/pseudo.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mscsp.cli.play import parse_options  # noqa: E402
from mscsp.evaluation.harness import (  # noqa: E402
    RunConfig,
    RunLog,
    check_player_options,
    play_game,
    wilson,
)
from mscsp.game import PRESETS  # noqa: E402
from mscsp.players.best import BestPlayer  # noqa: E402
from mscsp.runtime.outlock import output_lock  # noqa: E402


class WatchedBest(BestPlayer):
    """The new ``best``, noting whether a watched guess differs from the old player's.

    Args:
        old: The old player; it shares this player's mine memory and count cache, so it
            sees the same position.
        watch: Guess reasons (:attr:`BestPlayer.reason`) at which the old player is asked.
        **options: The new player's options.
    """

    def __init__(self, old: BestPlayer, watch: set[str], **options):
        super().__init__(**options)
        self.old, self.watch = old, watch
        old.memory, old.backend = self.memory, self.backend
        self.diverged = False

    def new_game(self) -> None:
        super().new_game()
        self.diverged = False

    def guess(self, board, solution, rng):
        move = super().guess(board, solution, rng)
        if not self.diverged and self.reason in self.watch:
            self.diverged = self.old.guess(board, solution, rng) != move
        return move


def play_paired(
    config: RunConfig, old_options: dict, watch: set[str], games: int, out: str
) -> dict:
    """Plays games ``0..games-1`` in divergence mode, appending to (and resuming) ``out``.

    Returns:
        The paired summary of every game in the log (:func:`summarise`).
    """
    path = Path(out)
    header = {"config": asdict(config), "old": old_options, "watch": sorted(watch)}
    with output_lock(path, "divergence log"):
        logged, done = read_divergence(path)
        if logged is None:
            path.write_text(json.dumps(header) + "\n")
        elif logged != header:
            raise SystemExit(f"{out} holds another run; pick a new --out")
        new = WatchedBest(BestPlayer(**old_options), watch, **config.options)
        old = BestPlayer(**old_options)
        with path.open("a") as log:
            for i in range(games):
                if i in done:
                    continue
                new_won = play_game(new, config, i).won
                old_won = play_game(old, config, i).won if new.diverged else new_won
                done[i] = (new_won, old_won, new.diverged)
                log.write(json.dumps([i, int(new_won), int(old_won), int(new.diverged)]) + "\n")
                log.flush()
    return summarise(config, old_options, done)


def read_divergence(path: Path) -> tuple[dict | None, dict[int, tuple[bool, bool, bool]]]:
    """A divergence log's header (``None`` when there is no log) and its games."""
    if not path.exists():
        return None, {}
    lines = path.read_text().splitlines()
    games = {}
    for line in lines[1:]:
        i, new_won, old_won, diverged = json.loads(line)
        games[i] = (bool(new_won), bool(old_won), bool(diverged))
    return json.loads(lines[0]), games


def divergence_summary(log: str) -> dict:
    """The paired summary of a finished (or stopped) divergence log."""
    header, games = read_divergence(Path(log))
    if header is None or "watch" not in header:
        raise SystemExit(f"{log} is not a divergence-mode log")
    return summarise(RunConfig(**header["config"]), header["old"], games)


def summarise(
    config: RunConfig, old_options: dict, games: dict[int, tuple[bool, bool, bool]]
) -> dict:
    """Win counts of both sides and the sign test on the games only one of them won.

    Args:
        config: The new side's run (board, rule, seed, options).
        old_options: The old side's options.
        games: ``index -> (new won, old won, diverged)``.
    """
    n = len(games)
    new_wins = sum(g[0] for g in games.values())
    old_wins = sum(g[1] for g in games.values())
    new_only = sum(g[0] and not g[1] for g in games.values())
    old_only = sum(g[1] and not g[0] for g in games.values())
    differ = new_only + old_only
    return {
        "games": n,
        "board": f"{config.rows}x{config.cols}/{config.mines}",
        "first_click": config.first_click,
        "first_move": config.first_move,
        "seed": config.seed,
        "diverged": sum(g[2] for g in games.values()),
        "old": {"options": old_options, "wins": old_wins, "ci": wilson(old_wins, n)},
        "new": {"options": config.options, "wins": new_wins, "ci": wilson(new_wins, n)},
        "old_only": old_only,
        "new_only": new_only,
        "differ": differ,
        "z": (new_only - old_only) / math.sqrt(differ) if differ else 0.0,
    }


def compare(old_log: str, new_log: str) -> dict:
    """Win counts on the games both logs finished, and the sign test on the discordant ones."""
    old_cfg, old = RunLog(old_log).read()
    new_cfg, new = RunLog(new_log).read()
    if old_cfg is None or new_cfg is None:
        raise SystemExit("both logs need a run header")
    same = ("rows", "cols", "mines", "first_click", "first_move", "seed")
    for key in same:
        if getattr(old_cfg, key) != getattr(new_cfg, key):
            raise SystemExit(f"the logs differ in {key}: not the same games")
    games = sorted(set(old) & set(new))
    result = summarise(
        new_cfg,
        old_cfg.options,
        {i: (new[i].won, old[i].won, new[i].won != old[i].won) for i in games},
    )
    del result["diverged"]  # two full runs: where the choices first differed is not known
    n = max(len(games), 1)
    result["seconds_per_game"] = {
        "old": sum(old[i].seconds for i in games) / n,
        "new": sum(new[i].seconds for i in games) / n,
    }
    return result


def markdown_row(result: dict) -> str:
    """One row of the paired table in docs/results.md."""
    n = result["games"]
    cells = [result["board"], result["first_click"], str(n)]
    for side in ("old", "new"):
        wins = result[side]["wins"]
        low, high = result[side]["ci"]
        cells.append(f"{100 * wins / max(n, 1):.2f} ({100 * low:.2f}-{100 * high:.2f})")
    cells += [str(result["old_only"]), str(result["new_only"]), f"{result['z']:+.2f}"]
    if "diverged" in result:
        cells.append(str(result["diverged"]))
    return "| " + " | ".join(cells) + " |"


def add_game_options(group) -> None:
    """Board, rule, first move, game count and seed of a run of ``best`` (shared options)."""
    group.add_argument("--preset", choices=sorted(PRESETS), default="expert", help="board")
    group.add_argument(
        "--first-click", default="safe", help="first-click rule (safe, opening, any)"
    )
    group.add_argument("--first-move", default="corner", help="first move (corner, center, r,c)")
    group.add_argument("-n", "--games", type=int, default=1000, help="games 0..n-1")
    group.add_argument("--seed", type=int, default=1000, help="run seed (tune on >= 1000)")


def best_config(args: argparse.Namespace, options: list[str]) -> RunConfig:
    """The checked run of ``best`` with the options of :func:`add_game_options`.

    Args:
        args: The parsed command line.
        options: ``KEY=VALUE`` options of the player.
    """
    rows, cols, mines = PRESETS[args.preset]
    config = RunConfig(
        "best",
        rows,
        cols,
        mines,
        args.first_click,
        args.first_move,
        args.seed,
        parse_options(tuple(options)),
    )
    config.validate()
    return config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("logs", nargs="*", help="OLD NEW log pairs (JSONL, same games)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    parser.add_argument(
        "--divergence", action="store_true", help="the logs are divergence-mode logs, one a row"
    )
    play = parser.add_argument_group("divergence mode (plays the games itself)")
    play.add_argument("--play", action="store_true", help="play new against old best")
    add_game_options(play)
    play.add_argument(
        "--new", nargs="*", default=[], metavar="KEY=VALUE", help="new best's options"
    )
    play.add_argument(
        "--old", nargs="*", default=[], metavar="KEY=VALUE", help="old best's options"
    )
    play.add_argument(
        "--watch",
        nargs="+",
        default=["pseudo"],
        help="guess reasons at which the old player is asked (BestPlayer.reason)",
    )
    play.add_argument("--out", help="divergence log (JSONL, resumed when it exists)")
    args = parser.parse_args()
    if args.play:
        if not args.out:
            parser.error("--play needs --out")
        config = best_config(args, args.new)
        old_options = parse_options(tuple(args.old))
        check_player_options("best", old_options)
        result = play_paired(config, old_options, set(args.watch), args.games, args.out)
        print(json.dumps(result) if args.json else markdown_row(result))
        return
    if args.divergence:
        results = [divergence_summary(log) for log in args.logs]
    elif not args.logs or len(args.logs) % 2:
        parser.error("logs come in OLD NEW pairs")
    else:
        results = [compare(a, b) for a, b in zip(args.logs[::2], args.logs[1::2], strict=True)]
    if args.json:
        print(json.dumps(results if len(results) > 1 else results[0]))
        return
    if args.markdown:
        extra = " games diverged |" if args.divergence else ""
        print(
            "| board | first click | games | old win % (95 % CI) | new win % (95 % CI) "
            "| only old won | only new won | sign test z |" + extra
        )
        print("| --- " * (9 if args.divergence else 8) + "|")
        for result in results:
            print(markdown_row(result))
        return
    for result in results:
        n = result["games"]
        for side in ("old", "new"):
            wins = result[side]["wins"]
            low, high = result[side]["ci"]
            print(
                f"{side}: {wins}/{n} = {wins / max(n, 1):.2%} [{low:.2%}, {high:.2%}] "
                f"{result['seconds_per_game'][side] * 1000:.0f} ms/game {result[side]['options']}"
            )
        print(
            f"differ on {result['differ']} games: old only {result['old_only']}, "
            f"new only {result['new_only']}, sign test z = {result['z']:+.2f}"
        )


if __name__ == "__main__":
    main()
