"""The file door (issue 47): outputs and logs never written through a link, logs read back
bounded, a file that is not the command's log refused untouched, a damaged line skipped
with the lines after it kept. The three resumable logs (``play``'s, ``bench``'s and
``replay``'s) are fuzzed with hostile lines from fixed seeds."""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from dataclasses import asdict
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mscsp.errors import InvalidInputError
from mscsp.evaluation.bench_runs import BenchSettings, RunsLog
from mscsp.evaluation.harness import GameResult, RunConfig, RunLog
from mscsp.replay.archive import ResultLog
from mscsp.runtime.runlog import read_log
from mscsp.trust.files import open_output, open_regular
from mscsp.trust.jsonlog import Damaged, typed

CONFIG = RunConfig("safe", 9, 9, 10, seed=3)
SETTINGS = BenchSettings("abc", 3, "dss", "count", 10.0, None, None, 1, True)


def play_lines() -> tuple[str, list[str]]:
    """A play log's header and two batch lines."""
    header = json.dumps({"type": "run", "config": asdict(CONFIG), "games": 4})
    batches = [
        json.dumps({"type": "batch", "games": [GameResult(i, True, 1.0, 5, 0, 0.5).row()]})
        for i in (0, 1)
    ]
    return header, batches


def bench_lines() -> tuple[str, list[str]]:
    """A bench runs log's header and two run lines."""
    header = json.dumps({"type": "bench", "settings": asdict(SETTINGS)})
    runs = [
        json.dumps(
            {
                "type": "run",
                "instance": i,
                "backend": "dss",
                "status": "ok",
                "seconds": 0.25,
                "count": "12",
                "values": None,
                "components": [[1, 4, 3, 2, 12, 0.1, "ok"]],
            }
        )
        for i in (0, 1)
    ]
    return header, runs


def replay_lines() -> tuple[str, list[str]]:
    """A replay log's first record and two more (a replay log has no header of its own)."""
    records = [
        json.dumps({"file": f"g{i}.evf", "hash": "ab", "status": "error", "reason": "bad"})
        for i in range(3)
    ]
    return records[0], records[1:]


def resume_play(path: Path) -> set:
    log = RunLog(path)
    _, done = log.read()
    log.repair()
    return set(done)


def resume_bench(path: Path) -> set:
    return set(RunsLog(path, resume=True).open(SETTINGS))


def resume_replay(path: Path) -> set:
    return {file for file, _ in ResultLog(path).read()}


#: Each log: its lines, how a resume reads it, the keys its two good records give.
LOGS = {
    "play": (play_lines, resume_play, {0, 1}),
    "bench": (bench_lines, resume_bench, {("dss", 0), ("dss", 1)}),
    "replay": (replay_lines, resume_replay, {"g0.evf", "g1.evf", "g2.evf"}),
}


