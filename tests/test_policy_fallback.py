"""One fallback rule for both doors (:mod:`mscsp.policy`): which estimators may stand in
for an exact count, with which share of the time, and what the answer records."""

from __future__ import annotations

import pytest

from mscsp.errors import InvalidInputError, SolverLimitError
from mscsp.estimators import get_estimator
from mscsp.policy.fallback import COMMAND, REQUEST, check_fallback, fallback_record
from mscsp.policy.limits import both_stopped, why_stopped


@pytest.mark.parametrize("door", [COMMAND, REQUEST])
def test_an_estimator_that_does_not_count_may_stand_in_for_a_count(door):
    assert check_fallback("bp", "dss", door) == "bp"
    assert check_fallback(None, "bp", door) is None  # no fallback: nothing to check


@pytest.mark.parametrize(
    ("door", "spec", "backend", "words"),
    [
        (COMMAND, "dss", "dss", "--fallback takes an estimator that does not count"),
        (REQUEST, "dss", "dss", "fallback takes an estimator that does not count"),
        (COMMAND, "mcmc", "bp", "--fallback stands in for an exact count; --backend bp"),
        (REQUEST, "mcmc", "bp", "fallback stands in for an exact count; backend bp"),
        (COMMAND, "nonesuch", "dss", "nonesuch"),
    ],
)
def test_each_door_refuses_in_its_own_names(door, spec, backend, words):
    with pytest.raises(InvalidInputError, match=words):
        check_fallback(spec, backend, door)


def test_a_request_splits_one_clock_and_a_command_gives_each_stage_its_limit():
    assert (REQUEST.count_seconds(4.0), REQUEST.estimate_seconds(10.0)) == (2.0, 5.0)
    assert (COMMAND.count_seconds(4.0), COMMAND.estimate_seconds(10.0)) == (4.0, 10.0)


def test_the_record_and_the_stopped_words():
    bp = get_estimator("bp")
    record = fallback_record("bp", "the time limit was hit", bp)
    assert record == {
        "estimator": "bp",
        "exact_stopped": "the time limit was hit",
        "measured_mean_abs_error": dict(bp.measured),
    }
    stop = SolverLimitError("the time limit was hit")
    assert why_stopped(stop, REQUEST, 3.0, share_used=True) == (
        "it used its half of the analyser's 3 s limit"
    )
    assert why_stopped(stop, REQUEST, 3.0, share_used=False) == "the time limit was hit"
    assert why_stopped(stop, COMMAND, 3.0, share_used=True) == "the time limit was hit"
    both = both_stopped("a", SolverLimitError("b"), COMMAND)
    assert str(both) == "the exact count stopped (a), and so did --fallback: b"
