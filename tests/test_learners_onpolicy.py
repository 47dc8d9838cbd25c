"""On-policy rounds (DAgger), cell weights and the extra input channels."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("jax")

from click.testing import CliRunner  # noqa: E402

import mscsp  # noqa: E402
from learners.artefacts import model_path  # noqa: E402
from learners.nets import channels, data, models, onpolicy, player, train  # noqa: E402
from mscsp.cli import main  # noqa: E402
from mscsp.errors import InvalidInputError  # noqa: E402

SPEC = data.GenSpec(6, 7, 6)

# Hand-made position (rows of codes; -1 covered, -2 flag). Subset rule by hand: the 1 at
# (0,1) sees {(0,2),(1,2)} inside the 1 at (1,1)'s {(0,2),(1,2),(2,2)}, so (2,2) is safe; the
# 1 at (2,0) sees {(3,0),(3,1)} inside the 1 at (2,1)'s five cells, so (1,2), (2,2) and (3,2)
# are safe, and then (0,2) is a mine. (3,0) / (3,1) hold one mine between them: unknown.
HAND = np.array(
    [
        [0, 1, -1, -1, -1],
        [0, 1, -1, -1, -1],
        [1, 1, -1, -1, -1],
        [-1, -1, -1, -1, -2],
    ],
    np.int8,
)
HAND_SAFE = {(1, 2), (2, 2), (3, 2)}
HAND_MINE = {(0, 2)}


def cells_of(mask: np.ndarray) -> set[tuple[int, int]]:
    return {(int(r), int(c)) for r, c in np.argwhere(mask)}


def test_certain_channel_is_the_subset_rule_on_a_hand_made_board():
    x = data.encode(HAND, 5, ["certain"])[0]
    assert x.shape == (4, 5, data.N_CHANNELS + 2)
    assert cells_of(x[..., -2]) == HAND_SAFE
    assert cells_of(x[..., -1]) == HAND_MINE
    # Sound: the exact solver agrees on every cell the channel settles.
    exact = mscsp.solve(mscsp.Board(HAND, 5)).probabilities
    assert all(exact[c] == 0 for c in HAND_SAFE) and all(exact[c] == 1 for c in HAND_MINE)


def test_certain_channel_has_the_single_point_rules_and_is_sound_in_real_games():
    # Each 1 sees one covered cell: both corners are mines, settled without any search.
    corners = np.array([[-1, 1, 0], [2, 2, 0], [-1, 1, 0]], np.int8)
    x = data.encode(corners, 2, ["certain"])[0]
    assert cells_of(x[..., -1]) == {(0, 0), (2, 0)} and not x[..., -2].any()
    from mscsp.evaluation.played_positions import sample_positions

    boards = sample_positions(9, 9, 10, 30, seed=5)
    x = data.encode(np.stack([b.cells for b in boards]), 10, ["certain"])
    settled = 0
    for board, channels_of in zip(boards, x, strict=True):
        exact = mscsp.solve(board).probabilities
        assert (exact[channels_of[..., -2] == 1] == 0).all()
        assert (exact[channels_of[..., -1] == 1] == 1).all()
        settled += int(channels_of[..., -2:].sum())
    assert settled > 0


def test_certain_channel_does_not_use_the_mine_count():
    # With 3 mines (the flag, (0,2) and one of (3,0)/(3,1)) the solver knows every cell away
    # from the frontier is safe; the reductions do not count mines, so they stay unknown.
    exact = mscsp.solve(mscsp.Board(HAND, 3)).probabilities
    x = data.encode(HAND, 3, ["certain"])[0]
    assert exact[0, 4] == 0 and x[0, 4, -2] == 0
    assert cells_of(x[..., -2]) == HAND_SAFE


def test_counts_channel_on_a_hand_made_board_and_padding():
    padded = np.full((6, 7), data.OFF_BOARD, np.int8)
    padded[:4, :5] = HAND
    x = data.encode(np.stack([HAND.copy(), HAND.copy()]), np.array([5, 9]), ["counts"])
    # Mines left: 5 - 1 flag; covered cells touching no number: (0,3), (0,4), (1,3), (1,4),
    # (2,3), (2,4), (3,3).
    assert np.allclose(x[0, ..., -2:], [4 / channels.COUNT_SCALE, 7 / channels.COUNT_SCALE])
    assert np.allclose(x[1, ..., -2], 8 / channels.COUNT_SCALE)
    both = data.encode(padded, 5, ["counts", "certain"])[0]
    alone = data.encode(HAND, 5, ["counts", "certain"])[0]
    assert np.array_equal(both[:4, :5, -4:], alone[..., -4:])
    assert not both[4:, :, -4:].any() and not both[:, 5:, -4:].any()


def test_models_with_extra_inputs_take_them():
    assert models.config_inputs("resnet-plus") == ("counts", "certain")
    x = data.encode(np.stack([HAND, HAND]), 5, models.config_inputs("resnet-plus"))
    assert models.build("resnet-plus")(x).shape == (2, 4, 5)
    with pytest.raises(ValueError, match="unknown inputs"):
        data.encode(HAND, 5, ["oracle"])
    assert models.receptive_radius("resnet") == 16  # the shipped model's, as documented


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> dict:
    """CSP shards, a first model trained on them, and one on-policy round (beta 0)."""
    root = tmp_path_factory.mktemp("onpolicy")
    base = root / "csp"
    data.generate(base, SPEC, 20, games_per_shard=10, workers=1, progress=False)
    init = train.train(
        train.TrainConfig(data=[str(base)], out=str(root / "init"), steps=6, batch=8, eval_every=3),
        log=lambda _: None,
    )
    cfg = onpolicy.DaggerConfig(
        out=str(root / "dagger"),
        spec=SPEC,
        base=[str(base)],
        init=str(init / train.MODEL_FILE),
        games=12,
        games_per_shard=6,
        beta=0.0,
        steps=4,
        batch=8,
        eval_every=2,
    )
    rows = onpolicy.run_rounds(cfg, workers=1, progress=False, log=lambda _: None)
    return {"cfg": cfg, "rows": rows, "base": base, "init": init / train.MODEL_FILE}


def test_round_positions_are_the_learners_own_games_with_exact_labels(tiny):
    cfg = tiny["cfg"]
    shards = sorted((cfg.round_dir(1) / "data").glob("shard-*.npz"))
    assert len(shards) == 2
    meta = data.read_meta(shards[0])
    assert meta["policy"]["round"] == 1 and meta["policy"]["beta"] == 0.0
    assert meta["policy"]["sha256"] == onpolicy.checkpoint_digest(tiny["init"])
    (group,) = data.load(cfg.round_dir(1) / "data")
    learner = player.LearnerPlayer(str(tiny["init"]))
    counter = mscsp.backends.get_backend("dss")
    seeds = sorted(set(group.seed.tolist()))
    assert seeds == list(range(onpolicy.ROUND_SEED_STRIDE, onpolicy.ROUND_SEED_STRIDE + 12))
    for seed in seeds:
        # Replay the game with the learner through the player API `mscsp play` uses.
        game = mscsp.Game(SPEC.rows, SPEC.cols, SPEC.mines, seed=seed, first_click="safe")
        game.reveal(0, 0)
        seen = []
        while not game.over:
            board = game.board()
            seen.append(board.cells.copy())
            for r, c in learner.next_moves(board):
                if not game.over:
                    game.reveal(r, c)
        mine = group.seed == seed
        assert np.array_equal(group.cells[mine], np.array(seen).reshape(-1, SPEC.rows, SPEC.cols))
        for cells, probs, layout in zip(
            group.cells[mine], group.probs[mine], group.layout[mine], strict=True
        ):
            exact = mscsp.solve(mscsp.Board(cells, SPEC.mines), counter).probabilities
            covered = cells == -1
            assert np.array_equal(probs[covered], exact[covered].astype(np.float32))
            assert np.array_equal(layout, game.mine)


def test_decisive_cells_weigh_more(tiny):
    (group,) = data.load(tiny["cfg"].round_dir(1) / "data")
    boost = 1 + onpolicy.WEIGHT_BOOST
    for cells, probs, weight in zip(group.cells, group.probs, group.weight, strict=True):
        covered = cells == -1
        q = np.where(covered, probs, np.inf)
        best = covered & (q == q.min())
        assert (weight[best] == boost).all()
        assert set(np.unique(weight[covered])) <= {1, boost}
    # CSP shards loaded alongside weigh 1 everywhere.
    groups = data.load([tiny["base"], tiny["cfg"].round_dir(1) / "data"])
    (both,) = groups
    from_base = both.seed < onpolicy.ROUND_SEED_STRIDE
    assert (both.weight[from_base] == 1).all() and (both.weight[~from_base] == boost).any()
    x, y, mask = train.sample_batch(groups, "exact", 64, np.random.default_rng(1))
    assert set(np.unique(mask)) <= {0.0, 1.0, float(boost)}


def test_beta_one_replays_the_csp_games():
    counter = mscsp.backends.get_backend("dss")
    init = str(model_path("default"))
    record = onpolicy.policy_record(init, beta=1.0, round_=1)
    for seed in (3, 4):
        mixed = onpolicy.policy_game_positions(SPEC, seed, counter, record)
        csp = data.game_positions(SPEC, seed, counter)
        assert np.array_equal(mixed["cells"], csp["cells"])
        assert np.array_equal(mixed["probs"], csp["probs"])


def test_round_trains_resumes_and_refuses_other_settings(tiny):
    cfg, (row,) = tiny["cfg"], tiny["rows"]
    model = cfg.round_dir(1) / "model"
    assert row["round"] == 1 and row["positions"] == len(data.load(cfg.round_dir(1) / "data")[0])
    saved = json.loads((model / train.METRICS_FILE).read_text().splitlines()[-1])
    assert saved["step"] == 4
    assert json.loads((model.parent.parent / onpolicy.ROUNDS_FILE).read_text()) == tiny["rows"]
    shards = sorted((cfg.round_dir(1) / "data").glob("shard-*.npz"))
    stamps = [p.stat().st_mtime_ns for p in shards]
    again = onpolicy.run_rounds(cfg, workers=1, progress=False, log=lambda _: None)
    assert again == tiny["rows"]
    assert [p.stat().st_mtime_ns for p in shards] == stamps
    other = onpolicy.DaggerConfig(**{**cfg.__dict__, "beta": 0.5})
    with pytest.raises(InvalidInputError, match="beta"):
        onpolicy.run_rounds(other, workers=1, progress=False, log=lambda _: None)


def test_init_of_another_model_is_refused(tiny, tmp_path):
    cfg = train.TrainConfig(
        model="resnet-plus", data=[str(tiny["base"])], out=str(tmp_path / "r"), init="default"
    )
    with pytest.raises(InvalidInputError, match="same model"):
        train.train(cfg, log=lambda _: None)
    assert not (tmp_path / "r").exists()


def test_cli_dagger_errors_are_one_line(tmp_path):
    runner = CliRunner()
    result = runner.invoke(
        main, ["learn", "dagger", "--out", str(tmp_path / "d"), "--init", str(tmp_path / "x")]
    )
    assert result.exit_code == 2 and "no model checkpoint" in result.output
    result = runner.invoke(main, ["learn", "dagger", "--out", str(tmp_path), "--beta", "2"])
    assert result.exit_code == 2


def test_sweep_trains_each_config_alike_and_resumes(tiny, tmp_path):
    from learners.nets import sweep

    configs = ["resnet-b3", "resnet-certain"]
    kwargs = {"steps": 3, "batch": 8, "eval_every": 3}
    rows = sweep.run_sweep(configs, [str(tiny["base"])], tmp_path, log=lambda _: None, **kwargs)
    assert [r["config"] for r in rows] == configs
    assert rows[0]["receptive_radius"] == models.receptive_radius("resnet-b3") == 8
    assert rows[1]["inputs"] == ["certain"] and rows[1]["params"] > rows[0]["params"]
    (size,) = rows[0]["accuracy"]
    assert size == "6x7" and rows[0]["accuracy"][size]["positions"] > 0
    text = (tmp_path / "sweep.md").read_text()
    assert all(f"| {c} |" in text for c in configs)
    stamps = [(tmp_path / c / train.MODEL_FILE).stat().st_mtime_ns for c in configs]
    again = sweep.run_sweep(configs, [str(tiny["base"])], tmp_path, log=lambda _: None, **kwargs)
    assert again == rows
    assert [(tmp_path / c / train.MODEL_FILE).stat().st_mtime_ns for c in configs] == stamps


def test_learn_lists_the_new_commands():
    result = CliRunner().invoke(main, ["learn", "--help"])
    assert all(c in result.output for c in ("dagger", "sweep", "ablation"))
    result = CliRunner().invoke(
        main, ["learn", "sweep", "--model", "nope", "--data", ".", "--out", "x"]
    )
    assert result.exit_code == 2 and "unknown configs" in result.output


def test_ablation_pairs_labels_on_the_same_budget_and_resumes(tiny, tmp_path):
    from learners.nets import ablation

    assert ablation.curve_steps(4000, 4) == [500, 1000, 2000, 4000]
    assert ablation.curve_steps(3, 5) == [1, 2, 3]
    args = ["learn", "ablation", "--data", str(tiny["base"]), "--out", str(tmp_path)]
    args += ["--model", "logistic", "--steps", "4", "--batch", "8", "--eval-every", "4"]
    args += ["--points", "2", "--games", "3", "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["labels"], r["step"], r["positions"]) for r in rows] == [
        (labels, step, 8 * step) for labels in ("exact", "mines") for step in (2, 4)
    ]
    assert all(r["games"] == 3 and 0 <= r["wins"] <= 3 for r in rows)
    assert (tmp_path / "ablation.png").exists()
    # Same seed and batches, other targets: the two runs end with different weights.
    x = data.encode(data.load(tiny["base"])[0].cells[:4], SPEC.mines)
    exact, _ = train.restore_model(tmp_path / "exact", 2)
    mines, _ = train.restore_model(tmp_path / "mines", 2)
    assert not np.array_equal(np.asarray(exact(x)), np.asarray(mines(x)))
    # A rerun replays nothing; other settings are refused without writing.
    before = (tmp_path / ablation.RESULT_FILE).read_bytes()
    again = CliRunner().invoke(main, args)
    assert json.loads(again.stdout) == rows
    other = CliRunner().invoke(main, [*args[:-1], "--games", "5"])
    assert other.exit_code == 2 and "other settings" in other.output
    assert (tmp_path / ablation.RESULT_FILE).read_bytes() == before


def test_the_ablation_plot_draws_a_point_that_won_no_game(tmp_path):
    """Wilson's lower bound at 0 wins is a hair above 0; the plot must not refuse it."""
    from learners.nets import ablation
    from mscsp.evaluation.harness import wilson

    rows = [
        {
            "labels": labels,
            "step": step,
            "positions": 32 * step,
            "games": 100,
            "wins": wins,
            "win_rate": wins / 100,
            "ci95": list(wilson(wins, 100)),
        }
        for labels in ablation.LABELS
        for step, wins in ((10, 0), (20, 7))
    ]
    for labels in ablation.LABELS:  # the runs' validation rows, which the MAE panel reads
        (tmp_path / labels).mkdir()
        row = {"step": 20, "split": "val", "mae": 0.05}
        (tmp_path / labels / "metrics.jsonl").write_text(json.dumps(row) + "\n")
    png = tmp_path / "ablation.png"
    ablation.plot_ablation(rows, ablation.AblationConfig(out=str(tmp_path)), png)
    assert png.stat().st_size > 0


