"""The win-rate harness: determinism, logs and resume, statistics, sanity of win rates."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import sys
import time

import pytest

from mscsp.errors import BackendUnavailableError, InvalidInputError
from mscsp.evaluation.harness import (
    GameResult,
    RunConfig,
    RunLog,
    Tally,
    jeffreys,
    play_batch,
    play_on_engine,
    run,
    wilson,
)
from mscsp.runtime.executors import parallel_map


def outcome(summary):
    """A summary without its timing, which legitimately varies."""
    return dataclasses.replace(summary, seconds_per_game=0.0)


BEGINNER = RunConfig("csp-minprob", 9, 9, 10, seed=3)


def test_same_seed_same_games_whatever_the_workers():
    one = run(BEGINNER, 10, workers=1)
    two = run(BEGINNER, 10, workers=2, batch_size=3)
    assert outcome(one) == outcome(two)
    other = dataclasses.replace(BEGINNER, seed=4)
    assert [r.moves for r in play_batch(BEGINNER, range(10))] != [
        r.moves for r in play_batch(other, range(10))
    ]


def test_a_long_run_is_the_same_on_any_number_of_workers():
    """400 games: in this process on the batch engine; on two workers, batches on the pure
    road while each worker warms up, then on the engine. The same games either way."""
    from mscsp.engine import compiled

    compiled.load()
    config = dataclasses.replace(BEGINNER, seed=8)
    one = run(config, 400, workers=1)
    two = run(config, 400, workers=2, batch_size=25)
    assert outcome(one) == outcome(two)
    assert 0 < one.wins < one.games


@pytest.mark.parametrize("play", [play_batch, play_on_engine])
def test_bad_games_are_refused_before_any_is_played(play):
    """Game numbers and configs that cannot be played are refused in one line, by the
    project's error, not a bare ValueError or a wrong answer."""
    for indices in ([-1], [0, 1.5], [True], ["3"]):
        with pytest.raises(InvalidInputError, match="game numbers"):
            play(BEGINNER, indices)
    with pytest.raises(InvalidInputError):
        play(dataclasses.replace(BEGINNER, mines=81), [0])
    with pytest.raises(InvalidInputError, match="RunConfig"):
        play({"strategy": "csp-minprob"}, [0])
    assert play(BEGINNER, []) == []


def test_games_are_independent_of_batching():
    together = play_batch(BEGINNER, list(range(6)))
    apart = play_batch(BEGINNER, [5, 4]) + play_batch(BEGINNER, [0, 1, 2, 3])
    strip = lambda rs: sorted((r.index, r.won, r.cleared, r.moves, r.guesses) for r in rs)  # noqa: E731
    assert strip(together) == strip(apart)


def test_resume_after_interrupt(tmp_path):
    log = tmp_path / "run.jsonl"
    seen = []

    def interrupt(batch, summary):
        seen.append(len(batch))
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(BEGINNER, 12, log=log, batch_size=4, on_batch=interrupt)
    config, done = RunLog(log).read()
    assert config == BEGINNER and sorted(done) == [0, 1, 2, 3]
    with log.open("a") as handle:
        handle.write('{"type": "batch", "games": [[9, 1')  # a line cut by the interrupt
    resumed = run(BEGINNER, 12, log=log, resume=True, batch_size=4)
    assert outcome(resumed) == outcome(run(BEGINNER, 12))
    _, done = RunLog(log).read()
    assert sorted(done) == list(range(12))


def test_resume_refuses_a_different_run(tmp_path):
    log = tmp_path / "run.jsonl"
    run(BEGINNER, 2, log=log)
    with pytest.raises(InvalidInputError, match="different run"):
        run(dataclasses.replace(BEGINNER, seed=9), 4, log=log, resume=True)
    with pytest.raises(InvalidInputError, match="no log"):
        run(BEGINNER, 4, log=tmp_path / "missing.jsonl", resume=True)


