"""The seed papers' sweeps as PNG plots in docs/ (small game counts, labelled as such).

* win rate vs mine count on 16x16 (seed 001),
* win rate vs board size at constant density 40/256 (seed 004, figure 4),
* win rate vs mine ratio 5-25 % on 12x12 (seed 004, figures 1-2).

    PYTHONPATH=. python bench/players/plots.py --games 200 --workers 2
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mscsp.evaluation.harness import RunConfig, run
from mscsp.runtime.outlock import output_lock

STRATEGIES = ("sps", "csp-random", "csp-minprob", "csp-edge", "best")


def sweeps() -> dict[str, tuple[str, list[tuple[float, int, int, int]]]]:
    """Each sweep: x-axis label and points ``(x, rows, cols, mines)``."""
    density = 40 / 256
    return {
        "mines_16x16": ("mines on 16x16", [(m, 16, 16, m) for m in range(10, 71, 10)]),
        "size_constant_density": (
            "board side n (n x n, density 15.6 %)",
            [(n, n, n, round(density * n * n)) for n in (6, 8, 10, 12, 16, 20, 24)],
        ),
        "mine_ratio_12x12": (
            "mine ratio (%) on 12x12",
            [(r, 12, 12, round(r / 100 * 144)) for r in (5, 10, 15, 20, 25)],
        ),
    }


def measure(games: int, workers: int, seed: int, out: Path) -> None:
    with output_lock(out, "plots results"):
        done = set()
        if out.exists():
            done = {(d["sweep"], d["strategy"], d["x"]) for d in map(json.loads, out.open())}
        for name, (_, points) in sweeps().items():
            for strategy in STRATEGIES:
                for x, rows, cols, mines in points:
                    if (name, strategy, x) in done:
                        continue
                    n = games // 2 if strategy == "best" else games
                    summary = run(
                        RunConfig(strategy, rows, cols, mines, seed=seed), n, workers=workers
                    )
                    with out.open("a") as handle:
                        handle.write(
                            json.dumps(
                                {"sweep": name, "strategy": strategy, "x": x, **summary.to_dict()}
                            )
                            + "\n"
                        )


def plot(out: Path, docs: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = [json.loads(line) for line in out.open()]
    for name, (label, _) in sweeps().items():
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        counts: dict[int, list[str]] = {}
        for strategy in STRATEGIES:
            rows = sorted(
                (d for d in data if d["sweep"] == name and d["strategy"] == strategy),
                key=lambda d: d["x"],
            )
            if not rows:
                continue
            xs = [d["x"] for d in rows]
            ys = [100 * d["win_rate"] for d in rows]
            err = [
                [max(0.0, 100 * (d["win_rate"] - d["ci_low"])) for d in rows],
                [max(0.0, 100 * (d["ci_high"] - d["win_rate"])) for d in rows],
            ]
            ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=strategy)
            counts.setdefault(rows[0]["games"], []).append(strategy)
        ax.set_xlabel(label)
        ax.set_ylabel("win rate (%)")
        ax.set_ylim(0, 100)
        ax.grid(alpha=0.3)
        ax.legend()
        per_point = "; ".join(f"{n} ({', '.join(names)})" for n, names in sorted(counts.items()))
        ax.set_title(
            f"safe first click in the corner; games per point: {per_point}\n"
            "bars: 95 % Wilson intervals",
            fontsize=8,
        )
        fig.tight_layout()
        fig.savefig(docs / f"sweep_{name}.png", dpi=110)
        plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("bench/results/plots.jsonl"))
    parser.add_argument("--docs", type=Path, default=Path("docs"))
    parser.add_argument("--plot-only", action="store_true")
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.docs.mkdir(exist_ok=True)
    if not args.plot_only:
        measure(args.games, args.workers, args.seed, args.out)
    plot(args.out, args.docs)


if __name__ == "__main__":
    main()
