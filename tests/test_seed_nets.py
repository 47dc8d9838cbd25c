"""The Flax seed systems thesis-mlp and blog-mlp, the frontier loss and ``--executor ray`` data."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

pytest.importorskip("jax")

import optax  # noqa: E402
from click.testing import CliRunner  # noqa: E402
from flax import nnx  # noqa: E402

from learners.classic.data import perimeter  # noqa: E402
from learners.nets import data, models, train  # noqa: E402
from learners.registry import SYSTEMS, get_learned  # noqa: E402
from mscsp import BackendUnavailableError, Board, InvalidInputError  # noqa: E402
from mscsp.cli import main  # noqa: E402

SPEC = data.GenSpec(5, 6, 4)

#: A 9x9 position: a revealed pocket in the top-left corner, everything else covered.
POCKET = np.full((9, 9), -1, np.int8)
POCKET[:3, :3] = [[0, 0, 1], [0, 1, 2], [1, 2, -1]]


@pytest.fixture(scope="module")
def shards(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("shards")
    data.generate(out, SPEC, 20, games_per_shard=10, workers=1, progress=False)
    return str(out)


def one_step_changes_weights(name: str, shape: tuple[int, int]) -> None:
    """``name`` builds, maps a batch to one logit per cell, and one AdamW step moves it."""
    model = models.build(name, seed=1)
    cells = np.stack([POCKET[: shape[0], : shape[1]]] * 2)
    x = data.encode(cells, 10, models.config_inputs(name))
    assert model(x).shape == (2, *shape)
    before = [np.array(p) for p in jax_leaves(model)]
    optimizer = nnx.Optimizer(model, optax.adamw(1e-2), wrt=nnx.Param)
    y = np.full((2, *shape), 0.2, np.float32)
    train.train_step(model, optimizer, x, y, (cells == -1).astype(np.float32))
    after = jax_leaves(model)
    assert any(not np.array_equal(b, np.asarray(a)) for b, a in zip(before, after, strict=True))


def jax_leaves(model) -> list:
    import jax

    return jax.tree.leaves(nnx.state(model, nnx.Param))


def test_thesis_mlp_is_the_relu_window_mlp():
    model = models.build("thesis-mlp")
    assert model.activation == "relu" and models.build("mlp-window").activation == "sigmoid"
    widths = [layer.out_features for layer in (model.first, *model.rest, model.head)]
    assert widths == [70, 80, 60, 35, 1]
    assert models.receptive_radius("thesis-mlp") == 2
    one_step_changes_weights("thesis-mlp", (9, 9))
    assert model(data.encode(POCKET[:6, :7], 10)).shape == (1, 6, 7)  # a window plays any size


def test_blog_mlp_is_the_blogs_four_dense_layers():
    model = models.build("blog-mlp")
    n = 81
    assert [(w.in_features, w.out_features) for w in model.layers] == [
        (10 * n, 20 * n),
        (20 * n, 10 * n),
        (10 * n, 5 * n),
        (5 * n, n),
    ]
    one_step_changes_weights("blog-mlp", (9, 9))


def test_unknown_activation_is_refused():
    with pytest.raises(ValueError, match="activation"):
        models.build({"model": "mlp-window", "activation": "tanh"})


def test_frontier_cells_are_the_covered_cells_next_to_a_number():
    frontier = train.loss_cells(POCKET, "frontier")
    expected = np.zeros((9, 9), bool)
    expected[3, :3] = expected[:3, 3] = True  # around the pocket
    expected[2, 2] = True  # the covered cell inside it
    np.testing.assert_array_equal(frontier, expected)
    np.testing.assert_array_equal(train.loss_cells(POCKET, "all"), POCKET == -1)
    batch = np.stack([POCKET, np.full((9, 9), -1, np.int8)])
    np.testing.assert_array_equal(train.loss_cells(batch, "frontier")[0], expected)
    assert not train.loss_cells(batch, "frontier")[1].any()  # nothing revealed: no frontier


def test_sample_batch_puts_the_frontier_loss_on_bordering_cells_only(shards):
    (group,) = data.load(shards)
    rng = np.random.default_rng(0)
    _, _, mask_all = train.sample_batch([group], "exact", 32, rng, cells="all")
    _, _, mask = train.sample_batch(
        [group], "exact", 32, np.random.default_rng(0), cells="frontier"
    )
    assert 0 < mask.sum() < mask_all.sum()
    assert not (mask > mask_all).any()


def test_frontier_is_a_resume_setting(shards, tmp_path):
    cfg = train.TrainConfig(
        model="logistic", data=[shards], out=str(tmp_path), steps=2, batch=4, eval_every=2
    )
    train.train(cfg, log=lambda _: None)
    cfg.cells, cfg.steps = "frontier", 4
    with pytest.raises(InvalidInputError, match="cells: 'all' saved, 'frontier' now"):
        train.train(cfg, log=lambda _: None)
    saved = train.saved_run(tmp_path)
    del saved["train"]["cells"]  # a run saved before the setting existed trained on all cells
    cfg.cells = "all"
    train.check_resume(cfg, saved)
    with pytest.raises(InvalidInputError, match="cells"):
        train.train(train.TrainConfig(model="logistic", data=[shards], cells="edge"))


def test_cli_train_records_the_cells(shards, tmp_path):
    out = tmp_path / "run"
    args = ["learn", "train", "--model", "thesis-mlp", "--data", shards, "--out", str(out)]
    args += ["--steps", "2", "--batch", "4", "--eval-every", "2", "--cells", "frontier"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    _, config, meta = train.load_model(out)
    assert config["activation"] == "relu" and meta["train"]["cells"] == "frontier"
    bad = CliRunner().invoke(main, [*args[:-1], "edge"])
    assert bad.exit_code == 2


def saved_model(tmp_path, name: str) -> str:
    path = tmp_path / f"{name}.msgpack"
    train.save_model(path, models.build(name, seed=3), models.CONFIGS[name])
    return str(path)


def lowest(probs: np.ndarray, pool: np.ndarray) -> tuple[int, int]:
    return divmod(int(np.argmin(np.where(pool, probs, np.inf))), probs.shape[1])


def test_thesis_mlp_uncovers_the_lowest_bordering_cell(tmp_path):
    player = get_learned("thesis-mlp", weights=saved_model(tmp_path, "thesis-mlp"))
    board = Board(POCKET.copy(), 10)
    probs = player.probabilities(board)
    (move,) = player.next_moves(board)
    assert move == lowest(probs, perimeter(POCKET))
    closed = Board(np.full((9, 9), -1, np.int8), 10)  # no bordering cell: every covered one
    (move,) = player.next_moves(closed)
    assert move == lowest(player.probabilities(closed), closed.cells == -1)


def test_blog_mlp_uncovers_the_lowest_covered_cell_and_refuses_other_sizes(tmp_path):
    weights = saved_model(tmp_path, "blog-mlp")
    player = get_learned("blog-mlp", weights=weights)
    board = Board(POCKET.copy(), 10)
    (move,) = player.next_moves(board)
    assert move == lowest(player.probabilities(board), POCKET == -1)
    with pytest.raises(InvalidInputError, match="9x9 boards only"):
        player.next_moves(Board(np.full((8, 8), -1, np.int8), 10))
    played = CliRunner().invoke(
        main,
        ["play", "-s", "blog-mlp", "-o", f"weights={weights}", "--size", "8x8"]
        + ["--mines", "10", "-n", "1"],
    )
    assert played.exit_code == 2 and "9x9 boards only" in played.output
    window = saved_model(tmp_path, "thesis-mlp")
    with pytest.raises(InvalidInputError, match="full-board MLP"):
        get_learned("blog-mlp", weights=window)


def test_missing_artefact_says_how_to_train_it(tmp_path):
    for name in ("thesis-mlp", "blog-mlp"):
        with pytest.raises(InvalidInputError, match=f"mscsp learn system {name}'"):
            get_learned(name, weights=str(tmp_path / "none.msgpack"))


def test_registry_and_listing_show_both():
    listing = CliRunner().invoke(main, ["learn", "system", "--list"])
    assert listing.exit_code == 0
    for name, paper in (("thesis-mlp", "000"), ("blog-mlp", "003")):
        assert SYSTEMS[name].family == "nets" and SYSTEMS[name].paper.startswith(paper)
        assert any(line.startswith(f"{name} ") for line in listing.output.splitlines())


def test_trainer_generates_and_trains(tmp_path):
    runner = CliRunner()
    args = ["learn", "system", "thesis-mlp", "--games", "10", "--out", str(tmp_path), "--json"]
    small = ["-o", "steps=2", "-o", "batch=4", "-o", "eval_every=2", "-o", "rounds=0"]
    result = runner.invoke(main, [*args, *small])
    assert result.exit_code == 0, result.output
    meta = json.loads(result.stdout)
    assert meta["cells"] == "frontier" and meta["labels"] == "exact" and meta["positions"] > 0
    assert meta["rounds"] == 0 and meta["round_positions"] == 0
    assert json.loads((tmp_path / "thesis-mlp.json").read_text()) == meta
    player = get_learned("thesis-mlp", weights=str(tmp_path / "thesis-mlp.msgpack"))
    assert player.config == models.CONFIGS["thesis-mlp"]
    wrong = runner.invoke(main, ["learn", "system", "blog-mlp", "--size", "8x8", "--mines", "9"])
    assert wrong.exit_code == 2 and "9x9" in wrong.output
    unknown = runner.invoke(main, [*args, "-o", "momentum=1"])
    assert unknown.exit_code == 2 and "momentum" in unknown.output
    for bad in ("rounds=-1", "rounds=x", "round_games=0"):
        refused = runner.invoke(main, [*args, "-o", bad])
        assert refused.exit_code == 2 and "rounds must be" in refused.output


def test_trainer_rounds_ship_the_last_rounds_model(tmp_path):
    # The recipe's on-policy rounds start from the trained model; the shipped file is the
    # last round's, and --resume keeps the rounds done.
    from learners.nets import onpolicy

    runner = CliRunner()
    args = ["learn", "system", "thesis-mlp", "--games", "10", "--out", str(tmp_path), "--json"]
    args += ["-o", "steps=2", "-o", "batch=4", "-o", "eval_every=2"]
    args += ["-o", "rounds=2", "-o", "round_games=4", "-o", "round_steps=2"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    meta = json.loads(result.stdout)
    assert meta["rounds"] == 2 and meta["round_positions"] > 0
    assert meta["positions_seen"] == (2 + 2 * 2) * 4
    rounds = tmp_path / "thesis-mlp-work" / "rounds"
    last = rounds / "round-02" / "model" / "model.msgpack"
    assert (tmp_path / "thesis-mlp.msgpack").read_bytes() == last.read_bytes()
    (shard, *_) = sorted((rounds / "round-01" / "data").glob("shard-*.npz"))
    from learners.nets.data import read_meta

    policy = read_meta(shard)["policy"]
    assert policy["system"] == "thesis-mlp"
    first = tmp_path / "thesis-mlp-work" / "run" / "model.msgpack"
    assert policy["sha256"] == onpolicy.checkpoint_digest(first)
    stamp = last.stat().st_mtime_ns
    again = runner.invoke(main, [*args, "--resume"])
    assert again.exit_code == 0, again.output
    assert last.stat().st_mtime_ns == stamp


# --- the executor of data generation ---------------------------------------------------


def shard_contents(out) -> dict:
    from pathlib import Path

    contents = {}
    for path in sorted(Path(out).glob("shard-*.npz")):
        with np.load(path) as shard:
            contents[path.name] = {k: shard[k].tolist() for k in shard.files}
    return contents


def test_ray_writes_the_same_shards_as_processes(tmp_path):
    ray = pytest.importorskip("ray")
    local, remote = tmp_path / "local", tmp_path / "ray"
    data.generate(local, SPEC, 6, games_per_shard=2, workers=1, progress=False)
    args = ["learn", "data", "--out", str(remote), "--size", "5x6", "--mines", "4", "--games", "6"]
    try:
        result = CliRunner().invoke(main, [*args, "--games-per-shard", "2", "--executor", "ray"])
    finally:
        ray.shutdown()
    assert result.exit_code == 0, result.output
    assert shard_contents(local) == shard_contents(remote) and len(shard_contents(local)) == 3
    assert (local / data.DATA_FILE).read_text() == (remote / data.DATA_FILE).read_text()


def test_executor_is_checked(tmp_path, monkeypatch):
    with pytest.raises(InvalidInputError, match="executor"):
        data.generate(tmp_path, SPEC, 1, progress=False, executor="threads")
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(BackendUnavailableError, match=r"mscsp\[ray\]"):
        data.generate(tmp_path, SPEC, 1, progress=False, executor="ray")
    for command in (["data", "--out", str(tmp_path), "--games", "1"], ["dagger", "--out", "x"]):
        result = CliRunner().invoke(main, ["learn", *command, "--executor", "threads"])
        assert result.exit_code == 2 and "--executor" in result.output
