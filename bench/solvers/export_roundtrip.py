"""Round trip of ``mscsp export``: real counters on the exported CNF files against our counts.

Exports real expert positions (seeded games) and every position of the hard corpus in the
``mcc`` format (``pmc``: one file per component and mine number), then counts every file
of at most ``--max-cells`` cells with Ganak and D4, each in a child process killed at
``--time-limit``, and compares with the index's exact count. Prints the disagreements
(the target is none), timeouts, per-family numbers and the time; ``--json`` for machines.

    python bench/solvers/export_roundtrip.py --expert 300 --max-cells 40 --time-limit 10
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

from mscsp.bigint import from_decimal
from mscsp.errors import MscspError
from mscsp.evaluation.benchmark import CorpusEntry, load_entries
from mscsp.evaluation.played_positions import sample_positions
from mscsp.export import export
from mscsp.export.check import count_file
from mscsp.export.index import read_index
from mscsp.game import PRESETS

HARD = Path(__file__).resolve().parents[1] / "corpora" / "hard.jsonl"


def main() -> None:
    """Parses the arguments, exports, counts, prints."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--expert", type=int, default=300, help="real expert positions")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--corpus", default=str(HARD), help="corpus exported as well")
    parser.add_argument("--max-cells", type=int, default=40, help="largest instance counted")
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per count")
    parser.add_argument("--export-limit", type=float, default=10.0, help="seconds per position")
    parser.add_argument("--counters", default="ganak,d4")
    parser.add_argument("--out", help="export folder (default: a temporary one)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.out:
        run(args, Path(args.out))
        return
    with tempfile.TemporaryDirectory(prefix="mscsp-export-") as folder:
        run(args, Path(folder))


def run(args: argparse.Namespace, out: Path) -> None:
    """Exports into ``out``, counts every small file with each counter, reports."""
    boards = sample_positions(*PRESETS["expert"], args.expert, seed=args.seed)
    entries = [CorpusEntry(b, 0, "expert", f"expert #{i}") for i, b in enumerate(boards)]
    entries += load_entries(args.corpus)
    start = time.perf_counter()
    summary = export(entries, out, time_limit=args.export_limit, overwrite=True)
    exported = time.perf_counter() - start
    records = [r for r in read_index(out) if r["cells"] <= args.max_cells]
    counters = args.counters.split(",")
    verdicts: dict[str, Counter] = {c: Counter() for c in counters}
    families: dict[str, Counter] = defaultdict(Counter)
    seconds = Counter()
    disagreements = []
    for record in records:
        families[record["family"]]["instances"] += 1
        for counter in counters:
            begin = time.perf_counter()
            try:
                got = count_file(out / record["file"], counter, args.time_limit)
            except MscspError as exc:
                verdict = "timeout" if "ran past" in str(exc) else "error"
                disagreements += [] if verdict == "timeout" else [(record, counter, str(exc))]
            else:
                verdict = "agree" if got == from_decimal(record["count"]) else "disagree"
                if verdict == "disagree":
                    disagreements.append((record, counter, str(got)))
            seconds[counter] += time.perf_counter() - begin
            verdicts[counter][verdict] += 1
            families[record["family"]][f"{counter} {verdict}"] += 1
    components = {(r["position"], r["component"]) for r in records}
    result = {
        "positions": summary.positions,
        "positions_skipped": len(summary.skipped),
        "instances_exported": summary.instances,
        "instances_counted": len(records),
        "components_counted": len(components),
        "families": {f: dict(c) for f, c in sorted(families.items())},
        "verdicts": {c: dict(v) for c, v in verdicts.items()},
        "disagreements": [
            {"file": r["file"], "counter": c, "ours": r["count"], "theirs": got}
            for r, c, got in disagreements
        ],
        "export_seconds": round(exported, 2),
        "count_seconds": {c: round(s, 2) for c, s in seconds.items()},
        "max_cells": args.max_cells,
        "time_limit": args.time_limit,
        "load_average": os.getloadavg(),
    }
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"{result['instances_counted']} instances ({len(components)} components, "
        f"<= {args.max_cells} cells) of {summary.instances} exported from "
        f"{summary.positions} positions ({len(summary.skipped)} skipped at the export limit)"
    )
    for counter, verdict in verdicts.items():
        print(f"  {counter}: {dict(verdict)}, {seconds[counter]:.1f} s")
    for family, numbers in sorted(families.items()):
        print(f"  {family}: {dict(numbers)}")
    print(f"disagreements: {len(disagreements)}")
    for item in result["disagreements"]:
        print(f"  {item}")
    print(f"export {exported:.1f} s; load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
