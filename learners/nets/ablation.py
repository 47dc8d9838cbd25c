"""The labels ablation: exact probabilities against mine layouts, as learning curves.

One model config trains twice on the same shards with the same seed, batches, schedule and
steps (:func:`learners.nets.train.train`); only the targets differ (``--labels exact`` or
``mines``). Each run keeps its train state at log-spaced steps (orbax, never deleted), and
the model of every kept step plays the same seeded games, so the two curves of win rate
against training positions (steps x batch) are paired game for game.

``OUT/exact`` and ``OUT/mines`` are the runs; ``OUT/ablation.json`` holds the settings and one
row per (labels, step), written after each evaluation so an interrupted run resumes without
replaying; ``OUT/ablation.png`` is the plot (log x axis, 95 % Wilson intervals).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mscsp.errors import InvalidInputError
from mscsp.runtime.outlock import output_lock

RESULT_FILE = "ablation.json"
LABELS = ("exact", "mines")


@dataclass
class AblationConfig:
    """What the ablation trains and how it measures (all of it recorded in the result)."""

    data: Sequence[str] = field(default_factory=list)
    out: str = "runs/ablation"
    model: str = "resnet"
    steps: int = 4000
    batch: int = 32
    lr: float = 3e-3
    eval_every: int = 250
    points: int = 6  # kept steps, log-spaced up to ``steps``
    preset: str = "beginner"
    games: int = 1000
    seed: int = 0


def curve_steps(steps: int, points: int) -> list[int]:
    """``points`` steps spaced evenly on a log scale, halving down from ``steps``.

    Example: ``curve_steps(4000, 4) == [500, 1000, 2000, 4000]`` (fewer if they collide).
    """
    if steps < 1 or points < 1:
        raise InvalidInputError("the ablation needs at least one step and one point")
    return sorted({max(1, round(steps / 2**k)) for k in range(points)})


def run_ablation(cfg: AblationConfig, log=print) -> list[dict[str, Any]]:
    """Trains both runs, evaluates every kept step, plots; returns the rows.

    Resumable: the runs resume (orbax), and rows already in ``ablation.json`` are kept.

    Raises:
        InvalidInputError: ``OUT`` holds an ablation of other settings, or a run does.
        OutputLockedError: Another process is writing ``OUT`` (:mod:`mscsp.runtime.outlock`).
    """
    from .data import _write_json
    from .evaluate import play_lockstep
    from .player import LearnerPlayer
    from .train import TrainConfig, restore_model, save_model, train

    out = Path(cfg.out)
    # Before ablation.json is read: a second run on OUT is refused first.
    with output_lock(out, "ablation directory"):
        settings = asdict(cfg) | {"data": [str(d) for d in cfg.data]}
        result = out / RESULT_FILE
        rows: list[dict[str, Any]] = []
        if result.exists():
            saved = json.loads(result.read_text())
            if saved["settings"] != settings:
                raise InvalidInputError(
                    f"{out} holds an ablation of other settings ({saved['settings']}); "
                    "use another --out"
                )
            rows = saved["rows"]
        keep = curve_steps(cfg.steps, cfg.points)
        for labels in LABELS:
            run = out / labels
            train_cfg = TrainConfig(
                model=cfg.model,
                data=list(cfg.data),
                out=str(run),
                labels=labels,
                steps=cfg.steps,
                batch=cfg.batch,
                lr=cfg.lr,
                eval_every=cfg.eval_every,
                seed=cfg.seed,
                keep_steps=keep,
            )
            log(f"ablation: {labels} labels")
            train(train_cfg, log=log)
            for step in keep:
                if any(r["labels"] == labels and r["step"] == step for r in rows):
                    continue
                model, config = restore_model(run, step)
                path = run / f"step-{step}.msgpack"
                save_model(path, model, config, {"labels": labels, "step": step})
                games = play_lockstep(
                    LearnerPlayer(str(path), symmetric=False), cfg.preset, cfg.games
                )
                rows.append(
                    {"labels": labels, "step": step, "positions": step * cfg.batch, **games}
                )
                log(
                    f"{labels} step {step}: {games['wins']}/{games['games']} won "
                    f"({100 * games['win_rate']:.1f} %)"
                )
                _write_json(result, {"settings": settings, "rows": rows})
        rows.sort(key=lambda r: (LABELS.index(r["labels"]), r["step"]))
        _write_json(result, {"settings": settings, "rows": rows})
        plot_ablation(rows, cfg, out / "ablation.png")
        return rows


def table(rows: list[dict[str, Any]]) -> str:
    """Win rate per training budget, exact and mine labels side by side (markdown)."""
    steps = sorted({r["step"] for r in rows})
    cell = {(r["labels"], r["step"]): r for r in rows}
    lines = [
        "| steps | positions seen | "
        + " | ".join(f"{lab} labels: win % [95 % CI]" for lab in LABELS)
        + " |",
        "| --- | --- |" + " --- |" * len(LABELS),
    ]
    for step in steps:
        parts = []
        for labels in LABELS:
            r = cell.get((labels, step))
            if r is None:
                parts.append("-")
                continue
            lo, hi = (100 * v for v in r["ci95"])
            parts.append(
                f"{100 * r['win_rate']:.1f} [{lo:.1f}, {hi:.1f}] ({r['wins']}/{r['games']})"
            )
        positions = next(r["positions"] for r in rows if r["step"] == step)
        lines.append(f"| {step:,} | {positions:,} | " + " | ".join(parts) + " |")
    return "\n".join(lines) + "\n"


def plot_ablation(rows: list[dict[str, Any]], cfg: AblationConfig, png: str | Path) -> None:
    """Win rate (with 95 % intervals) and held-out MAE against training positions, log x."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (wins, mae) = plt.subplots(1, 2, figsize=(10, 4))
    for labels, marker in zip(LABELS, "os", strict=True):
        mine = sorted((r for r in rows if r["labels"] == labels), key=lambda r: r["step"])
        if mine:
            x = np.array([r["positions"] for r in mine])
            y = np.array([100 * r["win_rate"] for r in mine])
            ci = np.array([[100 * r["ci95"][0], 100 * r["ci95"][1]] for r in mine])
            # Wilson's bound at 0 wins can sit a rounding error above 0: never a negative bar.
            yerr = np.maximum([y - ci[:, 0], ci[:, 1] - y], 0.0)
            wins.errorbar(x, y, yerr=yerr, marker=marker, capsize=3, label=f"{labels} labels")
        metrics = Path(cfg.out) / labels / "metrics.jsonl"
        val = [r for r in map(json.loads, metrics.read_text().splitlines()) if r["split"] == "val"]
        x = [r["step"] * cfg.batch for r in val]
        mae.plot(x, [r["mae"] for r in val], marker=marker, label=f"{labels} labels")
    wins.set_ylabel(f"{cfg.preset} win rate, % ({cfg.games} games)")
    mae.set_ylabel("held-out MAE vs exact probability")
    mae.set_yscale("log")
    for ax in (wins, mae):
        ax.set_xscale("log")
        ax.set_xlabel(f"training positions seen (steps x {cfg.batch})")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(f"{cfg.model}: exact-probability vs mine labels, same data, steps and seed")
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)
