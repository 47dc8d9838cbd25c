"""Where David Hill's solver would click elsewhere than ``best``: the positions, named
(issue 49).

``best`` plays games of ``mscsp play`` (expert classic by default, seed 31,000,000: the games
of ``hill_paired.py``'s run). At each of its guesses the position (the layout and the cells
revealed, the first click first) goes to Hill's solver (``bench/players/hill/HillAsk.java``):
a fresh solver with ``--setting`` (``LARGE_ANALYSIS``: its brute-force endgame up to 4,000
layouts, and its tie-breaks), built as ``hill_paired.py`` builds it. For each guess: the rule
of ``best`` that chose it (its ``reason``), the layouts left, both clicks, each cell's exact
chance of being safe (ours, from the position's solution), Hill's rule (its ``MoveMethod``)
and its own figure for its cell.

``--paired DIR`` takes the games of a ``hill_paired.py --out DIR`` run that only one of the
two players won (only those carry the difference); ``--games N`` takes games ``0..N-1``.
The table is by ``best``'s rule: guesses, how often Hill would click elsewhere, and the mean
safety of the two cells there; then the first such position of each game only Hill won.
Everything goes to ``--out`` (``choices.json``, ``choices.md``, every guess in
``guesses.jsonl``); ``--reuse`` takes Hill's answers saved there by an earlier run of the
same questions::

    python bench/players/hill_choices.py --hill-src /tmp/hill-src --paired /tmp/hill-paired \\
        --out /tmp/hill-choices        # (alone: Hill's solver on both cores)
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.players.hill_paired import build, layouts, run_java  # noqa: E402
from mscsp.evaluation.harness import RunConfig, RunLog, play_game  # noqa: E402
from mscsp.game import PRESETS  # noqa: E402
from mscsp.players.best import BestPlayer  # noqa: E402

ANSWER = re.compile(r"^(\d+):(\d+) (none|(\d+),(\d+) (certain|guess) (\w+) (\S+))$")
#: Named positions in the markdown (the JSON has them all).
TOP = 15
#: Layouts left at a guess, in the bands that matter: best's exact search (200), Hill's (4,000).
BANDS = ((200, "<= 200"), (4000, "201-4,000"), (None, "> 4,000"))


class Recording(BestPlayer):
    """``best``, keeping each guess's position, click, rule and odds.

    A subclass plays every guess through :meth:`guess` in Python; the engine identity
    tests hold it to the same clicks as the engine's ``best``.
    """

    def __init__(self, **options):
        super().__init__(**options)
        self.guesses: list[dict] = []

    def new_game(self) -> None:
        super().new_game()
        self.guesses = []

    def guess(self, board, solution, rng):
        move = super().guess(board, solution, rng)
        self.guesses.append(
            {
                "revealed": np.argwhere(board.cells >= 0),
                "move": (int(move[0]), int(move[1])),
                "reason": self.reason,
                "layouts": int(solution.weight),
                "mine": solution.probabilities.copy(),
            }
        )
        return move


def band(layouts: int) -> str:
    """The band of a layout count (:data:`BANDS`)."""
    return next(name for top, name in BANDS if top is None or layouts <= top)


def positions(preset: str, seed: int, games: list[int]) -> tuple[list[dict], dict[int, bool]]:
    """``best``'s guesses in ``games`` (each with its game index) and its results."""
    rows, cols, mines = PRESETS[preset]
    config = RunConfig(
        "best", rows, cols, mines, first_click="safe", first_move="corner", seed=seed
    )
    player, found, won = Recording(), [], {}
    for index in games:
        won[index] = play_game(player, config, index).won
        found += [guess | {"game": index, "k": k} for k, guess in enumerate(player.guesses)]
    return found, won


def questions(preset: str, seed: int, found: list[dict]) -> list[str]:
    """One HillAsk line per guess: the game's layout, then its revealed cells."""
    rows, cols, _ = PRESETS[preset]
    games = sorted({guess["game"] for guess in found})
    mines = {}
    for line in layouts(preset, max(games) + 1, seed):
        index, _, _, _, *cells = line.split()
        if int(index) in games:
            mines[int(index)] = " ".join(cells)
    lines = []
    for guess in found:
        cells = sorted(map(tuple, guess["revealed"]), key=lambda cell: cell != (0, 0))
        shown = " ".join(f"{c},{r}" for r, c in cells)  # (x is the column, the corner first)
        lines.append(
            f"{guess['game']}:{guess['k']} {cols} {rows} M {mines[guess['game']]} R {shown}"
        )
    return lines


