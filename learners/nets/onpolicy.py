"""On-policy rounds (DAgger): the learner plays, the exact solver labels what it reaches.

A learner trained only on the CSP player's positions never sees the positions its own
mistakes lead to. Each round here (Ross, Gordon and Bagnell's DAgger):

1. plays games with the current model, each turn taking the exact player's move with
   probability ``beta`` (so early rounds still reach the end game) and the learner's own
   move otherwise, and records every position reached, labelled by :func:`mscsp.solve`;
2. trains the model further (a warm start) on the CSP data plus every round's positions.

Cell weights. The loss is a mean over covered cells, most of which lie far from the
frontier and share one easy probability. Games are lost on a few *decisive* cells: those
the exact player would reveal (every certain-safe cell, else the least likely ones) and
those the learner did reveal. On-policy shards weigh those cells ``1 + weight_boost`` and
the others 1 (entropy would weigh the wrong cells: a cell wrongly believed safe sits near
probability 0, where entropy is low).

Layout of a run directory::

    dagger.json                 settings (a rerun must match; --rounds may grow)
    round-01/data/              shards of round 1 (learners.nets.data format, policy in meta)
    round-01/model/             the train run of round 1 (model.msgpack, metrics.jsonl)
    round-01/eval.json          win rate of round 1's model (with eval games)
    rounds.json, rounds.png     one row per round: beta, positions, val metrics, win rate

Every step resumes: shards through :func:`learners.nets.data.generate`, training through
:func:`learners.nets.train.train`.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from mscsp.errors import InvalidInputError
from mscsp.runtime.outlock import output_lock

from ..artefacts import model_path
from ..registry import SYSTEMS, get_system, player_factory
from .data import GenSpec, _write_json, csp_move, directory_totals, generate

#: Round ``k`` plays games with seeds from ``seed + k * ROUND_SEED_STRIDE``: no round
#: replays another's games, the CSP data's (0, 1, ...) or the evaluation's (1,000,000...).
ROUND_SEED_STRIDE = 10_000_000
#: Extra loss weight of a decisive cell (see the module docstring).
WEIGHT_BOOST = 4
SETTINGS_FILE = "dagger.json"
ROUNDS_FILE = "rounds.json"


def checkpoint_digest(path: str | Path) -> str:
    """First 16 hex digits of the SHA-256 of a checkpoint file (its identity in records)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def policy_record(
    checkpoint: str,
    *,
    beta: float,
    round_: int,
    seed: int = 0,
    weight_boost: int = WEIGHT_BOOST,
    safe_below: float | None = None,
    system: str = "learner",
) -> dict[str, Any]:
    """What a round's games are played with (stored in the shards' metadata).

    Args:
        checkpoint: The learner's model file, run directory or ``"default"``.
        beta: Probability that a turn takes the exact player's move instead.
        round_: Round number (1, 2, ...).
        seed: Seed of the per-turn choice between the two players.
        weight_boost: Extra loss weight of decisive cells.
        safe_below: The learner's bulk-reveal threshold (default the player's).
        system: Whose move rule the learner's turns follow: ``"learner"`` (every
            confident-safe cell, else the lowest) or a seed system's
            (:data:`learners.registry.SYSTEMS`, e.g. ``"thesis-mlp"``: one bordering cell).

    Raises:
        InvalidInputError: No checkpoint at that path, ``beta`` outside [0, 1], or an unknown
            system.
    """
    from .player import SAFE_BELOW

    path = model_path(checkpoint)
    if path.is_dir():
        path = path / "model.msgpack"
    if not path.is_file():
        raise InvalidInputError(f"no model checkpoint at {path}")
    if not 0.0 <= beta <= 1.0:
        raise InvalidInputError(f"beta must lie in [0, 1], got {beta}")
    get_system(system)  # refuses an unknown name before any game is played
    return {
        "checkpoint": os.path.normpath(path),
        "sha256": checkpoint_digest(path),
        "beta": float(beta),
        "round": int(round_),
        "seed": int(seed),
        "weight_boost": int(weight_boost),
        "safe_below": float(SAFE_BELOW if safe_below is None else safe_below),
        "system": system,
    }


