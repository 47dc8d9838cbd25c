"""Training: jit-compiled AdamW steps on covered cells, periodic eval, logs, checkpoints.

A run directory holds ``model.msgpack`` (config + weights: what players and ``learn eval``
load), ``checkpoints/`` (orbax train states for resuming: weights, optimizer state, step and
run settings, the latest :data:`KEEP_LAST` plus any steps asked to be kept),
``metrics.jsonl`` and ``curves.png``.

Why two formats: an orbax checkpoint is a directory of many files, committed atomically (it
is written under a temporary name and renamed) and cleaned up by its manager, which is what
resuming needs; a player needs one small file that loads with Flax alone, which is what the
shipped ``learners/weights/*.msgpack`` and ``model.msgpack`` are.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx, serialization

from mscsp.errors import InvalidInputError
from mscsp.runtime.outlock import output_lock

from ..artefacts import model_path
from ..classic.data import perimeter
from .data import Positions, encode, load, with_extra_inputs
from .models import CONFIGS, build, config_inputs, count_params

MODEL_FILE = "model.msgpack"
CHECKPOINT_DIR = "checkpoints"
#: Latest train states kept; older ones are deleted once a newer one is committed.
KEEP_LAST = 3
METRICS_FILE = "metrics.jsonl"


@dataclass
class TrainConfig:
    """Everything a run depends on (stored in ``model.msgpack`` for reproducibility)."""

    model: str = "resnet"
    data: Sequence[str] = field(default_factory=list)
    out: str = "runs/resnet"
    labels: str = "exact"  # "exact": CSP probabilities; "mines": the true layout
    cells: str = "all"  # loss on: "all" covered cells, or "frontier" (bordering cells) only
    steps: int = 2000
    batch: int = 64
    lr: float = 3e-3
    warmup: int = 100
    weight_decay: float = 1e-4
    eval_every: int = 250
    eval_positions: int = 500
    seed: int = 0
    workers: int = 1  # processes computing the model's extra inputs once (not a result setting)
    init: str | None = None  # a model checkpoint of the same config to start from
    # Size curriculum: "STEP:ROWSxCOLS,..." stages, each from its first step on (see
    # parse_stage); empty: every size all along.
    curriculum: Sequence[str] = ()
    keep_steps: Sequence[int] = ()  # steps also checkpointed and never deleted (curves)


def masked_bce(logits: jax.Array, target: jax.Array, mask: jax.Array) -> jax.Array:
    """Mean binary cross-entropy over the cells where ``mask`` is true (covered cells)."""
    loss = optax.sigmoid_binary_cross_entropy(logits, target)
    return (loss * mask).sum() / jnp.maximum(mask.sum(), 1.0)


def targets(positions: Positions, labels: str) -> np.ndarray:
    """Training targets: exact probabilities or the 0/1 mine layout."""
    if labels == "exact":
        return positions.probs
    if labels == "mines":
        return positions.layout.astype(np.float32)
    raise ValueError(f"labels must be 'exact' or 'mines', got {labels!r}")


#: What ``TrainConfig.labels`` may name: the targets (see :func:`targets`).
LABELS = ("exact", "mines")
#: What ``TrainConfig.cells`` may name: the cells the loss is on.
CELLS = ("all", "frontier")


def loss_cells(cells: np.ndarray, which: str = "all") -> np.ndarray:
    """The cells a training loss is on, for positions ``(..., rows, cols)`` (bool).

    Args:
        cells: Cell codes.
        which: ``"all"``: every covered cell; ``"frontier"``: the bordering cells only
            (covered with a revealed neighbour, as seed 000 trained its MLP).
    """
    if which == "all":
        return cells == -1
    if which == "frontier":
        return perimeter(cells)
    raise ValueError(f"cells must be one of {', '.join(CELLS)}, got {which!r}")


def parse_stage(stage: str) -> tuple[int, list[tuple[int, int]]]:
    """A curriculum stage ``"STEP:ROWSxCOLS,..."``: its first step and the board sizes it uses.

    Raises:
        InvalidInputError: Not of that form.
    """
    try:
        start, sizes = stage.split(":")
        shapes = [tuple(int(v) for v in size.lower().split("x")) for size in sizes.split(",")]
        if int(start) < 0 or any(len(s) != 2 or min(s) < 1 for s in shapes):
            raise ValueError
    except ValueError:
        raise InvalidInputError(
            f"curriculum stage {stage!r} is not STEP:ROWSxCOLS[,ROWSxCOLS...], e.g. 0:9x9,16x16"
        ) from None
    return int(start), shapes  # type: ignore[return-value]


def stage_groups(
    curriculum: Sequence[str], shapes: Sequence[tuple[int, int]], steps: int
) -> list[tuple[int, list[int]]]:
    """The curriculum as ``(first step, indices of the size groups drawn from)``, in order.

    Args:
        curriculum: Stages (:func:`parse_stage`); empty: every group from step 0.
        shapes: The board size of each training group.
        steps: The run's steps (a stage starting at or after it would never run).

    Raises:
        InvalidInputError: Stages out of order, not starting at 0, past the run's end, or
            naming a size the data does not hold.
    """
    if not curriculum:
        return [(0, list(range(len(shapes))))]
    out = []
    for stage in curriculum:
        start, sizes = parse_stage(stage)
        missing = [f"{r}x{c}" for r, c in sizes if (r, c) not in shapes]
        if missing:
            held = ", ".join(f"{r}x{c}" for r, c in shapes)
            raise InvalidInputError(
                f"curriculum stage {stage!r}: no training data of size {', '.join(missing)} "
                f"(the data holds {held})"
            )
        if (out and start <= out[-1][0]) or (not out and start != 0) or start >= steps:
            raise InvalidInputError(
                "curriculum stages must start at step 0 and go up, each before --steps "
                f"({steps}): got {', '.join(curriculum)}"
            )
        out.append((start, [shapes.index(s) for s in sizes]))
    return out


def groups_at(stages: list[tuple[int, list[int]]], step: int) -> list[int]:
    """The size groups a step draws its batch from (the last stage started by then)."""
    return [groups for start, groups in stages if start <= step][-1]


def sample_batch(
    groups: list[Positions],
    labels: str,
    batch: int,
    rng: np.random.Generator,
    inputs: Sequence[str] = (),
    cells: str = "all",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A random batch from one size group (chosen in proportion to its size), randomly flipped.

    Flips are symmetries of Minesweeper, so they are free extra data. The mask is the loss
    weight of each cell: 0 off :func:`loss_cells` (revealed cells; with ``"frontier"`` also
    covered cells away from every number), else the shard's cell weight (1 without one).
    """
    sizes = np.array([len(g) for g in groups], dtype=float)
    group = groups[rng.choice(len(groups), p=sizes / sizes.sum())]
    part = group.take(rng.integers(len(group), size=batch))
    x, y = encode(part.cells, part.mines, inputs, part.extra), targets(part, labels)
    mask = loss_cells(part.cells, cells).astype(np.float32)
    if part.weight is not None:
        mask *= part.weight
    for axis in (1, 2):
        if rng.random() < 0.5:
            x, y, mask = (np.flip(a, axis) for a in (x, y, mask))
    return tuple(np.ascontiguousarray(a) for a in (x, y, mask))


