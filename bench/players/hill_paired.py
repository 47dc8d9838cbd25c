"""``best`` and David Hill's solver on the same mine layouts: both win rates, the games only
one of them won, the sign test, and how many games a given precision on the difference
would need at the measured rate of such games.

Hill's solver is a peer, built here from its sources outside this repository (nothing of it
is copied): ``--hill-src`` is a checkout of ``DavidNHill/Minesweeper`` (the ``fetch`` tool's
mirror, exported with ``git archive``). Its ``Asynchronous``, ``MinesweeperGameState`` and
``MineSweeperSolver`` sources and our ``bench/players/hill/HillGames.java`` (which plays
given layouts, the first click given, as Hill's bulk runner does) are compiled into
``--out``. Game ``i`` is ``mscsp play``'s game ``i`` of the same preset and seed (its layout
seed, the classic rule: first click in the top-left corner, safe, not always an opening).

    git -C MIRROR archive HEAD Asynchronous MinesweeperGameState MineSweeperSolver \\
        | tar -x -C /tmp/hill-src
    python bench/players/hill_paired.py --hill-src /tmp/hill-src --games 4000 --seed 31000000 \\
        --out /tmp/hill-paired  # (alone: both players on both cores)
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from mscsp.evaluation.harness import RunLog, game_seeds, wilson  # noqa: E402
from mscsp.game import PRESETS, Game  # noqa: E402

#: Our Java harness: HillGames (plays layouts; with "ask", HillAsk answers positions).
HARNESS = sorted((Path(__file__).resolve().parent / "hill").glob("*.java"))


def build(source: Path, out: Path) -> Path:
    """Compiles Hill's game state and solver and our harness into ``out/classes``."""
    classes = out / "classes"
    if all((classes / f"{path.stem}.class").exists() for path in HARNESS):
        return classes
    files = [
        str(path)
        for part in ("Asynchronous", "MinesweeperGameState", "MineSweeperSolver")
        for path in sorted((source / part / "src").rglob("*.java"))
    ]
    classes.mkdir(parents=True, exist_ok=True)
    listing = out / "sources.txt"
    listing.write_text("\n".join([*files, *map(str, HARNESS)]) + "\n")
    subprocess.run(
        ["javac", "-nowarn", "-encoding", "UTF-8", "-d", str(classes), f"@{listing}"], check=True
    )
    return classes


def layouts(preset: str, games: int, seed: int) -> list[str]:
    """Game ``i``'s line for the harness: ``i W H 0,0 x,y ...`` (its mines, x the column)."""
    rows, cols, mines = PRESETS[preset]
    lines = []
    for index in range(games):
        layout_seed = game_seeds(seed, index)[0]
        game = Game(rows, cols, mines, seed=layout_seed, first_click="safe")
        game.reveal(0, 0)  # (lays the mines, the corner safe)
        cells = " ".join(f"{c},{r}" for r, c in np.argwhere(game.mine))
        lines.append(f"{index} {cols} {rows} 0,0 {cells}")
    return lines


def run_java(
    classes: Path, setting: str, lines: list[str], workers: int, out: Path, ask: bool = False
) -> list[str]:
    """The output lines of our harness given ``lines`` (layouts to play, or with ``ask``
    positions to ask about), on ``workers`` JVMs side by side: lines dealt round-robin, each
    JVM reading its own from a file in ``out`` and writing its answers to another there."""
    runs = []
    stem = "positions" if ask else "layouts"
    for k in range(workers):
        given, said = out / f"{stem}-{k}.txt", out / f"{stem}-{k}.out"
        given.write_text("".join(line + "\n" for line in lines[k::workers]))
        with given.open() as source, said.open("w") as answers:
            command = ["java", "-cp", str(classes), "HillGames", setting] + ["ask"] * ask
            runs.append((subprocess.Popen(command, stdin=source, stdout=answers), said))
    lines_said = []
    for run, said in runs:
        if run.wait() != 0:
            raise SystemExit(f"Hill's solver failed ({stem})")
        lines_said += said.read_text().splitlines()
    return lines_said