@cache
def _learner(checkpoint: str, sha256: str, system: str, safe_below: float) -> Any:
    """One loaded learner per worker process and checkpoint (compiled once): ``system``'s
    player (:data:`learners.registry.SYSTEMS`) on the checkpoint's weights.

    A spawned worker (JAX not yet loaded) runs its learner on the CPU: batch-1 inference of
    a small net is CPU work, and many processes each claiming a GPU would exhaust its memory.
    The parent process (one worker) keeps whatever device JAX already uses.
    """
    if "jax" not in sys.modules:
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
    if checkpoint_digest(checkpoint) != sha256:
        raise InvalidInputError(f"{checkpoint} changed since its round started; start it over")
    return player_factory(system)(checkpoint, safe_below=safe_below)


def decisive_cells(
    exact: np.ndarray, cells: np.ndarray, moves: list[tuple[int, int]]
) -> np.ndarray:
    """Cells where this turn is decided: the exact player's candidates and the moves made.

    Args:
        exact: Exact mine probabilities (rows x cols; values on revealed cells are ignored).
        cells: Cell codes; only covered cells (-1) can be decisive.
        moves: Cells the learner revealed (or would have revealed) this turn.

    Returns:
        Boolean mask: covered cells of minimal exact probability (all certain-safe cells
        when there are any), and ``moves``.
    """
    covered = cells == -1
    q = np.where(covered, exact, np.inf)
    out = covered & (q <= q.min() + 1e-9)
    for r, c in moves:
        out[r, c] = True
    return out


def policy_game_positions(
    spec: GenSpec, seed: int, backend: Any, policy: dict[str, Any]
) -> dict[str, np.ndarray]:
    """Every position of one game played by ``policy``, with exact labels and cell weights.

    Each turn the position is solved exactly (the label), the learner picks its moves, and
    with probability ``policy["beta"]`` the exact player's moves are played instead.

    Returns:
        Arrays as :func:`learners.nets.data.game_positions`, plus ``weight`` (uint8 per cell).
    """
    from mscsp import Game, solve
    from mscsp.game import first_move

    from .evaluate import play_turn

    learner = _learner(
        policy["checkpoint"],
        policy["sha256"],
        policy.get("system", "learner"),
        policy["safe_below"],
    )
    rng = np.random.default_rng([policy["seed"], policy["round"], seed])
    game = Game(spec.rows, spec.cols, spec.mines, seed=seed, first_click=spec.first_click)
    game.reveal(*first_move(spec.first_move, spec.rows, spec.cols, rng))
    rows: dict[str, list[np.ndarray]] = {k: [] for k in ("cells", "probs", "layout", "weight")}
    while not game.over:
        board = game.board()
        solution = solve(board, backend)
        exact = np.nan_to_num(solution.probabilities, nan=0.0).astype(np.float32)
        own = learner.next_moves(board)
        expert = rng.random() < policy["beta"]
        decisive = decisive_cells(exact, board.cells, own)
        rows["cells"].append(board.cells)
        rows["probs"].append(exact)
        rows["layout"].append(game.mine.copy())
        rows["weight"].append((1 + policy["weight_boost"] * decisive).astype(np.uint8))
        play_turn(game, csp_move(solution) if expert else own)
    shape = (-1, spec.rows, spec.cols)
    dtypes = {"cells": np.int8, "probs": np.float32, "layout": bool, "weight": np.uint8}
    out = {k: np.array(v, dtype=dtypes[k]).reshape(shape) for k, v in rows.items()}
    out["seed"] = np.full(len(out["cells"]), seed, dtype=np.int64)
    return out


@dataclass(frozen=True)
class LearnerPolicy:
    """A round's games as :func:`learners.nets.data.generate` plays them (a ``GamePolicy``).

    Attributes:
        record: A :func:`policy_record` (what the shards record, and all the play needs).
    """

    record: dict[str, Any]

    def __call__(self, spec: GenSpec, seed: int, backend: Any) -> dict[str, np.ndarray]:
        """Every position of game ``seed``: :func:`policy_game_positions`."""
        return policy_game_positions(spec, seed, backend, self.record)


