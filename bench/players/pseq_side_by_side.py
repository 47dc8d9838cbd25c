"""Games per second of `mscsp play` against the C++ player PSEQ, side by side (issue 35).

Builds PSEQ (b1f6c1c4/MineSweeperProb) from a checkout you give it, the way the issue did
(``g++ -std=c++23 -O3 -march=native -flto``; it needs ``nlohmann-json3-dev``), then plays
rounds that alternate the programs, each run pinned to one core and timed by its wall
clock from start to exit (start-up included, as a user pays it). Expert, first click safe
in the corner. Run it alone on the machine::

    python bench/players/pseq_side_by_side.py ~/src/MineSweeperProb --games 10000 \\
        --rounds 3 --out bench/results/pseq.json

Every program plays ``--games`` a run (10,000 by default, as the issue's targets say);
``--players`` names our strategies (``csp-minprob``, ``csp-lookahead`` and ``best`` by
default); ``--best-games`` gives ``best`` fewer where a run must be short (its start-up,
about 1.5 s, then weighs more: a tenth of a 1,500-game run).

``--busy N`` measures a busy machine instead: N processes spin (unpinned, at normal
priority) for the whole run, as other users' jobs would, and each run records the load.

The peer's source stays where it is: nothing is fetched and nothing is copied here; the
build goes to ``--build`` (default: a folder under the system's temporary directory).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: PSEQ's own name for the game the issue measured: expert, PSEQ's heuristic, first click
#: safe at its corner cell.
PSEQ_GAME = "FL@[1,1]-PSEQ-30-16-T99-SFAR"


def build(checkout: Path, folder: Path) -> Path:
    """Compiles PSEQ's command-line player; returns the binary (reused when up to date)."""
    folder_in = checkout / "MineSweeperSolver"
    try:
        # The library's sources as its CMakeLists lists them, and the command-line player.
        listed = (folder_in / "CMakeLists.txt").read_text().split("add_library(mws OBJECT")[1]
    except (OSError, IndexError):
        sys.exit(f"no PSEQ build list at {folder_in}/CMakeLists.txt (a MineSweeperProb checkout?)")
    names = [w for w in listed.split(")")[0].split() if w.endswith(".cpp")] + ["main.cpp"]
    sources = [folder_in / name for name in names]
    binary = folder / "MineSweeperSolver"
    newest = max(p.stat().st_mtime for p in sources)
    if binary.exists() and binary.stat().st_mtime > newest:
        return binary
    folder.mkdir(parents=True, exist_ok=True)
    command = ["g++", "-std=c++23", "-O3", "-march=native", "-flto", "-w", *map(str, sources)]
    print("building PSEQ:", " ".join(command[:6]), "...", file=sys.stderr)
    subprocess.run([*command, "-o", str(binary)], check=True)
    return binary


def timed(command: list[str], core: int) -> tuple[float, str]:
    """Wall seconds of ``command`` pinned to ``core``, and its standard output."""
    start = time.perf_counter()
    done = subprocess.run(
        ["taskset", "-c", str(core), *command],
        check=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    return time.perf_counter() - start, done.stdout


def play_pseq(binary: Path, games: int, core: int) -> dict:
    seconds, out = timed([str(binary), PSEQ_GAME, str(games), "1"], core)
    result = json.loads(out.strip().splitlines()[-1])["result"]
    return {"seconds": seconds, "games": games, "wins": result["pass"]}


def play_ours(strategy: str, games: int, core: int, seed: int) -> dict:
    command = ["mscsp", "play", "-s", strategy, "--preset", "expert", "--games", str(games)]
    seconds, out = timed([*command, "--seed", str(seed), "--workers", "1", "--json"], core)
    return {"seconds": seconds, "games": games, "wins": json.loads(out)["wins"]}


def spinners(count: int) -> list[subprocess.Popen]:
    """``count`` processes that keep a core busy each (unpinned), until killed."""
    spin = [sys.executable, "-c", "while True: pass"]
    return [subprocess.Popen(spin, stdin=subprocess.DEVNULL) for _ in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkout", type=Path, help="a checkout of b1f6c1c4/MineSweeperProb")
    parser.add_argument("--games", type=int, default=10000, help="games a run, every program")
    parser.add_argument(
        "--best-games", type=int, help="games a run of best (default: --games; 0: skip)"
    )
    parser.add_argument(
        "--players",
        default="csp-minprob,csp-lookahead,best",
        help="our strategies, comma-separated, each run after PSEQ in every round",
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--core", type=int, default=1, help="the core every run is pinned to")
    parser.add_argument("--seed", type=int, default=0, help="our runs' seed (round r adds r)")
    parser.add_argument("--build", type=Path, default=Path(tempfile.gettempdir()) / "pseq-build")
    parser.add_argument("--out", type=Path, help="write every run and the summary as JSON")
    parser.add_argument(
        "--busy", type=int, default=0, help="spinning processes beside the runs (a busy machine)"
    )
    args = parser.parse_args()
    binary = build(args.checkout.expanduser(), args.build)
    programs = [("PSEQ", lambda r: play_pseq(binary, args.games, args.core))]
    for strategy in args.players.split(","):
        games = args.games if strategy != "best" or args.best_games is None else args.best_games
        if games:

            def play(r: int, strategy: str = strategy, games: int = games) -> dict:
                return play_ours(strategy, games, args.core, args.seed + r)

            programs.append((strategy, play))
    runs = []
    print(f"load before: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    busy = spinners(args.busy)
    try:
        for r in range(args.rounds):
            for name, play in programs:
                run = {"program": name, "round": r, **play(r), "load": os.getloadavg()[0]}
                run["games_per_s"] = run["games"] / run["seconds"]
                runs.append(run)
                print(
                    f"round {r}: {name:12s} {run['games_per_s']:7.1f} games/s "
                    f"({run['games']} games, {run['seconds']:.1f} s, {run['wins']} wins, "
                    f"load {run['load']:.1f})",
                    file=sys.stderr,
                )
    finally:
        for process in busy:
            process.kill()
            process.wait()
    summary = {}
    for name, _ in programs:
        rates = [run["games_per_s"] for run in runs if run["program"] == name]
        ratios = [
            run["games_per_s"] / pseq["games_per_s"]
            for run, pseq in zip(
                [x for x in runs if x["program"] == name],
                [x for x in runs if x["program"] == "PSEQ"],
                strict=True,
            )
        ]
        wins = sum(run["wins"] for run in runs if run["program"] == name)
        games = sum(run["games"] for run in runs if run["program"] == name)
        summary[name] = {
            "games_per_s": rates,
            "ratio_to_pseq": ratios,
            "median_ratio": statistics.median(ratios),
            "wins": wins,
            "games": games,
        }
        print(
            f"{name:12s} median {statistics.median(rates):7.1f} games/s, ratio to PSEQ "
            + " / ".join(f"{x:.2f}" for x in ratios)
            + f", wins {wins} of {games} ({100 * wins / games:.2f} %)"
        )
    load = os.getloadavg()[0]
    print(f"load after: {load:.2f}", file=sys.stderr)
    if args.out:
        record = {
            "core": args.core,
            "busy": args.busy,
            "load_after": load,
            "runs": runs,
            "summary": summary,
        }
        args.out.write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
