"""Training ``learner:graph`` on exact marginals: packing, loss, a resumable loop.

Graphs of different sizes are packed into one padded batch of fixed capacity
(:func:`pack`), so the step compiles once. The loss is the cross-entropy of every group's
predicted probability against its exact one, weighted by the group's cells, averaged over
the rounds with later rounds weighing more (each round should improve on the last).

A run directory holds ``state.msgpack`` (weights, optimizer, step: written atomically every
``checkpoint_every`` steps), ``metrics.jsonl`` and, at the end, ``model.msgpack`` (weights and
config only: what ships). The batch of step ``k`` is drawn from ``(seed, k)`` alone, so a
killed run resumed from its checkpoint takes the same steps as one that was never stopped.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx, serialization

from learners.artefacts import environment, write_atomic
from mscsp.errors import InvalidInputError
from mscsp.validate import check_int

from .data import Graphs
from .models import CONFIGS, GraphConfig, GraphNet, build, config_dict

#: Capacity of a training batch: groups, numbers, edges, graphs (the last of each is padding).
CAPACITY = (2048, 1024, 6144, 129)
STATE_FILE, MODEL_FILE, METRICS_FILE = "state.msgpack", "model.msgpack", "metrics.jsonl"


@dataclass(frozen=True)
class TrainConfig:
    """One training run's settings (a resumed run must keep all but ``steps``)."""

    model: str = "base"
    steps: int = 20000
    lr: float = 2e-3
    warmup: int = 500
    weight_decay: float = 1e-4
    seed: int = 0
    checkpoint_every: int = 500
    #: 0: every step runs the config's rounds; else each step draws its count from
    #: ``[rounds // 2, max_rounds]`` (by the step's seed), so that more rounds at play time
    #: are not rounds the net never took.
    max_rounds: int = 0


def pack(graphs: Graphs, indices: Sequence[int], capacity: tuple[int, ...] | None = None):
    """Graphs ``indices`` as one padded batch (numpy arrays), and how many of them fit.

    ``capacity`` ``(groups, numbers, edges, graphs)`` defaults to the smallest powers of two
    that hold them all (what inference uses: few shapes, few compiles). Padding groups,
    numbers and edges point at the last group and number; padding groups belong to the last
    graph and carry no weight.
    """
    sizes = [
        (
            graphs.var_ptr[i + 1] - graphs.var_ptr[i],
            graphs.factor_ptr[i + 1] - graphs.factor_ptr[i],
            graphs.edge_ptr[i + 1] - graphs.edge_ptr[i],
        )
        for i in indices
    ]
    if capacity is None:
        total = np.sum(sizes, axis=0) if sizes else np.zeros(3, dtype=int)
        capacity = (*(_pow2(int(t) + 1) for t in total), _pow2(len(indices) + 1))
    cv, cf, ce, cg = capacity
    taken, used = [], np.zeros(3, dtype=int)
    for i, s in zip(indices, sizes, strict=True):
        if (used + s >= (cv, cf, ce)).any() or len(taken) + 1 >= cg:
            break
        taken.append(i)
        used += s
    if not taken:
        raise InvalidInputError(f"a graph of {sizes[0]} nodes and edges exceeds {capacity}")
    v_idx = np.concatenate([np.arange(graphs.var_ptr[i], graphs.var_ptr[i + 1]) for i in taken])
    f_idx = np.concatenate(
        [np.arange(graphs.factor_ptr[i], graphs.factor_ptr[i + 1]) for i in taken]
    )
    e_idx = np.concatenate([np.arange(graphs.edge_ptr[i], graphs.edge_ptr[i + 1]) for i in taken])
    # Global node indices of the taken graphs -> positions in the batch.
    v_start = np.cumsum([0] + [graphs.var_ptr[i + 1] - graphs.var_ptr[i] for i in taken])
    f_start = np.cumsum([0] + [graphs.factor_ptr[i + 1] - graphs.factor_ptr[i] for i in taken])
    edge_var = np.concatenate(
        [
            graphs.edge_var[graphs.edge_ptr[i] : graphs.edge_ptr[i + 1]]
            - graphs.var_ptr[i]
            + v_start[k]
            for k, i in enumerate(taken)
        ]
    )
    edge_factor = np.concatenate(
        [
            graphs.edge_factor[graphs.edge_ptr[i] : graphs.edge_ptr[i + 1]]
            - graphs.factor_ptr[i]
            + f_start[k]
            for k, i in enumerate(taken)
        ]
    )
    var_graph = np.repeat(np.arange(len(taken)), np.diff(v_start))
    batch = {
        "var": _pad(graphs.var[v_idx], cv),
        "factor": _pad(graphs.factor[f_idx], cf),
        "edge": _pad(graphs.edge[e_idx], ce),
        "edge_var": _pad(edge_var, ce, cv - 1),
        "edge_factor": _pad(edge_factor, ce, cf - 1),
        "size": _pad(graphs.size[v_idx], cv, 1.0),
        "target": _pad(graphs.target[f_idx], cf),
        "var_graph": _pad(var_graph, cv, cg - 1),
        "var_mask": _pad(np.ones(len(v_idx), dtype=np.float32), cv),
        "glob": _pad(graphs.glob[taken], cg),
        "left": _pad(graphs.left[taken], cg),
        "n_free": _pad(graphs.n_free[taken], cg),
        "label": _pad(graphs.label[v_idx], cv),
    }
    return batch, len(taken)


