"""``mscsp learn`` stays light: importing mscsp or its CLI never loads JAX."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from mscsp.cli import main


@pytest.mark.parametrize(
    ("code", "unwanted"),
    [
        ("import mscsp, mscsp.cli", ("jax", "flax", "optax", "learners")),
        # Listing the estimators reads learners.registry, which imports nothing heavy.
        ("import mscsp.estimators as e; e.estimator_kinds()", ("jax", "flax", "sklearn")),
    ],
)
def test_import_does_not_load_jax(code: str, unwanted: tuple[str, ...]):
    code += f"; import sys; print(any(m in sys.modules for m in {unwanted!r}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_learn_help_lists_commands():
    res = CliRunner().invoke(main, ["learn", "--help"])
    assert res.exit_code == 0
    assert all(cmd in res.output for cmd in ("data", "train", "eval"))


def test_data_needs_a_board():
    res = CliRunner().invoke(main, ["learn", "data", "unused"])
    assert res.exit_code == 2 and "--preset" in res.output


def test_missing_or_corrupt_checkpoint_is_a_clear_error(tmp_path):
    pytest.importorskip("jax")
    bad = tmp_path / "bad.msgpack"
    bad.write_bytes(b"not a checkpoint")
    for path in (tmp_path / "missing.msgpack", bad):
        result = CliRunner().invoke(main, ["learn", "eval", str(path)])
        assert result.exit_code == 2
        assert "checkpoint" in result.output
        assert "Traceback" not in result.output


def test_eval_prints_a_summary_or_json_and_takes_a_seed(tmp_path):
    pytest.importorskip("flax")
    from learners.nets.evaluate import EVAL_SEED

    args = ["learn", "eval", "default", "--games", "1", "--preset", "beginner"]
    report = tmp_path / "report.json"
    as_json = CliRunner().invoke(main, [*args, "--seed", "7", "--json", "--out", str(report)])
    assert as_json.exit_code == 0, as_json.output
    out = json.loads(as_json.stdout)
    assert out["seed"] == 7 and out["games"]["beginner"]["learner"]["games"] == 1
    assert json.loads(report.read_text()) == out
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 0, text.output
    assert not text.stdout.lstrip().startswith("{")
    assert "win rates" in text.stdout and "beginner" in text.stdout
    # The CLI's default seed is the evaluation's own (written twice so the CLI loads no JAX).
    seed = next(p for p in main.commands["learn"].commands["eval"].params if p.name == "seed")
    assert seed.default == EVAL_SEED