@dataclass
class DaggerConfig:
    """A run of on-policy rounds (stored in ``dagger.json``; ``rounds`` may grow)."""

    out: str
    spec: GenSpec
    base: list[str] = field(default_factory=list)  # CSP shard directories, trained on too
    init: str = "default"  # the round-1 policy and starting weights
    rounds: int = 1
    games: int = 500  # per round
    games_per_shard: int = 50
    beta: float = 0.5  # round k mixes in the exact player with beta * beta_decay**(k-1)
    beta_decay: float = 0.5
    weight_boost: int = WEIGHT_BOOST
    steps: int = 2000  # training steps per round
    batch: int = 64
    lr: float = 1e-3
    eval_every: int = 250
    eval_games: int = 0  # per round, on the preset (0: none)
    seed: int = 0
    backend: str = "dss"

    def beta_of(self, round_: int) -> float:
        """The exact player's share of turns in round ``round_`` (1-based)."""
        return self.beta * self.beta_decay ** (round_ - 1)

    def round_dir(self, round_: int) -> Path:
        return Path(self.out) / f"round-{round_:02d}"

    def settings(self) -> dict[str, Any]:
        """What a rerun must share (everything but ``rounds`` and ``eval_games``)."""
        record = asdict(self) | {"spec": asdict(self.spec)}
        record["base"] = [os.path.normpath(d) for d in self.base]
        record["out"] = os.path.normpath(self.out)
        for key in ("rounds", "eval_games"):
            record.pop(key)
        return record


def _check_run(cfg: DaggerConfig) -> None:
    """Refuses a run directory holding rounds of other settings (before anything is written).

    Raises:
        InvalidInputError: One line naming what differs.
    """
    out = Path(cfg.out)
    if out.exists() and not out.is_dir():
        raise InvalidInputError(f"{out} is not a directory")
    path = out / SETTINGS_FILE
    if not path.exists():
        if any(out.glob("round-*")):
            raise InvalidInputError(f"{out} holds rounds but no {SETTINGS_FILE}; use another --out")
        return
    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise InvalidInputError(f"{path} is unreadable ({exc}); use another --out") from None
    wanted = cfg.settings()
    differ = [
        f"{k}: {saved.get(k)!r} there, {v!r} here" for k, v in wanted.items() if saved.get(k) != v
    ]
    if differ:
        raise InvalidInputError(
            f"{out} holds rounds of other settings ({'; '.join(differ)}); use another --out"
        )


def round_rule(checkpoint: str) -> tuple[str, str, str]:
    """A round model's named config, whose move rule its games follow, and its loss cells.

    A config named like a learned system (``thesis-mlp``, ``blog-mlp``, ``alexnet``:
    :data:`learners.registry.SYSTEMS`) plays as that system, any other as ``learner``; the
    loss stays on the cells the checkpoint was trained on (``thesis-mlp``: the bordering
    cells). So the rounds sharpen the player the model ships as.

    Raises:
        InvalidInputError: The checkpoint's config is not a named config.
    """
    from .models import CONFIGS
    from .train import load_model

    _, config, meta = load_model(model_path(checkpoint))
    name = next((n for n, named in CONFIGS.items() if named == config), None)
    if name is None:
        raise InvalidInputError(f"{checkpoint}: its model config {config} is not a named config")
    system = name if name in SYSTEMS else "learner"
    return name, system, meta.get("train", {}).get("cells", "all")


def run_rounds(
    cfg: DaggerConfig,
    *,
    workers: int | None = None,
    executor: str = "process",
    progress: bool = True,
    log=print,
) -> list[dict[str, Any]]:
    """Runs (or resumes) rounds ``1 .. cfg.rounds``; returns one summary row per round.

    ``workers`` play a round's games in parallel, as local processes or Ray tasks
    (``executor``; results depend on neither), and compute the model's extra inputs;
    ``progress`` shows a bar per round's shards; ``log`` gets one line per step.

    Raises:
        InvalidInputError: Settings that differ from the run directory's, a bad checkpoint,
            or missing base data.
        OutputLockedError: Another process is writing ``cfg.out`` (:mod:`mscsp.runtime.outlock`).
    """
    from .train import MODEL_FILE, TrainConfig, train

    # Before the directory's settings are read: a second run on it is refused first.
    with output_lock(cfg.out, "rounds directory"):
        _check_run(cfg)
        for d in cfg.base:
            if not directory_totals(d)["shards"]:
                raise InvalidInputError(f"--data {d} holds no shards")
        name, system, cells = round_rule(cfg.init)
        out = Path(cfg.out)
        out.mkdir(parents=True, exist_ok=True)
        _write_json(out / SETTINGS_FILE, cfg.settings())
        policy_path = cfg.init
        data_dirs = list(cfg.base)
        rows = []
        for k in range(1, cfg.rounds + 1):
            here = cfg.round_dir(k)
            policy = policy_record(
                policy_path,
                beta=cfg.beta_of(k),
                round_=k,
                seed=cfg.seed,
                weight_boost=cfg.weight_boost,
                system=system,
            )
            log(
                f"round {k}/{cfg.rounds}: {cfg.games} games by {policy['checkpoint']} "
                f"(beta {policy['beta']:g})"
            )
            generate(
                here / "data",
                cfg.spec,
                cfg.games,
                games_per_shard=cfg.games_per_shard,
                seed=cfg.seed + k * ROUND_SEED_STRIDE,
                workers=workers,
                backend=cfg.backend,
                progress=progress,
                policy=LearnerPolicy(policy),
                executor=executor,
            )
            data_dirs.append(str(here / "data"))
            train_cfg = TrainConfig(
                model=name,
                data=data_dirs.copy(),
                out=str(here / "model"),
                steps=cfg.steps,
                batch=cfg.batch,
                lr=cfg.lr,
                cells=cells,
                eval_every=cfg.eval_every,
                seed=cfg.seed,
                init=policy_path,
                workers=workers or 1,  # the extra inputs (not a result setting)
            )
            train(train_cfg, resume=True, log=log)
            policy_path = str(here / "model" / MODEL_FILE)
            rows.append(_round_row(cfg, k, policy, log))
        _write_rounds(out, rows)
        return rows


