"""A small sweep: several model configs trained alike, evaluated alike, one table.

Each config trains in ``OUT/<config>`` with the same data, steps, batch, learning rate and
seed (:func:`learners.nets.train.train`, so every run resumes), then is evaluated by
:func:`learners.nets.evaluate.evaluate_checkpoint` on the held-out games and, with ``games``, on
seeded games per preset. Evaluations are cached per checkpoint and setting
(``OUT/<config>/sweep.json``), so a rerun with more configs only does the new work.
``OUT/sweep.md`` and ``OUT/sweep.json`` hold the table, ``OUT/curves.png`` the learning
curves of all runs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mscsp.errors import InvalidInputError
from mscsp.runtime.outlock import output_lock

RESULT_FILE = "sweep.json"


def run_sweep(
    configs: Sequence[str],
    data: Sequence[str],
    out: str | Path,
    *,
    steps: int,
    batch: int = 64,
    lr: float = 3e-3,
    eval_every: int = 250,
    seed: int = 0,
    presets: Sequence[str] = (),
    games: int = 0,
    log=print,
) -> list[dict[str, Any]]:
    """Trains and evaluates every config in ``configs``; returns one row per config.

    Raises:
        InvalidInputError: An unknown config, or a run directory of other settings.
        OutputLockedError: Another process is writing ``out`` (:mod:`mscsp.runtime.outlock`).
    """
    from .evaluate import evaluate_checkpoint
    from .models import CONFIGS, build, config_inputs, count_params, receptive_radius
    from .onpolicy import checkpoint_digest
    from .train import MODEL_FILE, TrainConfig, plot_curves, train

    unknown = [c for c in configs if c not in CONFIGS]
    if unknown:
        raise InvalidInputError(f"unknown configs {unknown}; choose from {', '.join(CONFIGS)}")
    out = Path(out)
    with output_lock(out, "sweep directory"):
        rows = []
        for name in configs:
            run = out / name
            log(f"sweep: {name}")
            cfg = TrainConfig(
                model=name,
                data=list(data),
                out=str(run),
                steps=steps,
                batch=batch,
                lr=lr,
                eval_every=eval_every,
                seed=seed,
            )
            train(cfg, resume=True, log=log)
            key = {
                "sha256": checkpoint_digest(run / MODEL_FILE),
                "presets": list(presets),
                "games": games,
            }
            cached = run / RESULT_FILE
            report = None
            if cached.exists():
                saved = json.loads(cached.read_text())
                report = saved["report"] if saved.get("key") == key else None
            if report is None:
                report = evaluate_checkpoint(
                    str(run), data_dirs=list(data), presets=list(presets), games=games
                )
                cached.write_text(json.dumps({"key": key, "report": report}, indent=1) + "\n")
                report = json.loads(json.dumps(report))  # as a rerun reads it from the cache
            rows.append(
                {
                    "config": name,
                    "params": count_params(build(name)),
                    "receptive_radius": receptive_radius(name),
                    "inputs": list(config_inputs(name)),
                    "steps": steps,
                    "accuracy": report["accuracy"],
                    "games": report["games"],
                }
            )
        out.mkdir(parents=True, exist_ok=True)
        (out / "sweep.json").write_text(json.dumps(rows, indent=1) + "\n")
        (out / "sweep.md").write_text(table(rows))
        plot_curves({name: out / name / "metrics.jsonl" for name in configs}, out / "curves.png")
        return rows


def table(rows: list[dict[str, Any]]) -> str:
    """The sweep as a markdown table: size, reach, accuracy and decisions, win rates."""
    sizes = sorted({s for r in rows for s in r["accuracy"]})
    presets = sorted({p for r in rows for p in r["games"]})
    head = ["config", "params", "receptive radius", "extra inputs"]
    for s in sizes:
        head += [f"log-loss vs exact {s}", f"MAE {s}", f"certain-safe found {s}"]
        head += [f"bulk not certain-safe {s}"]
    head += [f"{p} win % [95 % CI] (n)" for p in presets]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for r in rows:
        cells = [
            r["config"],
            f"{r['params']:,}",
            "board" if r["receptive_radius"] is None else str(r["receptive_radius"]),
            ", ".join(r["inputs"]) or "-",
        ]
        for s in sizes:
            a = r["accuracy"].get(s)
            if a is None:
                cells += ["-"] * 4
                continue
            cells += [
                f"{a['log_loss']:.4f}",
                f"{a['mean_abs_diff']:.4f}",
                f"{100 * a['chosen_certain_when_available']:.1f} %",
                f"{100 * a['bulk_false_safe']:.2f} %",
            ]
        for p in presets:
            g = r["games"].get(p, {}).get("learner")
            if g is None:
                cells.append("-")
                continue
            lo, hi = (100 * v for v in g["ci95"])
            cells.append(f"{100 * g['win_rate']:.1f} [{lo:.1f}, {hi:.1f}] ({g['games']})")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
