"""Issue 47's numbers: options written inside a name, corpus lines from others, and counts
that must be checked before anything is built from them. Each door is fuzzed from a fixed
seed; only typed one-line errors may come out, and nothing on disk changes."""

from __future__ import annotations

import os

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