@nnx.jit
def train_step(
    model: nnx.Module, optimizer: nnx.Optimizer, x: jax.Array, y: jax.Array, mask: jax.Array
) -> jax.Array:
    """One AdamW step; returns the batch loss."""
    loss, grads = nnx.value_and_grad(lambda m: masked_bce(m(x), y, mask))(model)
    optimizer.update(model, grads)
    return loss


def make_predict(model: nnx.Module):
    """A jit-compiled ``predict(x) -> probabilities`` bound to the model's current weights.

    Splits the model once so calls skip NNX graph bookkeeping (the fast inference path).
    """
    graphdef, state = nnx.split(model)
    fn = jax.jit(lambda s, x: jax.nn.sigmoid(nnx.merge(graphdef, s)(x)))
    return lambda x: fn(state, x)


def predict_positions(
    predict, positions: Positions, batch: int = 256, inputs: Sequence[str] = ()
) -> np.ndarray:
    """Predicted mine probabilities of every cell of ``positions`` (float32, batched).

    ``inputs`` are the extra inputs of the model's config (:func:`models.config_inputs`).
    """
    out = [
        np.asarray(
            predict(encode(positions.cells[i : i + batch], positions.mines[i : i + batch], inputs))
        )
        for i in range(0, len(positions), batch)
    ]
    return np.concatenate(out)