def resumed(resume, path: Path) -> tuple[set, str]:
    """What the resume kept, and what it reported on standard error."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        kept = resume(path)
    return kept, err.getvalue()


@pytest.mark.parametrize("kind", sorted(LOGS))
def test_a_file_that_is_not_the_log_is_refused_untouched(kind, tmp_path):
    """``mscsp replay arch --out mycorpus.jsonl --resume`` replaced a corpus; each log now
    refuses any file whose first line is not its own (another log's included)."""
    _, resume, _ = LOGS[kind]
    others = [
        '{"board": "3x3\\n...\\n...\\n...\\n", "family": "lattice", "name": "n"}\n',
        *(LOGS[other][0]()[0] + "\n" for other in LOGS if other != kind),
        "just some notes\nof the user's\n",
        "\x00\x01binary",
    ]
    for number, text in enumerate(others):
        path = tmp_path / f"other{number}.jsonl"
        path.write_text(text)
        with pytest.raises(InvalidInputError, match="is not a .* log") as refused:
            resumed(resume, path)
        assert "\n" not in str(refused.value)
        assert path.read_text() == text


@pytest.mark.parametrize("kind", sorted(LOGS))
def test_a_damaged_line_in_the_middle_keeps_the_lines_after_it(kind, tmp_path):
    lines, resume, good = LOGS[kind]
    header, records = lines()
    bad = [
        "{not json",
        json.dumps({"type": "batch", "games": [[0, 1]]}),  # a short row
        json.dumps({"file": 5, "hash": None, "status": "ok"}),
        json.dumps({"type": "run"}),  # keys missing: no KeyError
        "[" * 100_000,
        "9" * 5_000,
    ]
    text = "\n".join([header, records[0], *bad, records[1]]) + "\n"
    path = tmp_path / "log.jsonl"
    path.write_text(text)
    kept, err = resumed(resume, path)
    assert kept == good
    warned = [line for line in err.splitlines() if line.startswith("mscsp: warning: ")]
    assert len(warned) == len(bad) == len(err.splitlines())
    for number, line in enumerate(warned, start=3):
        assert f"'{path}' line {number}: " in line and "skipped" in line
    assert path.read_text() == text  # never truncated, nothing dropped


@pytest.mark.parametrize("kind", sorted(LOGS))
def test_a_cut_last_line_is_dropped_and_a_whole_one_ended(kind, tmp_path):
    lines, resume, good = LOGS[kind]
    header, records = lines()
    path = tmp_path / "log.jsonl"
    whole = f"{header}\n{records[0]}\n{records[1]}\n"
    path.write_text(whole + records[1][:25])
    kept, err = resumed(resume, path)
    assert kept == good and "cut short" in err and path.read_text() == whole
    path.write_text(whole[:-1])  # the newline of a whole last line lost
    assert resumed(resume, path)[0] == good and path.read_text() == whole


def test_a_log_is_never_read_or_written_through_a_link(tmp_path):
    header, records = play_lines()
    target = tmp_path / "elsewhere.jsonl"
    target.write_text(header + "\n" + records[0][:10])
    link = tmp_path / "log.jsonl"
    link.symlink_to(target)
    before = target.read_text()
    with pytest.raises(InvalidInputError, match="symbolic link"):
        RunLog(link).read()
    with pytest.raises(InvalidInputError, match="symbolic link"):
        RunLog(link).append([GameResult(0, True, 1.0, 5, 0, 0.5)])
    with pytest.raises(InvalidInputError, match="symbolic link"):
        ResultLog(link).append({"file": "x"})
    assert target.read_text() == before and link.is_symlink()


def test_open_regular_refuses_fifos_devices_and_unfollowed_links(tmp_path):
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    with pytest.raises(InvalidInputError, match="not a regular file"):
        open_regular(fifo, "log")  # (it would wait for a writer forever)
    with pytest.raises(InvalidInputError, match="not a regular file"):
        open_regular("/dev/zero", "log")
    real = tmp_path / "real"
    real.write_bytes(b"x")
    link = tmp_path / "link"
    link.symlink_to(real)
    with open_regular(link, "replay") as handle:
        assert handle.read() == b"x"
    with pytest.raises(InvalidInputError, match="symbolic link"):
        open_regular(link, "log", follow=False)
    with pytest.raises(InvalidInputError, match="cannot read log"):
        open_regular(tmp_path / "missing", "log")


def test_typed_refuses_wrong_types_non_finite_numbers_and_bools_for_ints():
    assert typed({"a": 1}, "a", float) == 1
    for record, kinds in (
        ({"a": True}, (int,)),
        ({"a": float("nan")}, (float,)),
        ({"a": "1"}, (int,)),
        ({}, (int,)),
        ([1], (int,)),
    ):
        with pytest.raises(Damaged):
            typed(record, "a", *kinds)


def test_a_line_past_the_length_limit_is_skipped_unparsed(tmp_path, monkeypatch):
    import mscsp.runtime.runlog as runlog

    monkeypatch.setattr(runlog, "MAX_LINE_BYTES", 64)
    path = tmp_path / "log.jsonl"
    path.write_text('{"h": 1}\n' + '"' + "x" * 500 + '"\n{"r": 2}\n')
    reports: list[str] = []
    contents = read_log(path, "test log", dict, dict, report=reports.append)
    assert contents.records == [(3, {"r": 2})] and contents.damaged == [2]
    assert "more than 64 bytes" in reports[0]


# The fuzz: hostile lines, from fixed seeds, in the middle of each log.
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)
_KEYS = ["type", "games", "config", "file", "hash", "status", "reason", "instance", "backend"]
_KEYS += ["seconds", "count", "values", "components", "summary", "clicks", "retry"]
_RECORDS = st.dictionaries(st.sampled_from(_KEYS), _JSON, max_size=6).map(json.dumps)
_HOSTILE = st.one_of(
    st.text(alphabet=st.characters(blacklist_characters="\n"), max_size=40),
    _RECORDS,
    st.integers(min_value=1, max_value=50_000).map(lambda n: "[" * n),
    st.integers(min_value=2_001, max_value=20_000).map(lambda n: "1" * n),
    st.sampled_from(["NaN", "1e999", '{"type": "run", "games": 1e999}', '"\\ud800"']),
)


