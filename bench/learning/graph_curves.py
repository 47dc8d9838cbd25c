"""Recipe: ``learner:graph``'s error against training data and model size (issue 34).

Trains one short run per point of a grid (a model config and a share of the training
positions of :mod:`bench.learning.learn_graph`'s data, the same number of steps each), then
measures every run's error: on the validation positions (the training families' sizes) and
on the held-out positions of the hard corpus (larger than every training board of their
family, exact truth), cell-weighted mean and max |dp| per family, at the rounds each config
was trained with. Every run directory resumes (``learners.graph.train``), and a finished
point is not trained again, so a killed recipe picks up where it stopped. Run it alone::

    python bench/learning/graph_curves.py --data /work/cache/graph \\
        --truths /work/cache/graph/eval/truths.npz --out runs/graph-curves

``--data`` holds ``train.npz`` and ``val.npz`` (``learn_graph.py`` writes them);
``--truths`` is the ``truths.npz`` of ``bench/solvers/graph_heldout.py``. Writes
``curves.json`` and ``curves.png`` to ``--out``; then trains ``small`` with a random round
count each step and writes both ``small`` runs' error against the rounds at play time to
``rounds.json``; then trains ``small-bp`` (the same net reading BP's exact messages every
round) the same way and writes it against the random-rounds ``small`` to ``bp.json``.
``--stages`` picks some of the three (``curves``, ``rounds``, ``bp``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import jax
import numpy as np
from flax import nnx

from learners.graph.data import Graphs
from learners.graph.player import GraphPlayer
from learners.graph.train import TrainConfig, evaluate, make_predict, train
from mscsp import COVERED, parse_board
from mscsp.evaluation.metrics import cell_errors

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "bench" / "corpora" / "hard.jsonl"
#: Which corpus positions are held out (larger than training) with an exact truth.
RECORDS = ROOT / "docs" / "estimators" / "graph" / "records.jsonl"
#: (config, share of the training positions): the model-size curve at all the data, the
#: data curve at the ``small`` config.
GRID = (
    ("tiny", 1.0),
    ("small", 1.0),
    ("base", 1.0),
    ("small", 0.125),
    ("small", 0.25),
    ("small", 0.5),
)
#: The rounds curve: ``small`` at all the data with its fixed 8 rounds and with a random
#: count each step (4-24, ``TrainConfig.max_rounds``), measured at these rounds.
RANDOM_ROUNDS = 24
ROUNDS = (4, 8, 16, 32)
FAMILIES = ("lattice", "band", "strip")


def held_out_positions() -> list[tuple[str, str, object]]:
    """The held-out positions that have an exact truth: (name, family, board)."""
    keep = {}
    for line in RECORDS.read_text().splitlines():
        record = json.loads(line)
        if record["larger"] and record["truth"] == "mdd" and record["family"] in FAMILIES:
            keep[record["name"]] = record["family"]
    out = []
    for line in CORPUS.read_text().splitlines():
        record = json.loads(line)
        if record["name"] in keep:
            out.append((record["name"], keep[record["name"]], parse_board(record["board"])))
    return out


def held_out(truths_path: Path) -> list[tuple[str, object, np.ndarray]]:
    """The held-out positions with exact truth: (family, board, exact odds)."""
    truths = np.load(truths_path, allow_pickle=False)
    return [(family, board, truths[name]) for name, family, board in held_out_positions()]


def measure(model: Path, val: Graphs, positions: list) -> dict:
    """Validation and held-out errors of the model at ``model``."""
    player = GraphPlayer(str(model), deduce="none")
    row = {"val": evaluate(make_predict(player.model), val, player.rounds)}
    row["params"] = sum(int(np.prod(x.shape)) for x in _leaves(player.model))
    for family in FAMILIES:
        total = cells = 0.0
        worst = 0.0
        for fam, board, truth in positions:
            if fam != family:
                continue
            errors = cell_errors(player.estimate([board])[0], truth, board.cells == COVERED)
            s = errors.summary()
            total += s["mean_abs_diff"] * s["cells"]
            cells += s["cells"]
            worst = max(worst, s["max_abs_diff"])
        row[family] = {"mean": total / cells, "max": worst, "cells": int(cells)}
    return row


def rounds_curve(model: Path, positions: list) -> dict[int, dict[str, float]]:
    """Held-out mean |dp| per family of the model at ``model`` at each of :data:`ROUNDS`."""
    out = {}
    for rounds in ROUNDS:
        player = GraphPlayer(str(model), iterations=rounds, deduce="none")
        row = {}
        for family in FAMILIES:
            total = cells = 0.0
            for fam, board, truth in positions:
                if fam == family:
                    s = cell_errors(
                        player.estimate([board])[0], truth, board.cells == COVERED
                    ).summary()
                    total += s["mean_abs_diff"] * s["cells"]
                    cells += s["cells"]
            row[family] = total / cells
        out[rounds] = row
    return out


def _leaves(model) -> list:
    return jax.tree_util.tree_leaves(nnx.state(model, nnx.Param))


def plot(points: list[dict], path: Path) -> None:
    """Held-out mean |dp| per family against training positions (``small``) and against
    parameters (all the data)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    data = sorted((p for p in points if p["model"] == "small"), key=lambda p: p["positions"])
    size = sorted((p for p in points if p["share"] == 1.0), key=lambda p: p["params"])
    for axis, rows, key, label in (
        (axes[0], data, "positions", "training positions (small config)"),
        (axes[1], size, "params", "parameters (all the training positions)"),
    ):
        xs = [r[key] for r in rows]
        for family in FAMILIES:
            axis.plot(
                xs, [r[family]["mean"] for r in rows], marker="o", label=f"{family} (held out)"
            )
        axis.plot(xs, [r["val"]["mae"] for r in rows], marker="s", ls="--", label="validation")
        axis.axhline(0.01, color="grey", lw=0.8, ls=":", label="target 0.01")
        axis.set(xlabel=label, ylabel="mean |dp| against exact", xscale="log", yscale="log")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="train.npz and val.npz")
    parser.add_argument("--truths", type=Path, required=True, help="graph_heldout's truths.npz")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--steps", type=int, default=1500, help="training steps of each point")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--stages", default="curves,rounds,bp", help="which of curves, rounds and bp to run"
    )
    args = parser.parse_args()
    stages = set(args.stages.split(","))
    if not stages <= {"curves", "rounds", "bp"}:
        parser.error(f"--stages takes curves, rounds and bp, got {args.stages!r}")
    args.out.mkdir(parents=True, exist_ok=True)
    full = Graphs.load(str(args.data / "train.npz"))
    val = Graphs.load(str(args.data / "val.npz"))
    positions = held_out(args.truths)
    if "curves" in stages:
        data_and_size_curves(args, full, val, positions)
    if "rounds" in stages:
        curves = {
            "fixed 8": rounds_curve(short_run(args, "small", full, val, max_rounds=0), positions),
            "random 4-24": rounds_curve(short_run(args, "small", full, val), positions),
        }
        (args.out / "rounds.json").write_text(json.dumps(curves, indent=1) + "\n")
        print(json.dumps(curves))
    if "bp" in stages:
        rows = {}
        for model in ("small", "small-bp"):
            path = short_run(args, model, full, val)
            rows[model] = {
                "held_out": measure(path, val, positions),
                "rounds": rounds_curve(path, positions),
            }
        (args.out / "bp.json").write_text(json.dumps(rows, indent=1) + "\n")
        print(json.dumps(rows))


