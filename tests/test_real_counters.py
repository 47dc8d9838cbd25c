"""Real model counter programs (GPMC, d4 v2, SharpSAT-TD) through ``external:``, against ``dss``.

The counters are other people's programs, built from source outside the repository by
``bench/solvers/real_counters.sh build``; each is looked up in ``$MSCSP_COUNTERS`` (that
script's ``bin/`` folder), else on ``PATH``, and its test is skipped, naming the script,
where it is not built. Each runs with the flags the bench gives it, on instances exported by
``mscsp export`` (their counts in ``index.jsonl`` are ``dss``'s) and on a component of a real
game through ``external:``, whose counts must equal ``dss``'s to the last digit.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mscsp import solve
from mscsp.backends import get_backend
from mscsp.backends.external import ExternalBackend
from mscsp.board import parse_board

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "bench" / "corpora" / "families.jsonl"
WRAPPERS = ROOT / "bench" / "solvers" / "counters"
BUILD = "bench/solvers/real_counters.sh build"

#: Each counter: the program to find, and the words of its command (the program first),
#: as bench/solvers/real_counters.sh gives them.
COUNTERS = {
    "gpmc": ("gpmc", ["--mode", "pmc"]),
    "d4v2": ("d4v2", ["--output-format", "competition", "-i"]),
    "sharpsat-td": ("sharpSAT", ["-decot", "1", "-decow", "100", "-cs", "1500"]),
}
#: Ladder lines: a game whose one component has 29 cells (past the 24 that the check
#: recounts with dss itself, so the comparison here is the only one), and a game whose
#: first component needs 13 counter runs (every query of external:, cheaply).
WIDE_LINE, SMALL_LINE = 20, 23

needs_external = pytest.mark.skipif(
    not ExternalBackend.supported(), reason="pip install 'mscsp[sat]'"
)


def command(name: str) -> list[str]:
    """The command words running counter ``name``; skips the test where it is not built."""
    program, flags = COUNTERS[name]
    folder = os.environ.get("MSCSP_COUNTERS")
    path = Path(folder, program) if folder else None
    found = str(path) if path and os.access(path, os.X_OK) else shutil.which(program)
    if found is None:
        pytest.skip(f"{name} not built: run {BUILD} and set MSCSP_COUNTERS to its bin/ folder")
    if name == "sharpsat-td":  # its wrapper finds sharpSAT and flow_cutter_pace17 itself
        return [str(WRAPPERS / "sharpsat-td"), *flags]
    return [found, *flags]


def ladder(line: int) -> str:
    """The board text of line ``line`` (from 0) of the published ladder."""
    with CORPUS.open() as rows:
        for number, row in enumerate(rows):
            if number == line:
                return json.loads(row)["board"]
    raise IndexError(line)


@pytest.mark.parametrize("name", COUNTERS)
def test_counter_counts_exported_instances_as_dss(name: str, tmp_path: Path) -> None:
    words = command(name)
    corpus = tmp_path / "one.jsonl"
    corpus.write_text(json.dumps({"board": ladder(WIDE_LINE)}) + "\n")
    out = tmp_path / "instances"
    subprocess.run(
        [sys.executable, "-m", "mscsp", "export", "--corpus", str(corpus), "--out", str(out)],
        check=True,
        capture_output=True,
    )
    index = [json.loads(line) for line in (out / "index.jsonl").read_text().splitlines()]
    assert index and max(entry["cells"] for entry in index) == 29
    for entry in index:
        run = subprocess.run(
            [*words, str(out / entry["file"])],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode in (0, 10, 20), run.stderr
        assert re.findall(r"^c s exact arb int (\d+)$", run.stdout, re.M) == [entry["count"]]


@needs_external
@pytest.mark.parametrize("name", COUNTERS)
def test_counter_through_external_equals_dss(name: str) -> None:
    words = command(name)
    (component, expected), *_ = solve(parse_board(ladder(SMALL_LINE))).components
    backend = get_backend(f"external:{shlex.join(words)}", time_limit=120)
    assert backend.count(component) == expected
