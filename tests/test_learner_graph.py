"""``learner:graph``: factor-graph encoding, packing, a training step, resume, the shipped net."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

from learners.artefacts import weights_dir  # noqa: E402
from learners.graph import data, models, train  # noqa: E402
from learners.graph.player import GraphPlayer  # noqa: E402
from learners.nets.learner import make_learner  # noqa: E402
from learners.nets.player import LearnerPlayer  # noqa: E402
from mscsp import COVERED, parse_board  # noqa: E402
from mscsp.errors import InvalidInputError, InvalidTypeError  # noqa: E402
from mscsp.estimators import get_estimator  # noqa: E402
from mscsp.estimators.bp import factor_graph  # noqa: E402
from mscsp.evaluation.families import band, lattice  # noqa: E402
from mscsp.evaluation.harness import RunConfig, play_batch  # noqa: E402

SHIPPED = (weights_dir() / "graph.msgpack").is_file()
needs_shipped = pytest.mark.skipif(not SHIPPED, reason="learners/weights/graph.msgpack not shipped")


def graphs_of(boards) -> data.Graphs:
    """The boards' encoded graphs with their exact labels (the default counter's)."""
    rows = []
    for board in boards:
        graph = factor_graph(board)
        exact = get_estimator().estimate(board)
        labels, free = data.group_labels(graph, exact)
        rows.append((data.encode(graph), labels, free, "test"))
    return data.concat(*zip(*rows, strict=True))


BOARDS = [lattice(5, 5, 0.3, 1), band(3, 8, 0.4, 2), lattice(5, 6, 0.2, 3)]


def test_encode_has_one_edge_per_group_in_each_open_number():
    board = lattice(7, 7, 0.3, 4)
    graph = factor_graph(board)
    g = data.encode(graph)
    assert len(g.edge) == sum(len(groups) for groups, _ in graph.factors)
    assert len(g.var) == len(graph.sizes) and len(g.factor) == len(graph.factors)
    assert g.var.shape[1] == data.VAR_FEATURES and g.factor.shape[1] == data.FACTOR_FEATURES
    assert np.isfinite(g.var).all() and np.isfinite(g.factor).all() and np.isfinite(g.edge).all()
    # Each edge joins a group to a number that lists it.
    for v, f in zip(g.edge_var, g.edge_factor, strict=True):
        assert v in graph.factors[f][0]


def test_labels_are_the_exact_odds_of_each_group():
    board = BOARDS[0]
    graph = factor_graph(board)
    exact = get_estimator("brute").estimate(board)
    labels, _ = data.group_labels(graph, exact)
    for cells, p in zip(graph.cells, labels, strict=True):
        np.testing.assert_allclose(exact[cells[:, 0], cells[:, 1]], p, rtol=1e-6)


def test_packed_graphs_do_not_talk_to_each_other():
    graphs = graphs_of(BOARDS)
    net = models.build(models.CONFIGS["tiny"], seed=1)
    predict = train.make_predict(net)
    together, n = train.pack(graphs, range(len(graphs)))
    assert n == len(graphs)
    p_all = predict(together, 3)
    for i in range(len(graphs)):
        alone, _ = train.pack(graphs, [i])
        p_one = predict(alone, 3)[: graphs.var_ptr[i + 1] - graphs.var_ptr[i]]
        np.testing.assert_allclose(
            p_all[graphs.var_ptr[i] : graphs.var_ptr[i + 1]], p_one, rtol=1e-5, atol=1e-6
        )


def test_pack_refuses_a_graph_larger_than_the_batch():
    graphs = graphs_of(BOARDS[:1])
    with pytest.raises(InvalidInputError, match="exceeds"):
        train.pack(graphs, [0], (4, 4, 4, 4))


class Killed(Exception):
    """Stands for the process dying between a step and its checkpoint."""


def test_one_step_trains_and_a_killed_run_resumes_with_the_same_steps(tmp_path):
    graphs = graphs_of(BOARDS)
    cfg = train.TrainConfig(model="tiny", steps=2, checkpoint_every=1, warmup=1)
    straight = train.train(cfg, graphs, graphs, tmp_path / "a", log=lambda _: None, eval_every=1)

    def dies_after_step_two(line: str) -> None:
        if line.startswith("step 2/"):  # step 2 ran, its checkpoint was not written
            raise Killed

    with pytest.raises(Killed):
        train.train(cfg, graphs, graphs, tmp_path / "b", log=dies_after_step_two, eval_every=1)
    resumed = train.train(cfg, graphs, graphs, tmp_path / "b", log=lambda _: None, eval_every=1)
    steps = [json.loads(line)["step"] for line in (tmp_path / "b" / train.METRICS_FILE).open()]
    assert steps == [1, 2]  # the lost step's row was dropped and written again
    a, meta = train.load_model(straight)
    b, _ = train.load_model(resumed)
    # What the weights' bits depend on is kept with them (docs/seeds.md).
    assert meta["environment"]["versions"]["jax"] == jax.__version__
    assert meta["environment"]["cpus"] >= 1
    fresh = models.build(models.CONFIGS["tiny"], seed=0)
    x = train.pack(graphs, range(len(graphs)))[0]
    pa, pb, p0 = (train.make_predict(m)(x, 4) for m in (a, b, fresh))
    np.testing.assert_allclose(pa, pb, rtol=1e-6)
    assert not np.allclose(pa, p0)  # the steps moved the weights
    with pytest.raises(InvalidInputError, match="other settings"):
        train.train(
            train.TrainConfig(model="tiny", steps=3, lr=0.1), graphs, graphs, tmp_path / "b"
        )


def brute_bp_update(graph: data.Graph, p: np.ndarray, prior: float):
    """BP's messages by enumerating the mines of every number's other groups."""
    size, edges = graph.size.astype(int), list(zip(graph.edge_var, graph.edge_factor, strict=True))
    messages = []
    for v, f in edges:
        others = [w for w, g in edges if g == f and w != v]
        message = np.zeros(size[v] + 1)
        for m in range(size[v] + 1):
            for counts in itertools.product(*(range(size[w] + 1) for w in others)):
                if m + sum(counts) == graph.target[f]:
                    message[m] += np.prod(
                        [
                            math.comb(size[w], k) * p[w] ** k * (1 - p[w]) ** (size[w] - k)
                            for w, k in zip(others, counts, strict=True)
                        ]
                    )
        messages.append(message)
    layouts = [np.array([math.comb(s, m) for m in range(s + 1)]) for s in size]
    share = [
        (np.arange(size[v] + 1) * layouts[v] * msg).sum() / (size[v] * (layouts[v] * msg).sum())
        for (v, _), msg in zip(edges, messages, strict=True)
    ]
    belief = []
    for v in range(len(size)):
        b = layouts[v] * (prior / (1 - prior)) ** np.arange(size[v] + 1)
        for (w, _), msg in zip(edges, messages, strict=True):
            if w == v:
                b = b * msg
        belief.append((np.arange(size[v] + 1) * b).sum() / (size[v] * b.sum()))
    return np.array(share), np.array(belief)


def test_bp_messages_are_bp_s_exact_update():
    rng = np.random.default_rng(5)
    for board in BOARDS:
        graph = data.encode(factor_graph(board))
        p = rng.uniform(0.05, 0.95, len(graph.size))
        share, belief = models.bp_update(
            jnp.asarray(p, jnp.float32),
            jnp.asarray(graph.size, jnp.float32),
            jnp.asarray(graph.target, jnp.float32),
            jnp.full(len(p), 0.3, jnp.float32),
            jnp.asarray(graph.edge_var),
            jnp.asarray(graph.edge_factor),
            len(graph.target),
        )
        want_share, want_belief = brute_bp_update(graph, p, 0.3)
        np.testing.assert_allclose(share, want_share, atol=2e-5)
        np.testing.assert_allclose(belief, want_belief, atol=2e-5)
    one, two = jnp.ones(1), jnp.ones(2)
    with pytest.raises(InvalidInputError, match="per group"):
        models.bp_update(one, two, one, one, jnp.zeros(1, int), jnp.zeros(1, int), 1)
    with pytest.raises(InvalidInputError, match="per edge"):
        models.bp_update(one, one, one, one, jnp.zeros(2, int), jnp.zeros(1, int), 1)
    with pytest.raises(InvalidInputError, match="per number"):
        models.bp_update(one, one, two, one, jnp.zeros(1, int), jnp.zeros(1, int), 1)


def test_a_net_reading_bp_messages_trains_and_keeps_its_config(tmp_path):
    graphs = graphs_of(BOARDS)
    cfg = train.TrainConfig(model="small-bp", steps=2, warmup=1)
    model, _ = train.load_model(train.train(cfg, graphs, graphs, tmp_path, log=lambda _: None))
    assert model.config == models.CONFIGS["small-bp"] and model.config.bp_messages
    x = train.pack(graphs, range(len(graphs)))[0]
    p = train.make_predict(model)(x, 8)
    assert np.isfinite(p).all()
    fresh = models.build(models.CONFIGS["small-bp"], seed=0)
    assert not np.allclose(p, train.make_predict(fresh)(x, 8))


def test_random_round_counts_train_and_are_checked(tmp_path):
    graphs = graphs_of(BOARDS)
    cfg = train.TrainConfig(model="tiny", steps=3, warmup=1, max_rounds=7)
    path = train.train(cfg, graphs, graphs, tmp_path / "r", log=lambda _: None)
    model, meta = train.load_model(path)
    assert meta["settings"]["max_rounds"] == 7
    x = train.pack(graphs, range(len(graphs)))[0]
    fresh = models.build(models.CONFIGS["tiny"], seed=0)
    assert not np.allclose(train.make_predict(model)(x, 7), train.make_predict(fresh)(x, 7))
    with pytest.raises(InvalidInputError, match="max_rounds"):
        train.train(
            train.TrainConfig(model="tiny", steps=1, max_rounds=2), graphs, graphs, tmp_path / "s"
        )
    with pytest.raises(InvalidInputError, match="max_rounds"):
        train.train(
            train.TrainConfig(model="tiny", steps=1, max_rounds=-3), graphs, graphs, tmp_path / "t"
        )


def test_play_rounds_are_chosen_on_validation_and_used_by_the_player(tmp_path):
    from learners.graph.player import GraphPlayer

    graphs = graphs_of(BOARDS)
    cfg = train.TrainConfig(model="tiny", steps=2, warmup=1, max_rounds=6)
    path = train.train(cfg, graphs, graphs, tmp_path / "r", log=lambda _: None)
    assert GraphPlayer(str(path)).rounds == models.CONFIGS["tiny"].rounds
    chosen = train.choose_rounds(path, graphs, tried=(2, 3, 9))
    _, meta = train.load_model(path)
    errors = {int(k): e for k, e in meta["val_by_rounds"].items()}
    assert set(errors) == {2, 3, 9} and meta["play_rounds"] == chosen
    assert errors[chosen] <= 1.02 * min(errors.values())
    assert all(e > 1.02 * min(errors.values()) for k, e in errors.items() if k < chosen)
    assert GraphPlayer(str(path)).rounds == chosen
    assert GraphPlayer(str(path), iterations=4).rounds == 4
    for bad in ({"tolerance": -1}, {"tried": ()}, {"tried": (0,)}):
        with pytest.raises(InvalidInputError):
            train.choose_rounds(path, graphs, **bad)


def test_head_keeps_the_first_graphs_and_refuses_bad_counts():
    graphs = graphs_of(BOARDS)
    first = graphs.head(2)
    assert len(first) == 2
    np.testing.assert_array_equal(first.var, graphs.var[: graphs.var_ptr[2]])
    np.testing.assert_array_equal(first.label, graphs.label[: graphs.var_ptr[2]])
    assert len(graphs.head(0)) == 0
    for bad in (-1, len(graphs) + 1):
        with pytest.raises(InvalidInputError):
            graphs.head(bad)
    with pytest.raises(InvalidTypeError):
        graphs.head(1.5)


def test_foreign_and_broken_checkpoints_are_refused(tmp_path):
    junk = tmp_path / "junk.msgpack"
    junk.write_bytes(b"\x00\x01not msgpack")
    assert not train.is_graph_model(junk)
    with pytest.raises(InvalidInputError, match="not a learner:graph model"):
        train.load_model(junk)
    with pytest.raises(InvalidInputError, match="no graph model"):
        train.load_model(tmp_path / "missing.msgpack")
    # The convolutional net's checkpoint is no graph model: learner:PATH loads it as before.
    assert not train.is_graph_model(weights_dir() / "default.msgpack")
    assert isinstance(make_learner("default", symmetric=False), LearnerPlayer)


def test_builders_refuse_bad_settings(tmp_path):
    graphs = graphs_of(BOARDS[:1])
    with pytest.raises(InvalidInputError, match="unknown model"):
        train.train(train.TrainConfig(model="huge"), graphs, graphs, tmp_path)
    with pytest.raises(InvalidInputError, match="steps"):
        train.train(train.TrainConfig(model="tiny", steps=0), graphs, graphs, tmp_path)
    with pytest.raises(InvalidTypeError):
        models.build("base")
    with pytest.raises(InvalidInputError, match="rounds"):
        models.build(models.GraphConfig(width=8, rounds=0))


@needs_shipped
def test_shipped_net_refuses_what_is_not_a_board():
    with pytest.raises(InvalidTypeError, match="mscsp.Board"):
        GraphPlayer("graph").estimate([np.full((3, 3), -1)])


@needs_shipped
def test_shipped_net_options_are_checked():
    assert isinstance(make_learner("graph"), GraphPlayer)
    with pytest.raises(InvalidInputError, match="symmetric"):
        make_learner("graph", symmetric=True)
    for bad in (0, -2, 1.5, True):
        with pytest.raises(InvalidInputError, match="iterations"):
            make_learner("graph", iterations=bad)


@needs_shipped
def test_shipped_net_is_close_to_exact_on_small_lattices_and_bands():
    estimator = get_estimator("learner:graph")
    errors = []
    for board in [lattice(9, 9, 0.3, 11), band(5, 12, 0.5, 12), lattice(8, 10, 0.2, 13)]:
        exact = get_estimator().estimate(board)
        p = estimator.estimate(board)
        covered = board.cells == COVERED
        assert ((p[covered] >= 0) & (p[covered] <= 1)).all()
        errors.append(np.abs(p - exact)[covered].mean())
    # A smoke floor far above the measured held-out error (docs/estimators.md).
    assert max(errors) < 0.05, errors


@needs_shipped
def test_free_cells_take_what_the_frontier_leaves():
    board = parse_board("???????\n???????\n???????\n??1????\n???????\n", mines=6)
    p = GraphPlayer("graph").estimate([board])[0]
    covered = board.cells == COVERED
    # The mines left are all placed: the frontier's expected mines plus the free cells'.
    assert p[covered].sum() == pytest.approx(6, abs=1e-4)


@needs_shipped
def test_shipped_net_plays_games():
    config = RunConfig("learner:graph", 9, 9, 10, "safe", "corner", 123)
    results = play_batch(config, list(range(6)))
    assert len(results) == 6 and all(r.cleared > 0 for r in results)
