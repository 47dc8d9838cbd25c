"""The seed papers' learned players: registry, update rules, tiny fits, shipped artefacts."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from learners.artefacts import weights_dir
from learners.registry import FAMILIES, SYSTEMS, LearnedSystem, get_learned
from mscsp import BackendUnavailableError, Game, InvalidInputError
from mscsp.cli import main
from mscsp.evaluation.harness import RunConfig, play_game
from mscsp.players import get_player

#: The board each system is measured on in its paper.
PAPER_BOARD = {
    "thesis-mlp": (9, 9, 10),
    "local-logistic": (4, 4, 3),
    "local-svm": (4, 4, 3),
    "global-ridge": (4, 4, 3),
    "q-simple": (4, 4, 3),
    "q-cluster": (8, 8, 10),
    "alexnet": (8, 8, 10),
    "blog-mlp": (9, 9, 10),
    "csp-xgb": (9, 9, 10),
    "csp-nn-iter": (9, 9, 10),
    "csp-dqn": (9, 9, 10),
    "csp-dqn-iter": (9, 9, 10),
}


def plays_whole_game(player, board, games: int = 2) -> list:
    """The player finishes ``games`` games on ``board`` (won or lost, never stuck).

    Returns:
        The games' results, in order.
    """
    config = RunConfig("test", *board, seed=3)
    results = []
    for i in range(games):
        result = play_game(player, config, i)
        assert result.moves >= 1 and 0 < result.cleared <= 1
        assert result.won == (result.cleared == 1)
        results.append(result)
    return results


def test_registry_is_ordered_by_paper_and_complete() -> None:
    default, *others = SYSTEMS.values()
    assert default.name == "learner" and default.family == "nets"
    seeds = [s for s in others if s.paper]
    assert [s.name for s in seeds] == list(PAPER_BOARD)
    # After the papers, this project's baselines (no paper).
    assert [s.name for s in others[len(seeds) :]] == ["rules-local"]
    papers = [s.paper[:3] for s in seeds]
    assert papers == sorted(papers)
    assert {s.family for s in SYSTEMS.values()} == set(FAMILIES)


def test_learner_specs_resolve_through_the_registry() -> None:
    pytest.importorskip("jax")
    for spec in ("learner", "learner:default"):
        player = get_player(spec, safe_below=0.05)
        assert player.path.name == "default.msgpack" and player.safe_below == 0.05
    with pytest.raises(InvalidInputError, match="takes no ':VALUE'"):
        get_player("csp-xgb:x")
    with pytest.raises(InvalidInputError, match="not trained by 'mscsp learn system'"):
        SYSTEMS["learner"].load("trainer")


def test_missing_extra_names_it() -> None:
    fake = LearnedSystem(
        "x", "classic", "m:f", "m:t", "classic", ("no_such_module_xyz",), "000", ""
    )
    assert not fake.supported()
    with pytest.raises(BackendUnavailableError, match=r"mscsp\[classic\]") as info:
        fake.load("player")
    assert info.value.exit_code == 4


def test_unknown_names_list_the_learned_players() -> None:
    with pytest.raises(InvalidInputError, match="q-cluster"):
        get_player("no-such-player")


# --- update rules on hand-made transitions -------------------------------------------


def test_q_simple_algorithm2_update() -> None:
    from learners.qlearning.simple import SimpleTable

    table = SimpleTable(4)
    table.update_initial(b"s", 2, 1.0, eta=0.1)
    assert table.values[b"s"][2] == pytest.approx(0.1)
    table.update_initial(b"s", 2, -1.0, eta=0.1)
    assert table.values[b"s"][2] == pytest.approx(0.9 * 0.1 - 0.1)
    assert table.values[b"s"][[0, 1, 3]].tolist() == [0, 0, 0] and table.visits[b"s"] == 2


def test_q_simple_algorithm3_counts_safe_frontier_cells() -> None:
    from learners.qlearning.simple import SimpleTable

    table = SimpleTable(4)
    table.update_improved(b"s", np.array([1, 3]))
    table.update_improved(b"s", np.array([3]))
    assert table.values[b"s"].tolist() == [0, 1, 0, 2] and table.visits[b"s"] == 2


def test_q_cluster_equation2_and_table2() -> None:
    from learners.qlearning.cluster import CLICK, IGNORE, REWARD, ClusterTable

    table = ClusterTable()
    table.update(7, CLICK, REWARD[CLICK, False], alpha=0.1)
    table.update(7, CLICK, REWARD[CLICK, False], alpha=0.1)  # no -Q(s, a) term: it adds up
    table.update(7, IGNORE, REWARD[IGNORE, False], alpha=0.1)
    assert table.q[7].tolist() == pytest.approx([0.2, -0.1])
    table.update(8, CLICK, REWARD[CLICK, True], alpha=0.1)
    table.update(8, IGNORE, REWARD[IGNORE, True], alpha=0.1)
    assert table.q[8].tolist() == pytest.approx([-0.1, 0.1])


def test_epsilon_schedule() -> None:
    from learners.qlearning.tables import epsilon

    assert epsilon(0) == pytest.approx(0.9)
    assert epsilon(1) == pytest.approx(0.891)
    assert epsilon(10_000) == 0.1


def test_cluster_keys_tell_clusters_apart() -> None:
    from learners.qlearning.cluster import cluster_keys

    cells = np.full((3, 3), -1, np.int8)
    keys = cluster_keys(cells)
    assert len(set(keys.tolist())) == 9  # every position sees a different border
    cells[1, 1] = 2
    assert cluster_keys(cells)[0] != keys[0]


def test_training_episode_on_the_env_keeps_counts_consistent() -> None:
    pytest.importorskip("gymnasium")
    from learners.qlearning.simple import SimpleTable, run_episode
    from mscsp.env import MinesweeperEnv

    env, table = MinesweeperEnv(4, 4, 3), SimpleTable(16)
    assert all(run_episode(env, table, "improved", seed) for seed in range(30))
    for key, row in table.values.items():
        assert (row <= table.visits[key]).all()
        covered = np.frombuffer(key, dtype=np.int8) == -1
        assert (row[~covered] == 0).all()  # only covered cells are ever counted


def test_dqn_reward_and_linear_discount() -> None:
    from learners.guess.dqn import discounted_returns

    assert discounted_returns([0.3, 0.2, 0.6]) == pytest.approx(
        [0.3 + 0.2 / 2 + 0.6 / 3, 0.2 + 0.6 / 2, 0.6]
    )


def test_substates_mark_edges_and_revealed() -> None:
    from learners.guess.dqn import OFF_BOARD, REVEALED, substates

    grid = np.array([[REVEALED, 0.2], [0.3, 0.4]])
    sub = substates(grid, np.array([0]))[0].reshape(3, 3)
    assert (sub[0] == OFF_BOARD).all() and (sub[:, 0] == OFF_BOARD).all()
    assert sub[1, 1] == REVEALED and sub[2, 2] == pytest.approx(0.4)


# --- tiny fits that play whole games -------------------------------------------------


@pytest.mark.parametrize("kind", ["logistic", "svm"])
def test_local_classifiers_fit_and_play(kind: str) -> None:
    pytest.importorskip("sklearn")
    from learners.classic.data import PAPER_BOARDS
    from learners.classic.local import LocalPlayer, fit, local_dataset

    x, y = local_dataset(PAPER_BOARDS[:2], 6, seed=1)
    assert 0 < y.mean() < 1
    player = LocalPlayer(fit(kind, x, y, seed=0, max_samples=500))
    plays_whole_game(player, (5, 5, 4))


def test_certainly_safe_labels_agree_with_the_layout() -> None:
    from learners.classic.data import oracle_states

    for board, solution in oracle_states(6, 6, 6, seed=4):
        assert all(board.cells[c] == -1 for c in solution.safe)
    game = Game(6, 6, 6, seed=[4, 0])
    game.reveal(0, 0)
    for cell in solution.safe:
        assert not game.mine[cell]


def test_ridge_fits_and_plays(tmp_path) -> None:
    pytest.importorskip("sklearn")
    from learners.classic import ridge

    meta = ridge.train(tmp_path, games=20, board=(4, 4, 3), log=lambda m: None)
    assert meta["4x4x3"]["positions"] > 20
    player = get_learned("global-ridge", weights=str(tmp_path / ridge.file_name(4, 4, 3)))
    plays_whole_game(player, (4, 4, 3))
    with pytest.raises(InvalidInputError, match="4x4x3"):
        plays_whole_game(player, (5, 5, 5))


def test_q_simple_trains_resumes_and_plays(tmp_path) -> None:
    pytest.importorskip("gymnasium")
    from learners.qlearning import simple

    quiet = {"log": lambda m: None, "board": (4, 4, 3)}
    simple.train(tmp_path / "a", games=60, checkpoint_every=30, **quiet)
    simple.train(tmp_path / "b", games=30, **quiet)
    simple.train(tmp_path / "b", games=60, resume=True, checkpoint_every=30, **quiet)
    name = simple.file_name(4, 4, 3)
    a, _ = simple.SimpleTable.load(tmp_path / "a" / name)
    b, _ = simple.SimpleTable.load(tmp_path / "b" / name)
    assert a.visits == b.visits and all(np.array_equal(a.values[k], b.values[k]) for k in a.values)
    plays_whole_game(get_learned("q-simple", weights=str(tmp_path / "a" / name)), (4, 4, 3))


def test_q_cluster_trains_and_plays(tmp_path) -> None:
    pytest.importorskip("gymnasium")
    from learners.qlearning import cluster

    meta = cluster.train(tmp_path, games=15, log=lambda m: None)
    assert meta["clusters"] > 0 and meta["episodes"] == 15
    plays_whole_game(get_learned("q-cluster", weights=str(tmp_path / cluster.FILE)), (8, 8, 10))


def test_csp_xgb_fits_and_plays(tmp_path) -> None:
    pytest.importorskip("xgboost")
    from learners.guess import xgb

    meta = xgb.train(tmp_path, games=8, log=lambda m: None)
    assert meta["rows"] > 0
    plays_whole_game(get_learned("csp-xgb", weights=str(tmp_path / xgb.FILE)), (9, 9, 10))


def test_csp_nn_iter_resume_matches_one_run(tmp_path, monkeypatch) -> None:
    pytest.importorskip("jax")
    from learners.guess import common, nn_iter
    from learners.nets.train import load_model

    small = common.random_board
    monkeypatch.setattr(nn_iter, "BATCH_GAMES", 3)
    monkeypatch.setattr(common, "random_board", lambda rng: small(rng, max_rows=7))
    quiet = {"log": lambda m: None, "epochs": 2}
    nn_iter.train(tmp_path / "a", games=2, **quiet)
    nn_iter.train(tmp_path / "b", games=1, **quiet)
    nn_iter.train(tmp_path / "b", games=2, resume=True, **quiet)
    import jax

    a = jax.tree.leaves(load_model(tmp_path / "a" / nn_iter.FILE)[0])
    b = jax.tree.leaves(load_model(tmp_path / "b" / nn_iter.FILE)[0])
    assert all(np.allclose(x, y) for x, y in zip(a, b, strict=True))
    plays_whole_game(
        get_learned("csp-nn-iter", weights=str(tmp_path / "a" / nn_iter.FILE)), (9, 9, 10)
    )


def test_csp_dqn_single_and_iterative(tmp_path, monkeypatch) -> None:
    pytest.importorskip("jax")
    from learners.guess import dqn

    monkeypatch.setattr(dqn, "ALPHA_BOARDS", ((5, 5),))
    monkeypatch.setattr(dqn, "ALPHA_RATIOS", (0.2,))
    meta = dqn.train(tmp_path, games=6, alpha_games=1, epochs=2, log=lambda m: None)
    assert len(meta["theta"]) == 4 and meta["guesses"] > 0
    meta = dqn.train_iter(tmp_path, games=1, epochs=2, log=lambda m: None)
    assert meta["episodes"] == 1
    for name, file in (("csp-dqn", dqn.FILE), ("csp-dqn-iter", dqn.ITER_FILE)):
        plays_whole_game(get_learned(name, weights=str(tmp_path / file)), (9, 9, 10))


def test_alexnet_fits_and_plays(tmp_path) -> None:
    pytest.importorskip("jax")
    from flax import nnx

    from learners.nets import data, models, train

    positions = [
        (b.cells, s.probabilities)
        for b, s, _ in data.play_positions(data.GenSpec(8, 8, 10), seed=1, backend="dss")
    ]
    cells = np.array([c for c, _ in positions])
    target = np.nan_to_num(np.array([p for _, p in positions])).astype(np.float32)
    model = models.build("alexnet", seed=0)
    optimizer = nnx.Optimizer(model, optax_adam(), wrt=nnx.Param)
    x = data.encode(cells, 10)
    losses = [float(train.train_step(model, optimizer, x, target, cells == -1)) for _ in range(3)]
    assert losses[-1] < losses[0]
    path = tmp_path / "alexnet.msgpack"
    train.save_model(path, model, models.CONFIGS["alexnet"])
    plays_whole_game(get_learned("alexnet", weights=str(path)), (8, 8, 10), games=1)


def optax_adam():
    import optax

    return optax.adam(1e-3)


# --- shipped artefacts and the CLI ---------------------------------------------------


def is_shipped(name: str) -> bool:
    """Whether ``learners/weights`` holds an artefact of ``name`` (``NAME.*`` or per board)."""
    found = [*weights_dir().glob(f"{name}.*"), *weights_dir().glob(f"{name}-*x*x*.*")]
    return any(p.suffix != ".json" for p in found)


@pytest.mark.parametrize("name", list(PAPER_BOARD))
def test_shipped_artefact_loads_and_plays(name: str) -> None:
    """Every system whose artefact is shipped loads it and plays a whole game on its board."""
    system = SYSTEMS[name]
    if not system.supported():
        pytest.skip(f"needs mscsp[{system.extra}]")
    if not is_shipped(name):
        pytest.skip(f"no artefact of {name} in learners/weights yet")
    (result,) = plays_whole_game(get_player(name), PAPER_BOARD[name], games=1)
    assert result.moves >= 1, f"{name}'s shipped artefact made no move"


def test_cli_trains_then_plays_by_name(tmp_path) -> None:
    pytest.importorskip("gymnasium")
    runner = CliRunner()
    listing = runner.invoke(main, ["learn", "system", "--list"])
    assert listing.exit_code == 0 and "q-cluster" in listing.output
    assert listing.output.startswith("learner ")  # the registry's default comes first
    own_commands = runner.invoke(main, ["learn", "system", "learner"])
    assert own_commands.exit_code == 2 and "mscsp learn train" in own_commands.output
    out = tmp_path / "q"
    trained = runner.invoke(
        main,
        [
            "learn",
            "system",
            "q-simple",
            "--size",
            "4x4",
            "--mines",
            "3",
            "--games",
            "20",
            "--out",
            str(out),
            "--json",
        ],
    )
    assert trained.exit_code == 0, trained.output
    weights = out / "q-simple-4x4x3.npz"
    played = runner.invoke(
        main,
        [
            "play",
            "-s",
            "q-simple",
            "--rows",
            "4",
            "--cols",
            "4",
            "--mines",
            "3",
            "-n",
            "5",
            "-o",
            f"weights={weights}",
            "--json",
        ],
    )
    assert played.exit_code == 0, played.output
    assert json.loads(played.stdout)["games"] == 5


@pytest.mark.parametrize(
    "args",
    [
        ["q-simple", "--size", "4by4", "--mines", "3"],
        ["q-simple", "--size", "4x4"],
        ["q-simple", "-o", "no_such_option=1"],
    ],
)
def test_cli_bad_input_is_exit_2(args, tmp_path) -> None:
    result = CliRunner().invoke(main, ["learn", "system", *args, "--out", str(tmp_path)])
    assert result.exit_code == 2, result.output


# --- classic model files: a format that cannot run code ------------------------------

#: The scikit-learn systems and their shipped model files (per board for global-ridge).
SKLEARN_SHIPPED = {
    "global-ridge-4x4x3": "global-ridge",
    "global-ridge-5x5x5": "global-ridge",
    "local-logistic": "local-logistic",
    "local-svm": "local-svm",
}


def model_outputs(stem: str, model, board) -> list[float]:
    """What a model answers on ``board``: ridge's probabilities, a local classifier's
    decision values on the perimeter (the values its player ranks cells by)."""
    from learners.classic import local, ridge

    values = (
        ridge.predict(model, board)
        if stem.startswith("global-ridge")
        else local.scores(model, board)
    )
    return [float(v) for v in values.ravel() if np.isfinite(v)]


@pytest.mark.parametrize("stem", SKLEARN_SHIPPED)
def test_shipped_models_are_skops_files_that_answer_as_the_pickles_did(stem: str) -> None:
    """Each shipped model is a skops file (no pickle is shipped), and it answers exactly as
    the pickle it was converted from did on the positions its metadata records."""
    pytest.importorskip("skops")
    from learners.artefacts import load_model
    from mscsp.evaluation.played_positions import sample_positions

    assert not list(weights_dir().glob("*.pkl"))
    model = load_model(weights_dir() / f"{stem}.skops", SKLEARN_SHIPPED[stem])
    check = json.loads((weights_dir() / f"{stem}.json").read_text())["check"]
    boards = sample_positions(*check["board"], check["positions"], seed=check["seed"])
    got = [v for board in boards for v in model_outputs(stem, model, board)]
    np.testing.assert_allclose(got, check["outputs"], rtol=1e-9, atol=1e-12)


class RunsCode:
    """A pickle payload: unpickling it creates the file ``marker`` (as ``id`` ran before)."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def gzip_pickle(path, obj) -> None:
    """``obj`` as earlier releases wrote model files: a gzip-compressed pickle."""
    import gzip
    import pickle

    path.write_bytes(gzip.compress(pickle.dumps(obj)))


