"""``learner:PATH``: which of this project's nets a checkpoint holds, and its player.

The registry's ``learner`` entry builds its player here: the convolutional net
(:class:`learners.nets.player.LearnerPlayer`) for ``learner:default`` and its checkpoints,
the factor-graph net (:class:`learners.graph.player.GraphPlayer`) for ``learner:graph`` and
checkpoints of :mod:`learners.graph.train`. Kept apart from both players, so that the
graph net's player (built on the convolutional net's) is not imported back by it.
"""

from __future__ import annotations

from mscsp.errors import InvalidInputError

from ..artefacts import DEFAULT_MODEL, GRAPH_MODEL, model_path
from ..graph.player import GraphPlayer
from ..graph.train import is_graph_model
from .player import SAFE_BELOW, LearnerPlayer


def make_learner(
    path: str = DEFAULT_MODEL,
    safe_below: float = SAFE_BELOW,
    iterations: int | None = None,
    symmetric: bool | None = None,
    deduce: str | None = None,
) -> LearnerPlayer:
    """``learner:PATH``: the convolutional net (:class:`LearnerPlayer`), or the factor-graph
    net (:class:`learners.graph.player.GraphPlayer`) for ``learner:graph`` and graph
    checkpoints, whose ``iterations`` are its rounds of messages.

    Raises:
        InvalidInputError: ``symmetric`` for a graph net (it has no views to average), or
            anything the player refuses.
    """
    if path == GRAPH_MODEL or is_graph_model(model_path(path)):
        if symmetric:
            raise InvalidInputError("a graph net has no symmetric views: drop symmetric")
        return GraphPlayer(path, safe_below, iterations, deduce)
    return LearnerPlayer(path, safe_below, iterations, symmetric, deduce)
