"""Approximate backends: flagged approximate, within their stated bounds where exact is known."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from mscsp import solve
from mscsp.backends import BACKENDS, get_backend
from mscsp.backends.approxmc import ApproxmcBackend
from mscsp.cli import main
from mscsp.errors import InvalidInputError
from mscsp.evaluation.families import lattice

pytestmark = pytest.mark.skipif(
    not ApproxmcBackend.supported(), reason="needs pip install 'mscsp[approx]'"
)

#: Allowed probability error of the sampled marginals with the default 300 samples: about
#: four standard deviations of a proportion.
SAMPLED = 4 * 0.5 / np.sqrt(300)


def test_registered_as_approximate() -> None:
    assert not BACKENDS["approxmc"].exact
    rows = json.loads(CliRunner().invoke(main, ["backends", "--json"]).output)
    assert next(r for r in rows if r["name"] == "approxmc")["counts"] == "approximate"


def test_counts_within_epsilon_and_marginals_close(positions) -> None:
    epsilon = 0.8
    backend = get_backend("approxmc", epsilon=epsilon, delta=0.05, seed=3)
    checked = 0
    for board, _ in positions[:150]:
        exact = solve(board)
        for component, count in exact.components:
            approx = backend.count(component)
            assert not approx.exact
            for truth, estimate in zip(count.counts, approx.counts, strict=True):
                assert truth / (1 + epsilon) <= estimate <= truth * (1 + epsilon)
            checked += 1
    assert checked >= 20


def test_wide_component_probabilities_are_close() -> None:
    board = lattice(6, 6, 0.3, 1)
    exact = solve(board)
    approx = solve(board, backend=get_backend("approxmc", seed=2))
    assert not all(count.exact for _, count in approx.components)
    error = np.nanmax(np.abs(exact.probabilities - approx.probabilities))
    assert error <= SAMPLED


def test_bench_flags_approximate(tmp_path) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"board": lattice(4, 6, 0.3, 1).to_text()}) + "\n")
    result = CliRunner().invoke(
        main, ["bench", "--corpus", str(corpus), "--backend", "approxmc", "--json"]
    )
    assert result.exit_code == 0, result.output
    row = next(r for r in json.loads(result.output)["summary"] if r["backend"] == "approxmc")
    assert row["exact"] is False and row["max_abs_diff"] is not None


def test_bad_options() -> None:
    with pytest.raises(InvalidInputError, match="epsilon"):
        get_backend("approxmc", epsilon=0)
    with pytest.raises(InvalidInputError, match="numbers"):
        get_backend("approxmc", samples="many")
