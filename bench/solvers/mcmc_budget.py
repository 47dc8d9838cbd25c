"""MCMC's error against its budget on the hard corpus, and the estimators where nothing
exact finishes (issue 34).

1. Truth: each position's exact odds by ``mdd`` within ``--exact-limit`` seconds.
2. Where it finished: ``mcmc:SWEEPS`` for each budget (and ``bp`` once), the mean and largest
   |dp| over the covered cells, the time, R-hat; plotted against the sweeps and the seconds.
3. Where it did not: a long MCMC run (``--reference SWEEPS``, 4 chains, at most 6x ``--limit``
   seconds) is the reference,
   and ``bp`` and ``mcmc`` at their defaults are measured against it.

Run it alone (it times the estimators)::

    python bench/solvers/mcmc_budget.py --out docs/estimators/mcmc_budget --workers 2
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from mscsp import COVERED, parse_board
from mscsp.errors import SolverLimitError
from mscsp.estimators import get_estimator

CORPUS = Path(__file__).resolve().parents[1] / "corpora" / "hard.jsonl"
BUDGETS = (25, 50, 100, 200, 400, 800)


def errors(estimate: np.ndarray, truth: np.ndarray, covered: np.ndarray) -> dict:
    diff = np.abs(estimate[covered] - truth[covered])
    return {"mean_abs": float(diff.mean()), "max_abs": float(diff.max())}


def timed(spec: str, board, limit: float) -> tuple[np.ndarray | None, float, dict]:
    """The estimate of ``spec`` (``None`` where it stopped), its seconds and its report."""
    estimator = get_estimator(spec, time_limit=limit)
    start = time.perf_counter()
    try:
        estimate = estimator.estimate(board)
    except SolverLimitError:
        return None, time.perf_counter() - start, {}
    seconds = time.perf_counter() - start
    report = getattr(estimator, "report", None)
    return estimate, seconds, (report.__dict__ if report is not None else {})


def one_position(args: tuple[dict, float, float, int]) -> dict:
    """Every measurement of one corpus position."""
    record, exact_limit, limit, reference = args
    board = parse_board(record["board"])
    covered = board.cells == COVERED
    out = {"name": record["name"], "family": record["family"], "runs": []}
    try:
        truth = get_estimator("mdd", time_limit=exact_limit).estimate(board)
        out["truth"] = "mdd"
    except SolverLimitError:
        truth, _, report = timed(f"mcmc:{reference}", board, 6 * limit)
        out["truth"] = f"mcmc:{reference}" if truth is not None else None
        out["reference_report"] = report
    if truth is None:
        return out
    specs = ["bp"] + [f"mcmc:{b}" for b in BUDGETS] if out["truth"] == "mdd" else ["bp", "mcmc"]
    for spec in specs:
        estimate, seconds, report = timed(spec, board, limit)
        run = {"spec": spec, "seconds": seconds, "report": report}
        if estimate is not None:
            run.update(errors(estimate, truth, covered))
        out["runs"].append(run)
    return out


def plot(records: list[dict], stem: Path) -> None:
    """Mean |dp| against the sweeps (per family and overall) and against the seconds."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    solved = [r for r in records if r.get("truth") == "mdd"]
    families = sorted({r["family"] for r in solved})
    for family in [*families, "all"]:
        chosen = [r for r in solved if family in ("all", r["family"])]
        xs, ys, ts = [], [], []
        for budget in BUDGETS:
            runs = [x for r in chosen for x in r["runs"] if x["spec"] == f"mcmc:{budget}"]
            runs = [x for x in runs if "mean_abs" in x]
            if runs:
                xs.append(budget)
                ys.append(np.mean([x["mean_abs"] for x in runs]))
                ts.append(np.median([x["seconds"] for x in runs]))
        style = {"color": "black", "linewidth": 2.5} if family == "all" else {}
        left.plot(xs, ys, marker="o", label=family, **style)
        right.plot(ts, ys, marker="o", label=family, **style)
        bp = [x for r in chosen for x in r["runs"] if x["spec"] == "bp" and "mean_abs" in x]
        if bp and family == "all":
            right.scatter(
                [np.median([x["seconds"] for x in bp])],
                [np.mean([x["mean_abs"] for x in bp])],
                marker="*",
                s=160,
                color="red",
                label="bp (all)",
                zorder=5,
            )
    for axes, x, title in (
        (left, "sweeps per chain (4 chains)", "mcmc: error against budget"),
        (right, "median seconds per position", "error against time (bp: the star)"),
    ):
        axes.set(xscale="log", yscale="log", xlabel=x, ylabel="mean |dp| against exact")
        axes.set_title(title)
    left.set_xticks(BUDGETS, [str(b) for b in BUDGETS])
    left.minorticks_off()
    for axes in (left, right):
        axes.grid(True, which="both", alpha=0.3)
    left.legend(fontsize=8)
    fig.tight_layout()
    stem.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(stem.with_suffix(".png"), dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for records and plot")
    parser.add_argument("--exact-limit", type=float, default=10.0, help="seconds for mdd")
    parser.add_argument("--limit", type=float, default=10.0, help="seconds per estimate")
    parser.add_argument(
        "--reference", type=int, default=3200, help="sweeps of the reference (6x --limit)"
    )
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--plot-only", action="store_true", help="redraw from --out's records")
    args = parser.parse_args()
    if args.plot_only:
        lines = (args.out / "records.jsonl").read_text().splitlines()
        plot([json.loads(line) for line in lines], args.out / "mcmc_budget")
        return
    records = [json.loads(line) for line in args.corpus.read_text().splitlines() if line.strip()]
    jobs = [(r, args.exact_limit, args.limit, args.reference) for r in records]
    args.out.mkdir(parents=True, exist_ok=True)
    done = []
    with ProcessPoolExecutor(args.workers) as pool:
        for result in pool.map(one_position, jobs):
            done.append(result)
            print(json.dumps({k: result[k] for k in ("name", "truth")}), flush=True)
    (args.out / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in done))
    plot(done, args.out / "mcmc_budget")


if __name__ == "__main__":
    main()