def test_resume_refuses_a_file_that_is_not_a_play_log_and_keeps_damaged_logs(tmp_path, capsys):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"board": "3x3\\n...\\n", "name": "mine"}\n')
    for resume in (True, False):  # (without --resume an existing file is refused too)
        with pytest.raises(InvalidInputError, match="is not a play log"):
            run(BEGINNER, 4, log=corpus, resume=resume)
    assert corpus.read_text() == '{"board": "3x3\\n...\\n", "name": "mine"}\n'
    log = tmp_path / "run.jsonl"
    run(BEGINNER, 4, log=log, batch_size=2)
    header, first, second = log.read_text().splitlines()
    # A damaged batch in the middle (a row missing values): skipped, the one after kept.
    log.write_text("\n".join([header, first, '{"type": "batch", "games": [[2]]}', second, ""]))
    resumed = run(BEGINNER, 4, log=log, resume=True)
    assert outcome(resumed) == outcome(run(BEGINNER, 4))
    assert f"'{log}' line 3: " in capsys.readouterr().err
    assert len(log.read_text().splitlines()) == 4  # no line added: nothing replayed


def test_bad_settings_fail_fast():
    with pytest.raises(InvalidInputError):
        run(dataclasses.replace(BEGINNER, mines=200), 1)
    with pytest.raises(InvalidInputError):
        run(dataclasses.replace(BEGINNER, first_move="20,20"), 1)
    with pytest.raises(InvalidInputError):
        run(dataclasses.replace(BEGINNER, strategy="nope"), 1)
    with pytest.raises(InvalidInputError):
        run(BEGINNER, 1, executor="threads")


def test_wilson_interval():
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    low, high = wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)


def test_jeffreys_interval_holds_the_posterior_mass_in_equal_tails():
    from scipy.stats import beta

    for wins, games in ((3, 10), (4_100_000, 10_000_000), (1, 2)):
        low, high = jeffreys(wins, games)
        posterior = beta(wins + 0.5, games - wins + 0.5)
        assert posterior.cdf(low) == pytest.approx(0.025, rel=1e-6)
        assert posterior.sf(high) == pytest.approx(0.025, rel=1e-6)
        assert low < wins / games < high
    # At millions of games it and Wilson's agree to well under a hundredth of a point.
    assert jeffreys(4_100_000, 10_000_000) == pytest.approx(wilson(4_100_000, 10_000_000), abs=1e-6)
    low, high = jeffreys(3, 10, level=0.5)
    assert beta(3.5, 7.5).cdf(high) - beta(3.5, 7.5).cdf(low) == pytest.approx(0.5)


def test_jeffreys_interval_edges_and_bad_input():
    assert jeffreys(0, 0) == (0.0, 1.0)
    low, high = jeffreys(0, 10)
    assert low == 0.0 and 0 < high < 0.25
    low, high = jeffreys(10, 10)
    assert high == 1.0 and 0.75 < low < 1
    for wins, games, level in (
        (-1, 10, 0.95),
        (11, 10, 0.95),
        (1.5, 10, 0.95),
        (True, 10, 0.95),
        (1, "10", 0.95),
        (1, 10, 1.0),
        (1, 10, 0),
        (1, 10, "0.9"),
    ):
        with pytest.raises(InvalidInputError):
            jeffreys(wins, games, level)


def test_tally_and_result_rows():
    results = [GameResult(0, True, 1.0, 20, 1, 0.5), GameResult(1, False, 0.5, 10, 2, 1.5)]
    summary = Tally(results).summary()
    assert (summary.games, summary.wins, summary.win_rate) == (2, 1, 0.5)
    assert (summary.cleared, summary.moves, summary.guesses) == (0.75, 15, 1.5)
    assert summary.seconds_per_game == 1.0
    assert [GameResult.from_row(r.row()) for r in results] == results
    json.dumps(summary.to_dict())


@pytest.mark.parametrize(
    ("strategy", "low", "high"),
    [
        ("sps", 0.45, 0.9),
        ("rules", 0.55, 0.95),
        ("csp-random", 0.65, 0.97),
        ("csp-minprob", 0.75, 0.99),
        ("csp-edge", 0.75, 0.99),
        ("csp-limited", 0.65, 0.99),
        ("best", 0.75, 0.99),
    ],
)
def test_small_sample_win_rates_are_sane(strategy, low, high):
    # 80 beginner games: the 95 % interval around the long-run rates (72-93 %) is
    # about +-9 points, so these bounds flag a broken player, not noise.
    summary = run(RunConfig(strategy, 9, 9, 10, seed=1), 80)
    assert low <= summary.win_rate <= high
    assert 0 < summary.cleared <= 1 and summary.moves > 1