def short_run(args, model: str, full: Graphs, val: Graphs, max_rounds: int = RANDOM_ROUNDS) -> Path:
    """The model of a ``--steps`` run of ``model`` on ``full`` (trained unless done);
    ``max_rounds`` 0 trains at the config's rounds, else at a random count up to it."""
    name = f"{model}-{len(full)}" + (f"-r{max_rounds}" if max_rounds else "")
    run = args.out / name
    if not (run / "model.msgpack").exists():
        cfg = TrainConfig(model=model, steps=args.steps, seed=args.seed, max_rounds=max_rounds)
        train(cfg, full, val, run, eval_every=args.steps)
    return run / "model.msgpack"


def data_and_size_curves(args, full: Graphs, val: Graphs, positions: list) -> None:
    """Every point of :data:`GRID`, to ``curves.json`` and ``curves.png``."""
    points = []
    for model, share in GRID:
        n = int(len(full) * share)
        start = time.monotonic()
        path = short_run(args, model, full.head(n), val, max_rounds=0)
        row = {"model": model, "share": share, "positions": n, "steps": args.steps}
        row.update(measure(path, val, positions))
        row["minutes"] = (time.monotonic() - start) / 60
        points.append(row)
        print(json.dumps(row), flush=True)
    (args.out / "curves.json").write_text(json.dumps(points, indent=1) + "\n")
    plot(points, args.out / "curves.png")


if __name__ == "__main__":
    main()