def _pow2(n: int) -> int:
    return 1 << max(n - 1, 1).bit_length()


def _pad(a: np.ndarray, n: int, value: float = 0) -> np.ndarray:
    pad = [(0, n - len(a))] + [(0, 0)] * (a.ndim - 1)
    return np.pad(a, pad, constant_values=value)


def loss_fn(model: GraphNet, batch: dict[str, jax.Array], rounds: int) -> jax.Array:
    """Cell-weighted cross-entropy against the exact odds, later rounds weighing more."""
    logits = model(batch, rounds)
    y = batch["label"]
    bce = optax.sigmoid_binary_cross_entropy(logits, y[None]) - _entropy(y)[None]
    w = batch["size"] * batch["var_mask"]
    per_round = (bce * w[None]).sum(axis=1) / w.sum()
    weights = jnp.arange(1, rounds + 1, dtype=jnp.float32)
    return (per_round * weights).sum() / weights.sum()


def _entropy(y: jax.Array) -> jax.Array:
    """The exact odds' own entropy: the loss's floor, taken off so that 0 is perfect."""
    q = jnp.clip(y, 1e-7, 1 - 1e-7)
    return -(q * jnp.log(q) + (1 - q) * jnp.log(1 - q))


def make_step(rounds: int) -> Callable:
    @nnx.jit
    def step(model: GraphNet, optimizer: nnx.Optimizer, batch: dict[str, jax.Array]):
        loss, grads = nnx.value_and_grad(lambda m: loss_fn(m, batch, rounds))(model)
        optimizer.update(model, grads)
        return loss

    return step


def make_predict(model: GraphNet) -> Callable[[dict[str, np.ndarray], int], np.ndarray]:
    """``predict(batch, rounds)``: every group's probability after the last round (jitted
    once per batch shape and round count; the model split once, so calls skip NNX's
    bookkeeping)."""
    graphdef, state = nnx.split(model)
    fn = jax.jit(
        lambda s, b, rounds: jax.nn.sigmoid(nnx.merge(graphdef, s)(b, rounds)[-1]),
        static_argnums=2,
    )
    return lambda batch, rounds: np.asarray(fn(state, batch, rounds))


def evaluate(predict, graphs: Graphs, rounds: int) -> dict[str, Any]:
    """Cell-weighted mean and largest |dp| on the open groups, overall and per family."""
    errors, families, weights = [], [], []
    order = list(range(len(graphs)))
    while order:
        batch, n = pack(graphs, order, CAPACITY)
        p = predict(batch, rounds)
        mask = batch["var_mask"] > 0
        err = np.abs(p - batch["label"])[mask]
        errors.append(err)
        weights.append(batch["size"][mask])
        families.append(graphs.family[order[:n]][batch["var_graph"][mask]])
        order = order[n:]
    err, w, fam = map(np.concatenate, (errors, weights, families))
    out = {"mae": float((err * w).sum() / w.sum()), "max": float(err.max())}
    for family in np.unique(fam):
        m = fam == family
        out[f"mae_{family}"] = float((err[m] * w[m]).sum() / w[m].sum())
    return out