@pytest.mark.parametrize("name", ["local-logistic", "local-svm", "global-ridge"])
def test_a_pickle_given_as_weights_is_refused_unread_without_trust_pickle(name, tmp_path) -> None:
    pytest.importorskip("skops")
    marker = tmp_path / "ran"
    weights = tmp_path / "m-4x4x3.pkl"
    gzip_pickle(weights, RunsCode(marker))
    with pytest.raises(InvalidInputError, match="--trust-pickle") as info:
        get_learned(name, weights=str(weights))
    assert "\n" not in str(info.value) and "--convert" in str(info.value)
    assert not marker.exists()  # the payload never ran
    result = CliRunner().invoke(
        main,
        ["play", "--strategy", name, "-o", f"weights={weights}", "--size", "4x4", "--mines", "3"],
    )
    assert result.exit_code == 2 and not marker.exists()
    assert result.output.strip().count("\n") == 0, result.output


def test_a_skops_file_naming_a_type_outside_the_list_is_refused_unbuilt(tmp_path) -> None:
    """skops trusts every scikit-learn type by default; a model file may hold only the
    seed systems' pipelines: ``os.system`` as a transformer's function is refused."""
    skops_io = pytest.importorskip("skops.io")
    import os

    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer, StandardScaler

    hostile = tmp_path / "local-logistic.skops"
    hostile.write_bytes(skops_io.dumps(make_pipeline(FunctionTransformer(os.system))))
    with pytest.raises(InvalidInputError, match="may not hold .*system"):
        get_learned("local-logistic", weights=str(hostile))
    other = tmp_path / "other.skops"
    other.write_bytes(skops_io.dumps(make_pipeline(StandardScaler())))
    with pytest.raises(InvalidInputError, match="may not hold sklearn.preprocessing"):
        get_learned("local-svm", weights=str(other))
    for junk in (b"PK\x03\x04" + b"\x00" * 64, b"not a model"):
        (tmp_path / "junk.skops").write_bytes(junk)
        with pytest.raises(InvalidInputError, match="local-svm"):
            get_learned("local-svm", weights=str(tmp_path / "junk.skops"))