def test_modern_rule_opens_at_the_first_click():
    config = RunConfig("csp-minprob", 9, 9, 10, first_click="opening", first_move="3,3")
    results = play_batch(config, range(10))
    assert all(r.cleared >= 9 / 71 for r in results)  # the opening reveals >= 9 cells


def test_ray_executor_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(BackendUnavailableError, match=r"mscsp\[ray\]"):
        run(BEGINNER, 2, executor="ray")


def test_ray_executor_matches_local():
    """Runs on a local Ray runtime when ray is installed (it is in the 'all' extra)."""
    ray = pytest.importorskip("ray")
    try:
        result = run(BEGINNER, 6, workers=2, executor="ray", batch_size=2)
    finally:
        ray.shutdown()
    assert outcome(result) == outcome(run(BEGINNER, 6))


def test_summary_does_not_depend_on_the_order_games_finish():
    results = play_batch(BEGINNER, list(range(12)))
    forward, backward = Tally(results).summary(), Tally(results[::-1]).summary()
    assert forward == backward
    assert [GameResult.from_row(json.loads(json.dumps(r.row()))) for r in results] == results


def test_an_existing_log_is_neither_appended_to_nor_mixed(tmp_path):
    log = tmp_path / "run.jsonl"
    run(BEGINNER, 2, log=log)
    with pytest.raises(InvalidInputError, match="already holds a run"):
        run(BEGINNER, 2, log=log)
    other = dataclasses.replace(BEGINNER, strategy="sps")
    run(other, 3, log=log, new_log=True)
    config, done = RunLog(log).read()
    assert config == other and sorted(done) == [0, 1, 2]


def test_player_options_are_checked_against_the_player():
    for options in ({"max_solutions": "abc"}, {"max_solutions": 0}, {"max_nodes": -5}):
        with pytest.raises(InvalidInputError, match="csp-limited"):
            dataclasses.replace(BEGINNER, strategy="csp-limited", options=options).validate()
    with pytest.raises(InvalidInputError, match="takes: backend"):
        dataclasses.replace(BEGINNER, options={"max_solutions": 3}).validate()
    dataclasses.replace(BEGINNER, strategy="best", options={"tolerance": 0}).validate()


def _pid_after(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def _fails_on_odd(x: int) -> int:
    if x % 2:
        raise ValueError(f"odd {x}")
    return x


def test_parallel_map_shares_the_work_with_this_process():
    """Two workers are this process and one spawned one: each does some of the items,
    and every item comes back once."""
    pids = list(parallel_map(_pid_after, [0.05] * 12, 2))
    assert len(pids) == 12
    assert os.getpid() in pids
    assert len(set(pids)) == 2


class _CtrlCOnCollection:
    """Presses Ctrl-C from its finalizer, where Python drops the ``KeyboardInterrupt``
    (it only prints it), as it does in JAX's garbage-collector callback."""

    def __del__(self):
        signal.raise_signal(signal.SIGINT)
        for _ in range(1000):  # (the handler runs here, inside the finalizer)
            pass


def _item_with_dropped_ctrl_c(item: tuple[int, int]) -> tuple[int, int]:
    parent, x = item
    if os.getpid() == parent:  # (the other processes ignore Ctrl-C)
        _CtrlCOnCollection()  # (collected at once)
    return os.getpid(), x


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_dropped_inside_a_finalizer_still_stops_the_run(workers):
    """A Ctrl-C whose ``KeyboardInterrupt`` Python drops (raised inside a finalizer) still
    stops the run before the next item this process plays, and the handler is put back."""
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    items = [(os.getpid(), x) for x in range(12)]
    done = []
    with pytest.raises(KeyboardInterrupt):
        for pid, _ in parallel_map(_item_with_dropped_ctrl_c, items, workers):
            done.append(pid)
    assert done.count(os.getpid()) == 1 and len(done) < 12
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_parallel_map_leaves_this_process_its_share_of_few_items():
    """Two items on two workers: one each (the pool once took both, this process none)."""
    pids = list(parallel_map(_pid_after, [0.3, 0.3], 2))
    assert sorted(pids).count(os.getpid()) == 1 and len(set(pids)) == 2


def test_parallel_map_raises_a_workers_error():
    with pytest.raises(ValueError, match="odd"):
        list(parallel_map(_fails_on_odd, list(range(8)), 2))
