"""How many rollouts a decision of the ``search`` player needs (issue 22's curves).

1. Collects the decisions ``search`` would roll out: ``best`` plays seeded expert games, and
   at every guess where at least two look-ahead candidates score within ``--gap`` of the
   best, the position, its solution and those candidates are kept (``best``'s own choice
   is played, so the games are ``best``'s).
2. Values every candidate of every decision with ``--reference`` samples (common layouts):
   the reference choice, and each candidate's value with its standard error.
3. For each sample count, repeats each decision ``--repeats`` times with fresh layouts, with
   common random numbers (the same layouts for every candidate) and without, and reports how
   often the choice agrees with the reference's and its regret (the reference value lost
   against the reference choice, in win-probability points). ``best``'s own choice (the
   first candidate) is scored the same way.
4. Times a rollout with each base policy (``csp-minprob``, ``best``) on the same layouts.

    python bench/players/search_curves.py --games 60 --out docs/search
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from mscsp.engine import compiled
from mscsp.evaluation.harness import RunConfig, play_game
from mscsp.game import PRESETS
from mscsp.players.search import BASES, SearchPlayer


class Collector(SearchPlayer):
    """``best``, keeping every decision ``search`` would roll out."""

    def __init__(self, **options):
        super().__init__(**options)
        self.decisions: list[tuple] = []

    def choose(self, board, solution, scored, keep):
        top = scored[0][0]
        close = [probe for value, probe in scored if value >= top - self.gap][: self.width]
        if len(close) >= 2:
            self.decisions.append((board, solution, [probe.cell for probe in close]))
        return scored[0][1]  # best's own choice: the games stay best's


def collect(games: int, seed: int, gap: float) -> list[tuple]:
    player = Collector(gap=gap)
    config = RunConfig("best", *PRESETS["expert"], seed=seed)
    for index in range(games):
        play_game(player, config, index)
    return player.decisions


def values(player: SearchPlayer, decision: tuple, samples: int, seed: int, crn: bool):
    board, solution, cells = decision
    player.samples, player.crn = samples, crn
    return np.array(player.rollouts(board, solution, cells, seed))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--seed", type=int, default=9_000_000, help="games (not the paired run's)")
    parser.add_argument("--gap", type=float, default=0.02)
    parser.add_argument("--reference", type=int, default=1024)
    parser.add_argument("--samples", type=int, nargs="+", default=[16, 32, 64, 128, 256])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    compiled.load()
    started = time.perf_counter()
    decisions = collect(args.games, args.seed, args.gap)
    print(f"{len(decisions)} decisions in {args.games} games", flush=True)
    player = SearchPlayer(gap=args.gap)
    rows = []
    for d, decision in enumerate(decisions):
        reference = values(player, decision, args.reference, 10**9 + d, crn=True)
        row = {"candidates": len(decision[2]), "reference": reference.tolist(), "runs": {}}
        for samples in args.samples:
            for crn in (True, False):
                chosen = [
                    int(np.argmax(values(player, decision, samples, 10**6 * r + d, crn)))
                    for r in range(args.repeats)
                ]
                row["runs"][f"{samples}/{'crn' if crn else 'independent'}"] = chosen
        rows.append(row)
        print(f"decision {d + 1}/{len(decisions)}", flush=True)
    # Base policies: seconds per rollout on the same layouts.
    timing = {}
    board, solution, cells = decisions[0]
    for base in BASES:
        timed = SearchPlayer(base=base, samples=32)
        start = time.perf_counter()
        timed.rollouts(board, solution, cells, 5)
        timing[base] = (time.perf_counter() - start) / (32 * len(cells))
    args.out.mkdir(parents=True, exist_ok=True)
    result = {
        "settings": vars(args) | {"out": str(args.out)},
        "decisions": rows,
        "seconds_per_rollout": timing,
        "seconds": time.perf_counter() - started,
        "load": os.getloadavg(),
    }
    (args.out / "curves.json").write_text(json.dumps(result, indent=1))
    summary = summarise(result)
    (args.out / "curves.md").write_text(summary)
    print(summary)
    plot(result, args.out / "curves.png")


def summarise(result: dict) -> str:
    """The agreement and regret table, per sample count and sampling."""
    rows = result["decisions"]
    ref_sd = []
    lines = [
        "| samples per candidate | sampling | agrees with the reference | mean regret (points) |",
        "|---:|---|---:|---:|",
    ]
    keys = list(rows[0]["runs"]) if rows else []
    for key in keys:
        agree, regret = [], []
        for row in rows:
            reference = np.array(row["reference"])
            best = int(np.argmax(reference))
            for chosen in row["runs"][key]:
                agree.append(chosen == best)
                regret.append(reference[best] - reference[chosen])
        samples, sampling = key.split("/")
        lines.append(
            f"| {samples} | {sampling} | {np.mean(agree):.0%} | {100 * np.mean(regret):.2f} |"
        )
    best_agree = [int(np.argmax(row["reference"])) == 0 for row in rows]
    best_regret = [max(row["reference"]) - row["reference"][0] for row in rows]
    for row in rows:
        n = result["settings"]["reference"]
        ref_sd += [np.sqrt(max(v * (1 - v), 1e-9) / n) for v in row["reference"]]
    lines.append(
        f"| `best`'s choice | - | {np.mean(best_agree):.0%} | {100 * np.mean(best_regret):.2f} |"
    )
    timing = ", ".join(
        f"{base} {1000 * s:.2f} ms" for base, s in result["seconds_per_rollout"].items()
    )
    lines.append(
        f"\n{len(rows)} decisions; reference {result['settings']['reference']} samples per "
        f"candidate (standard error of a value about {100 * np.mean(ref_sd):.1f} points); "
        f"one rollout: {timing}; {result['seconds']:.0f} s in all, load "
        f"{', '.join(f'{x:.2f}' for x in result['load'])}."
    )
    return "\n".join(lines) + "\n"


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["decisions"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for sampling in ("crn", "independent"):
        xs, agree, regret = [], [], []
        for samples in result["settings"]["samples"]:
            key = f"{samples}/{sampling}"
            a, g = [], []
            for row in rows:
                reference = np.array(row["reference"])
                best = int(np.argmax(reference))
                a += [c == best for c in row["runs"][key]]
                g += [reference[best] - reference[c] for c in row["runs"][key]]
            xs.append(samples)
            agree.append(np.mean(a))
            regret.append(100 * np.mean(g))
        left.plot(xs, agree, marker="o", label=sampling)
        right.plot(xs, regret, marker="o", label=sampling)
    best_agree = np.mean([int(np.argmax(r["reference"])) == 0 for r in rows])
    best_regret = 100 * np.mean([max(r["reference"]) - r["reference"][0] for r in rows])
    left.axhline(best_agree, color="grey", linestyle="--", label="best's choice")
    right.axhline(best_regret, color="grey", linestyle="--", label="best's choice")
    for axis, label in ((left, "agrees with the reference"), (right, "mean regret (points)")):
        axis.set_xscale("log", base=2)
        axis.set_xlabel("layouts per candidate")
        axis.set_ylabel(label)
        axis.legend()
    fig.suptitle(f"search's decisions on expert ({len(rows)} decisions)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


if __name__ == "__main__":
    main()
