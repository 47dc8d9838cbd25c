"""Nets that iterate (``recur``), test-time iterations and size curricula, on tiny data."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax")

from learners.nets import data, models, player, train  # noqa: E402
from mscsp.errors import InvalidInputError  # noqa: E402

SMALL, LARGE = data.GenSpec(5, 5, 3), data.GenSpec(6, 7, 6)


@pytest.fixture(scope="module")
def two_sizes(tmp_path_factory) -> list[str]:
    dirs = []
    for spec in (SMALL, LARGE):
        out = tmp_path_factory.mktemp(f"shards{spec.rows}x{spec.cols}")
        data.generate(out, spec, 20, games_per_shard=10, workers=1, progress=False)
        dirs.append(str(out))
    return dirs


def test_one_recur_step_changes_the_weights_and_keeps_the_loss_finite(two_sizes):
    import optax
    from flax import nnx

    (group,) = data.load(two_sizes[0])
    model = models.build({"model": "recur", "width": 8, "iterations": 3})
    before = models.count_params(model), np.asarray(model.mix.kernel[...]).copy()
    optimizer = nnx.Optimizer(model, optax.adam(1e-2), wrt=nnx.Param)
    x, y, mask = train.sample_batch([group], "exact", 16, np.random.default_rng(0))
    loss = float(train.train_step(model, optimizer, x, y, mask))
    assert np.isfinite(loss) and models.count_params(model) == before[0]
    assert not np.array_equal(np.asarray(model.mix.kernel[...]), before[1])


@pytest.mark.parametrize("iterations", [1, 3, 5])
def test_each_iteration_sees_two_cells_farther(iterations):
    """A change at one corner moves exactly the outputs within the receptive radius."""
    model = models.build({"model": "recur", "width": 8, "iterations": 2})
    models.set_iterations(model, iterations)
    radius = models.receptive_radius({"model": "recur", "iterations": iterations})
    cells = np.full((1, 16, 16), -1, np.int8)
    x0 = data.encode(cells, 40)
    cells[0, 0, 0] = 1
    x1 = data.encode(cells, 40)
    x1[..., 12] = x0[..., 12]  # the density channel moves everywhere when a cell opens
    moved = np.abs(np.asarray(model(x1))[0] - np.asarray(model(x0))[0]) > 0
    distance = np.maximum(*np.indices((16, 16)))
    assert not moved[distance > radius].any()
    assert moved[distance == radius].any()


def test_iterations_only_for_models_that_iterate():
    with pytest.raises(InvalidInputError, match="does not iterate"):
        models.set_iterations(models.build("resnet"), 4)
    with pytest.raises(InvalidInputError, match=">= 1"):
        models.set_iterations(models.build("recur"), 0)


def test_a_recur_model_plays_with_more_iterations_than_it_trained(tmp_path):
    model = models.build({"model": "recur", "width": 8, "iterations": 2})
    path = tmp_path / "recur.msgpack"
    train.save_model(path, model, {"model": "recur", "width": 8, "iterations": 2})
    from learners.nets.evaluate import play_games

    learner = player.LearnerPlayer(str(path), iterations=6)
    assert learner.model.iterations == 6
    result = play_games(learner, "beginner", 2)
    assert result["games"] == 2
    with pytest.raises(InvalidInputError, match="does not iterate"):
        player.LearnerPlayer("default", iterations=6)


@pytest.mark.parametrize("stage", ["9x9", "x:9x9", "-1:9x9", "0:9", "0:9x0", "0:", "0:9x9,"])
def test_bad_curriculum_stages_are_one_clear_error(stage):
    with pytest.raises(InvalidInputError, match="STEP:ROWSxCOLS"):
        train.parse_stage(stage)


def test_curriculum_stages_map_to_size_groups():
    shapes = [(5, 5), (6, 7)]
    stages = train.stage_groups(["0:5x5", "10:5X5,6x7"], shapes, 20)
    assert stages == [(0, [0]), (10, [0, 1])]
    assert train.groups_at(stages, 9) == [0] and train.groups_at(stages, 10) == [0, 1]
    assert train.stage_groups([], shapes, 20) == [(0, [0, 1])]
    with pytest.raises(InvalidInputError, match="no training data of size 9x9"):
        train.stage_groups(["0:9x9"], shapes, 20)
    for bad in (["5:5x5"], ["0:5x5", "0:6x7"], ["0:5x5", "20:6x7"]):
        with pytest.raises(InvalidInputError, match="start at step 0"):
            train.stage_groups(bad, shapes, 20)


def test_a_curriculum_run_draws_from_its_stages_and_resumes_only_with_them(two_sizes, tmp_path):
    lines: list[str] = []
    cfg = train.TrainConfig(
        model="recur",
        data=two_sizes,
        out=str(tmp_path),
        steps=4,
        batch=4,
        eval_every=2,
        eval_positions=10,
        curriculum=["0:5x5", "2:5x5,6x7"],
    )
    train.train(cfg, log=lines.append)
    assert "step 0: batches from 5x5" in lines
    assert "step 2: batches from 5x5, 6x7" in lines
    cfg.steps = 6
    lines.clear()
    train.train(cfg, log=lines.append)
    assert "step 4: batches from 5x5, 6x7" in lines  # a resumed run names its stage again
    cfg.curriculum = ["0:6x7"]
    with pytest.raises(InvalidInputError, match="curriculum"):
        train.train(cfg, log=lambda _: None)