def compare(found: list[dict], said: list[str]) -> list[dict]:
    """Each guess with Hill's answer: its cell, kind, rule and figure, both cells' safety."""
    answers = {}
    for line in said:
        match = ANSWER.match(line.strip())
        if match:
            answers[(int(match[1]), int(match[2]))] = match
    rows = []
    for guess in found:
        match = answers.get((guess["game"], guess["k"]))
        if match is None:
            raise SystemExit(f"Hill's solver gave no answer for game {guess['game']}")
        mine = guess["mine"]
        r, c = guess["move"]
        row = {
            "game": guess["game"],
            "guess": guess["k"],
            "reason": guess["reason"],
            "layouts": guess["layouts"],
            "best": [r, c],
            "best_safe": 1 - float(mine[r, c]),
            "hill": None,
        }
        if match[3] != "none":
            hr, hc = int(match[5]), int(match[4])
            row |= {
                "hill": [hr, hc],
                "hill_kind": match[6],
                "hill_rule": match[7],
                "hill_figure": float(match[8]),
                "hill_safe": 1 - float(mine[hr, hc]),
            }
        row["differs"] = row["hill"] != row["best"]
        rows.append(row)
    return rows


def summary(rows: list[dict], won: dict[int, bool], hill_won: dict[int, bool]) -> dict:
    """Counts by best's rule and by layouts band, and the first differing guess of each game
    only Hill won."""
    tables = {}
    for key in ("reason", "band"):
        groups = defaultdict(list)
        for row in rows:
            groups[row["reason"] if key == "reason" else band(row["layouts"])].append(row)
        tables[key] = {
            name: {
                "guesses": len(group),
                "differ": sum(row["differs"] for row in group),
                **_sides(group),
                "best_safe": _mean(row["best_safe"] for row in group if row["differs"]),
                "hill_safe": _mean(row.get("hill_safe") for row in group if row["differs"]),
            }
            for name, group in sorted(groups.items())
        }
    hill_rules = defaultdict(int)
    for row in rows:
        if row["differs"]:
            hill_rules[row.get("hill_rule", "none")] += 1
    discordant = {
        "only Hill won": [g for g in won if hill_won.get(g) and not won[g]],
        "only best won": [g for g in won if g in hill_won and won[g] and not hill_won[g]],
    }
    first = {name: _first(rows, set(games)) for name, games in discordant.items()}
    return {
        "guesses": len(rows),
        "differ": sum(row["differs"] for row in rows),
        "certain_for_hill": sum(row.get("hill_kind") == "certain" for row in rows),
        "by": tables,
        "hill_rules_where_differs": dict(sorted(hill_rules.items())),
        "discordant": {
            name: {"games": len(discordant[name]), **_sides(first[name]["any"])}
            | {"first_not_tied": _sides(first[name]["not_tied"])}
            for name in discordant
        },
        "first_not_tied_where_only_hill_won": sorted(
            first["only Hill won"]["not_tied"],
            key=lambda row: row["best_safe"] - row["hill_safe"],
            reverse=True,
        ),
    }


def _first(rows: list[dict], games: set[int]) -> dict[str, list[dict]]:
    """The first guess of each game in ``games`` where Hill clicks elsewhere (``any``), and
    the first where it clicks a cell of other odds (``not_tied``)."""
    found: dict[str, dict[int, dict]] = {"any": {}, "not_tied": {}}
    for row in rows:
        game = row["game"]
        if game not in games or not row["differs"] or row["hill"] is None:
            continue
        found["any"].setdefault(game, row)
        if abs(row["hill_safe"] - row["best_safe"]) >= 1e-12:
            found["not_tied"].setdefault(game, row)
    return {kind: list(by_game.values()) for kind, by_game in found.items()}


def _sides(rows: list[dict]) -> dict[str, int]:
    """Of the guesses where Hill clicks elsewhere: how often its cell is safer, as safe (a
    tie: another cell of the same odds) or less safe than ``best``'s, by our exact odds."""
    sides = {"hill_safer": 0, "tie": 0, "best_safer": 0}
    for row in rows:
        if row["differs"] and row["hill"] is not None:
            gap = row["hill_safe"] - row["best_safe"]
            sides["tie" if abs(gap) < 1e-12 else "hill_safer" if gap > 0 else "best_safer"] += 1
    return sides


