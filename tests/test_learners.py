"""Learners: encoding, models, training, checkpoints, labels, the shipped player."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("jax")

from click.testing import CliRunner  # noqa: E402
from conftest import interrupt_when, repo_env  # noqa: E402

import mscsp  # noqa: E402
from learners.nets import data, evaluate, models, player, train  # noqa: E402
from mscsp.cli import main  # noqa: E402

SPEC = data.GenSpec(6, 7, 6)


@pytest.fixture(scope="module")
def shards(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("shards")
    data.generate(out, SPEC, 30, games_per_shard=10, workers=1, progress=False)
    return str(out)


def test_encode_marks_padding_and_density():
    cells = np.full((3, 4), -1, np.int8)
    cells[0, 0], cells[0, 1], cells[2, 3] = 2, -2, data.OFF_BOARD
    x = data.encode(cells, 5)[0]
    assert x.shape == (3, 4, data.N_CHANNELS)
    assert x[0, 0, 3] == 1 and x[0, 1, 10] == 1 and x[1, 1, 0] == 1
    assert x[2, 3].sum() == 0  # padding: no state, off board, no density
    assert x[1, 1, 12] == pytest.approx(4 / 9)  # 4 unflagged mines over 9 covered cells


@pytest.mark.parametrize(
    "name", [n for n, c in models.CONFIGS.items() if c["model"] != "mlp-board"]
)
@pytest.mark.parametrize("shape", [(5, 7), (16, 30)])
def test_models_accept_any_size(name, shape):
    model = models.build(name)
    out = model(data.encode(np.full((2, *shape), -1, np.int8), 10, models.config_inputs(name)))
    assert out.shape == (2, *shape)


def test_mlp_board_is_fixed_size():
    model = models.build("mlp-board")
    assert model(data.encode(np.full((1, 9, 9), -1, np.int8), 10)).shape == (1, 9, 9)
    with pytest.raises(ValueError, match="9x9"):
        model(data.encode(np.full((1, 8, 9), -1, np.int8), 10))


def test_labels_equal_solve(shards):
    backend = mscsp.backends.get_backend("dss")
    (group,) = data.load(shards)
    assert group.shape == (6, 7) and len(group) > 30
    for cells, mines, probs, layout in zip(
        group.cells, group.mines, group.probs, group.layout, strict=True
    ):
        exact = mscsp.solve(mscsp.Board(cells.copy(), int(mines)), backend).probabilities
        np.testing.assert_allclose(probs, np.nan_to_num(exact), atol=1e-6)
        assert layout.sum() == mines and not layout[cells >= 0].any()
    meta = data.read_meta(f"{shards}/shard-00000.npz")
    assert meta["games"] == 10 and meta["seeds"] == list(range(10))


def test_generate_resumes(shards):
    from pathlib import Path

    before = {p: p.stat().st_mtime_ns for p in Path(shards).glob("*.npz")}
    data.generate(shards, SPEC, 30, games_per_shard=10, workers=1, progress=False)
    assert {p: p.stat().st_mtime_ns for p in Path(shards).glob("*.npz")} == before


@pytest.mark.parametrize("labels", ["exact", "mines"])
def test_training_lowers_loss(shards, labels):
    import optax
    from flax import nnx

    (group,) = data.load(shards)
    model = models.build("cnn-seed")
    optimizer = nnx.Optimizer(model, optax.adam(3e-3), wrt=nnx.Param)
    x, y, mask = train.sample_batch([group], labels, 64, np.random.default_rng(0))
    first = float(train.masked_bce(model(x), y, mask))
    for _ in range(30):
        train.train_step(model, optimizer, x, y, mask)
    assert float(train.masked_bce(model(x), y, mask)) < first


def test_train_run_saves_resumes_and_round_trips(shards, tmp_path):
    cfg = train.TrainConfig(
        model="logistic",
        data=[shards],
        out=str(tmp_path),
        steps=4,
        batch=8,
        eval_every=2,
        eval_positions=20,
    )
    train.train(cfg, log=lambda _: None)
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows if r["split"] == "val"] == [2, 4]
    assert (tmp_path / "curves.png").exists()
    cfg.steps = 6
    train.train(cfg, log=lambda _: None)
    model, config, meta = train.load_model(tmp_path)
    assert meta["step"] == 6 and config["model"] == "logistic"
    path = tmp_path / "copy.msgpack"
    train.save_model(path, model, config)
    again, _, _ = train.load_model(path)
    x = data.encode(data.load(shards)[0].cells[:5], SPEC.mines)
    np.testing.assert_array_equal(np.asarray(model(x)), np.asarray(again(x)))


def test_choose_moves_prefers_confident_safe_cells():
    cells = np.array([[-1, -1, 1], [-1, -1, 1]], np.int8)
    probs = np.array([[0.5, 0.001, 0.0], [0.01, 0.3, 0.0]])
    assert player.choose_moves(probs, cells) == [(0, 1), (1, 0)]
    assert player.choose_moves(probs + 0.1, cells) == [(0, 1)]


def test_shipped_model_plays_a_game():
    learner = player.LearnerPlayer("default")
    assert learner.name == "learner"
    result = evaluate.play_games(learner, "beginner", 2)
    assert result["games"] == 2 and 0 <= result["wins"] <= 2
    csp = evaluate.play_games(evaluate.CspPlayer(), "beginner", 2)
    assert csp["games"] == 2


def test_wilson_interval():
    lo, hi = evaluate.wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)


def test_cli_data_train_eval(tmp_path):
    runner = CliRunner()
    d, run = str(tmp_path / "d"), str(tmp_path / "run")
    res = runner.invoke(
        main,
        [
            "learn",
            "data",
            d,
            "--size",
            "5x6",
            "--mines",
            "4",
            "--games",
            "20",
            "--games-per-shard",
            "10",
            "--workers",
            "1",
        ],
    )
    assert res.exit_code == 0, res.output
    res = runner.invoke(
        main,
        [
            "learn",
            "train",
            "--model",
            "logistic",
            "--data",
            d,
            "--out",
            run,
            "--steps",
            "2",
            "--batch",
            "4",
            "--eval-every",
            "2",
        ],
    )
    assert res.exit_code == 0, res.output
    res = runner.invoke(main, ["learn", "eval", run, "--data", d, "--games", "0", "--json"])
    assert res.exit_code == 0, res.output
    accuracy = json.loads(res.output)["accuracy"]["5x6"]
    assert accuracy["positions"] > 0
    # The definitions mscsp bench uses (mscsp.evaluation.metrics), under the same names.
    assert {"mean_abs_diff", "brier", "log_loss", "called_safe_not_safe"} <= set(accuracy)


def test_learner_player_reports_guesses(monkeypatch):
    learner = player.LearnerPlayer("default")
    board = mscsp.parse_board("mines=1\n1??\n???\n")
    confident = np.full(board.shape, 0.5)
    confident[1, 2] = 0.001
    monkeypatch.setattr(learner, "probabilities", lambda b: confident)
    assert learner.next_moves(board, None) == [(1, 2)]
    assert learner.turn_guesses == 0
    monkeypatch.setattr(learner, "probabilities", lambda b: np.full(board.shape, 0.3))
    assert len(learner.next_moves(board, None)) == 1
    assert learner.turn_guesses == 1


def test_shipped_model_plays_through_mscsp_play():
    args = [
        "play",
        "--strategy",
        "learner:default",
        "--preset",
        "beginner",
        "--games",
        "3",
        "--seed",
        "1",
        "--workers",
        "1",
        "--json",
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["games"] == 3


def learn_data(out, *args):
    base = ["learn", "data", "--out", str(out), "--size", "5x6", "--mines", "4"]
    return CliRunner().invoke(main, [*base, "--games-per-shard", "5", *args])


def shard_bytes(out):
    from pathlib import Path

    return {p.name: p.read_bytes() for p in sorted(Path(out).glob("shard-*.npz"))}


def test_data_directory_never_mixes_settings_and_resumes_exactly(tmp_path):
    out = tmp_path / "d"
    first = learn_data(out, "--games", "12")
    assert first.exit_code == 0, first.output
    assert "holds 3 shards, 12 games" in first.output
    before = shard_bytes(out)
    # Other settings into the same directory: refused, nothing written.
    for other in (["--games-per-shard", "4"], ["--first-click", "opening"], ["--seed", "3"]):
        result = learn_data(out, "--games", "12", *other)
        assert result.exit_code == 2, (other, result.output)
        assert "other settings" in result.output and "Traceback" not in result.output
        assert shard_bytes(out) == before
    mixed = CliRunner().invoke(main, ["learn", "data", "--out", str(out), "--preset", "beginner"])
    assert mixed.exit_code == 2 and shard_bytes(out) == before
    # An interrupted run (a shard missing, a temporary file left) resumes exactly.
    (out / "shard-00001.npz").unlink()
    (out / ".shard-00002.npz.tmp.npz").write_bytes(b"half a file")
    again = learn_data(out, "--games", "12")
    assert again.exit_code == 0, again.output
    assert shard_bytes(out) == before
    assert not list(out.glob(".*.tmp.npz"))
    # More games extend the run; the short last shard is played again in full.
    more = learn_data(out, "--games", "15")
    assert "holds 3 shards, 15 games" in more.output
    assert data.read_meta(out / "shard-00002.npz")["seeds"] == list(range(10, 15))
    whole = tmp_path / "whole"
    learn_data(whole, "--games", "15")
    assert shard_bytes(whole) == shard_bytes(out)


def train_cfg(shards, out, **kwargs):
    fields = dict(model="logistic", data=[shards], out=str(out), steps=160, batch=8)
    return train.TrainConfig(**(fields | dict(eval_every=100, eval_positions=20) | kwargs))


def test_train_resume_is_exact_and_writes_no_duplicate_rows(shards, tmp_path):
    cut = tmp_path / "cut"
    seen = []

    class Killed(Exception):
        """Stands for the process dying: nothing in train() catches it."""

    def interrupt_at_150(line):
        seen.append(line)
        if line.startswith("step 150/160"):
            raise Killed

    with pytest.raises(Killed):
        train.train(train_cfg(shards, cut), log=interrupt_at_150)
    assert any("steps/s" in line and "ETA" in line and "loss" in line for line in seen)
    train.train(train_cfg(shards, cut), log=lambda _: None)
    rows = [json.loads(line) for line in (cut / "metrics.jsonl").read_text().splitlines()]
    keys = [(r["split"], r["step"]) for r in rows]
    assert len(keys) == len(set(keys))
    assert ("train", 150) in keys and ("val", 160) in keys
    whole = tmp_path / "whole"
    train.train(train_cfg(shards, whole), log=lambda _: None)
    x = data.encode(data.load(shards)[0].cells[:5], SPEC.mines)
    resumed, _, _ = train.load_model(cut)
    straight, _, _ = train.load_model(whole)
    np.testing.assert_array_equal(np.asarray(resumed(x)), np.asarray(straight(x)))


def tree_bytes(root):
    return {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_train_refuses_another_model_before_writing(shards, tmp_path):
    out = tmp_path / "run"
    train.train(train_cfg(shards, out, steps=2, eval_every=2), log=lambda _: None)
    before = tree_bytes(out)
    args = ["learn", "train", "--data", shards, "--out", str(out), "--steps", "2"]
    for other in (["--model", "cnn-seed"], ["--model", "logistic", "--labels", "mines"]):
        result = CliRunner().invoke(main, [*args, *other, "--batch", "8"])
        assert result.exit_code == 2, result.output
        assert "other settings" in result.output and "Traceback" not in result.output
        assert tree_bytes(out) == before
    model, config, _ = train.load_model(out)  # the checkpoint still loads
    assert config == dict(models.CONFIGS["logistic"])
    fresh = CliRunner().invoke(main, [*args, "--model", "cnn-seed", "--batch", "8", "--fresh"])
    assert fresh.exit_code == 0, fresh.output
    assert train.load_model(out)[1] == dict(models.CONFIGS["cnn-seed"])


def test_data_ctrl_c_stops_the_workers_and_the_rerun_resumes(tmp_path):
    """A real SIGINT to `learn data --workers 2`, then the same command finishes the job."""
    out = tmp_path / "cut"
    # (Enough shards that Ctrl-C, sent once the first is written, lands before the last.)
    args = ["--preset", "intermediate", "--games", "40", "--games-per-shard", "2"]
    command = [sys.executable, "-m", "mscsp", "learn", "data", *args]
    code, err = interrupt_when(
        [*command, "--out", str(out), "--workers", "2"], lambda: bool(shard_bytes(out))
    )
    assert code == 130, err
    assert "run the same command to resume" in err and "Traceback" not in err
    assert len(shard_bytes(out)) < 20
    again = subprocess.run(
        [*command, "--out", str(out)], env=repo_env(), capture_output=True, text=True
    )
    assert again.returncode == 0, again.stderr
    whole = tmp_path / "whole"
    subprocess.run([*command, "--out", str(whole)], env=repo_env(), check=True)
    assert shard_bytes(out) == shard_bytes(whole)


def test_a_checkpoint_whose_weights_do_not_fit_its_config_is_a_clear_error(shards, tmp_path):
    out = tmp_path / "run"
    train.train(train_cfg(shards, out, steps=2, eval_every=2), log=lambda _: None)
    model, _, meta = train.load_model(out)
    bad = tmp_path / "mixed.msgpack"
    train.save_model(bad, model, dict(models.CONFIGS["cnn-seed"]), meta)
    result = CliRunner().invoke(main, ["learn", "eval", str(bad), "--games", "0"])
    assert result.exit_code == 2, result.output
    assert "do not fit its model config" in result.output and "Traceback" not in result.output


def test_checkpoints_keep_the_last_few_and_the_asked_steps(shards, tmp_path):
    out = tmp_path / "run"
    cfg = train_cfg(shards, out, steps=12, eval_every=2, keep_steps=(3,))
    train.train(cfg, log=lambda _: None)
    kept = sorted(int(p.name) for p in (out / train.CHECKPOINT_DIR).iterdir() if p.name.isdigit())
    assert kept == [3, *range(12 - 2 * (train.KEEP_LAST - 1), 13, 2)]
    x = data.encode(data.load(shards)[0].cells[:5], SPEC.mines)
    latest, config = train.restore_model(out)
    shipped, _, meta = train.load_model(out)
    assert config == dict(models.CONFIGS["logistic"]) and meta["step"] == 12
    np.testing.assert_array_equal(np.asarray(latest(x)), np.asarray(shipped(x)))
    early, _ = train.restore_model(out, 3)
    assert not np.array_equal(np.asarray(early(x)), np.asarray(latest(x)))
    with pytest.raises(mscsp.InvalidInputError, match="no train state at step 4"):
        train.restore_model(out, 4)
    # A save cut short leaves a temporary directory: it is not a state, and it is swept away.
    junk = out / train.CHECKPOINT_DIR / "14.orbax-checkpoint-tmp-1"
    junk.mkdir()
    (junk / "partial").write_bytes(b"\0")
    assert train.saved_run(out)["step"] == 12
    cfg.steps = 14
    train.train(cfg, log=lambda _: None)
    assert train.load_model(out)[2]["step"] == 14 and not junk.exists()


def test_a_run_of_the_older_format_is_refused_with_a_clear_line(shards, tmp_path):
    out = tmp_path / "old"
    train.train(train_cfg(shards, out, steps=2, eval_every=2), log=lambda _: None)
    shutil.rmtree(out / train.CHECKPOINT_DIR)
    (out / "train_state.msgpack").write_bytes(b"\x80")
    args = ["learn", "train", "--model", "logistic", "--data", shards, "--out", str(out)]
    result = CliRunner().invoke(main, [*args, "--steps", "4", "--batch", "8"])
    assert result.exit_code == 2 and "older version" in result.output, result.output
    assert "Traceback" not in result.output


def test_random_first_moves_are_fixed_by_the_game_seed_whatever_the_workers(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    for out, workers in ((one, "1"), (two, "2")):
        result = learn_data(out, "--games", "10", "--first-move", "random", "--workers", workers)
        assert result.exit_code == 0, result.output
    assert shard_bytes(one) == shard_bytes(two)
    (group,) = data.load(one)
    # With corner clicks the top-left cell is open in every position; not here.
    assert not (group.cells[:, 0, 0] >= 0).all()
    assert data.read_meta(one / "shard-00000.npz")["first_move"] == "random"
    bad = learn_data(tmp_path / "bad", "--first-move", "9,9")
    assert bad.exit_code == 2 and "Traceback" not in bad.output
