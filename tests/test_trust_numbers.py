"""Issue 47's numbers: options written inside a name, corpus lines from others, and counts
that must be checked before anything is built from them. Each door is fuzzed from a fixed
seed; only typed one-line errors may come out, and nothing on disk changes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mscsp.backends import BACKENDS, get_backend
from mscsp.cli import main
from mscsp.errors import InvalidInputError, MscspError
from mscsp.estimators import get_estimator
from mscsp.estimators.bp import MAX_ITERS
from mscsp.estimators.limited import MAX_SOLUTIONS
from mscsp.estimators.mcmc import MAX_SWEEPS
from mscsp.estimators.sampling import MAX_SAMPLES
from mscsp.evaluation.benchmark import load_entries
from mscsp.evaluation.played_positions import sample_positions

#: The estimators whose name carries a number, and the most each takes.
NUMBERED = {
    "sampler": MAX_SAMPLES,
    "bp": MAX_ITERS,
    "mcmc": MAX_SWEEPS,
    "csp-limited": MAX_SOLUTIONS,
}

#: Digits ``str.isdigit`` takes and ``int`` refuses or reads: superscripts, other scripts.
NOT_ASCII_DIGITS = ["²", "³", "¹⁰", "٣", "৩", "１２", "𝟗"]

FUZZ = settings(derandomize=True, max_examples=50, deadline=None)


def one_line(exc: BaseException) -> bool:
    """Whether an error's message is one line, short enough for a terminal or a log."""
    text = str(exc)
    return "\n" not in text and "\r" not in text and len(text) < 2000


# -- names --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NUMBERED)
@pytest.mark.parametrize("digits", NOT_ASCII_DIGITS)
def test_a_name_with_digits_that_are_not_ascii_is_refused_in_one_line(name, digits):
    with pytest.raises(InvalidInputError, match=f"{name}:[A-Z]+ needs a whole number") as info:
        get_estimator(f"{name}:{digits}")
    assert one_line(info.value)


@pytest.mark.parametrize("name", NUMBERED)
def test_a_name_asking_for_more_than_its_bound_is_refused_before_any_work(name):
    with pytest.raises(InvalidInputError, match=f"from 1 to {NUMBERED[name]}"):
        get_estimator(f"{name}:99999999999999999")
    with pytest.raises(InvalidInputError, match=f"from 1 to {NUMBERED[name]}"):
        get_estimator(f"{name}:{NUMBERED[name] + 1}")
    with pytest.raises(InvalidInputError, match="needs a whole number"):
        get_estimator(f"{name}:" + "9" * 5000)
    assert get_estimator(f"{name}:{NUMBERED[name]}").spec == f"{name}:{NUMBERED[name]}"


@pytest.mark.parametrize("name", NUMBERED)
def test_the_cli_answers_a_superscript_with_one_error_line(name):
    result = CliRunner().invoke(main, ["probs", "--backend", f"{name}:²"], input="3x3x1\n???\n")
    assert result.exit_code == 2
    assert result.output.strip().count("\n") == 0 and result.output.startswith("mscsp: error:")


def test_an_unknown_name_is_shown_cut_and_escaped():
    for get in (get_estimator, get_backend):
        with pytest.raises(InvalidInputError) as info:
            get("x" * 100_000 + "\n-1 0")
        assert one_line(info.value) and len(str(info.value)) < 400


#: Pieces hostile names are made of.
PIECES = st.sampled_from(
    [*NOT_ASCII_DIGITS, "0", "1", "99999999999999999", "9" * 400, "-3", "1.5", "1e9", " ", "\n",
     "\x00", "\x1b[2J", "/etc/passwd", "../../x", ":", "~", "$(id)", "\u202e", "nan", "inf"]
)  # fmt: skip
HOSTILE = st.one_of(
    st.lists(PIECES, max_size=4).map("".join),
    st.text(max_size=30),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
)


@FUZZ
@given(st.sampled_from(sorted(NUMBERED)), HOSTILE)
def test_fuzz_numbered_names_give_only_typed_errors(name, arg):
    try:
        estimator = get_estimator(f"{name}:{arg}")
    except MscspError as exc:
        assert one_line(exc)
    else:  # accepted: then it was a whole number in range, written in ASCII digits
        value = int(estimator.spec.partition(":")[2])
        assert 1 <= value <= NUMBERED[name] and arg.strip().isascii()


# Backends that run a program or read a path are another door (the trust allow-list).
SAFE_BACKENDS = sorted(set(BACKENDS) - {"external"})


@FUZZ
@given(st.one_of(st.sampled_from(SAFE_BACKENDS), HOSTILE), HOSTILE)
def test_fuzz_backend_names_give_only_typed_errors(name, sub):
    assume(not name.startswith(("external", "learner")))
    before = sorted(os.listdir("."))
    for get in (get_backend, get_estimator):
        try:
            get(f"{name}:{sub}" if sub else name)
        except MscspError as exc:
            assert one_line(exc)
    assert sorted(os.listdir(".")) == before


# -- corpus lines -------------------------------------------------------------------------

