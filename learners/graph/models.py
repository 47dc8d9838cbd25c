"""The learned message-passing estimator: a Flax NNX net on the group / number factor graph.

The net is shaped like belief propagation on the graph ``bp`` runs on (one node per open
group, one per open number, messages along their edges, the total mine count as a board-wide
node) and keeps BP's invariants: one set of weights serves every round, so the rounds can grow
with the board; messages are sums over a node's edges, so any graph size and degree works.
Where BP passes a count distribution and multiplies, the net passes a learned vector and
adds, and every round it reads the statistics BP's update would read from the current
estimate ``p`` (per group, the probability of a mine in one of its cells):

* per edge, what the number's other groups leave for this one: ``(target - sum of the
  others' expected mines) / size``, i.e. the mean-field form of BP's factor message;
* per number, its slack (``target`` minus its expected mines) in units of its spread;
* per board, the mines left minus the frontier's expected mines, per free cell and per
  open cell: the total, which BP meets through its density fixed point.

With ``bp_messages`` (configs ``*-bp``) it also reads BP's own update, exactly: every
number's message to each of its groups (the distribution of the mines the number's other
groups hold, given their current ``p``, read at what the number still needs), as the share
of the group's cells it makes mines, and per group the belief BP would form from all its
numbers' messages. One round of the net can then be one sweep of BP and learn only what BP
misses (loops, the total).

Every round ends with a prediction (a logit per group), and training scores every round, so
the rounds improve the estimate step by step the way BP's sweeps do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
from flax import nnx

from mscsp.errors import InvalidInputError, InvalidTypeError
from mscsp.validate import check_int, describe

from .data import EDGE_FEATURES, FACTOR_FEATURES, GLOBAL_FEATURES, VAR_FEATURES

#: BP-shaped statistics read per edge and per board every round (see the module docs);
#: ``bp_messages`` adds BP's exact messages per edge and BP's belief per group.
EDGE_STATS, BOARD_STATS, BP_EDGE_STATS, BP_VAR_STATS = 4, 3, 2, 2

#: A number sees at most 8 cells, so the mines its groups hold take 9 values: a 9-point
#: discrete Fourier transform turns their distribution's sum into a product, exactly.
_COUNTS = 9
_K = jnp.arange(_COUNTS)
_OMEGA = jnp.exp(2j * jnp.pi * _K / _COUNTS)
_INVERSE = jnp.exp(-2j * jnp.pi * jnp.outer(_K, _K) / _COUNTS) / _COUNTS


@dataclass(frozen=True)
class GraphConfig:
    """A named size of the net.

    Attributes:
        width: Size of every node's state and message.
        rounds: Rounds of messages in training (and at play time unless told otherwise).
    """

    width: int = 64
    rounds: int = 10
    #: Whether every round also reads BP's exact messages and beliefs (module docs).
    bp_messages: bool = False


#: Named configs: what ``mscsp learn`` and checkpoints refer to.
CONFIGS: dict[str, GraphConfig] = {
    "tiny": GraphConfig(width=16, rounds=4),
    "small": GraphConfig(width=32, rounds=8),
    "base": GraphConfig(width=64, rounds=10),
    "small-bp": GraphConfig(width=32, rounds=8, bp_messages=True),
    "base-bp": GraphConfig(width=64, rounds=10, bp_messages=True),
}


class Mlp(nnx.Module):
    """Two dense layers with a layer norm between (keeps the residual rounds stable)."""

    def __init__(self, n_in: int, width: int, *, rngs: nnx.Rngs):
        self.first = nnx.Linear(n_in, width, rngs=rngs)
        self.norm = nnx.LayerNorm(width, rngs=rngs)
        self.second = nnx.Linear(width, width, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.second(nnx.gelu(self.norm(self.first(x))))


class GraphNet(nnx.Module):
    """Rounds of learned messages between groups and numbers; a logit per group per round."""

    def __init__(self, config: GraphConfig, *, rngs: nnx.Rngs):
        w = config.width
        self.config = config
        self.var_in = Mlp(VAR_FEATURES + GLOBAL_FEATURES, w, rngs=rngs)
        self.factor_in = Mlp(FACTOR_FEATURES, w, rngs=rngs)
        extra_edge, extra_var = (BP_EDGE_STATS, BP_VAR_STATS) if config.bp_messages else (0, 0)
        n_edge = 2 * w + EDGE_FEATURES + EDGE_STATS + extra_edge
        self.to_var = Mlp(n_edge, w, rngs=rngs)
        self.to_factor = Mlp(n_edge, w, rngs=rngs)
        self.var_update = Mlp(2 * w + BOARD_STATS + extra_var, w, rngs=rngs)
        self.factor_update = Mlp(2 * w, w, rngs=rngs)
        self.out = nnx.Linear(w, 1, rngs=rngs)

    def __call__(self, batch: dict[str, jax.Array], rounds: int) -> jax.Array:
        """Logits ``(rounds, V)`` of every group's mine probability after each round.

        ``batch`` holds one or many graphs concatenated and padded (see
        :func:`learners.graph.train.pack`): padding nodes and edges point at the last
        node, whose outputs nobody reads.
        """
        ev, ef, vg = batch["edge_var"], batch["edge_factor"], batch["var_graph"]
        n_var, n_factor, n_graph = len(batch["size"]), len(batch["target"]), len(batch["left"])
        size, target = batch["size"], batch["target"]
        h_var = self.var_in(jnp.concatenate([batch["var"], batch["glob"][vg]], axis=1))
        h_factor = self.factor_in(batch["factor"])
        logit = self.out(h_var)[:, 0]
        open_cells = jax.ops.segment_sum(size * batch["var_mask"], vg, n_graph) + batch["n_free"]
        outputs = []
        for _ in range(rounds):
            p = jax.nn.sigmoid(logit)
            mean = size * p
            spread = size * p * (1 - p)
            mean_f = jax.ops.segment_sum(mean[ev], ef, n_factor)
            spread_f = jax.ops.segment_sum(spread[ev], ef, n_factor)
            left_for_me = (target[ef] - (mean_f[ef] - mean[ev])) / size[ev]
            slack = (target - mean_f) / jnp.sqrt(spread_f + 1.0)
            stats = jnp.stack(
                [jnp.clip(left_for_me, -2, 3), left_for_me - p[ev], slack[ef], p[ev]], axis=1
            )
            gap = batch["left"] - jax.ops.segment_sum(mean * batch["var_mask"], vg, n_graph)
            board = jnp.stack(
                [gap / (batch["n_free"] + 1.0), gap / (open_cells + 1.0), gap / 10.0], axis=1
            )[vg]
            if self.config.bp_messages:
                prior = jnp.clip(batch["left"] / (open_cells + 1.0), 0.01, 0.99)[vg]
                share, belief = bp_update(p, size, target, prior, ev, ef, n_factor)
                stats = jnp.concatenate([stats, jnp.stack([share, share - p[ev]], axis=1)], axis=1)
                board = jnp.concatenate([board, jnp.stack([belief, belief - p], axis=1)], axis=1)
            edge = jnp.concatenate([batch["edge"], stats], axis=1)
            to_var = self.to_var(jnp.concatenate([h_factor[ef], h_var[ev], edge], axis=1))
            h_var = h_var + self.var_update(
                jnp.concatenate([h_var, jax.ops.segment_sum(to_var, ev, n_var), board], axis=1)
            )
            to_factor = self.to_factor(jnp.concatenate([h_var[ev], h_factor[ef], edge], axis=1))
            h_factor = h_factor + self.factor_update(
                jnp.concatenate([h_factor, jax.ops.segment_sum(to_factor, ef, n_factor)], axis=1)
            )
            logit = self.out(h_var)[:, 0]
            outputs.append(logit)
        return jnp.stack(outputs)


def bp_update(
    p: jax.Array,
    size: jax.Array,
    target: jax.Array,
    prior: jax.Array,
    ev: jax.Array,
    ef: jax.Array,
    n_factor: int,
) -> tuple[jax.Array, jax.Array]:
    """One sweep of BP from the groups' odds ``p``: per edge, the share of the group's cells
    its number's message makes mines; per group, BP's belief from all its numbers.

    A number's message to a group is, for each count ``m`` of mines in the group, the
    chance that the number's other groups (each ``Binomial(size, p)``) hold ``target - m``.
    The distribution of their sum is a product in the 9-point Fourier basis, and dividing
    out the group's own factor leaves the others' (never a division by zero: ``1 - p +
    p * w`` has no root on the 9th roots of unity ``w``). The share weighs each count by
    its layouts ``C(size, m)``; the belief also by the board's density ``prior`` (per group)
    and multiplies every number's message.

    The arrays are a packed batch's (:func:`learners.graph.train.pack`); their shapes are
    checked when traced (so a jitted call pays nothing for it), their values by ``encode``.

    Raises:
        InvalidInputError: Arrays whose lengths do not match (groups, edges, numbers).
    """
    n_var = len(p)
    if not (len(size) == len(prior) == n_var and len(ev) == len(ef) and len(target) == n_factor):
        raise InvalidInputError(
            f"bp_update needs p, size and prior per group ({len(p)}, {len(size)}, "
            f"{len(prior)}), ev and ef per edge ({len(ev)}, {len(ef)}) and target per "
            f"number ({len(target)} for {n_factor})"
        )
    p_e, s_e = p[ev][:, None], size[ev][:, None]
    log_own = s_e * jnp.log((1 - p_e) + p_e * _OMEGA[None])
    log_all = jax.ops.segment_sum(log_own, ef, n_factor)
    others = jnp.clip(jnp.real(jnp.exp(log_all[ef] - log_own) @ _INVERSE), 0.0, None)
    need = target[ef][:, None] - _K[None]
    fits = (need >= 0) & (_K[None] <= s_e)
    message = jnp.where(
        fits, jnp.take_along_axis(others, jnp.clip(need, 0, _COUNTS - 1).astype(int), 1), 0.0
    )
    weights = jnp.exp(_log_layouts(s_e)) * message
    share = (weights @ _K.astype(p.dtype)) / (size[ev] * weights.sum(axis=1) + 1e-9)
    log_belief = (
        jax.ops.segment_sum(jnp.log(message + 1e-12), ev, n_var)
        + _log_layouts(size[:, None])
        + _K[None] * jnp.log(prior / (1 - prior))[:, None]
    )
    belief = jax.nn.softmax(log_belief, axis=1) @ _K.astype(p.dtype) / size
    return share, belief


def _log_layouts(size: jax.Array) -> jax.Array:
    """``log C(size, m)`` for ``m`` = 0..8 (``-inf`` past ``size``), per row of ``size``."""
    gammaln = jax.scipy.special.gammaln
    k = _K[None].astype(size.dtype)
    log_c = gammaln(size + 1) - gammaln(k + 1) - gammaln(jnp.maximum(size - k, 0) + 1)
    return jnp.where(k <= size, log_c, -jnp.inf)


def build(config: GraphConfig, seed: int = 0) -> GraphNet:
    """A fresh net of ``config`` with weights drawn from ``seed``.

    Raises:
        InvalidTypeError: ``config`` is not a :class:`GraphConfig` (a name: see :data:`CONFIGS`).
        InvalidInputError: A width or round count below 1, or a negative seed.
    """
    if not isinstance(config, GraphConfig):
        raise InvalidTypeError(f"config must be a GraphConfig, got {describe(config)}")
    check_int(config.width, "width", 1)
    check_int(config.rounds, "rounds", 1)
    return GraphNet(config, rngs=nnx.Rngs(check_int(seed, "seed", 0)))


def config_dict(config: GraphConfig) -> dict[str, Any]:
    """``config`` as stored in a checkpoint."""
    return {"width": config.width, "rounds": config.rounds, "bp_messages": config.bp_messages}