#: Round counts :func:`choose_rounds` tries for a net trained at random round counts.
PLAY_ROUNDS = (5, 8, 10, 12, 16, 20, 24, 32, 40)


def choose_rounds(
    path: str | Path, val: Graphs, tolerance: float = 0.02, tried: Sequence[int] = PLAY_ROUNDS
) -> int:
    """Sets the rounds a saved net plays with (unless told otherwise): the fewest of
    ``tried`` whose validation error is within ``tolerance`` (relative) of the lowest.

    A net trained at one round count plays at that count; one trained at random counts
    (``TrainConfig.max_rounds``) may do better with more, and the validation positions (never
    the held-out ones) say how many. The errors are kept in the checkpoint's metadata
    (``val_by_rounds``) beside the choice (``play_rounds``).

    Raises:
        InvalidInputError: No such checkpoint, a negative tolerance or a round count
            below 1.
    """
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or tolerance < 0:
        raise InvalidInputError(f"tolerance must be a number >= 0, got {tolerance!r}")
    if not tried:
        raise InvalidInputError("tried must name at least one round count")
    for rounds in tried:
        check_int(rounds, "rounds", 1)
    model, meta = load_model(path)
    predict = make_predict(model)
    errors = {int(k): evaluate(predict, val, int(k))["mae"] for k in tried}
    low = min(errors.values())
    chosen = min(k for k, e in errors.items() if e <= low * (1 + tolerance))
    meta.update(play_rounds=chosen, val_by_rounds=errors)
    save_model(Path(path), model, model.config, meta)
    return chosen


def save_model(path: Path, model: GraphNet, config: GraphConfig, meta: dict[str, Any]) -> None:
    """Config, metadata and weights as one msgpack file, written atomically."""
    params = jax.tree.map(np.asarray, nnx.to_pure_dict(nnx.state(model, nnx.Param)))
    blob = {
        "kind": "graph",
        "config": json.dumps(config_dict(config)),
        "meta": json.dumps(meta),
        "params": params,
    }
    write_atomic(path, serialization.msgpack_serialize(blob))


def is_graph_model(path: Path) -> bool:
    """Whether ``path`` is a file :func:`save_model` wrote (any other file: ``False``)."""
    if not path.is_file():
        return False
    try:
        blob = serialization.msgpack_restore(path.read_bytes())
    except Exception:  # not msgpack at all: some other kind of checkpoint
        return False
    return isinstance(blob, dict) and blob.get("kind") == "graph"


def load_model(path: str | Path) -> tuple[GraphNet, dict[str, Any]]:
    """The net saved by :func:`save_model` and its metadata.

    Raises:
        InvalidInputError: No such file, not a graph checkpoint, or weights that do not fit.
    """
    path = Path(path)
    if not path.is_file():
        raise InvalidInputError(f"no graph model checkpoint at {path}")
    try:
        blob = serialization.msgpack_restore(path.read_bytes())
        if blob.get("kind") != "graph":
            raise ValueError("not a learner:graph model")
        config = GraphConfig(**json.loads(blob["config"]))
        model = build(config)
        state = nnx.state(model, nnx.Param)
        nnx.replace_by_pure_dict(state, blob["params"])
        nnx.update(model, state)
    except Exception as exc:  # msgpack, JSON and shape errors all mean a bad file
        raise InvalidInputError(f"{path} is not a learner:graph model ({exc})") from None
    return model, json.loads(blob["meta"])