@pytest.mark.parametrize("kind", sorted(LOGS))
@settings(
    derandomize=True,
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(hostile=st.lists(_HOSTILE, min_size=1, max_size=4))
def test_fuzz_hostile_log_lines_are_skipped_and_the_good_ones_kept(kind, hostile):
    lines, resume, good = LOGS[kind]
    header, records = lines()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "log.jsonl"
        beside = Path(folder) / "beside.txt"
        beside.write_text("the user's")
        text = "\n".join([header, records[0], *hostile, records[1]]) + "\n"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        before = path.read_bytes()
        try:
            kept, err = resumed(resume, path)
        except InvalidInputError as exc:  # (a hostile line that is a run of another config)
            assert "\n" not in str(exc)
        else:
            assert good <= kept
            for line in err.splitlines():
                assert line.startswith("mscsp: warning: ") and f"'{path}' line " in line
        assert path.read_bytes() == before  # nothing truncated or rewritten
        assert sorted(os.listdir(folder)) == ["beside.txt", "log.jsonl"]
        assert beside.read_text() == "the user's"


@settings(
    derandomize=True,
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(first=_HOSTILE, kind=st.sampled_from(sorted(LOGS)))
def test_fuzz_a_hostile_first_line_is_refused_with_the_file_untouched(first, kind):
    _, resume, _ = LOGS[kind]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "log.jsonl"
        path.write_text(first + "\n", encoding="utf-8", errors="surrogatepass")
        before = path.read_bytes()
        try:
            resumed(resume, path)
        except InvalidInputError as exc:
            assert "\n" not in str(exc)
        assert path.read_bytes() == before


def test_open_output_never_writes_through_a_link(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    link = tmp_path / "out.csv"
    link.symlink_to(victim)
    with pytest.raises(InvalidInputError, match="symbolic link"):
        open_output(link, "--csv")
    assert victim.read_text() == "precious"


def test_corpus_out_replaces_a_link_never_its_target(tmp_path):
    from click.testing import CliRunner

    from mscsp.cli import main

    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    out = tmp_path / "out.jsonl"
    out.symlink_to(victim)
    args = ["corpus", "lattice", "--size", "5x5", "--out", str(out)]
    refused = CliRunner().invoke(main, args)
    assert refused.exit_code == 2 and "exists" in refused.output  # a link is a name taken
    done = CliRunner().invoke(main, [*args, "--overwrite"])
    assert done.exit_code == 0, done.output
    assert victim.read_text() == "precious"
    assert not out.is_symlink() and json.loads(out.read_text().splitlines()[0])["family"]
    dangling = tmp_path / "dangling.jsonl"
    dangling.symlink_to(tmp_path / "nowhere")
    refused = CliRunner().invoke(main, [*args[:-1], str(dangling)])
    assert refused.exit_code == 2 and dangling.is_symlink()
