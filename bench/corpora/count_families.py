"""Adds exact counts to ``bench/corpora/families.jsonl``: which backend counted which position.

Runs ``mscsp bench`` as a user would, in stages, each backend in its own worker under the
time and memory limits: first the strongest exact backends on every position, then the
others on the positions none of them counted. Each line of the corpus gets ``count`` (the
number of mine layouts that fit the position, as a decimal string; ``null`` where no backend
got one) and ``solved_by`` (the backends that counted it within the limits). Two backends
that disagree on a count stop the script: the corpus never publishes a doubtful number.

Usage (about an hour alone on two cores at the defaults; ``--resume`` goes on after a kill):

    python bench/corpora/count_families.py [--time-limit 10] [--out out/families] [--resume]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from mscsp.bigint import from_decimal, to_decimal

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "bench" / "corpora" / "families.jsonl"
#: Backends per stage; a stage runs only on the positions no earlier stage counted.
STAGES = (("mdd", "dss", "d4"), ("sdd", "ganak"))


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run_stage(backends: tuple[str, ...], lines: list[dict], out: Path, args) -> list[dict]:
    """Runs one bench stage on ``lines``; its run rows (``instance`` = index in ``lines``)."""
    out.mkdir(parents=True, exist_ok=True)
    corpus = out / "corpus.jsonl"
    text = "".join(
        json.dumps({k: line[k] for k in ("board", "family", "name")}) + "\n" for line in lines
    )
    if not (args.resume and corpus.exists() and corpus.read_text() == text):
        corpus.write_text(text)
    command = [
        sys.executable, "-m", "mscsp", "bench", "--corpus", str(corpus),
        "--backend", ",".join(backends), "--reference", backends[0],
        "--time-limit", str(args.time_limit), "--memory-limit", str(args.memory_limit),
        "--out", str(out), "--json",
    ]  # fmt: skip
    if args.resume and (out / "runs.jsonl").exists():
        command.append("--resume")
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    runs = load(out / "runs.jsonl")
    return [row for row in runs if "backend" in row]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--memory-limit", type=int, default=2048, help="MB per worker")
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "families")
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args()

    lines = load(args.corpus)
    counts: dict[int, set[int]] = defaultdict(set)
    solved_by: dict[int, list[str]] = defaultdict(list)
    todo = list(range(len(lines)))
    for number, backends in enumerate(STAGES, start=1):
        if not todo:
            break
        print(f"stage {number}: {', '.join(backends)} on {len(todo)} positions", flush=True)
        rows = run_stage(backends, [lines[i] for i in todo], args.out / f"stage{number}", args)
        for row in rows:
            if row["status"] == "ok" and row["count"] is not None:
                index = todo[row["instance"]]
                counts[index].add(from_decimal(row["count"]))
                solved_by[index].append(row["backend"])
        todo = [i for i in todo if not counts[i]]

    disputed = {i: c for i, c in counts.items() if len(c) > 1}
    if disputed:
        for i, c in disputed.items():
            print(f"backends disagree on {lines[i]['name']}: {sorted(c)}", file=sys.stderr)
        sys.exit(1)
    for i, line in enumerate(lines):
        line["count"] = to_decimal(next(iter(counts[i]))) if counts[i] else None
        line["solved_by"] = sorted(solved_by[i])
    args.corpus.write_text("".join(json.dumps(line) + "\n" for line in lines))

    per_family: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for line in lines:
        per_family[line["family"]][0] += 1
        per_family[line["family"]][1] += line["count"] is not None
    print(f"| family | positions | counted | beyond every backend at {args.time_limit:g} s |")
    print("|---|---:|---:|---:|")
    for family, (total, counted) in per_family.items():
        print(f"| {family} | {total} | {counted} | {total - counted} |")
    beyond = [line["name"] for line in lines if line["count"] is None]
    print(f"\n{len(lines) - len(beyond)} of {len(lines)} counted; beyond: {', '.join(beyond)}")


if __name__ == "__main__":
    main()
