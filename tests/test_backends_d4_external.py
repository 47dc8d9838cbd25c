"""The ``d4`` backend beyond the shared tests, and ``external:COMMAND`` with real and broken
counter programs.

``tests/test_backends.py`` compares ``d4`` with the brute force like every exact backend;
``external`` runs one counter process per count, so it is compared here on a few small
components, through mscsp's own counter program (:mod:`mscsp.counters.mcc`, Ganak or D4
inside: no counter program installs from the registries we reach), and stopped or refused
on programs that hang, crash, allocate without bound or print something else than a count.
"""

from __future__ import annotations

import os
import shlex
import stat
import sys
import time
from pathlib import Path

import pytest

from mscsp import solve
from mscsp.backends import get_backend
from mscsp.backends.brute import BruteBackend
from mscsp.backends.d4 import D4Backend
from mscsp.backends.external import ExternalBackend
from mscsp.constraints import Component
from mscsp.counters.mcc import main as counter_main
from mscsp.errors import InvalidInputError, MemoryLimitError, SolverLimitError, WrongCountError
from mscsp.evaluation.families import lattice

needs_d4 = pytest.mark.skipif(not D4Backend.supported(), reason="pip install d4solver")
needs_external = pytest.mark.skipif(
    not ExternalBackend.supported(), reason="pip install 'mscsp[sat]'"
)

#: A number over 12 cells: past the direct encoding, so the CNF has auxiliary variables.
LARGE = Component(sizes=(5, 7, 3), constraints=(((0, 1), 6), ((1, 2), 5)))
#: Two groups under one number: 5 counts for an external counter.
SMALL = Component(sizes=(2, 1), constraints=(((0, 1), 2),))
#: One cell that is a mine: the counts a fake counter can know from the file name alone.
ONE = Component(sizes=(1,), constraints=(((0,), 1),))


def script(folder: Path, name: str, body: str) -> str:
    """An executable shell script in ``folder``; its path."""
    path = folder / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def ours(counter: str = "ganak", legacy: bool = False) -> str:
    """The command of mscsp's own counter program."""
    words = [sys.executable, "-m", "mscsp.counters.mcc", "--counter", counter]
    return shlex.join(words + (["--legacy"] if legacy else []))


@needs_d4
def test_d4_counts_constraints_with_auxiliary_variables() -> None:
    assert get_backend("d4").count(LARGE) == BruteBackend().count(LARGE)


@needs_d4
def test_d4_counts_an_impossible_component_as_zero() -> None:
    impossible = Component(sizes=(2,), constraints=(((0,), 3),))
    assert get_backend("d4").count(impossible) == BruteBackend().count(impossible)


@needs_d4
def test_d4_equals_dss_on_a_large_component_in_a_child_process_too() -> None:
    # 55 cells: packed count polynomials of over 1,000 bits, far past the 40 digits D4's
    # own weighted queries keep.
    (component, expected), *_ = solve(lattice(10, 10, 0.2, 0)).components
    assert component.n_cells > 24
    assert get_backend("d4").count(component) == expected
    assert get_backend("d4", time_limit=120).count(component) == expected


@needs_external
@pytest.mark.parametrize("counter", ["ganak", "d4"])
def test_external_through_our_counter_program_equals_brute_force(counter: str) -> None:
    if counter == "d4" and not D4Backend.supported():
        pytest.skip("pip install d4solver")
    backend = get_backend(f"external:{ours(counter)}", time_limit=120)
    assert backend.count(SMALL) == BruteBackend().count(SMALL)


@needs_external
def test_external_without_a_command_runs_our_counter() -> None:
    assert get_backend("external").argv[1:] == ["-m", "mscsp.counters.mcc"]
    assert get_backend("external").count(ONE) == BruteBackend().count(ONE)


@needs_external
def test_external_reads_the_legacy_line_and_competition_exit_codes(tmp_path: Path) -> None:
    fake = script(
        tmp_path,
        "fake",
        'case "$1" in *k1.cnf|*k1-cell1.cnf) echo "s mc 1"; exit 10;; '
        '*) echo "s UNSATISFIABLE"; exit 20;; esac',
    )
    assert get_backend(f"external:{fake}").count(ONE) == BruteBackend().count(ONE)


