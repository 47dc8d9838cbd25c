"""The plots the SAT and #SAT competitions draw, from a bench's runs.

* **Cactus plot**: one line per backend; its runs solved (answered within the limits and
  not wrong), sorted by time, the ``i``-th point at ``(i, time of the i-th fastest)``. The
  line further right solves more; the lower one solves them faster.
* **Scatter plot** of a pair ``A``, ``B``: one point per position, ``(time of A, time of
  B)`` on log axes, with the diagonal; a position a backend did not solve (limit, timeout,
  memory out, wrong answer) is drawn on the border at the time limit, with its own marker.

Each is written as PNG and SVG. matplotlib (the ``plot`` extra) is imported only here, only
when a plot is drawn.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

from ..errors import BackendUnavailableError
from ..trust.escape import plain_label, plain_text

#: File formats every plot is written in.
FORMATS = ("png", "svg")
#: Marker of each kind of unsolved run on a scatter plot's border.
_MARKERS = {"limit": "x", "timeout": "x", "memout": "s", "crash": "D", "wrong": "^"}
#: Shortest time drawn (seconds): log axes cannot show 0.
_FLOOR = 1e-4


def _pyplot() -> Any:
    """matplotlib's pyplot on the file-only ``Agg`` backend, or a clear error."""
    try:
        import matplotlib
    except ImportError:
        raise BackendUnavailableError("plots need matplotlib: pip install 'mscsp[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _outcome(run: dict[str, Any]) -> str:
    """``solved``, or why not: the run's status, or ``wrong``."""
    if run["status"] != "ok":
        return run["status"]
    return "wrong" if run["wrong"] else "solved"


def _save(fig: Any, stem: Path) -> list[Path]:
    paths = []
    for form in FORMATS:
        path = stem.with_name(f"{stem.name}.{form}")
        fig.savefig(path, dpi=120)
        paths.append(path)
    return paths


#: Markers of the cactus plot's lines, one per ten lines.
_LINE_MARKERS = ("o", "s", "^", "D")


def cactus(runs: list[dict[str, Any]], stem: Path, time_limit: float | None) -> list[Path]:
    """Draws the cactus plot of ``runs`` (:attr:`~mscsp.evaluation.benchmark.BenchResult.runs` rows)
    to ``stem.png`` and ``stem.svg``.

    Raises:
        BackendUnavailableError: matplotlib is not installed.
    """
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    colours = plt.get_cmap("tab20").colors
    for i, name in enumerate(dict.fromkeys(r["backend"] for r in runs)):
        times = sorted(
            max(r["seconds"], _FLOOR)
            for r in runs
            if r["backend"] == name and _outcome(r) == "solved"
        )
        # Twenty colours, and a marker that changes every ten lines: no two lines alike.
        ax.plot(
            range(1, len(times) + 1),
            times,
            marker=_LINE_MARKERS[i // 10 % len(_LINE_MARKERS)],
            ms=3,
            color=colours[i % len(colours)],
            label=plain_label(f"{name} ({len(times)})"),
        )
    if time_limit:
        ax.axhline(time_limit, color="grey", lw=0.8, ls="--")
    ax.set_yscale("log")
    ax.set_xlabel("instances solved")
    ax.set_ylabel("time per instance (s)")
    total = len({r["instance"] for r in runs})
    limit = f", limit {time_limit:g} s" if time_limit else ""
    ax.set_title(f"Cactus plot: {total} instances{limit}")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small")
    fig.tight_layout()
    try:
        return _save(fig, stem)
    finally:
        plt.close(fig)


def scatter(
    runs: list[dict[str, Any]], first: str, second: str, stem: Path, time_limit: float | None
) -> list[Path]:
    """Draws the scatter plot of backend ``first`` (x) against ``second`` (y) over the
    positions both ran, to ``stem.png`` and ``stem.svg``.

    Raises:
        BackendUnavailableError: matplotlib is not installed.
    """
    plt = _pyplot()
    by_instance: dict[int, dict[str, dict[str, Any]]] = {}
    for r in runs:
        by_instance.setdefault(r["instance"], {})[r["backend"]] = r
    pairs = [(m[first], m[second]) for m in by_instance.values() if first in m and second in m]
    slowest = max([r["seconds"] for pair in pairs for r in pair] + [_FLOOR * 10])
    border = time_limit or slowest

    def where(run: dict[str, Any]) -> float:
        return max(run["seconds"], _FLOOR) if _outcome(run) == "solved" else border

    fig, ax = plt.subplots(figsize=(5.5, 5.5))
    kinds: dict[str, list[tuple[float, float]]] = {}
    for a, b in pairs:
        unsolved = [o for o in (_outcome(a), _outcome(b)) if o != "solved"]
        kinds.setdefault(unsolved[0] if unsolved else "solved", []).append((where(a), where(b)))
    for kind, points in kinds.items():
        xs, ys = zip(*points, strict=True)
        marker = _MARKERS.get(kind, "o")
        ax.scatter(xs, ys, s=18, marker=marker, alpha=0.7, label=f"{kind} ({len(points)})")
    ax.plot([_FLOOR, border], [_FLOOR, border], color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(_FLOOR, border * 1.5)
    ax.set_ylim(_FLOOR, border * 1.5)
    ax.set_xlabel(plain_label(f"{first} time (s)"))
    ax.set_ylabel(plain_label(f"{second} time (s)"))
    ax.set_title(plain_label(f"{second} against {first}; unsolved on the border"))
    if kinds:
        ax.legend(fontsize="small")
    fig.tight_layout()
    try:
        return _save(fig, stem)
    finally:
        plt.close(fig)


def _slug(name: str) -> str:
    """A backend name as part of a file name (``sat:cadical195`` -> ``sat-cadical195``)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name)


#: Up to this many backends, a scatter plot for every pair; beyond, each against the leader
#: (14 backends would make 91 plots that nobody reads).
ALL_PAIRS_UP_TO = 5


def scatter_pairs(runs: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The pairs of backends to draw: every pair of a few; of many, each against the one
    that solved the most positions (the least total time on ties), which goes first."""
    names = list(dict.fromkeys(r["backend"] for r in runs))
    if len(names) <= ALL_PAIRS_UP_TO:
        return list(itertools.combinations(names, 2))

    def standing(name: str) -> tuple[int, float]:
        mine = [r for r in runs if r["backend"] == name]
        solved = [r for r in mine if r["status"] == "ok" and not r.get("wrong")]
        return -len(solved), sum(float(r["seconds"]) for r in mine)

    leader = min(names, key=standing)
    return [(leader, name) for name in names if name != leader]


def write_plots(runs: list[dict[str, Any]], folder: Path, time_limit: float | None) -> list[Path]:
    """``cactus.png/.svg`` and ``scatter-A-vs-B.png/.svg`` for the pairs of
    :func:`scatter_pairs`, backend names drawn as plain text (mathtext off: a ``$`` in a
    name is a dollar sign).

    Raises:
        BackendUnavailableError: matplotlib is not installed.
    """
    with plain_text():
        written = cactus(runs, folder / "cactus", time_limit)
        for first, second in scatter_pairs(runs):
            stem = folder / f"scatter-{_slug(first)}-vs-{_slug(second)}"
            written += scatter(runs, first, second, stem, time_limit)
    return written
