"""Every estimator through one fixture; the registry, its errors, and the metrics."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from mscsp import COVERED, FLAG, parse_board, solve
from mscsp.backends import BACKENDS, DEFAULT_BACKEND
from mscsp.backends.sat import SatBackend
from mscsp.cli import main
from mscsp.errors import BackendUnavailableError, InvalidInputError
from mscsp.estimators import (
    FAMILIES,
    estimator_kinds,
    get_estimator,
    is_counting,
)
from mscsp.evaluation.metrics import CellErrors, cell_errors
from mscsp.evaluation.played_positions import sample_positions

#: One of each kind of estimator (the counting backends have their own brute-force tests).
SPECS = [
    "dss",
    "approxmc",
    "sampler:300",
    "csp-limited",
    "bp",
    "mcmc:50",
    "learner:default",
    "alexnet",
]

#: A small position with a flag (on a true mine), to check flags and revealed cells.
FLAGGED = "5x5x4\n1F1??\n111??\n?????\n?????\n?????\n"


@pytest.fixture(scope="module", params=SPECS)
def estimator(request: pytest.FixtureRequest):
    """Each estimator of :data:`SPECS`, skipped where its extra is missing."""
    kind = estimator_kinds()[request.param.partition(":")[0]]
    if not kind.available():
        pytest.skip(f"{request.param!r} needs pip install 'mscsp[{kind.extra}]'")
    return get_estimator(request.param)


#: Learned estimators trained on one board only: their mine count is checked there.
TRAINED_ON = {"alexnet": (8, 8, 10)}


def test_estimates_have_the_board_shape_and_sum_to_the_mines_left(estimator, expert_positions):
    own = TRAINED_ON.get(estimator.kind.name)
    counted = sample_positions(*own, 3, seed=5) if own else expert_positions[:3]
    for board in [parse_board(FLAGGED), *expert_positions[:3], *counted]:
        p = estimator.estimate(board)
        covered = board.cells == COVERED
        assert p.shape == board.shape
        assert np.isnan(p[board.cells >= 0]).all()
        assert (p[board.cells == FLAG] == 1.0).all()
        assert ((p[covered] >= 0) & (p[covered] <= 1)).all()
        if own and board not in counted:
            continue  # off its training board a seed net's density is its own (8x8/10's)
        left = board.mines - int((board.cells == FLAG).sum())
        # Counters and samplers keep the mine count exactly; a network only roughly.
        slack = 1e-6 if estimator.kind.family != "learned" else 2 + 0.25 * left
        assert abs(p[covered].sum() - left) <= slack


def test_a_batch_gives_what_one_by_one_gives(estimator, expert_positions):
    boards = [parse_board(FLAGGED), *expert_positions[:3]]
    for one, many in zip(
        [estimator.estimate(b) for b in boards], estimator.estimate_batch(boards), strict=True
    ):
        np.testing.assert_allclose(one, many, rtol=1e-5, atol=1e-6)


def test_exact_estimators_equal_the_solver(expert_positions):
    board = expert_positions[0]
    np.testing.assert_array_equal(get_estimator("dss").estimate(board), solve(board).probabilities)


def test_registry_lists_every_backend_first_and_the_default_first():
    kinds = estimator_kinds()
    assert next(iter(kinds)) == DEFAULT_BACKEND
    assert list(kinds)[: len(BACKENDS)] == list(BACKENDS)
    assert {"sampler", "csp-limited", "learner"} <= set(kinds)
    assert all(k.family in FAMILIES for k in kinds.values())
    assert all(k.exact == (k.family == "exact") for k in kinds.values())
    assert is_counting("sat:cadical195") and not is_counting("learner:default")


def test_bad_names_give_one_line_naming_the_choices():
    with pytest.raises(InvalidInputError, match="choose from dss.*sampler:N.*learner:PATH"):
        get_estimator("nope")
    with pytest.raises(InvalidInputError, match="sampler:N needs a whole number"):
        get_estimator("sampler:0")
    with pytest.raises(InvalidInputError, match="whole number"):
        get_estimator("csp-limited:many")
    with pytest.raises(InvalidInputError, match="backend 'alexnet' takes no ':x'"):
        get_estimator("alexnet:x")
    result = CliRunner().invoke(main, ["probs", "--backend", "learnr:default"])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "learner:PATH" in result.output


def test_a_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(SatBackend, "supported", classmethod(lambda c: False))
    with pytest.raises(BackendUnavailableError, match=r"mscsp\[sat\]"):
        get_estimator("sat")
    registry = pytest.importorskip("learners.registry")
    missing = dataclasses.replace(registry.SYSTEMS["learner"], requires=("no_such_module_x",))
    monkeypatch.setitem(registry.SYSTEMS, "learner", missing)
    with pytest.raises(BackendUnavailableError, match=r"mscsp\[ml\]"):
        get_estimator("learner:default")
    result = CliRunner().invoke(main, ["probs", "--backend", "learner:default"])
    assert result.exit_code == 4 and "pip install 'mscsp[ml]'" in result.output


def test_a_missing_checkpoint_is_bad_input(tmp_path):
    if not estimator_kinds()["learner"].available():
        pytest.skip("needs the ml extra")
    with pytest.raises(InvalidInputError, match="no model checkpoint"):
        get_estimator(f"learner:{tmp_path / 'none.msgpack'}")


def test_metrics_on_hand_checked_cells():
    estimate = np.array([[0.0, 0.5], [0.02, 0.005]])
    exact = np.array([[0.0, 0.25], [0.0, 0.5]])
    mask = np.array([[True, True], [True, True]])
    got = cell_errors(estimate, exact, mask).summary()
    diffs = [0.0, 0.25, 0.02, 0.495]
    assert got["cells"] == 4
    assert got["max_abs_diff"] == pytest.approx(0.495)
    assert got["mean_abs_diff"] == pytest.approx(sum(diffs) / 4)
    assert got["brier"] == pytest.approx(sum(d * d for d in diffs) / 4)
    eps = 1e-6
    losses = [
        -math.log(1 - eps),  # p clipped to eps, q = 0
        -(0.25 * math.log(0.5) + 0.75 * math.log(0.5)),
        -math.log(1 - 0.02),
        -(0.5 * math.log(0.005) + 0.5 * math.log(0.995)),
    ]
    assert got["log_loss"] == pytest.approx(sum(losses) / 4)
    # (1, 0): exact 0 but estimated 0.02; (1, 1): estimated 0.005 but exact 0.5.
    assert got["certain_safe_called_unsafe"] == 1
    assert got["called_safe_not_safe"] == 1


def test_metrics_add_up_over_positions_and_skip_masked_cells():
    a = cell_errors(np.array([0.1, 0.9]), np.array([0.0, 1.0]), np.array([True, False]))
    b = cell_errors(np.array([0.3]), np.array([0.5]), np.array([True]))
    total = (a + b).summary()
    assert total["cells"] == 2
    assert total["mean_abs_diff"] == pytest.approx((0.1 + 0.2) / 2)
    assert total["max_abs_diff"] == pytest.approx(0.2)
    bins = (a + b).calibration()
    assert [r["cells"] for r in bins] == [1, 1]
    assert bins[0]["estimate"] == pytest.approx(0.1) and bins[1]["exact"] == pytest.approx(0.5)
    assert CellErrors().summary()["mean_abs_diff"] is None


def _learner_or_skip() -> None:
    if not estimator_kinds()["learner"].available():
        pytest.skip("needs the ml extra")


def test_probs_prints_the_learned_map_as_approximate():
    _learner_or_skip()
    runner = CliRunner()
    text = runner.invoke(main, ["probs", "--backend", "learner:default"])
    assert text.exit_code == 0, text.output
    assert text.output.startswith("APPROXIMATE probabilities (backend learner:default)")
    assert "certain mines (0): none" in text.output  # an estimate proves nothing
    out = json.loads(
        runner.invoke(main, ["probs", "--backend", "learner:default", "--json"]).output
    )
    assert out["exact"] is False and out["approximate"] is True
    assert out["backend"] == "learner:default" and out["safe"] == []
    probs = [p for row in out["probabilities"] for p in row if p is not None]
    assert probs and all(0 < p < 1 for p in probs)
    refused = runner.invoke(main, ["probs", "--backend", "learner:default", "--exact"])
    assert refused.exit_code == 2 and "--exact needs exact counts" in refused.output


def test_bench_reports_every_metric_and_win_rate_for_a_learner(tmp_path):
    _learner_or_skip()
    args = ["bench", "--preset", "beginner", "--positions", "3", "--in-process", "--json"]
    args += ["--backend", "dss,sampler:50,learner:default", "--games", "2", "--out", str(tmp_path)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    out = json.loads(result.output.splitlines()[-1])
    rows = {r["backend"]: r for r in out["summary"]}
    keys = {"median_ms", "p95_ms", "max_abs_diff", "mean_abs_diff", "brier", "log_loss"}
    keys |= {"certain_safe_called_unsafe", "called_safe_not_safe", "positions_per_s", "games"}
    for name, row in rows.items():
        assert keys <= set(row), name
        assert row["games"]["games"] == 2 and row["games"]["ci_low"] <= row["games"]["win_rate"]
    learner = rows["learner:default"]
    assert learner["exact"] is False and learner["family"] == "learned"
    assert learner["positions_per_s"] > 0 and rows["sampler:50"]["positions_per_s"] is None
    assert rows["dss"]["mean_abs_diff"] == 0 and rows["dss"]["brier"] == 0
    assert set(out["calibration"]) == {"sampler:50", "learner:default"}
    family = out["by_family"][0]["learner:default"]
    assert family["mean_abs_diff"] == pytest.approx(learner["mean_abs_diff"])
    assert (tmp_path / "calibration.png").stat().st_size > 0


def test_bench_refuses_an_estimate_as_reference_and_in_decide_mode():
    runner = CliRunner()
    refused = runner.invoke(main, ["bench", "--reference", "sampler:10", "--backend", "dss"])
    assert refused.exit_code == 2 and "exact counting backend" in refused.output
    refused = runner.invoke(main, ["bench", "--decide", "--backend", "sampler:10"])
    assert refused.exit_code == 2 and "counting backends only" in refused.output


def test_backends_lists_every_estimator_with_its_family():
    rows = json.loads(CliRunner().invoke(main, ["backends", "--json"]).output)
    by_name = {r["name"]: r for r in rows}
    assert by_name["learner"]["family"] == "learned" and by_name["learner"]["arg"] == "PATH"
    assert by_name["learner"]["batches"] and by_name["learner"]["extra"] == "ml"
    assert by_name["sampler"]["exact"] is False and by_name["sampler"]["counts"] is None
    assert by_name["dss"]["family"] == "exact" and by_name["approxmc"]["family"] == "approximate"


def test_analyser_answers_an_estimate_with_its_difference_from_exact():
    _learner_or_skip()
    service = pytest.importorskip("mscsp.web.service")
    limits = service.Limits()
    assert "learner:default" in [e["name"] for e in service.meta(limits)["estimators"]]
    answer = service.solve_request({"board": FLAGGED, "backend": "learner:default"}, limits)
    assert answer["approximate"] is True and answer["exact"] is False
    assert answer["cells"] == [] and answer["reference"] == DEFAULT_BACKEND
    board = parse_board(FLAGGED)
    exact = solve(board).probabilities
    for r, c in zip(*np.nonzero(board.cells == COVERED), strict=True):
        estimate = answer["probabilities"][r][c]
        assert answer["difference"][r][c] == pytest.approx(estimate - exact[r, c], abs=1e-12)
    assert answer["difference"][0][0] is None and answer["difference"][0][1] is None  # 1, F


def test_bench_text_shows_accuracy_and_error_per_family(tmp_path):
    boards = sample_positions(9, 9, 10, 2, seed=3)
    corpus = tmp_path / "families.jsonl"
    lines = [
        json.dumps({"board": b.to_text(), "family": family})
        for b, family in zip(boards, ("wide", "dense"), strict=True)
    ]
    corpus.write_text("\n".join(lines) + "\n")
    args = ["bench", "--corpus", str(corpus), "--backend", "sampler:20,csp-limited"]
    result = CliRunner().invoke(main, [*args, "--in-process"])
    assert result.exit_code == 0, result.output
    text = result.output
    assert "accuracy against dss" in text and "mean |dp|" in text
    table = text[text.index("per family: where") :]
    assert "wide" in table and "dense" in table and "csp-limited" in table


def test_an_exact_answer_calls_no_cell_falsely_safe_against_itself():
    # Tiny nonzero probabilities (0.005) are called safe by the exact odds too.
    exact = np.array([0.0, 0.005, 0.009, 0.01, 0.5])
    assert cell_errors(exact, exact, np.ones(5, bool)).summary()["called_safe_not_safe"] == 0
    lower = np.array([0.0, 0.0, 0.0, 0.009, 0.5])
    assert cell_errors(lower, exact, np.ones(5, bool)).summary()["called_safe_not_safe"] == 1