def test_a_seed_systems_round_plays_its_own_rule_and_trains_its_cells(tiny, tmp_path):
    # thesis-mlp reveals one bordering cell per turn and trains on bordering cells only; its
    # rounds must do both, or they sharpen a player other than the one it ships as.
    from learners.nets.seed_mlps import make_thesis_player

    init = train.train(
        train.TrainConfig(
            model="thesis-mlp",
            data=[str(tiny["base"])],
            out=str(tmp_path / "init"),
            cells="frontier",
            steps=6,
            batch=8,
            eval_every=3,
        ),
        log=lambda _: None,
    )
    cfg = onpolicy.DaggerConfig(
        out=str(tmp_path / "dagger"),
        spec=SPEC,
        base=[str(tiny["base"])],
        init=str(init / train.MODEL_FILE),
        games=6,
        games_per_shard=6,
        beta=0.0,
        steps=2,
        batch=8,
        eval_every=2,
    )
    assert onpolicy.round_rule(cfg.init) == ("thesis-mlp", "thesis-mlp", "frontier")
    assert onpolicy.round_rule(str(tiny["init"])) == ("resnet", "learner", "all")
    onpolicy.run_rounds(cfg, workers=1, progress=False, log=lambda _: None)
    (shard,) = sorted((cfg.round_dir(1) / "data").glob("shard-*.npz"))
    assert data.read_meta(shard)["policy"]["system"] == "thesis-mlp"
    _, _, meta = train.load_model(cfg.round_dir(1) / "model")
    assert meta["train"]["cells"] == "frontier"
    system = make_thesis_player(str(init / train.MODEL_FILE))
    (group,) = data.load(cfg.round_dir(1) / "data")
    for seed in sorted(set(group.seed.tolist())):
        game = mscsp.Game(SPEC.rows, SPEC.cols, SPEC.mines, seed=seed, first_click="safe")
        game.reveal(0, 0)
        seen = []
        while not game.over:
            seen.append(game.view.copy())
            (move,) = system.next_moves(game.board())
            game.reveal(*move)
        assert np.array_equal(group.cells[group.seed == seed], np.array(seen))


def test_lockstep_play_follows_the_players_own_move_rule():
    # The batched loop must reveal what next_moves would: one cell per turn for thesis-mlp.
    from learners.nets.evaluate import play_games, play_lockstep
    from learners.nets.seed_mlps import make_thesis_player

    thesis = make_thesis_player()
    for rule in ("safe", "opening"):
        batched = play_lockstep(thesis, "beginner", 100, seed=11, batch=32, first_click=rule)
        one_by_one = play_games(thesis, "beginner", 100, seed=11, first_click=rule)
        assert batched["wins"] == one_by_one["wins"]