def _round_row(cfg: DaggerConfig, k: int, policy: dict[str, Any], log) -> dict[str, Any]:
    """One round's summary: its data, the last validation metrics, and its win rate."""
    here = cfg.round_dir(k)
    totals = directory_totals(here / "data")
    metrics = (here / "model" / "metrics.jsonl").read_text().splitlines()
    val = [json.loads(line) for line in metrics if '"val"' in line][-1]
    row = {
        "round": k,
        "beta": policy["beta"],
        "policy": policy["checkpoint"],
        "games": totals["games"],
        "positions": totals["positions"],
        "val": {key: v for key, v in val.items() if key not in ("split",)},
    }
    if cfg.eval_games and cfg.spec.preset:
        row["eval"] = _evaluate_round(cfg, here, log)
    return row


def _evaluate_round(cfg: DaggerConfig, here: Path, log) -> dict[str, Any]:
    """Win rate of the round's model on the preset's evaluation games (cached)."""
    from .evaluate import EVAL_SEED, play_lockstep

    path = here / "eval.json"
    model = here / "model" / "model.msgpack"
    key = {"games": cfg.eval_games, "sha256": checkpoint_digest(model), "seed": EVAL_SEED}
    if path.exists():
        cached = json.loads(path.read_text())
        if cached.get("key") == key:
            return cached["result"]
    player = player_factory(round_rule(str(model))[1])(str(model))
    result = play_lockstep(
        player, cfg.spec.preset, cfg.eval_games, first_click=cfg.spec.first_click
    )
    lo, hi = result["ci95"]
    log(f"{here.name}: win rate {100 * result['win_rate']:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}]")
    path.write_text(json.dumps({"key": key, "result": result}, indent=1) + "\n")
    return result


def _write_rounds(out: Path, rows: list[dict[str, Any]]) -> None:
    """``rounds.json`` and ``rounds.png``: validation log-loss and win rate per round."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    (out / ROUNDS_FILE).write_text(json.dumps(rows, indent=1) + "\n")
    seen = np.cumsum([r["positions"] for r in rows])
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
    axes[0].plot(seen, [r["val"]["logloss_exact"] for r in rows], "o-")
    axes[0].set_ylabel("val log-loss vs exact")
    evals = [(s, r["eval"]) for s, r in zip(seen, rows, strict=True) if "eval" in r]
    if evals:
        x = [s for s, _ in evals]
        rate = np.array([100 * e["win_rate"] for _, e in evals])
        ci = np.array(
            [
                [100 * (e["win_rate"] - e["ci95"][0]), 100 * (e["ci95"][1] - e["win_rate"])]
                for _, e in evals
            ]
        ).T
        axes[1].errorbar(x, rate, yerr=ci, fmt="o-", capsize=3)
    axes[1].set_ylabel("win rate % (95 % CI)")
    for ax in axes:
        ax.set_xlabel("on-policy positions so far")
    fig.tight_layout()
    fig.savefig(out / "rounds.png", dpi=100)
    plt.close(fig)