def accuracy(pred: np.ndarray, positions: Positions) -> dict[str, float]:
    """Agreement of predictions with exact probabilities on covered cells.

    Returns:
        ``mae`` and ``max_err`` vs exact probabilities, ``logloss_exact`` (cross-entropy
        against exact probabilities): :mod:`mscsp.evaluation.metrics`' ``mean_abs_diff``,
        ``max_abs_diff`` and ``log_loss`` under the names the training logs use; then
        ``logloss_mines`` (against the true layout) and the exact solver's own
        ``entropy_exact`` (the floor of ``logloss_exact``).
    """
    from mscsp.evaluation.metrics import EPS, cell_errors

    covered = positions.cells == -1
    errors = cell_errors(pred.astype(np.float64), positions.probs, covered).summary()
    p = np.clip(pred[covered].astype(np.float64), EPS, 1 - EPS)
    q = positions.probs[covered].astype(np.float64)
    m = positions.layout[covered]
    qc = np.clip(q, 1e-12, 1 - 1e-12)
    return {
        "mae": errors["mean_abs_diff"],
        "max_err": errors["max_abs_diff"],
        "logloss_exact": errors["log_loss"],
        "logloss_mines": float(-np.where(m, np.log(p), np.log(1 - p)).mean()),
        "entropy_exact": float(-(q * np.log(qc) + (1 - q) * np.log(1 - qc)).mean()),
    }


def save_model(
    path: str | Path, model: nnx.Module, config: dict[str, Any], meta: dict[str, Any] | None = None
) -> None:
    """Writes config, metadata and weights as one msgpack file (atomically)."""
    params = jax.tree.map(np.asarray, nnx.to_pure_dict(nnx.state(model, nnx.Param)))
    blob = {"config": json.dumps(config), "meta": json.dumps(meta or {}), "params": params}
    _write(path, serialization.msgpack_serialize(blob))


def load_model(path: str | Path) -> tuple[nnx.Module, dict[str, Any], dict[str, Any]]:
    """Rebuilds a model saved by :func:`save_model`; returns ``(model, config, meta)``.

    ``path`` may be the file or a run directory holding ``model.msgpack``.
    """
    path = Path(path)
    if path.is_dir():
        path = path / MODEL_FILE
    if not path.is_file():
        raise InvalidInputError(f"no model checkpoint at {path}")
    try:
        blob = serialization.msgpack_restore(path.read_bytes())
        config = json.loads(blob["config"])
    except Exception as exc:  # msgpack and JSON raise many kinds; all mean a bad file
        raise InvalidInputError(f"{path} is not a model checkpoint ({exc})") from None
    try:
        model = build(config)
        state = nnx.state(model, nnx.Param)
        nnx.replace_by_pure_dict(state, blob["params"])
        nnx.update(model, state)
    except Exception as exc:  # a config that names no model, or weights of another shape
        raise InvalidInputError(
            f"{path}: its weights do not fit its model config ({type(exc).__name__}: {exc})"
        ) from None
    return model, config, json.loads(blob["meta"])


def _write(path: str | Path, data: bytes) -> None:
    path = Path(path)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