def _optimizer(model: GraphNet, cfg: TrainConfig) -> nnx.Optimizer:
    schedule = optax.warmup_cosine_decay_schedule(
        0.0, cfg.lr, min(cfg.warmup, cfg.steps // 2), cfg.steps, end_value=cfg.lr * 0.02
    )
    tx = optax.chain(
        optax.clip_by_global_norm(1.0), optax.adamw(schedule, weight_decay=cfg.weight_decay)
    )
    return nnx.Optimizer(model, tx, wrt=nnx.Param)


def _save_state(out: Path, step: int, cfg: TrainConfig, model, optimizer) -> None:
    blob = {
        "step": step,
        "settings": json.dumps(asdict(cfg)),
        "params": jax.tree.map(np.asarray, nnx.to_pure_dict(nnx.state(model, nnx.Param))),
        "optimizer": jax.tree.map(np.asarray, nnx.to_pure_dict(nnx.state(optimizer))),
    }
    write_atomic(out / STATE_FILE, serialization.msgpack_serialize(blob))


def _restore_state(out: Path, cfg: TrainConfig, model, optimizer) -> int:
    """Loads the run's checkpoint into ``model`` and ``optimizer``; the step it was at."""
    blob = serialization.msgpack_restore((out / STATE_FILE).read_bytes())
    saved = json.loads(blob["settings"])
    mine = asdict(cfg)
    changed = [k for k in mine if k != "steps" and saved.get(k) != mine[k]]
    if changed:
        raise InvalidInputError(
            f"{out} was trained with other settings ({', '.join(changed)}); "
            "use another --out or the same settings"
        )
    params, opt_state = nnx.state(model, nnx.Param), nnx.state(optimizer)
    nnx.replace_by_pure_dict(params, blob["params"])
    nnx.update(model, params)
    nnx.replace_by_pure_dict(opt_state, blob["optimizer"])
    nnx.update(optimizer, opt_state)
    return int(blob["step"])


def train(
    cfg: TrainConfig,
    data: Graphs,
    val: Graphs,
    out: str | Path,
    log: Callable[[str], None] = print,
    eval_every: int = 1000,
) -> Path:
    """Trains (or resumes) a run in ``out``; returns the path of the final ``model.msgpack``.

    Raises:
        InvalidInputError: An unknown model, counts below 1, or a run in ``out`` saved with
            other settings.
    """
    if cfg.model not in CONFIGS:
        raise InvalidInputError(f"unknown model {cfg.model!r}; choose from {', '.join(CONFIGS)}")
    check_int(cfg.steps, "steps", 1)
    check_int(cfg.checkpoint_every, "checkpoint_every", 1)
    check_int(eval_every, "eval_every", 1)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    config = CONFIGS[cfg.model]
    model = build(config, cfg.seed)
    optimizer = _optimizer(model, cfg)
    start = _restore_state(out, cfg, model, optimizer) if (out / STATE_FILE).exists() else 0
    _truncate(out / METRICS_FILE, start)
    if check_int(cfg.max_rounds, "max_rounds") and cfg.max_rounds < config.rounds:
        raise InvalidInputError(f"max_rounds must be 0 or at least {config.rounds}")
    steps: dict[int, Callable] = {}  # (compiled once per round count)
    t0, losses = time.monotonic(), []
    for step in range(start + 1, cfg.steps + 1):
        rng = np.random.default_rng([cfg.seed, step])
        batch, _ = pack(data, rng.permutation(len(data)), CAPACITY)
        rounds = config.rounds
        if cfg.max_rounds:
            rounds = int(rng.integers(config.rounds // 2, cfg.max_rounds + 1))
        if rounds not in steps:
            steps[rounds] = make_step(rounds)
        losses.append(float(steps[rounds](model, optimizer, batch)))
        if step % eval_every == 0 or step == cfg.steps:
            metrics = evaluate(make_predict(model), val, config.rounds)
            rate = (step - start) / (time.monotonic() - t0)
            row = {"step": step, "loss": float(np.mean(losses)), **metrics}
            with (out / METRICS_FILE).open("a") as f:
                f.write(json.dumps(row) + "\n")
            left = (cfg.steps - step) / rate
            log(
                f"step {step}/{cfg.steps} loss {row['loss']:.5f} val |dp| {metrics['mae']:.4f} "
                f"max {metrics['max']:.3f} ({rate:.1f} steps/s, {left / 60:.0f} min left)"
            )
            losses = []
        if step % cfg.checkpoint_every == 0 or step == cfg.steps:
            _save_state(out, step, cfg, model, optimizer)
    path = out / MODEL_FILE
    meta = {"settings": asdict(cfg), "train_graphs": len(data), "environment": environment()}
    save_model(path, model, config, meta)
    return path


def _truncate(path: Path, step: int) -> None:
    """Drops the metrics rows past ``step`` (a resumed run writes them again)."""
    if not path.exists():
        return
    rows = [line for line in path.read_text().splitlines() if json.loads(line)["step"] <= step]
    path.write_text("".join(r + "\n" for r in rows))
