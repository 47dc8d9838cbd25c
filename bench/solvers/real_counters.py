"""One count against the whole count: the real counters on the positions beyond ours.

Through ``external:`` a counter answers ``cells + 1 + groups x totals`` queries per
component, each a fresh program, so on the ladder it loses wherever ours count
(``real_counters.sh bench``; docs/backends.md, "Real counters as peers"). A model counter's
own task is one number, "this component with exactly ``k`` mines": this script asks each
counter built just that, on the positions of a corpus that no backend of ours counted
(``count`` null on the ladder), beside ``mdd`` counting the same component whole (every
``k``, and every group's row) under the same limit: of ours, the one that counts the widest
lattices (``dss``'s layers there run to gigabytes).

For each position: its largest component, and the instance (as ``mscsp export`` writes it)
of ``k = round(left x cells / covered)`` mines, the component's share of the mines left (a
lattice's one component holds almost every covered cell: ``k`` is the position's own),
given to each counter in its own process group, killed at ``--time-limit``. Prints one line
per position and counter.

    MSCSP_COUNTERS=/tmp/counters/bin python bench/solvers/real_counters.py --time-limit 60

The counters and their flags are those of ``counters/peers.tsv``; :func:`peers`,
:func:`built` and :func:`search_path` are shared with ``tests/test_real_counters.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from mscsp.backends import get_backend
from mscsp.board import COVERED, FLAG, parse_board
from mscsp.constraints import build_system
from mscsp.errors import SolverLimitError
from mscsp.formats.dimacs import write
from mscsp.formats.instances import cell_system
from mscsp.reduce import reduce_system
from mscsp.runtime.child import LIMIT
from mscsp.runtime.isolated import run_program

HERE = Path(__file__).resolve().parent
WRAPPERS = HERE / "counters"
LADDER = HERE.parent / "corpora" / "families.jsonl"
ANSWER = re.compile(r"^c s exact arb int (\d+)$", re.M)


class Peer(NamedTuple):
    """A real counter: its name, the program the build installs, the command's words."""

    name: str
    program: str
    command: list[str]


def peers() -> list[Peer]:
    """The counters of ``counters/peers.tsv``, in its order."""
    rows = (WRAPPERS / "peers.tsv").read_text().splitlines()
    fields = [row.split("\t") for row in rows if row and not row.startswith("#")]
    return [Peer(name, program, shlex.split(command)) for name, program, command in fields]


def built(peer: Peer) -> bool:
    """Whether ``peer``'s program is built: in ``$MSCSP_COUNTERS`` where it is set, else on
    ``PATH``."""
    given = os.environ.get("MSCSP_COUNTERS")
    if given:
        return os.access(Path(given, peer.program), os.X_OK)
    return shutil.which(peer.program) is not None


def search_path() -> str:
    """``PATH`` for the counters' commands: ``$MSCSP_COUNTERS`` (where set) and the
    wrappers first (a wrapper finds its own program the same way)."""
    given = os.environ.get("MSCSP_COUNTERS")
    first = [given] if given else []
    return os.pathsep.join([*first, str(WRAPPERS), os.environ.get("PATH", "")])


def main() -> None:
    """Parses the arguments, counts, prints."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(LADDER))
    parser.add_argument("--names", help="comma list of position names (default: count null)")
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per count")
    args = parser.parse_args()
    rows = [json.loads(line) for line in Path(args.corpus).read_text().splitlines()]
    wanted = set(args.names.split(",")) if args.names else None
    os.environ["PATH"] = search_path()  # the counters' children inherit it
    found = [peer for peer in peers() if built(peer)]
    for row in rows:
        if (row["name"] in wanted) if wanted else row.get("count") is None:
            one_position(row, found, args.time_limit)


def one_position(row: dict, found: list[Peer], limit: float) -> None:
    """Counts the largest component of ``row``'s position once with each counter, and
    whole with ``mdd``; prints a line each."""
    board = parse_board(row["board"])
    component = max(reduce_system(build_system(board)).components, key=lambda c: c.n_cells)
    flags, covered = (int((board.cells == code).sum()) for code in (FLAG, COVERED))
    k = round((board.mines - flags) * component.n_cells / covered)
    head = f"{row['name']}: {component.n_cells} cells, {component.n_groups} groups, k={k}"
    start = time.perf_counter()
    try:
        said = f"{get_backend('mdd', time_limit=limit).count(component).counts[k]} (every k)"
    except SolverLimitError:
        said = "limit"
    print(f"{head}: mdd {time.perf_counter() - start:.2f} s, {said}", flush=True)
    text = write(cell_system(component, (), None), k, title=row["name"]).text
    with tempfile.TemporaryDirectory(prefix="mscsp-one-count-") as work:
        path = Path(work, "instance.cnf")
        path.write_text(text)
        for peer in found:
            outcome = run_program([*peer.command, str(path)], timeout=limit)
            found = ANSWER.findall((outcome.value or b"").decode(errors="replace"))
            said = "limit" if outcome.status == LIMIT else (found[-1] if found else "no count")
            print(f"{head}: {peer.name} {outcome.seconds:.2f} s, {said}", flush=True)


if __name__ == "__main__":
    main()
