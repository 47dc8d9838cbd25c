"""Real model counter programs (GPMC, d4 v2, SharpSAT-TD, Ganak) through ``external:``, against
``dss``.

The counters are other people's programs, built from source outside the repository by
``bench/solvers/real_counters.sh build``; each is looked up in ``$MSCSP_COUNTERS`` (that
script's ``bin/`` folder), else on ``PATH``, and its test is skipped, naming the script,
where it is not built. Each runs with the command and flags the bench gives it
(``bench/solvers/counters/peers.tsv``), on instances exported by
``mscsp export`` (their counts in ``index.jsonl`` are ``dss``'s) and on a component of a real
game through ``external:``, whose counts must equal ``dss``'s to the last digit.
"""

from __future__ import annotations

import importlib.util
import json
import shlex
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
SCRIPT = ROOT / "bench" / "solvers" / "real_counters.py"
spec = importlib.util.spec_from_file_location("real_counters", SCRIPT)
real_counters = importlib.util.module_from_spec(spec)
spec.loader.exec_module(real_counters)
PEERS = {peer.name: peer for peer in real_counters.peers()}

#: Ladder lines: a game whose one component has 29 cells (past the 24 that the check
#: recounts with dss itself, so the comparison here is the only one), and a game whose
#: first component needs 13 counter runs (every query of external:, cheaply).
WIDE_LINE, SMALL_LINE = 20, 23

needs_external = pytest.mark.skipif(
    not ExternalBackend.supported(), reason="pip install 'mscsp[sat]'"
)


@pytest.fixture
def counter(request, monkeypatch) -> list[str]:
    """The command words of the counter named by the test's parameter, its folder and the
    wrappers on ``PATH``; skips the test where it is not built."""
    peer = PEERS[request.param]
    if not real_counters.built(peer):
        pytest.skip(
            f"{peer.name} not built: run bench/solvers/real_counters.sh build and set "
            "MSCSP_COUNTERS to its bin/ folder"
        )
    monkeypatch.setenv("PATH", real_counters.search_path())
    return peer.command


def ladder(line: int) -> str:
    """The board text of line ``line`` (from 0) of the published ladder."""
    with CORPUS.open() as rows:
        for number, row in enumerate(rows):
            if number == line:
                return json.loads(row)["board"]
    raise IndexError(line)


@pytest.mark.parametrize("counter", PEERS, indirect=True)
def test_counter_counts_exported_instances_as_dss(counter: list[str], tmp_path: Path) -> None:
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
            [*counter, str(out / entry["file"])],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode in (0, 10, 20), run.stderr
        assert real_counters.ANSWER.findall(run.stdout) == [entry["count"]]


@needs_external
@pytest.mark.parametrize("counter", PEERS, indirect=True)
def test_counter_through_external_equals_dss(counter: list[str]) -> None:
    (component, expected), *_ = solve(parse_board(ladder(SMALL_LINE))).components
    backend = get_backend(f"external:{shlex.join(counter)}", time_limit=120)
    assert backend.count(component) == expected
