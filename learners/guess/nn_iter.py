"""``csp-nn-iter``: seed 004 version 5.5, the iterative neural classifier (Algorithm 4).

The Table 1 network (:class:`learners.nets.models.Table1Mlp`; binary cross-entropy, Adam) learns
whether a candidate is safe from the state-action features. Algorithm 4: for each episode,
play a batch of 10 games *with the current model* as the guess, collect their candidate
rows (labelled by the hidden layout), train on them and save the model. Every episode is
checkpointed, so ``--resume`` continues where training stopped, with the same result.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import optax
from flax import nnx, serialization

from mscsp.runtime.outlock import output_lock

from ..artefacts import Progress, artefact, write_atomic, write_json
from ..nets.models import build
from ..nets.train import load_model, save_model
from .common import FEATURES, GuessState, RankingPlayer, classification_rows, features
from .nets import bce, fit, predictor

FILE = "csp-nn-iter.msgpack"
#: Algorithm 4, line 3.
BATCH_GAMES = 10
CONFIG = {"model": "table1-mlp", "features": len(FEATURES)}


class CspNnIterPlayer(RankingPlayer):
    """Version 5.5: exact probabilities, then the network's safest near-minimum candidate."""

    name = "csp-nn-iter"

    def __init__(self, model: nnx.Module, backend: str = "dss"):
        super().__init__(backend)
        self.predict = predictor(model)

    def rank(self, state: GuessState, cells: np.ndarray) -> np.ndarray:
        return self.predict(features(state, cells))


def train(
    out: str | Path,
    *,
    seed: int = 0,
    games: int | None = None,
    board=None,
    resume: bool = False,
    log=print,
    epochs: int = 20,
) -> dict:
    """Runs Algorithm 4 for ``games`` episodes (default 30; the paper 100) of 10 games each."""
    episodes = games or 30
    path = Path(out) / FILE
    with output_lock(path, "csp-nn-iter model"):
        path.parent.mkdir(parents=True, exist_ok=True)
        state_path = path.with_name(path.name + ".state")
        model = build(CONFIG, seed=seed)
        optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)
        done, rows, start = 0, 0, time.perf_counter()
        if resume and state_path.exists():
            model, _, meta = load_model(path)
            optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)
            opt_state = nnx.state(optimizer)
            nnx.replace_by_pure_dict(
                opt_state, serialization.msgpack_restore(state_path.read_bytes())
            )
            nnx.update(optimizer, opt_state)
            done, rows = meta["episodes"], meta["rows"]
            log(f"resuming {path} at episode {done}")
        progress = Progress("csp-nn-iter episodes", episodes, every=0)
        meta = {}
        for episode in range(done, episodes):
            player = CspNnIterPlayer(model)
            x, y = classification_rows(player, BATCH_GAMES, seed, offset=episode * BATCH_GAMES)
            loss = fit(
                model,
                optimizer,
                x,
                y.astype(np.float32),
                bce,
                epochs=epochs,
                batch=32,
                seed=episode,
            )
            rows += len(x)
            meta = {"system": "csp-nn-iter", "episodes": episode + 1, "rows": rows, "seed": seed}
            save_model(path, model, CONFIG, meta)
            opt_state = nnx.to_pure_dict(nnx.state(optimizer))
            write_atomic(state_path, serialization.msgpack_serialize(opt_state))
            progress.update(episode + 1, f"{len(x)} rows, loss {loss:.4f}")
        meta["seconds_this_run"] = round(time.perf_counter() - start, 1)
        write_json(path.with_suffix(".json"), meta)
        return json.loads(json.dumps(meta))


def make_player(weights: str | None = None, backend: str = "dss") -> CspNnIterPlayer:
    """``csp-nn-iter`` with the shipped network or the checkpoint at ``weights``."""
    model, _, _ = load_model(artefact(weights, FILE))
    return CspNnIterPlayer(model, backend)