GOOD = json.dumps({"board": "3x1x1\n1?1\n", "name": "good"})

#: Lines that once gave a traceback, or that a corpus from someone else may hold.
BAD_LINES = {
    "deep": "[" * 100_000,
    "deep object": '{"board": ' + '{"a": ' * 5000 + "1" + "}" * 5001,
    "long mines": '{"board": "3x1x1\\n1?1\\n", "mines": ' + "9" * 5000 + "}",
    "huge mines": '{"board": "3x1x1\\n1?1\\n", "mines": ' + "9" * 1500 + "}",
    "negative mines": '{"board": "3x1x1\\n1?1\\n", "mines": -1}',
    "true mines": '{"board": "3x1x1\\n1?1\\n", "mines": true}',
    "float mines": '{"board": "3x1x1\\n1?1\\n", "mines": 1e400}',
    "a list": '["not", "a", "record"]',
    "board a number": '{"board": 12}',
    "name an object": '{"board": "3x1x1\\n1?1\\n", "name": {"a": [1]}}',
    "name too long": json.dumps({"board": "3x1x1\n1?1\n", "name": "n" * 100_000}),
    "NaN": '{"board": "3x1x1\\n1?1\\n", "mines": NaN}',
    "cut": '{"board": "3x1x1\\n1?1\\n"',
}


def write_corpus(folder: Path, line: str) -> Path:
    path = folder / "corpus.jsonl"
    path.write_text(f"{GOOD}\n{line}\n", encoding="utf-8", errors="surrogatepass")
    return path


@pytest.mark.parametrize("line", BAD_LINES.values(), ids=list(BAD_LINES))
def test_a_hostile_corpus_line_is_one_typed_error_naming_the_line(tmp_path, line):
    path = write_corpus(tmp_path, line)
    with pytest.raises(MscspError, match=r"^corpus line 2 of .*corpus\.jsonl: ") as info:
        load_entries(path)
    assert one_line(info.value)


@pytest.mark.parametrize("command", ["bench", "export"])
@pytest.mark.parametrize(
    "line", [BAD_LINES["deep"], BAD_LINES["long mines"]], ids=["deep", "mines"]
)
def test_bench_and_export_refuse_a_hostile_corpus_and_write_nothing(tmp_path, command, line):
    path = write_corpus(tmp_path, line)
    before = sorted(p.name for p in tmp_path.iterdir())
    out = tmp_path / "out"
    result = CliRunner().invoke(main, [command, "--corpus", str(path), "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("mscsp: error: corpus line 2 of ")
    assert result.output.strip().count("\n") == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_good_corpus_still_reads_with_its_labels(tmp_path):
    path = write_corpus(tmp_path, json.dumps({"board": "1?1\n", "mines": 1, "preset": "p"}))
    first, second = load_entries(path)
    assert (first.name, second.family, second.board.mines) == ("good", "p", 1)


#: Pieces hostile corpus lines are made of.
JSON_PIECES = st.sampled_from(
    ['{"board": ', '"3x1x1\\n1?1\\n"', '"\\u0000"', '"\\ud800"', "[", "]", "{", "}", ",", ":",
     '"mines": ', '"name": ', '"family": ', "9" * 2500, "-1", "1e999", "NaN", "true", "null",
     '"../../etc/passwd"', '"\\n-1 0\\nc "', "\x00", "\x1b", "\u2028", "\\", '"']
)  # fmt: skip
LINES = st.one_of(st.lists(JSON_PIECES, max_size=12).map("".join), st.text(max_size=60))


@FUZZ
@given(LINES)
def test_fuzz_corpus_lines_give_only_typed_errors_naming_the_line(tmp_path_factory, line):
    assume("\n" not in line and "\r" not in line and line.strip())
    folder = tmp_path_factory.mktemp("corpus")
    path = write_corpus(folder, line)
    try:
        entries = load_entries(path)
    except MscspError as exc:
        assert one_line(exc) and str(exc).startswith(f"corpus line 2 of {path}: ")
    else:  # read: then every field was of its type and range
        assert len(entries) == 2 and all(len(e.name) <= 1000 for e in entries)
    assert sorted(p.name for p in folder.iterdir()) == ["corpus.jsonl"]


# -- counts -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ((9, 9, 10, 10**11), "100000000000 positions asked for; at most"),
        ((9, 9, 10, 1, 0, 0), "per_game must be an integer >= 1"),
        ((9, 9, 10, 1, -1), "seed must be an integer >= 0"),
        ((3, 3, 8, 1), "no position with a frontier in 100 games"),
    ],
)
def test_sample_positions_refuses_counts_it_could_never_finish(args, words):
    with pytest.raises(InvalidInputError, match=words):
        sample_positions(*args)


@pytest.mark.parametrize("command", ["bench", "export"])
def test_a_huge_positions_count_is_one_line_and_writes_nothing(tmp_path, command):
    out = tmp_path / "out"
    args = [command, "--preset", "beginner", "--positions", "100000000000", "--out", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and "at most" in result.output, result.output
    assert result.output.strip().count("\n") == 0
    assert list(tmp_path.iterdir()) == []