#: Settings a resumed run must share with the saved one (``steps`` may grow: a longer run).
RESUME_KEYS = (
    "model",
    "labels",
    "cells",
    "batch",
    "lr",
    "warmup",
    "weight_decay",
    "seed",
    "data",
    "init",
    "curriculum",
)
#: Steps between progress lines (and ``train`` rows of ``metrics.jsonl``).
LOG_EVERY = 50


def _run_settings(cfg: TrainConfig) -> dict[str, Any]:
    # Lists, as the JSON of a saved run reads back, so a resume compares like with like.
    return asdict(cfg) | {
        "data": [str(d) for d in cfg.data],
        "curriculum": list(cfg.curriculum),
        "keep_steps": list(cfg.keep_steps),
    }


def checkpoint_manager(out: Path, keep_steps: Sequence[int] = (), *, create: bool = True):
    """The orbax manager of the train states in ``out / checkpoints``.

    Saves are synchronous (a save is on disk when the call returns) and atomic; the manager
    keeps the latest :data:`KEEP_LAST` states and every step in ``keep_steps``, and removes
    a temporary directory that an interrupted save left behind.
    """
    import orbax.checkpoint as ocp
    from orbax.checkpoint import checkpoint_managers as policies

    keep = policies.LatestN(KEEP_LAST)
    if keep_steps:
        keep = policies.AnyPreservationPolicy([keep, policies.CustomSteps(list(keep_steps))])
    options = ocp.CheckpointManagerOptions(
        enable_async_checkpointing=False,
        preservation_policy=keep,
        cleanup_tmp_directories=True,
        create=create,
    )
    return ocp.CheckpointManager(
        (out / CHECKPOINT_DIR).absolute(), options=options, item_names=("state", "run")
    )


def _read_run(manager, step: int) -> dict[str, Any]:
    import orbax.checkpoint as ocp

    return manager.restore(step, args=ocp.args.Composite(run=ocp.args.JsonRestore())).run


def saved_run(out: Path) -> dict[str, Any] | None:
    """The settings (``train``) and model config (``model``) of the run saved in ``out``.

    Returns ``None`` when ``out`` holds no committed train state.

    Raises:
        InvalidInputError: The saved state cannot be read.
    """
    if not (out / CHECKPOINT_DIR).is_dir():
        return None
    try:
        with checkpoint_manager(out, create=False) as manager:
            step = manager.latest_step()
            return None if step is None else _read_run(manager, step) | {"step": step}
    except Exception as exc:  # orbax and JSON raise many kinds; all mean a bad state
        raise InvalidInputError(
            f"{out / CHECKPOINT_DIR} holds no readable train state ({exc}); train with --fresh"
        ) from None


def restore_model(out: str | Path, step: int | None = None) -> tuple[nnx.Module, dict[str, Any]]:
    """The model of a run directory's train state at ``step`` (default: the latest).

    Returns:
        ``(model, config)``.

    Raises:
        InvalidInputError: No train state at that step.
    """
    out = Path(out)
    saved = saved_run(out)
    if saved is None:
        raise InvalidInputError(f"{out} holds no train state")
    cfg = TrainConfig(**saved["train"])
    model = build(saved["model"])
    optimizer = nnx.Optimizer(model, _transform(cfg)[0], wrt=nnx.Param)
    with checkpoint_manager(out, create=False) as manager:
        steps = manager.all_steps()
        if step is not None and step not in steps:
            raise InvalidInputError(f"{out} keeps no train state at step {step} (it has {steps})")
        _restore_state(manager, saved["step"] if step is None else step, model, optimizer)
    return model, saved["model"]


def _pure(state: nnx.State) -> dict[str, Any]:
    return jax.tree.map(np.asarray, nnx.to_pure_dict(state))


