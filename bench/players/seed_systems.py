"""Win rates of the seed papers' systems on their papers' boards and on the classic presets.

    python bench/players/seed_systems.py run [--only NAME ...] [--scale 0.5]
    python bench/players/seed_systems.py table          # markdown rows for docs/seeds.md

Every job is a harness run (``mscsp.evaluation.harness.run``) logged to
``bench/results/seeds/<job>.jsonl`` and resumed from there, so an interrupted sweep loses
nothing. All jobs on one board share the run seed, so systems play the same games (paired
comparisons and sign tests are valid).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

from mscsp.evaluation.harness import RunConfig, RunLog, run

OUT = Path(__file__).resolve().parents[1] / "results" / "seeds"
SEED = 2026
#: ``(job name, strategy, rows, cols, mines, games, player options)``, most important first;
#: a ``first_click`` entry in the options sets the rule (default ``safe``).
JOBS: list[tuple[str, str, int, int, int, int, dict]] = [
    ("local-logistic-4x4x3", "local-logistic", 4, 4, 3, 2000, {}),
    ("local-svm-4x4x3", "local-svm", 4, 4, 3, 2000, {}),
    ("global-ridge-4x4x3", "global-ridge", 4, 4, 3, 2000, {}),
    ("q-simple-4x4x3", "q-simple", 4, 4, 3, 2000, {}),
    ("local-logistic-5x5x5", "local-logistic", 5, 5, 5, 2000, {}),
    ("local-svm-5x5x5", "local-svm", 5, 5, 5, 2000, {}),
    ("global-ridge-5x5x5", "global-ridge", 5, 5, 5, 2000, {}),
    ("q-simple-5x5x5", "q-simple", 5, 5, 5, 2000, {"weights": "runs/q-simple/q-simple-5x5x5.npz"}),
    ("csp-minprob-4x4x3", "csp-minprob", 4, 4, 3, 2000, {}),
    ("q-cluster-8x8x10", "q-cluster", 8, 8, 10, 2000, {}),
    ("alexnet-8x8x10", "alexnet", 8, 8, 10, 2000, {}),
    ("rules-8x8x10", "rules", 8, 8, 10, 2000, {}),
    ("csp-minprob-8x8x10", "csp-minprob", 8, 8, 10, 2000, {}),
    ("rules-8x8x10-opening", "rules", 8, 8, 10, 2000, {"first_click": "opening"}),
    ("alexnet-8x8x10-opening", "alexnet", 8, 8, 10, 2000, {"first_click": "opening"}),
    ("csp-edge-9x9x10", "csp-edge", 9, 9, 10, 2000, {}),
    ("csp-xgb-9x9x10", "csp-xgb", 9, 9, 10, 2000, {}),
    ("csp-nn-iter-9x9x10", "csp-nn-iter", 9, 9, 10, 2000, {}),
    ("csp-dqn-9x9x10", "csp-dqn", 9, 9, 10, 2000, {}),
    ("csp-dqn-iter-9x9x10", "csp-dqn-iter", 9, 9, 10, 2000, {}),
    ("csp-minprob-9x9x10", "csp-minprob", 9, 9, 10, 2000, {}),
    ("best-9x9x10", "best", 9, 9, 10, 2000, {}),
]
PRESET_GAMES = {"beginner": 500, "intermediate": 2000, "expert": 2000}
PRESET_SYSTEMS = (
    "csp-minprob",
    "best",
    "csp-xgb",
    "csp-nn-iter",
    "csp-dqn",
    "csp-dqn-iter",
    "local-logistic",
    "local-svm",
    "q-cluster",
    "alexnet",
)


def preset_jobs() -> list[tuple[str, str, int, int, int, int, dict]]:
    from mscsp.game import PRESETS

    return [
        (f"{name}-{preset}", name, *PRESETS[preset], games, {})
        for preset, games in PRESET_GAMES.items()
        for name in PRESET_SYSTEMS
    ]


def run_jobs(only: list[str], scale: float, workers: int, presets: bool) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    jobs = JOBS + (preset_jobs() if presets else [])
    for job, strategy, rows, cols, mines, games, options in jobs:
        if only and not any(o in job for o in only):
            continue
        games = max(1, math.ceil(games * scale))
        options = dict(options)
        rule = options.pop("first_click", "safe")
        config = RunConfig(
            strategy, rows, cols, mines, first_click=rule, seed=SEED, options=options
        )
        log = OUT / f"{job}.jsonl"
        resume = log.exists()
        if resume:
            logged, done = RunLog(log).read()
            if len(done) >= games:
                continue
        start = time.perf_counter()
        summary = run(config, games, workers=workers, log=log, resume=resume)
        print(
            f"{job}: {summary.wins}/{summary.games} = {100 * summary.win_rate:.2f} % "
            f"[{100 * summary.ci_low:.2f}, {100 * summary.ci_high:.2f}] "
            f"({time.perf_counter() - start:.0f} s)",
            flush=True,
        )


def results() -> dict[str, dict]:
    """Per job: wins, games, Wilson interval and the per-game outcomes by index."""
    from mscsp.evaluation.harness import Tally

    out = {}
    for path in sorted(OUT.glob("*.jsonl")):
        config, done = RunLog(path).read()
        if config is None or not done:
            continue
        summary = Tally(done.values()).summary()
        out[path.stem] = {"summary": summary, "won": {i: r.won for i, r in done.items()}}
    return out


def sign_test(a: dict[int, bool], b: dict[int, bool]) -> tuple[int, int, float]:
    """Games only ``a`` won, only ``b`` won, and the two-sided exact sign-test p-value."""
    common = a.keys() & b.keys()
    only_a = sum(a[i] and not b[i] for i in common)
    only_b = sum(b[i] and not a[i] for i in common)
    n, k = only_a + only_b, min(only_a, only_b)
    p = min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n) if n else 1.0
    return only_a, only_b, p


def table() -> None:
    found = results()
    for job, data in found.items():
        s = data["summary"]
        print(
            f"| {job} | {s.wins}/{s.games} | {100 * s.win_rate:.2f} % "
            f"({100 * s.ci_low:.2f}-{100 * s.ci_high:.2f}) | {1000 * s.seconds_per_game:.1f} ms |"
        )
    for board in ("9x9x10", "beginner", "intermediate", "expert"):
        best = found.get(f"best-{board}")
        if best is None:
            continue
        for name in (
            "csp-xgb",
            "csp-nn-iter",
            "csp-dqn",
            "csp-dqn-iter",
            "csp-edge",
            "csp-minprob",
        ):
            other = found.get(f"{name}-{board}")
            if other is not None:
                a, b, p = sign_test(other["won"], best["won"])
                print(f"sign test {name} vs best on {board}: {a} vs {b} games, p = {p:.3g}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    go = sub.add_parser("run", help="play the jobs (resumes finished logs)")
    go.add_argument("--only", nargs="*", default=[], help="substrings of job names to run")
    go.add_argument("--scale", type=float, default=1.0, help="multiply every game count")
    go.add_argument("--workers", type=int, default=1)
    go.add_argument("--presets", action="store_true", help="also the classic presets")
    sub.add_parser("table", help="print the results as markdown rows and sign tests")
    args = parser.parse_args()
    if args.command == "run":
        run_jobs(args.only, args.scale, args.workers, args.presets)
    else:
        table()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
