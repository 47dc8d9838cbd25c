"""``learner:graph`` against ``bp`` and ``mcmc`` on the hard corpus, at equal time (issue 34).

For every position of ``bench/corpora/hard.jsonl``:

1. Truth: the exact odds of ``mdd`` within ``--exact-limit`` seconds; where it does not
   finish, a long MCMC run (``mcmc:SWEEPS``, 4 chains, ``--reference`` sweeps, at most
   ``--reference-limit`` seconds) is the only reference there is. Truths are cached in
   ``--out``/truths.npz, so a rerun (or a killed run) does not count again.
2. ``learner:graph`` (warmed up once per position so that its one-off compile of a new
   shape is not timed; median of 3 runs), then ``bp`` and ``mcmc`` given **the same time**
   (their time limit set to the net's median seconds), and ``bp`` and ``mcmc`` at their
   defaults under ``--limit`` seconds.
3. The net at other round counts (``--rounds``): the curve of error against rounds.

Whether a position is larger than every training board of its family
(:data:`learners.graph.data.TRAIN_FAMILIES`) is recorded, and the table reports the
held-out (larger) positions separately. Writes ``records.jsonl``, ``table.md``,
``calibration.png`` and ``rounds.png`` to ``--out``. Run it alone (it times estimators)::

    python bench/solvers/graph_heldout.py --out docs/estimators/graph
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

from learners.graph.data import TRAIN_FAMILIES
from learners.graph.player import GraphPlayer
from mscsp import COVERED, parse_board
from mscsp.errors import InconsistentBoardError, SolverLimitError
from mscsp.estimators import get_estimator
from mscsp.evaluation.metrics import CellErrors, cell_errors, plot_calibration

CORPUS = Path(__file__).resolve().parents[1] / "corpora" / "hard.jsonl"
#: The corpus's family names mapped to the training families they extend.
TRAINED_AS = {"lattice": "lattice", "band": "band", "strip": "strip", "toollib": "toollib"}
#: Mines over cells of the played games in training, at most (``game`` family).
GAME_SIDES = (16, 30)


def larger_than_training(family: str, board) -> bool:
    """Whether ``board`` is larger (in rows or columns) than every training board of its
    family; for real games, larger than the 16x30 boards played in training."""
    rows, cols = board.shape
    if family in TRAINED_AS:
        knobs = TRAIN_FAMILIES[TRAINED_AS[family]]
        return rows > max(knobs["rows"]) or cols > max(knobs["cols"])
    return rows * cols > GAME_SIDES[0] * GAME_SIDES[1]


def timed(estimate, board, repeat: int = 1) -> tuple[np.ndarray | None, float]:
    """``estimate(board)`` (``None`` where it gave up) and its median seconds."""
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        try:
            out = estimate(board)
        except (SolverLimitError, InconsistentBoardError):
            out = None
        times.append(time.perf_counter() - start)
    return out, statistics.median(times)


def truth_of(board, args) -> tuple[np.ndarray | None, str | None]:
    try:
        return get_estimator("mdd", time_limit=args.exact_limit).estimate(board), "mdd"
    except SolverLimitError:
        pass
    spec = f"mcmc:{args.reference}"
    estimate, _ = timed(get_estimator(spec, time_limit=args.reference_limit).estimate, board)
    return estimate, (spec if estimate is not None else None)


def measure(record: dict, truth: np.ndarray, nets: dict[int, GraphPlayer], args) -> dict:
    board = parse_board(record["board"])
    covered = board.cells == COVERED
    net = nets[args.default_rounds]

    def graph(b, player=net):
        return player.estimate([b])[0]

    graph(board)  # compiles this padded shape once; a process then reuses it
    runs = {}
    estimate, seconds = timed(graph, board, repeat=3)
    runs["learner:graph"] = (estimate, seconds)
    budget = max(seconds, 1e-3)
    for spec, limit in (("bp", budget), ("mcmc", budget), ("bp", args.limit), ("mcmc", args.limit)):
        name = f"{spec}@net-time" if limit == budget else spec
        runs[name] = timed(get_estimator(spec, time_limit=limit).estimate, board)
    for rounds, player in nets.items():
        if rounds != args.default_rounds:
            graph(board, player)
            runs[f"learner:graph@{rounds}"] = timed(lambda b, p=player: graph(b, p), board)
    out = {"runs": {}}
    for name, (estimate, seconds) in runs.items():
        row = {"seconds": seconds}
        if estimate is not None:
            errors = cell_errors(estimate, truth, covered)
            row.update(errors.summary())
            row["bins"] = errors.bins.tolist()
        out["runs"][name] = row
    return out


def table(records: list[dict], held_out: bool) -> str:
    """Per family: mean / max |dp| and median ms of each estimator."""
    names = ["learner:graph", "bp@net-time", "mcmc@net-time", "bp", "mcmc"]
    head = "| family | positions | truth | " + " | ".join(f"`{n}`" for n in names) + " |"
    lines = [head, "|" + "---|" * (3 + len(names))]
    chosen = [r for r in records if r.get("truth") and (r["larger"] or not held_out)]
    for family in sorted({r["family"] for r in chosen}):
        rows = [r for r in chosen if r["family"] == family]
        truths = ", ".join(sorted({r["truth"] for r in rows}))
        cells = []
        for name in names:
            runs = [r["runs"][name] for r in rows]
            ok = [x for x in runs if x.get("cells")]
            if not ok:
                cells.append("no answer")
                continue
            mean = sum(x["mean_abs_diff"] * x["cells"] for x in ok) / sum(x["cells"] for x in ok)
            worst = max(x["max_abs_diff"] for x in ok)
            ms = 1000 * statistics.median(x["seconds"] for x in runs)
            missing = f" ({len(runs) - len(ok)} none)" if len(ok) < len(runs) else ""
            cells.append(f"{mean:.4f} / {worst:.3f}, {ms:.0f} ms{missing}")
        lines.append(f"| {family} | {len(rows)} | {truths} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def calibration(records: list[dict], name: str) -> tuple[list[dict], float]:
    """The reliability table of ``name`` on the held-out exact positions, and its error
    (cell-weighted mean gap between estimate and exact per bin)."""
    total = CellErrors()
    for r in records:
        run = r["runs"].get(name, {})
        if r.get("truth") == "mdd" and r["larger"] and run.get("cells"):
            total = total + CellErrors(cells=run["cells"], bins=np.array(run["bins"]))
    table = total.calibration()
    n = sum(b["cells"] for b in table)
    return table, sum(b["cells"] * abs(b["estimate"] - b["exact"]) for b in table) / n


def plot_rounds(records: list[dict], rounds: list[int], default: int, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(figsize=(6, 4))
    exact = [r for r in records if r.get("truth") == "mdd" and r["larger"]]
    for family in sorted({r["family"] for r in exact}):
        ys = []
        for k in rounds:
            name = "learner:graph" if k == default else f"learner:graph@{k}"
            runs = [r["runs"][name] for r in exact if r["family"] == family]
            cells = sum(x["cells"] for x in runs)
            ys.append(sum(x["mean_abs_diff"] * x["cells"] for x in runs) / cells)
        axes.plot(rounds, ys, marker="o", label=family)
    axes.set(xlabel="rounds of messages", ylabel="mean |dp| against exact", yscale="log")
    axes.set_title("learner:graph on held-out (larger) boards")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--model", default="graph", help="learner:graph checkpoint")
    parser.add_argument("--exact-limit", type=float, default=10.0)
    parser.add_argument("--limit", type=float, default=2.0, help="bp / mcmc at defaults")
    parser.add_argument("--reference", type=int, default=3200)
    parser.add_argument("--reference-limit", type=float, default=60.0)
    parser.add_argument("--rounds", default="3,5,10,20,40", help="round counts for the curve")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    base = GraphPlayer(args.model, deduce="none")
    args.default_rounds = base.rounds
    rounds = sorted({int(k) for k in args.rounds.split(",")} | {base.rounds})
    nets = {k: GraphPlayer(args.model, iterations=k, deduce="none") for k in rounds}
    cache = args.out / "truths.npz"
    truths = dict(np.load(cache, allow_pickle=False)) if cache.exists() else {}
    records = []
    for line in args.corpus.read_text().splitlines():
        record = json.loads(line)
        board = parse_board(record["board"])
        key = record["name"]
        if key not in truths:
            truth, source = truth_of(board, args)
            truths[key] = np.array([]) if truth is None else truth
            truths[f"{key}|source"] = np.array(source or "")
            np.savez(cache, **truths)
        source = str(truths[f"{key}|source"])
        row = {"name": key, "family": record["family"], "truth": source or None}
        row["larger"] = larger_than_training(record["family"], board)
        if source:
            row.update(measure(record, truths[key], nets, args))
        records.append(row)
        graph = row.get("runs", {}).get("learner:graph", {})
        print(key, source, graph.get("mean_abs_diff"), graph.get("seconds"), flush=True)
    (args.out / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    cal, error = calibration(records, "learner:graph")
    cal_bp, error_bp = calibration(records, "bp")
    text = [
        "Held-out positions (larger than every training board of the family):",
        "",
        table(records, held_out=True),
        "",
        "All positions:",
        "",
        table(records, held_out=False),
        "",
        f"Calibration error on held-out exact positions: learner:graph {error:.4f}, "
        f"bp {error_bp:.4f}",
    ]
    (args.out / "table.md").write_text("\n".join(text) + "\n")
    plot_calibration({"learner:graph": cal, "bp": cal_bp}, args.out / "calibration.png")
    plot_rounds(records, rounds, base.rounds, args.out / "rounds.png")
    print("\n".join(text))


if __name__ == "__main__":
    main()