def _transform(cfg: TrainConfig) -> tuple[optax.GradientTransformation, optax.Schedule]:
    """AdamW with warm-up and cosine decay, after clipping the global gradient norm."""
    schedule = optax.warmup_cosine_decay_schedule(
        0.0, cfg.lr, min(cfg.warmup, cfg.steps // 2), cfg.steps, end_value=cfg.lr * 0.01
    )
    tx = optax.chain(
        optax.clip_by_global_norm(1.0), optax.adamw(schedule, weight_decay=cfg.weight_decay)
    )
    return tx, schedule


def _save_state(manager, step: int, run: dict[str, Any], model, optimizer) -> None:
    import orbax.checkpoint as ocp

    state = {"params": _pure(nnx.state(model, nnx.Param)), "optimizer": _pure(nnx.state(optimizer))}
    # One committed directory per step: weights, optimizer and settings never part.
    manager.save(
        step,
        args=ocp.args.Composite(state=ocp.args.StandardSave(state), run=ocp.args.JsonSave(run)),
        force=True,
    )


def _restore_state(manager, step: int, model, optimizer) -> None:
    """Loads the weights and optimizer state saved at ``step`` into ``model`` and ``optimizer``."""
    import orbax.checkpoint as ocp

    # The target gives the tree its structure back (orbax stores list indices as strings).
    params, opt_state = nnx.state(model, nnx.Param), nnx.state(optimizer)
    target = {"params": _pure(params), "optimizer": _pure(opt_state)}
    restored = manager.restore(
        step, args=ocp.args.Composite(state=ocp.args.StandardRestore(target))
    ).state
    nnx.replace_by_pure_dict(params, restored["params"])
    nnx.update(model, params)
    nnx.replace_by_pure_dict(opt_state, restored["optimizer"])
    nnx.update(optimizer, opt_state)


def check_resume(cfg: TrainConfig, saved: dict[str, Any]) -> None:
    """Refuses to resume a run saved with other settings or another model.

    Raises:
        InvalidInputError: One line naming what differs.
    """
    settings = _run_settings(cfg)

    # A run saved before a setting existed ran with its default.
    saved_train = _run_settings(TrainConfig()) | saved["train"]

    def same(key: str) -> bool:
        old, new = saved_train[key], settings[key]
        if key == "data" and isinstance(old, list):  # ./d and d are the same directory
            return [os.path.normpath(d) for d in old] == [os.path.normpath(d) for d in new]
        return old == new

    differ = [
        f"{k}: {saved_train[k]!r} saved, {settings[k]!r} now" for k in RESUME_KEYS if not same(k)
    ]
    if saved["model"] != dict(CONFIGS[cfg.model]) and not differ:
        differ.append(f"model {cfg.model!r}: its config changed since the run was saved")
    if differ:
        raise InvalidInputError(
            f"{cfg.out} holds a run with other settings ({'; '.join(differ)}); "
            "use another --out, or --fresh to start it over"
        )


def _truncate_metrics(path: Path, step: int) -> None:
    """Drops rows past ``step`` (written after the last checkpoint) so none repeats on resume."""
    if not path.exists():
        return
    rows = [line for line in path.read_text().splitlines() if line.strip()]
    kept = []
    for line in rows:
        try:
            if json.loads(line)["step"] <= step:
                kept.append(line)
        except (ValueError, KeyError, TypeError):
            continue  # a line cut by the interruption
    _write(path, "".join(f"{line}\n" for line in kept).encode())


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}h{rest // 60:02d}m" if hours else f"{rest // 60}m{rest % 60:02d}s"


def train(
    cfg: TrainConfig,
    *,
    resume: bool = True,
    log=print,
    on_step: Callable[[int, float], None] | None = None,
) -> Path:
    """Trains ``cfg.model`` on ``cfg.data`` and writes a run directory; returns its path.

    Validation positions are the held-out games (:meth:`Positions.split`). With ``resume``,
    a run directory that already has a train state continues from its step, provided it was
    saved with the same settings (else nothing is written and an error says what differs);
    batches are drawn from ``rng([seed, step])`` so a resumed run sees the same batches.
    Without ``resume`` the directory's run is started over. Every ``eval_every`` steps the
    weights and optimizer state are checkpointed atomically (orbax; also at each step of
    ``keep_steps``, which are never deleted); ``metrics.jsonl`` keeps one row per step and
    split, also after a resume. ``on_step(step, loss)`` is called after every step (counted
    from 1, so a resumed run's first call says where it started) with that step's loss.

    Raises:
        InvalidInputError: Unknown model, labels or cells, no data, or a saved run with other
            settings.
        OutputLockedError: Another process is writing ``cfg.out`` (:mod:`mscsp.runtime.outlock`).
    """
    if cfg.model not in CONFIGS:
        raise InvalidInputError(f"unknown model {cfg.model!r}; choose from {', '.join(CONFIGS)}")
    if cfg.labels not in LABELS:
        raise InvalidInputError(f"unknown labels {cfg.labels!r}; choose from {', '.join(LABELS)}")
    if cfg.cells not in CELLS:
        raise InvalidInputError(f"unknown cells {cfg.cells!r}; choose from {', '.join(CELLS)}")
    out = Path(cfg.out)
    if out.exists() and not out.is_dir():
        raise InvalidInputError(f"{out} is not a directory")
    # Before the saved run is read and the data loaded: a second writer is refused first.
    with output_lock(out, "run directory"):
        return _train(cfg, out, resume, log, on_step)


def _train(cfg: TrainConfig, out: Path, resume: bool, log, on_step=None) -> Path:
    """:func:`train`'s work, under the run directory's lock."""
    saved = saved_run(out) if resume else None
    if saved is not None:
        check_resume(cfg, saved)
    elif resume and ((out / MODEL_FILE).exists() or (out / METRICS_FILE).exists()):
        legacy = out / "train_state.msgpack"  # before orbax: weights and optimizer in one file
        raise InvalidInputError(
            f"{out} holds a model but no train state to resume"
            + (" (a train_state.msgpack of an older version)" if legacy.exists() else "")
            + "; use another --out, or --fresh to start it over"
        )
    splits = [g.split() for g in load(cfg.data)]
    train_groups = [t for t, _ in splits if len(t)]
    val_groups = [v.take(np.arange(min(len(v), cfg.eval_positions))) for _, v in splits if len(v)]
    if not train_groups or not val_groups:
        raise InvalidInputError(
            f"{', '.join(map(str, cfg.data))}: too few games for a training and a validation "
            "split (one game in ten is held out)"
        )
    stages = stage_groups(cfg.curriculum, [g.shape for g in train_groups], cfg.steps)
    model_config = dict(CONFIGS[cfg.model])
    model = build(model_config, seed=cfg.seed)
    inputs = config_inputs(model_config)
    if inputs:
        began = time.time()
        train_groups = [with_extra_inputs(g, inputs, cfg.workers) for g in train_groups]
        log(f"extra inputs {', '.join(inputs)} computed once in {time.time() - began:.0f} s")
    if cfg.init is not None and saved is None:
        _start_from(model, model_config, cfg.init)
    tx, schedule = _transform(cfg)
    optimizer = nnx.Optimizer(model, tx, wrt=nnx.Param)
    start = 0
    out.mkdir(parents=True, exist_ok=True)
    if saved is None:  # a fresh run: no state or row of an earlier run survives
        shutil.rmtree(out / CHECKPOINT_DIR, ignore_errors=True)
        (out / METRICS_FILE).unlink(missing_ok=True)
    manager = checkpoint_manager(out, cfg.keep_steps)
    if saved is not None:
        _restore_state(manager, saved["step"], model, optimizer)
        start = int(optimizer.step[...])
        _truncate_metrics(out / METRICS_FILE, start)
        log(f"resuming {out} at step {start}")
    log(
        f"{cfg.model}: {count_params(model)} params; train "
        f"{sum(map(len, train_groups))} positions, val {sum(map(len, val_groups))}"
    )

    def evaluate(step: int) -> dict[str, Any]:
        predict = make_predict(model)
        pred = [predict_positions(predict, v, inputs=inputs) for v in val_groups]
        per_group = [accuracy(p, v) for p, v in zip(pred, val_groups, strict=True)]
        weights = np.array([(v.cells == -1).sum() for v in val_groups], dtype=float)
        row = {
            k: float(np.average([g[k] for g in per_group], weights=weights))
            for k in per_group[0]
            if k != "max_err"
        }
        return {"step": step, "split": "val", **row}

    def checkpoint(step: int) -> None:
        run = {"train": _run_settings(cfg), "model": model_config}
        _save_state(manager, step, run, model, optimizer)
        save_model(out / MODEL_FILE, model, model_config, {"train": run["train"], "step": step})

    # Line-buffered so the log can be followed while training runs.
    with manager, (out / METRICS_FILE).open("a", buffering=1) as metrics:
        t0, losses = time.time(), []
        for step in range(start, cfg.steps):
            rng = np.random.default_rng([cfg.seed, step])
            chosen = groups_at(stages, step)
            if step == start or chosen != groups_at(stages, step - 1):
                sizes = ", ".join("x".join(map(str, train_groups[i].shape)) for i in chosen)
                log(f"step {step}: batches from {sizes}")
            drawn = [train_groups[i] for i in chosen]
            x, y, mask = sample_batch(drawn, cfg.labels, cfg.batch, rng, inputs, cfg.cells)
            losses.append(float(train_step(model, optimizer, x, y, mask)))
            done = step + 1
            if on_step is not None:
                on_step(done, losses[-1])
            if done % LOG_EVERY == 0 or done == cfg.steps:
                elapsed = time.time() - t0
                rate = (done - start) / max(elapsed, 1e-9)
                row = {
                    "step": done,
                    "split": "train",
                    "loss": float(np.mean(losses)),
                    "lr": float(schedule(done)),
                    "elapsed": elapsed,
                }
                metrics.write(json.dumps(row) + "\n")
                log(
                    f"step {done}/{cfg.steps}  loss {row['loss']:.4g}  {rate:.1f} steps/s  "
                    f"ETA {_duration((cfg.steps - done) / rate)}"
                )
                losses = []
            if done % cfg.eval_every == 0 or done == cfg.steps:
                row = evaluate(done)
                metrics.write(json.dumps(row) + "\n")
                log(
                    " ".join(
                        f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                        for k, v in row.items()
                    )
                )
                checkpoint(done)
            elif done in cfg.keep_steps:
                checkpoint(done)
    plot_curves({cfg.model: out / METRICS_FILE}, out / "curves.png")
    return out


def _start_from(model: nnx.Module, config: dict[str, Any], path: str) -> None:
    """Copies the weights of the checkpoint at ``path`` into ``model`` (a warm start).

    Raises:
        InvalidInputError: The checkpoint is missing, unreadable or of another config.
    """
    source, source_config, _ = load_model(model_path(path))
    if source_config != config:
        raise InvalidInputError(
            f"--init {path} is a {source_config} model, not {config}; give a checkpoint of "
            "the same model"
        )
    nnx.update(model, nnx.state(source, nnx.Param))


def plot_curves(runs: dict[str, str | Path], png: str | Path) -> None:
    """Learning curves of one or more runs: train loss, val log-loss and val MAE vs exact.

    Args:
        runs: Label -> ``metrics.jsonl`` path.
        png: Output image.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    for label, path in runs.items():
        rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line]
        train = [r for r in rows if r["split"] == "train"]
        val = [r for r in rows if r["split"] == "val"]
        (line,) = ax1.plot(
            [r["step"] for r in train],
            [r["loss"] for r in train],
            alpha=0.5,
            label=f"{label}: train loss",
        )
        ax1.plot(
            [r["step"] for r in val],
            [r["logloss_exact"] for r in val],
            "o-",
            c=line.get_color(),
            label=f"{label}: val log-loss vs exact",
        )
        ax2.plot([r["step"] for r in val], [r["mae"] for r in val], "o-", label=label)
    ax1.set_xlabel("step")
    ax1.legend(fontsize=7)
    ax2.set_xlabel("step")
    ax2.set_ylabel("val MAE vs exact probability")
    ax2.set_yscale("log")
    ax2.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)