def _count(layouts: int) -> str:
    """A layout count, in full up to a million, else as a power of ten."""
    return f"{layouts:,}" if layouts < 10**6 else f"{layouts:.1e}".replace("e+", "e")


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def markdown(result: dict) -> str:
    """The tables for docs/results.md."""
    lines = []
    for key, title in (("reason", "`best`'s rule"), ("band", "layouts left")):
        lines += [
            f"| {title} | guesses | Hill clicks elsewhere | of which a tie / Hill's safer / "
            "`best`'s safer | safety there, `best` | Hill |",
            "|---|---:|---:|---|---:|---:|",
        ]
        for name, row in result["by"][key].items():
            safe = [
                f"{100 * v:.1f} %" if v is not None else "-"
                for v in (row["best_safe"], row["hill_safe"])
            ]
            lines.append(
                f"| {name} | {row['guesses']:,} | {row['differ']:,} "
                f"({100 * row['differ'] / row['guesses']:.1f} %) "
                f"| {row['tie']} / {row['hill_safer']} / {row['best_safer']} "
                f"| {safe[0]} | {safe[1]} |"
            )
        lines.append("")
    lines += [
        "| games | the first guess where Hill clicks elsewhere: a tie / Hill's safer / "
        "`best`'s safer | the first not a tie: Hill's safer / `best`'s safer |",
        "|---|---|---|",
    ]
    for name, row in result["discordant"].items():
        untied = row["first_not_tied"]
        lines.append(
            f"| {name} ({row['games']:,}) | {row['tie']} / {row['hill_safer']} / "
            f"{row['best_safer']} | {untied['hill_safer']} / {untied['best_safer']} |"
        )
    lines += [
        "",
        "The first guess of other odds in the games only Hill won, the widest gaps first "
        "(all in choices.json):",
        "",
        "| game | guess | `best`'s rule | layouts | `best` clicks (safe) | Hill clicks (safe) "
        "| Hill's rule |",
        "|---:|---:|---|---:|---|---|---|",
    ]
    for row in result["first_not_tied_where_only_hill_won"][:TOP]:
        lines.append(
            f"| {row['game']} | {row['guess'] + 1} | {row['reason']} | {_count(row['layouts'])} "
            f"| {tuple(row['best'])} ({100 * row['best_safe']:.1f} %) "
            f"| {tuple(row['hill'])} ({100 * row['hill_safe']:.1f} %) | {row['hill_rule']} |"
        )
    return "\n".join(lines)


def saved(asked: list[str], workers: int, out: Path) -> list[str] | None:
    """Hill's answers that ``run_java`` saved in ``out`` for exactly these questions dealt to
    ``workers`` JVMs; ``None`` where any file is missing or holds other questions."""
    said = []
    for k in range(workers):
        given, answers = out / f"positions-{k}.txt", out / f"positions-{k}.out"
        questions_there = "".join(line + "\n" for line in asked[k::workers])
        if not answers.exists() or not given.exists() or given.read_text() != questions_there:
            return None
        said += answers.read_text().splitlines()
    return said


def paired_games(folder: Path, preset: str, seed: int) -> tuple[list[int], dict[int, bool]]:
    """The games of a hill_paired.py run that only one player won, and Hill's results."""
    hill = json.loads((folder / f"hill-{preset}-{seed}-LARGE_ANALYSIS.json").read_text())
    hill = {int(k): v for k, v in hill.items()}
    _, results = RunLog(folder / "best.jsonl").read()
    games = sorted(i for i in hill.keys() & results.keys() if hill[i] != results[i].won)
    return games, hill


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hill-src", type=Path, required=True)
    parser.add_argument("--preset", default="expert", choices=sorted(PRESETS))
    parser.add_argument("--seed", type=int, default=31_000_000)
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--paired", type=Path, help="a hill_paired.py --out folder")
    which.add_argument("--games", type=int, help="games 0..N-1")
    parser.add_argument("--setting", default="LARGE_ANALYSIS", help="Hill's SettingsFactory name")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="take Hill's answers saved in --out for the same questions",
    )
    args = parser.parse_args(argv)
    if args.games is not None and args.games < 1:
        parser.error("--games must be at least 1")
    if args.paired:
        games, hill_won = paired_games(args.paired, args.preset, args.seed)
    else:
        games, hill_won = list(range(args.games)), {}
    args.out.mkdir(parents=True, exist_ok=True)
    classes = build(args.hill_src, args.out)
    found, won = positions(args.preset, args.seed, games)
    asked = questions(args.preset, args.seed, found)
    said = saved(asked, args.workers, args.out) if args.reuse else None
    if said is None:
        said = run_java(classes, args.setting, asked, args.workers, args.out, ask=True)
    result = {
        "preset": args.preset,
        "seed": args.seed,
        "setting": args.setting,
        "games": len(games),
    }
    rows = compare(found, said)
    with (args.out / "guesses.jsonl").open("w") as log:
        log.writelines(json.dumps(row) + "\n" for row in rows)
    result |= summary(rows, won, hill_won)
    (args.out / "choices.json").write_text(json.dumps(result, indent=1))
    (args.out / "choices.md").write_text(markdown(result) + "\n")
    print(markdown(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