def play_hill(classes: Path, lines: list[str], setting: str, workers: int, out: Path) -> dict:
    """Hill's result of each game, on ``workers`` JVMs."""
    won = {}
    for line in run_java(classes, setting, lines, workers, out):
        words = line.split()  # (the solver also prints a word of its own at times)
        if len(words) == 3 and all(word.isdigit() for word in words):
            won[int(words[0])] = words[1] == "1"
    return won


def play_best(preset: str, games: int, seed: int, workers: int, out: Path) -> dict[int, bool]:
    """``best``'s result of each game, from ``mscsp play``'s log (resumed if there)."""
    log = out / "best.jsonl"
    command = [sys.executable, "-m", "mscsp", "play", "-s", "best", "--preset", preset]
    command += ["-n", str(games), "--seed", str(seed), "--workers", str(workers)]
    command += ["--out", str(log), "--json"] + (["--resume"] if log.exists() else [])
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    _, results = RunLog(log).read()
    return {index: result.won for index, result in results.items()}


def compare(best: dict[int, bool], hill: dict[int, bool], precision: float) -> dict:
    """Both win rates, the discordant games, the sign test and the games a ``precision``
    (95 % half-width on the difference, in points) would need at their measured rate."""
    games = sorted(set(best) & set(hill))
    n = len(games)
    only_best = sum(best[i] and not hill[i] for i in games)
    only_hill = sum(hill[i] and not best[i] for i in games)
    discordant = (only_best + only_hill) / n
    rate = {name: sum(won[i] for i in games) for name, won in (("best", best), ("hill", hill))}
    z = (only_best - only_hill) / math.sqrt(only_best + only_hill) if only_best + only_hill else 0
    half = 1.959964 * math.sqrt(discordant / n) * 100  # the difference's 95 % half-width
    return {
        "games": n,
        "best": {
            "won": rate["best"],
            "win_rate": rate["best"] / n,
            "ci95": wilson(rate["best"], n),
        },
        "hill": {
            "won": rate["hill"],
            "win_rate": rate["hill"] / n,
            "ci95": wilson(rate["hill"], n),
        },
        "only_best": only_best,
        "only_hill": only_hill,
        "discordant_share": discordant,
        "difference_points": (only_best - only_hill) / n * 100,
        "difference_half_width_points": half,
        "z": z,
        "games_for_precision": math.ceil(discordant * (1.959964 / (precision / 100)) ** 2),
        "precision_points": precision,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hill-src", type=Path, required=True)
    parser.add_argument("--preset", default="expert", choices=sorted(PRESETS))
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=31_000_000)
    parser.add_argument("--setting", default="LARGE_ANALYSIS", help="Hill's SettingsFactory name")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--precision", type=float, default=0.03, help="points, 95 %% half-width")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    classes = build(args.hill_src, args.out)
    # Hill's results so far (a run for more games plays only the new ones).
    hill_log = args.out / f"hill-{args.preset}-{args.seed}-{args.setting}.json"
    hill = {}
    if hill_log.exists():
        hill = {int(k): v for k, v in json.loads(hill_log.read_text()).items()}
    lines = [
        line
        for line in layouts(args.preset, args.games, args.seed)
        if int(line.split()[0]) not in hill
    ]
    if lines:
        hill |= play_hill(classes, lines, args.setting, args.workers, args.out)
        hill_log.write_text(json.dumps(hill))
    hill = {i: won for i, won in hill.items() if i < args.games}
    best = play_best(args.preset, args.games, args.seed, args.workers, args.out)
    result = {"preset": args.preset, "seed": args.seed, "setting": args.setting}
    result |= compare(best, hill, args.precision)
    (args.out / "paired.json").write_text(json.dumps(result, indent=1))
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
