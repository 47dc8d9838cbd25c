"""Fitting seed 004's small vector networks (Tables 1 and 2) with Flax NNX and optax."""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx


def bce(logits: jax.Array, y: jax.Array) -> jax.Array:
    """Binary cross-entropy on logits (Table 1's sigmoid output)."""
    return optax.sigmoid_binary_cross_entropy(logits, y).mean()


def mse(pred: jax.Array, y: jax.Array) -> jax.Array:
    """Mean squared error (Table 2's Q regression)."""
    return jnp.mean((pred - y) ** 2)


@nnx.jit(static_argnames="loss")
def _step(model, optimizer, xb, yb, loss):
    value, grads = nnx.value_and_grad(lambda m: loss(m(xb), yb))(model)
    optimizer.update(model, grads)
    return value


@nnx.jit
def _apply(model: nnx.Module, x: jax.Array) -> jax.Array:
    return model(x)


def fit(
    model: nnx.Module,
    optimizer: nnx.Optimizer,
    x: np.ndarray,
    y: np.ndarray,
    loss: Callable[[jax.Array, jax.Array], jax.Array],
    *,
    epochs: int,
    batch: int,
    seed: int,
) -> float:
    """Mini-batch epochs over ``(x, y)`` in a seeded order; returns the last epoch's mean loss."""
    rng = np.random.default_rng(seed)
    batch = max(1, min(batch, len(x)))
    last = float("nan")
    for _ in range(epochs):
        order = rng.permutation(len(x))
        losses = []
        # Whole batches only: one compiled shape (the remainder is reshuffled next epoch).
        for i in range(0, len(x) - batch + 1, batch):
            idx = order[i : i + batch]
            xb, yb = jnp.asarray(x[idx]), jnp.asarray(y[idx])
            losses.append(float(_step(model, optimizer, xb, yb, loss)))
        last = float(np.mean(losses)) if losses else last
    return last


def predictor(model: nnx.Module) -> Callable[[np.ndarray], np.ndarray]:
    """``x -> output`` through one compiled function per power-of-two batch size."""

    def predict(x: np.ndarray) -> np.ndarray:
        size = 1 << max(len(x) - 1, 0).bit_length()
        padded = np.zeros((size, *x.shape[1:]), dtype=np.float32)
        padded[: len(x)] = x
        return np.asarray(_apply(model, jnp.asarray(padded)))[: len(x)]

    return predict