@needs_external
@pytest.mark.parametrize(
    "body, message",
    [
        ("exit 1", "exit code 1"),
        ("echo 'hello world'", "printed no 'c s exact arb int N'"),
        ("echo 'c s approx arb int 1'", "approximate"),
        ("echo 's mc 1'; echo 'c s exact arb int 2'", r"different counts \[1, 2\]"),
        ("echo 'c s exact arb int 99'", "miscounts"),
        ("echo 's mc 1'; kill -SEGV $$", "signal SIGSEGV"),
        ("echo 'oops' >&2; exit 3", r"exit code 3 \(stderr: oops\)"),
    ],
)
def test_external_refuses_a_counter_that_does_not_count(
    tmp_path: Path, body: str, message: str
) -> None:
    command = script(tmp_path, "broken", body)
    with pytest.raises(InvalidInputError, match=message):
        get_backend(f"external:{command}").count(ONE)


@needs_external
def test_external_kills_a_hanging_counter_and_its_children_at_the_limit(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    command = script(tmp_path, "hang", f"sleep 600 & echo $! > {pid_file}; wait")
    with pytest.raises(SolverLimitError, match="time limit of 0.5 s"):
        get_backend(f"external:{command}", time_limit=0.5).count(ONE)
    child = int(pid_file.read_text())
    # Killed with the counter's process group: gone, or a zombie waiting for init.
    for _ in range(100):
        try:
            state = Path(f"/proc/{child}/stat").read_text().split(")")[-1].split()[0]
        except FileNotFoundError:
            break
        if state == "Z":
            break
        time.sleep(0.05)
    else:
        os.kill(child, 9)
        pytest.fail("the counter's child survived the time limit")


@needs_external
def test_external_reports_a_counter_past_its_memory_limit(tmp_path: Path) -> None:
    greedy = f"{shlex.quote(sys.executable)} -c 'bytearray(2**31)'"
    command = script(tmp_path, "greedy", greedy)
    with pytest.raises(MemoryLimitError, match="memory_mb=200"):
        get_backend(f"external:{command}", memory_mb=200).count(ONE)


@needs_external
def test_external_names_a_missing_or_bad_command(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="'no-such-counter-here' not found"):
        get_backend("external:no-such-counter-here")
    with pytest.raises(InvalidInputError, match="cannot read counter command"):
        get_backend('external:ganak "unclosed')
    with pytest.raises(InvalidInputError, match="memory_mb"):
        get_backend("external", memory_mb=0)


def test_counter_program_answers_in_both_formats(tmp_path: Path, capsys) -> None:
    if not ExternalBackend.supported():
        pytest.skip("pip install 'mscsp[sat]'")
    cnf = tmp_path / "x.cnf"
    # x1 or x2 or x3, projected on x1 and x2: 4 assignments of them extend.
    cnf.write_text("p cnf 3 1\nc t pmc\nc p show 1 2 0\n1 2 3 0\n")
    assert counter_main([str(cnf)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "s SATISFIABLE",
        "c s type pmc",
        "c s log10-estimate 0.6021",
        "c s exact arb int 4",
    ]
    assert counter_main([str(cnf), "--legacy"]) == 0
    assert capsys.readouterr().out == "s mc 4\n"
    cnf.write_text("p cnf 3 2\n1 2 3 0\n")  # a clause missing: a truncated file
    assert counter_main([str(cnf)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "truncated" in captured.err


def wrapped(folder: Path, change: str) -> str:
    """The command of a counter that runs ours and changes its count: ``change`` is a Python
    expression of ``n`` (the true count) and ``name`` (the instance file's name)."""
    path = folder / "wrong_counter.py"
    path.write_text(
        "import re, subprocess, sys\n"
        "name = sys.argv[1].rsplit('/', 1)[-1]\n"
        "out = subprocess.run([sys.executable, '-m', 'mscsp.counters.mcc', sys.argv[1]],\n"
        "                     capture_output=True, text=True, check=True).stdout\n"
        "n = int(re.search(r'c s exact arb int (\\d+)', out)[1])\n"
        f"print('c s exact arb int', {change})\n"
    )
    return shlex.join([sys.executable, str(path)])


@needs_external
@pytest.mark.parametrize(
    "change, message",
    [
        # One more layout only where the first group's cell is forced: plausible odds, and
        # the last group's row would have absorbed it had it been derived from the others.
        ("n + 1 if '-cell1.' in name else n", "miscounts"),
        # Every count doubled: the identity holds (tests/test_checked_counts.py: the
        # recount catches it where no bound does).
        ("2 * n", "miscounts"),
    ],
)
def test_external_refuses_a_plausible_wrong_count_and_names_the_counter(
    tmp_path: Path, change: str, message: str
) -> None:
    command = wrapped(tmp_path, change)
    with pytest.raises(WrongCountError, match=message) as caught:
        get_backend(f"external:{command}", time_limit=120).count(SMALL)
    assert "wrong_counter.py" in str(caught.value)  # the counter, not only its interpreter