def test_a_ridge_model_file_must_be_named_by_its_board(tmp_path) -> None:
    pytest.importorskip("skops")
    for name in ("ridge.skops", "ridge-4x4x².skops", "ridge-4x4x99999999999999.skops"):
        (tmp_path / name).write_bytes(b"")
        with pytest.raises(InvalidInputError, match="ROWSxCOLSxMINES"):
            get_learned("global-ridge", weights=str(tmp_path / name))


def test_trained_local_models_are_saved_as_skops_and_play(tmp_path) -> None:
    pytest.importorskip("skops")
    from learners.classic import local

    local.train_logistic(tmp_path, games=6, log=lambda m: None)
    (path,) = tmp_path.glob("local-logistic.*[!n]")  # the model, not its .json
    assert path.suffix == ".skops" and path.read_bytes().startswith(b"PK")
    plays_whole_game(get_learned("local-logistic", weights=str(path)), (5, 5, 4))


def test_a_trusted_pickle_converts_once_and_then_loads_without_trust(tmp_path) -> None:
    pytest.importorskip("skops")
    from learners.artefacts import load_model
    from mscsp.evaluation.played_positions import sample_positions

    shipped = load_model(weights_dir() / "global-ridge-4x4x3.skops", "global-ridge")
    old = tmp_path / "global-ridge-4x4x3.pkl"
    gzip_pickle(old, shipped)  # an earlier release's file, from a source the user trusts
    player = get_learned("global-ridge", weights=str(old), trust_pickle=True)
    plays_whole_game(player, (4, 4, 3), games=1)
    args = [
        "learn",
        "system",
        "global-ridge",
        "--convert",
        str(old),
        "--out",
        str(tmp_path / "new"),
    ]
    refused = CliRunner().invoke(main, args)
    assert refused.exit_code == 2 and "--trust-pickle" in refused.output
    assert not (tmp_path / "new").exists()
    result = CliRunner().invoke(main, [*args, "--trust-pickle"])
    assert result.exit_code == 0, result.output
    converted = tmp_path / "new" / "global-ridge-4x4x3.skops"
    model = load_model(converted, "global-ridge")
    (board,) = sample_positions(4, 4, 3, 1, seed=2)
    assert model_outputs("global-ridge", model, board) == model_outputs(
        "global-ridge", shipped, board
    )


def test_a_bad_xgboost_model_is_one_line_and_a_fifo_is_not_waited_on(tmp_path) -> None:
    pytest.importorskip("xgboost")
    import os

    junk = tmp_path / "junk.ubj"
    junk.write_bytes(b"junk" * 10)
    with pytest.raises(InvalidInputError, match="is not an XGBoost model") as info:
        get_learned("csp-xgb", weights=str(junk))
    assert "\n" not in str(info.value) and "Stack trace" not in str(info.value)
    fifo = tmp_path / "model.ubj"
    os.mkfifo(fifo)
    with pytest.raises(InvalidInputError, match="model.ubj"):  # refused, not read: no hang
        get_learned("csp-xgb", weights=str(fifo))
