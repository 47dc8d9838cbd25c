"""Draws ``docs/img/architecture.png``: the rooms of mscsp and learners, and their imports.

The graph is the real one, read from the source by ``tests/test_import_graph.py`` (the same
rules and the same rooms and layers its layering test holds the code to): one box per room,
its layers bottom to top, one arrow per pair of rooms where one imports the other, labelled
with the number of module-to-module imports behind it. Nearly every room imports the four
bottom layers (the model, the runtime, the trust boundary, the errors): those imports are
written in the importing box ("uses model 24 ..."), not drawn, so that the arrows between the
other rooms stay readable. An import that runs up or sideways (one of the test's
allow-listed ``BACK_EDGES``) is always drawn, red and dashed.

Run from the repository root (needs matplotlib, the ``plot`` extra)::

    python docs/img/architecture.py            # writes docs/img/architecture.png
    python docs/img/architecture.py --out x.png
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # the graph's one definition lives with its test

from test_import_graph import LAYERS, ROOMS, import_graph, room_graph, rooms_of  # noqa: E402

#: Box colours by part of the tree: the base, the core, the front rooms, the learners.
COLOURS = {
    "base": "#e8e8e8",
    "core": "#cfe3f6",
    "front": "#f8e1c6",
    "learners": "#d9efd2",
}
FRONT = {"evaluation", "export", "replay", "policy", "web", "cli", "noguess", "env"}
BOX_W, BOX_H = 2.05, 0.72
#: The bottom four layers, which nearly every room imports: written in the boxes, not drawn.
FOLDED = [room for rooms in LAYERS[:4] for room in rooms]


def colour(room: str, layer: int) -> str:
    """The box colour of ``room`` (on ``layer``)."""
    if room == "learners":
        return COLOURS["learners"]
    if room in FOLDED:
        return COLOURS["base"]
    return COLOURS["front"] if room in FRONT else COLOURS["core"]


def positions() -> dict[str, tuple[float, float]]:
    """Each room's centre: its layer's row, spread across it; rows of one room alternate
    left and right of the middle, so that arrows passing them do not cross their box."""
    out = {}
    for y, rooms in enumerate(LAYERS):
        if len(rooms) == 1:
            out[rooms[0]] = (1.4 * (-1 if y % 2 else 1), 1.25 * y)
            continue
        for i, room in enumerate(rooms):
            out[room] = (2.6 * (i - (len(rooms) - 1) / 2), 1.25 * y)
    return out


#: Where along an arrow its count may sit, in order of preference.
LABEL_AT = (0.3, 0.25, 0.35, 0.2, 0.4, 0.45, 0.5, 0.55, 0.6, 0.15, 0.65, 0.7)


def inside(xy: tuple[float, float], where: dict[str, tuple[float, float]]) -> bool:
    """Whether the point ``xy`` falls on a box (with a margin for the label)."""
    x, y = xy
    return any(
        abs(x - bx) < BOX_W / 2 + 0.1 and abs(y - by) < BOX_H / 2 + 0.08
        for bx, by in where.values()
    )


def along(
    ax: plt.Axes, start: tuple[float, float], end: tuple[float, float], rad: float, t: float
) -> tuple[float, float]:
    """The point a fraction ``t`` along an ``arc3`` arrow from ``start`` to ``end`` (a
    quadratic Bezier whose control point matplotlib sets off the chord by ``rad`` of its
    length, in display space)."""
    (x0, y0), (x1, y1) = ax.transData.transform([start, end])
    cx, cy = (x0 + x1) / 2 + rad * (y1 - y0), (y0 + y1) / 2 - rad * (x1 - x0)
    x = (1 - t) ** 2 * x0 + 2 * (1 - t) * t * cx + t**2 * x1
    y = (1 - t) ** 2 * y0 + 2 * (1 - t) * t * cy + t**2 * y1
    return tuple(ax.transData.inverted().transform((x, y)))


def draw(out: Path) -> None:
    """Draws the picture into ``out``."""
    modules = import_graph(ROOT)
    room_of = rooms_of(modules)
    rooms = room_graph(modules)
    layer = {room: i for i, names in enumerate(LAYERS) for room in names}
    where = positions()
    fig = plt.figure(figsize=(13, 16))
    # Fixed axes and limits before any arrow: the counts are placed on the arrows' curves,
    # which matplotlib bends in display space.
    ax = fig.add_axes((0.01, 0.01, 0.98, 0.94))
    ax.set_xlim(-6.3, 5.3)
    ax.set_ylim(-0.8, 1.25 * (len(LAYERS) - 1) + 0.8)
    ax.set_axis_off()
    for a, b, data in rooms.edges(data=True):
        (xa, ya), (xb, yb) = where[a], where[b]
        up = layer[b] >= layer[a]
        if b in FOLDED and not up:
            continue
        # Long arrows bend more, so that the ones leaving one box fan out.
        bend = 0.08 + 0.025 * abs(layer[a] - layer[b])
        start = (xa, ya - BOX_H / 2 if not up else ya + BOX_H / 2)
        end = (xb, yb + BOX_H / 2 if not up else yb - BOX_H / 2)
        rad = bend if xa <= xb else -bend
        arrow = FancyArrowPatch(
            start,
            end,
            connectionstyle=f"arc3,rad={rad}",
            arrowstyle="-|>",
            mutation_scale=11,
            lw=0.4 + 0.45 * math.log2(data["count"]),
            color="#c0392b" if up else "#44546a",
            alpha=0.9 if up else 0.45,
            linestyle="--" if up else "-",
            zorder=1,
        )
        ax.add_patch(arrow)
        # The count sits on the arrow a little way from its source (where arrows fan out),
        # outside every box (an arrow may pass behind one).
        spots = (along(ax, start, end, rad, t) for t in LABEL_AT)
        ax.text(
            *next((xy for xy in spots if not inside(xy, where)), along(ax, start, end, rad, 0.3)),
            str(data["count"]),
            fontsize=6.5,
            ha="center",
            va="center",
            color="#c0392b" if up else "#222222",
            bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8},
            zorder=3,
        )
    sizes = {room: sum(1 for r in room_of.values() if r == room) for room in ROOMS}
    for room, (x, y) in where.items():
        ax.add_patch(
            FancyBboxPatch(
                (x - BOX_W / 2, y - BOX_H / 2),
                BOX_W,
                BOX_H,
                boxstyle="round,pad=0.02,rounding_size=0.08",
                fc=colour(room, layer[room]),
                ec="#333333",
                lw=0.9,
                zorder=2,
            )
        )
        ax.text(x, y + 0.16, room, ha="center", va="center", fontsize=10.5, weight="bold")
        noun = "module" if sizes[room] == 1 else "modules"
        ax.text(x, y - 0.06, f"{sizes[room]} {noun}", ha="center", va="center", fontsize=7.5)
        uses = [
            f"{b} {rooms.edges[room, b]['count']}"
            for b in FOLDED
            if rooms.has_edge(room, b) and layer[b] < layer[room]
        ]
        if uses:
            ax.text(x, y - 0.24, "uses " + " · ".join(uses), ha="center", va="center", fontsize=6)
    for y, _ in enumerate(LAYERS):
        ax.text(-6.1, 1.25 * y, f"layer {y}", fontsize=8, color="#777777", va="center")
    ax.set_title(
        "mscsp and learners: rooms bottom to top, imports between them (module pairs)\n"
        "imports of the four bottom layers written in the boxes; red dashed: runs back up",
        fontsize=11,
    )
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main() -> None:
    """Parses ``--out`` and draws."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "architecture.png")
    args = parser.parse_args()
    draw(args.out)
    print(args.out)


if __name__ == "__main__":
    main()
