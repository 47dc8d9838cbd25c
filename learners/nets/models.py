"""Flax NNX models mapping an encoded position to one mine logit per cell.

Every model takes ``x`` of shape ``(batch, rows, cols, N_CHANNELS)`` (see
:func:`learners.nets.data.encode`) and returns logits ``(batch, rows, cols)``. All but
``mlp-board`` are fully convolutional and so accept any board size.

``table1-mlp`` and ``table2-qnet`` (seed 004's guess heuristics) are the exceptions: they map
feature vectors to one value and are built from config dicts, not named configs.

Named configs (:data:`CONFIGS`) are what the CLI and checkpoints refer to; a checkpoint stores
its config, so :func:`build` can rebuild the model before loading its weights.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from .data import N_CHANNELS

#: Channel of the one-hot input that marks a covered cell, and the first number channel.
_COVERED, _ZERO, _FLAG = 0, 1, 10
#: Hidden-layer activations a config may name.
_ACTIVATIONS = {"sigmoid": nnx.sigmoid, "relu": nnx.relu}


class CnnSeed(nnx.Module):
    """The thesis' best CNN (Table 5.3): 3x3 convolutions of 32 filters, ReLU, 1x1 head."""

    def __init__(
        self, *, layers: int = 4, filters: int = 32, in_channels: int = N_CHANNELS, rngs: nnx.Rngs
    ):
        widths = [in_channels] + [filters] * layers
        self.convs = nnx.List([nnx.Conv(a, b, (3, 3), rngs=rngs) for a, b in pairwise(widths)])
        self.head = nnx.Conv(filters, 1, (1, 1), rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        for conv in self.convs:
            x = nnx.relu(conv(x))
        return self.head(x)[..., 0]


class ResBlock(nnx.Module):
    """Two 3x3 convolutions with a skip connection (pre-activation)."""

    def __init__(self, width: int, *, dilation: int = 1, rngs: nnx.Rngs):
        self.conv1 = nnx.Conv(width, width, (3, 3), kernel_dilation=dilation, rngs=rngs)
        self.conv2 = nnx.Conv(width, width, (3, 3), rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return x + self.conv2(nnx.relu(self.conv1(nnx.relu(x))))


class ResNet(nnx.Module):
    """Fully convolutional residual net: same padding, no pooling, any board size.

    Dilations in later blocks widen the receptive field cheaply, so far-apart constraints
    along a long frontier can still interact.
    """

    def __init__(
        self,
        *,
        width: int = 32,
        blocks: int = 6,
        dilations: tuple[int, ...] = (1,),
        in_channels: int = N_CHANNELS,
        rngs: nnx.Rngs,
    ):
        self.stem = nnx.Conv(in_channels, width, (3, 3), rngs=rngs)
        self.blocks = nnx.List(
            [
                ResBlock(width, dilation=dilations[i % len(dilations)], rngs=rngs)
                for i in range(blocks)
            ]
        )
        self.head = nnx.Conv(width, 1, (1, 1), rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        return self.head(nnx.relu(x))[..., 0]


class RecurNet(nnx.Module):
    """A weight-tied recurrent net: one residual block applied ``iterations`` times.

    Certain cells follow from chains of local deductions of any length; a stack of distinct
    blocks sees a fixed distance, while one block applied again and again can carry a
    deduction as far as it is iterated ("logical extrapolation", Schwarzschild et al. 2021,
    Bansal et al. 2022). Each iteration reads the state and the input again (*recall*), so
    the block can keep redoing the same local step on any board size; more iterations at test
    time (``iterations=`` on the call) reach farther than training did. Each iteration sees
    two cells farther: a 3x3 convolution on state + input, then a 3x3 convolution.
    """

    def __init__(
        self,
        *,
        width: int = 32,
        iterations: int = 12,
        in_channels: int = N_CHANNELS,
        rngs: nnx.Rngs,
    ):
        self.iterations = iterations
        self.stem = nnx.Conv(in_channels, width, (3, 3), rngs=rngs)
        self.mix = nnx.Conv(width + in_channels, width, (3, 3), rngs=rngs)
        self.conv = nnx.Conv(width, width, (3, 3), rngs=rngs)
        self.hidden = nnx.Conv(width, width, (1, 1), rngs=rngs)
        self.head = nnx.Conv(width, 1, (1, 1), rngs=rngs)

    def step(self, h: jax.Array, x: jax.Array) -> jax.Array:
        """One iteration of the shared block: the state updated from itself and the input."""
        return h + self.conv(nnx.relu(self.mix(jnp.concatenate([nnx.relu(h), x], axis=-1))))

    def __call__(self, x: jax.Array, iterations: int | None = None) -> jax.Array:
        h = self.stem(x)
        for _ in range(self.iterations if iterations is None else iterations):
            h = self.step(h, x)
        return self.head(nnx.relu(self.hidden(nnx.relu(h))))[..., 0]


def scalar_view(x: jax.Array) -> jax.Array:
    """The thesis' one-number-per-cell view: 0 off board, -1 covered, -0.5 flag, (n+1)/9."""
    numbers = jnp.arange(1, 10, dtype=x.dtype) / 9.0
    value = (x[..., _ZERO : _ZERO + 9] * numbers).sum(-1) - x[..., _COVERED] - 0.5 * x[..., _FLAG]
    return value[..., None]


class MlpWindow(nnx.Module):
    """The thesis' sliding-window MLP (Table 5.1): the 24 neighbours in a 5x5 window -> 1.

    The first layer is a 5x5 convolution whose centre weight is masked out, i.e. the same
    dense layer on the 24-cell window applied at every cell; the rest are 1x1 convolutions.
    Zero padding reads as "off board" in the scalar view. ``activation`` is the hidden
    layers' (``"sigmoid"``, the ``mlp-window`` checkpoints', or ``"relu"``, which the thesis
    preferred in 5.5.3.3: config ``thesis-mlp``); the output stays a logit (sigmoid in the loss).
    """

    def __init__(
        self,
        *,
        hidden: tuple[int, ...] = (70, 80, 60, 35),
        activation: str = "sigmoid",
        rngs: nnx.Rngs,
    ):
        if activation not in _ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(_ACTIVATIONS)}")
        self.activation = activation
        mask = np.ones((5, 5, 1, hidden[0]), np.float32)
        mask[2, 2] = 0.0
        self.first = nnx.Conv(1, hidden[0], (5, 5), mask=jnp.asarray(mask), rngs=rngs)
        self.rest = nnx.List([nnx.Conv(a, b, (1, 1), rngs=rngs) for a, b in pairwise(hidden)])
        self.head = nnx.Conv(hidden[-1], 1, (1, 1), rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        act = _ACTIVATIONS[self.activation]
        h = act(self.first(scalar_view(x)))
        for layer in self.rest:
            h = act(layer(h))
        return self.head(h)[..., 0]


class MlpBoard(nnx.Module):
    """The blog's full-board MLP: one-hot board (10 per cell, ``n`` cells), ReLU, n logits.

    ``hidden`` are the hidden widths in multiples of ``n``. The blog's code (config
    ``blog-mlp``) has ``(20, 10, 5)``: 10n -> 20n -> 10n -> 5n -> n, four dense layers; the
    default ``(10, 20, 10, 5)`` (config ``mlp-board``) reads its "[10n, 20n, 10n, 5n, n]" as
    five dense layers. Fixed to one board size; the last layer's outputs are per-cell logits.
    """

    def __init__(
        self,
        *,
        rows: int = 9,
        cols: int = 9,
        hidden: tuple[int, ...] = (10, 20, 10, 5),
        rngs: nnx.Rngs,
    ):
        self.rows, self.cols = rows, cols
        n = rows * cols
        widths = [10 * n, *(k * n for k in hidden), n]
        self.layers = nnx.List([nnx.Linear(a, b, rngs=rngs) for a, b in pairwise(widths)])

    def __call__(self, x: jax.Array) -> jax.Array:
        if x.shape[1:3] != (self.rows, self.cols):
            raise ValueError(
                f"mlp-board is built for {self.rows}x{self.cols}, got {x.shape[1]}x{x.shape[2]}"
            )
        h = x[..., _COVERED : _ZERO + 9].reshape(x.shape[0], -1)
        for layer in self.layers[:-1]:
            h = nnx.relu(layer(h))
        return self.layers[-1](h).reshape(x.shape[:3])


class Logistic(nnx.Module):
    """Logistic regression on the one-hot 5x5 window around each cell (one 5x5 conv)."""

    def __init__(self, *, window: int = 5, in_channels: int = N_CHANNELS, rngs: nnx.Rngs):
        self.conv = nnx.Conv(in_channels, 1, (window, window), rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.conv(x)[..., 0]


class AlexNet(nnx.Module):
    """Seed 002's AlexNet-like CNN (section 2.2), scaled to a shared CPU.

    AlexNet's shape: a wide first convolution (5x5), then 3x3 convolutions of growing then
    shrinking width, then two dense layers and an output layer. The dense layers act on each
    cell's feature vector (1x1 convolutions), so the net plays any board size; its receptive
    field (13x13) covers the whole 8x8 board it is trained on. No pooling (an 8x8 board has no
    resolution to spare).
    """

    def __init__(
        self,
        *,
        widths: tuple[int, ...] = (24, 48, 64, 64, 48),
        dense: int = 128,
        rngs: nnx.Rngs,
    ):
        sizes = [(5, 5)] + [(3, 3)] * (len(widths) - 1)
        chans = [N_CHANNELS, *widths]
        self.convs = nnx.List(
            [nnx.Conv(a, b, k, rngs=rngs) for (a, b), k in zip(pairwise(chans), sizes, strict=True)]
        )
        self.fc1 = nnx.Conv(widths[-1], dense, (1, 1), rngs=rngs)
        self.fc2 = nnx.Conv(dense, dense, (1, 1), rngs=rngs)
        self.out = nnx.Conv(dense, 1, (1, 1), rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        for conv in self.convs:
            x = nnx.relu(conv(x))
        x = nnx.relu(self.fc2(nnx.relu(self.fc1(x))))
        return self.out(x)[..., 0]


class Table1Mlp(nnx.Module):
    """Seed 004's Table 1 classifier on state-action feature vectors (not boards).

    ``features`` -> ``features`` -> 5 -> 5 (ReLU), then one logit (sigmoid in the loss).
    """

    def __init__(self, *, features: int, rngs: nnx.Rngs):
        widths = [features, features, features, 5, 5]
        self.layers = nnx.List([nnx.Linear(a, b, rngs=rngs) for a, b in pairwise(widths)])
        self.out = nnx.Linear(5, 1, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        for layer in self.layers:
            x = nnx.relu(layer(x))
        return self.out(x)[..., 0]


class Table2QNet(nnx.Module):
    """Seed 004's Table 2 Q-network on a flattened ``sub x sub`` score sub-state.

    Layers of ``sub * sub`` units with ReLU, tanh, linear, linear activations, then one
    tanh output (the expected discounted reward).
    """

    def __init__(self, *, sub: int = 3, rngs: nnx.Rngs):
        n = sub * sub
        self.layers = nnx.List([nnx.Linear(n, n, rngs=rngs) for _ in range(4)])
        self.out = nnx.Linear(n, 1, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        first, second, third, fourth = self.layers
        h = fourth(third(jnp.tanh(second(nnx.relu(first(x))))))
        return jnp.tanh(self.out(h))[..., 0]


_CLASSES = {
    "cnn-seed": CnnSeed,
    "resnet": ResNet,
    "recur": RecurNet,
    "mlp-window": MlpWindow,
    "mlp-board": MlpBoard,
    "logistic": Logistic,
    "alexnet": AlexNet,
    "table1-mlp": Table1Mlp,
    "table2-qnet": Table2QNet,
}

#: Named model configs: ``{"model": class name in _CLASSES, **constructor kwargs}``.
CONFIGS: dict[str, dict[str, Any]] = {
    "cnn-seed": {"model": "cnn-seed"},
    # Sized for a shared 2-core CPU (training and play): receptive radius 16 cells.
    "resnet": {"model": "resnet", "width": 16, "blocks": 6, "dilations": [1, 2]},
    "mlp-window": {"model": "mlp-window"},
    # Seed 000's "MLP learner3" (5.5.3): ReLU hidden layers (learners.nets.seed_mlps).
    "thesis-mlp": {"model": "mlp-window", "activation": "relu"},
    "mlp-board": {"model": "mlp-board", "rows": 9, "cols": 9},
    # Seed 003's network as its code builds it: 10n -> 20n -> 10n -> 5n -> n on 9x9.
    "blog-mlp": {"model": "mlp-board", "rows": 9, "cols": 9, "hidden": [20, 10, 5]},
    "logistic": {"model": "logistic"},
    "alexnet": {"model": "alexnet"},
}

# --- Extra inputs and the size / receptive-field sweep (issue 9) ---------------------------
# "inputs" names extra input channels (learners.nets.channels): the encoder appends them and the
# stem takes them. The resnet-* sizes are the sweep's axes: width, depth, dilation.
_RESNET = CONFIGS["resnet"]
CONFIGS |= {
    "resnet-counts": {**_RESNET, "inputs": ["counts"]},
    "resnet-certain": {**_RESNET, "inputs": ["certain"]},
    "resnet-plus": {**_RESNET, "inputs": ["counts", "certain"]},
    "resnet-w32": {**_RESNET, "width": 32},
    "resnet-b3": {**_RESNET, "blocks": 3},
    "resnet-b12": {**_RESNET, "blocks": 12},
    "resnet-d124": {**_RESNET, "dilations": [1, 2, 4]},
    # v3's shape: twice the width, eight blocks (receptive radius 21), the certain channel.
    "resnet-certain-w32": {**_RESNET, "width": 32, "blocks": 8, "inputs": ["certain"]},
}

# --- Nets that iterate (issue 18) -----------------------------------------------------------
# One weight-tied block applied `iterations` times (RecurNet); a player may run more
# iterations than training did (`-o iterations=N`), reaching farther on large boards.
CONFIGS |= {
    "recur": {"model": "recur", "width": 32, "iterations": 10},
    "recur-certain": {"model": "recur", "width": 32, "iterations": 10, "inputs": ["certain"]},
}


def config_inputs(config: str | dict[str, Any]) -> tuple[str, ...]:
    """The extra inputs (:mod:`learners.nets.channels`) a config's model reads, in order."""
    return tuple((CONFIGS[config] if isinstance(config, str) else config).get("inputs", ()))


def receptive_radius(config: str | dict[str, Any]) -> int | None:
    """How many cells away a cell's prediction can see, or ``None`` for the whole board."""
    config = CONFIGS[config] if isinstance(config, str) else config
    kind = config["model"]
    if kind == "resnet":
        dilations = config.get("dilations", [1])
        blocks = config.get("blocks", 6)
        # Stem 1; per block a dilated 3x3 (radius d) and a plain one (1).
        return 1 + sum(dilations[i % len(dilations)] + 1 for i in range(blocks))
    if kind == "recur":
        # Stem 1; per iteration two 3x3 convolutions.
        return 1 + 2 * config.get("iterations", 12)
    if kind == "cnn-seed":
        return config.get("layers", 4)
    if kind in ("mlp-window", "logistic"):
        return config.get("window", 5) // 2
    return None


def build(config: str | dict[str, Any], seed: int = 0) -> nnx.Module:
    """A freshly initialised model from a config name or dict (as stored in checkpoints)."""
    config = dict(CONFIGS[config] if isinstance(config, str) else config)
    cls = _CLASSES[config.pop("model")]
    if "inputs" in config:
        from .channels import input_channels

        config["in_channels"] = N_CHANNELS + input_channels(config.pop("inputs"))
    for key in ("dilations", "widths", "hidden"):
        if key in config:
            config[key] = tuple(config[key])
    return cls(**config, rngs=nnx.Rngs(seed))


def set_iterations(model: nnx.Module, iterations: int) -> None:
    """Sets how many times a recurrent model's shared block runs (a test-time choice).

    Raises:
        InvalidInputError: The model does not iterate, or ``iterations`` is below 1.
    """
    from mscsp.errors import InvalidInputError

    if not isinstance(model, RecurNet):
        raise InvalidInputError(
            f"iterations: a {type(model).__name__} does not iterate (only recur models do)"
        )
    if int(iterations) != iterations or iterations < 1:
        raise InvalidInputError(f"iterations must be a whole number >= 1, got {iterations!r}")
    model.iterations = int(iterations)


def count_params(model: nnx.Module) -> int:
    """Number of trainable parameters."""
    return sum(int(np.prod(p.shape)) for p in jax.tree.leaves(nnx.state(model, nnx.Param)))
