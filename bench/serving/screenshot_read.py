"""How well ``mscsp probs --image`` reads boards, per skin: boards composed from real clients'
tile images (truth known), and real clients' own screenshots (truth unknown).

For each skin (a folder of one client's tile images), random positions are laid at three
sizes (beginner, intermediate, expert: mines placed, a few openings cleared, some mines
flagged) and drawn at three cell sizes (16, 24 and 32 pixels: zoom 1, 1.5 and 2) inside a
sunken frame, as the classic clients draw it, then saved as PNG and read by
:func:`mscsp.screen.read_screenshot`. Per skin it reports boards read whole (every cell
right, none unreadable), boards refused (no board found or recognised), and over all cells
of the boards drawn: right, unreadable (marked for the user) and wrong (a wrong value passed
on: what the checks are for); and the recogniser's own cells right before the checks. Real
screenshots (``--screens``) have no truth: the table says what was read or why refused.

Everything it reads is fetched outside the repository (it is other projects' files)::

    mkdir -p /tmp/screens/skins && cd /tmp/screens
    git clone --depth 1 https://github.com/eee555/ms_toollib        # MIT: the model
    cp ms_toollib/base/params.onnx .
    git clone --depth 1 https://github.com/eee555/Metasweeper       # classic grey, SVG
    mkdir skins/metasweeper && cp Metasweeper/src/media/cell*.svg skins/metasweeper/
    git clone --depth 1 https://github.com/DavidNHill/JSMinesweeper # MIT, PNG
    mkdir skins/jsminesweeper && cp JSMinesweeper/resources/images/{?,facingDown,flagged}.png \\
        skins/jsminesweeper/
    git clone --depth 1 https://github.com/Bollos00/LibreMines      # six looks, SVG
    for t in LibreMines/share/minefield_themes/*/; do
        d=skins/libremines_$(basename $t); mkdir $d && cp $t{?,flag,no_flag}.svg $d/
    done
    # Windows 3.1/98 tiles (the classic look Arbiter's default copies), a 16x256 strip, MIT:
    git clone --depth 1 https://github.com/azayrahmad/azos-second-edition
    python bench/serving/screenshot_read.py --split-strip \\
        azos-second-edition/src/assets/minesweeper/minesweeper-game.png skins/win98
    pip install cairosvg   # draws the SVG tiles (needs the cairo library)

then, from the repository root::

    PYTHONPATH=. python bench/serving/screenshot_read.py --model /tmp/screens/params.onnx \\
        --skins /tmp/screens/skins --screens /tmp/screens/real --boards 4 --seed 1 \\
        --out bench/results/screenshot_read.json

A skin folder holds one image per tile, PNG or SVG, named ``0``-``8`` (or ``cell1``-``cell8``
with ``celldown`` for 0), the covered tile ``covered`` (``cellup``, ``facingDown``,
``no_flag``) and the flag ``flag`` (``cellflag``, ``flagged``). ``--screens`` is a folder of
real screenshots (Metasweeper's ``readme_pic/*.png``, LibreMines' ``share/Screenshots``,
JSMinesweeper's ``resources/ReadmeImages``). It prints a Markdown table and writes the JSON.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from mscsp.board import COVERED
from mscsp.errors import MscspError
from mscsp.screen import UNREADABLE, read_screenshot

#: Board sizes drawn: (rows, columns, mines), the three presets.
SIZES = ((9, 9, 10), (16, 16, 40), (16, 30, 99))
#: Cell sizes drawn, in pixels: the classic 16 at zoom 1, 1.5 and 2.
CELL_PIXELS = (16, 24, 32)
#: The tile names each role may have in a skin's folder, first found wins.
NAMES = {
    **{str(d): (str(d), f"cell{d}") for d in range(1, 9)},
    "0": ("0", "celldown"),
    "covered": ("covered", "cellup", "facingDown", "no_flag"),
    "flag": ("flag", "cellflag", "flagged"),
}
#: The strip's tiles from the top, as the Windows 3.1/98 sprite strip orders them.
STRIP = ("covered", "flag", "question", "exploded", "notmine", "mine", "question_pressed", "8", "7")
STRIP += ("6", "5", "4", "3", "2", "1", "0")
#: Share of mines drawn flagged.
FLAGGED = 0.3


def tile_images(folder: Path, size: int) -> dict[str, Image.Image]:
    """The skin's tiles at ``size`` pixels, on the classic grey where transparent."""
    out = {}
    for role, names in NAMES.items():
        path = next(
            (
                folder / f"{n}{ext}"
                for n in names
                for ext in (".png", ".svg")
                if (folder / f"{n}{ext}").is_file()
            ),
            None,
        )
        if path is None:
            raise SystemExit(f"{folder}: no tile for {role} (any of {', '.join(names)})")
        if path.suffix == ".svg":
            import cairosvg

            data = cairosvg.svg2png(url=str(path), output_width=size, output_height=size)
            image = Image.open(io.BytesIO(data)).convert("RGBA")
        else:
            image = Image.open(path).convert("RGBA")
            # Pixel art is zoomed as clients zoom it; large tiles are scaled down smoothly.
            resample = Image.NEAREST if image.width <= size else Image.LANCZOS
            image = image.resize((size, size), resample)
        back = Image.new("RGBA", image.size, (192, 192, 192, 255))
        out[role] = Image.alpha_composite(back, image).convert("RGB")
    return out


def random_position(rows: int, cols: int, mines: int, rng: random.Random) -> list[list[str]]:
    """A position of a game under way: three openings cleared, some mines flagged."""
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    mined = set(rng.sample(cells, mines))
    near = {
        (r, c): sum((r + dr, c + dc) in mined for dr in (-1, 0, 1) for dc in (-1, 0, 1))
        for r, c in cells
    }
    opened: set[tuple[int, int]] = set()
    safe = [cell for cell in cells if cell not in mined]
    for _ in range(3):
        todo = [rng.choice(safe)]
        while todo:
            r, c = todo.pop()
            if (r, c) in opened:
                continue
            opened.add((r, c))
            if near[r, c] == 0:
                todo += [
                    (r + dr, c + dc)
                    for dr in (-1, 0, 1)
                    for dc in (-1, 0, 1)
                    if (r + dr, c + dc) in near and (r + dr, c + dc) not in mined
                ]
    return [
        [
            str(near[r, c])
            if (r, c) in opened
            else "flag"
            if (r, c) in mined and rng.random() < FLAGGED
            else "covered"
            for c in range(cols)
        ]
        for r in range(rows)
    ]


def draw(position: list[list[str]], tiles: dict[str, Image.Image], size: int) -> bytes:
    """The position as a PNG: a cell of margin, a sunken frame (3 pixels at zoom 1)."""
    rows, cols = len(position), len(position[0])
    border = max(3, 3 * size // 16)
    edge = size + border
    image = Image.new("RGB", (cols * size + 2 * edge, rows * size + 2 * edge), (192, 192, 192))
    pen = ImageDraw.Draw(image)
    for k in range(border):
        x0, y0 = size + k, size + k
        x1, y1 = image.width - 1 - size - k, image.height - 1 - size - k
        pen.line([(x0, y1), (x0, y0), (x1, y0)], fill=(128, 128, 128))
        pen.line([(x1, y0), (x1, y1), (x0, y1)], fill=(255, 255, 255))
    for r, row in enumerate(position):
        for c, role in enumerate(row):
            image.paste(tiles[role], (edge + c * size, edge + r * size))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def truth_codes(position: list[list[str]]) -> np.ndarray:
    """What a perfect reading gives: numbers, and covered for covered and flagged cells."""
    return np.array(
        [
            [COVERED if role in ("covered", "flag") else int(role) for role in row]
            for row in position
        ]
    )


def measure_skin(
    folder: Path, model: Path, boards: int, rng: random.Random
) -> dict[int, dict[str, Any]]:
    """One skin's counts at each cell size, over every board size and board."""
    return {size: measure_zoom(folder, size, model, boards, rng) for size in CELL_PIXELS}


def measure_zoom(
    folder: Path, size: int, model: Path, boards: int, rng: random.Random
) -> dict[str, Any]:
    """One skin's counts at one cell size."""
    counts = dict(boards=0, whole=0, refused=0, cells=0, right=0, unreadable=0, wrong=0)
    counts["raw_right"] = 0
    refusals: dict[str, int] = {}
    seconds = 0.0
    tiles = tile_images(folder, size)
    for rows, cols, mines in SIZES:
        for _ in range(boards):
            position = random_position(rows, cols, mines, rng)
            truth = truth_codes(position)
            counts["boards"] += 1
            counts["cells"] += truth.size
            start = time.perf_counter()
            try:
                reading = read_screenshot(draw(position, tiles, size), model)
            except MscspError as exc:
                seconds += time.perf_counter() - start
                counts["refused"] += 1
                why = str(exc).split(":")[0]
                refusals[why] = refusals.get(why, 0) + 1
                continue
            seconds += time.perf_counter() - start
            doubt = reading.cells == UNREADABLE
            right = int((reading.cells == truth).sum())
            counts["right"] += right
            counts["unreadable"] += int(doubt.sum())
            counts["wrong"] += int((~doubt & (reading.cells != truth)).sum())
            counts["raw_right"] += int((reading.guess == truth).sum())
            counts["whole"] += right == truth.size
    return {**counts, "refusals": refusals, "seconds_per_board": seconds / counts["boards"]}


def read_real(folder: Path, model: Path) -> list[dict[str, Any]]:
    """What each real screenshot gives: the board's size and doubts, or why refused."""
    out = []
    for path in sorted(
        p for p in folder.iterdir() if p.suffix.lower() in (".png", ".jpg", ".jpeg")
    ):
        row: dict[str, Any] = {"image": path.name}
        try:
            reading = read_screenshot(path.read_bytes(), model)
        except MscspError as exc:
            row["refused"] = str(exc)
        else:
            rows, cols = reading.cells.shape
            row.update(
                size=f"{cols}x{rows}",
                unreadable=len(reading.unreadable),
                caught=int((reading.cells != reading.guess).sum()),
                text=reading.text(),
            )
        out.append(row)
    return out


def markdown(skins: dict[str, dict[str, Any]], real: list[dict[str, Any]]) -> str:
    """The tables for docs/screenshots.md: each skin at each cell size, then the real
    screenshots. Cells are counted over every board drawn, refused ones included."""
    head = ("skin", "cell px", "boards", "read whole", "refused", "cells right", "unreadable")
    lines = ["| " + " | ".join((*head, "wrong", "recogniser alone")) + " |", "|---" * 9 + "|"]
    for name, zooms in skins.items():
        for size, s in zooms.items():

            def pct(key: str, s: dict[str, Any] = s) -> str:
                return f"{100 * s[key] / s['cells']:.2f} %"

            lines.append(
                f"| {name} | {size} | {s['boards']} | {s['whole']} | {s['refused']} | "
                f"{pct('right')} | {pct('unreadable')} | {pct('wrong')} | {pct('raw_right')} |"
            )
    if real:
        lines += ["", "| screenshot | read |", "|---|---|"]
        for row in real:
            verdict = (
                f"refused: {row['refused']}"
                if "refused" in row
                else f"{row['size']}, {row['unreadable']} unreadable "
                f"({row['caught']} caught by the checks)"
            )
            lines.append(f"| {row['image']} | {verdict} |")
    return "\n".join(lines)


def split_strip(strip: Path, folder: Path) -> None:
    """Cuts the Windows 3.1/98 sprite strip (16 x 256) into named tiles."""
    image = Image.open(strip).convert("RGB")
    folder.mkdir(parents=True, exist_ok=True)
    for i, name in enumerate(STRIP):
        image.crop((0, 16 * i, 16, 16 * i + 16)).save(folder / f"{name}.png")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, help="ms_toollib's params.onnx")
    parser.add_argument("--skins", type=Path, help="a folder of skin folders")
    parser.add_argument("--screens", type=Path, help="a folder of real screenshots")
    parser.add_argument("--boards", type=int, default=4, help="boards per size and zoom")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--seed-per-skin",
        action="store_true",
        help="draw each skin's positions from the seed on its own (other boards than the "
        "default, where one generator runs through the skins in turn)",
    )
    parser.add_argument("--out", type=Path, help="the JSON written")
    parser.add_argument("--split-strip", nargs=2, type=Path, metavar=("STRIP", "FOLDER"))
    args = parser.parse_args(argv)
    if args.split_strip:
        split_strip(*args.split_strip)
        return
    if args.model is None or args.skins is None:
        parser.error("--model and --skins are needed")
    rng = random.Random(args.seed)
    skins = {}
    for folder in sorted(p for p in args.skins.iterdir() if p.is_dir()):
        if args.seed_per_skin:
            rng = random.Random(args.seed)
        skins[folder.name] = measure_skin(folder, args.model, args.boards, rng)
        print(folder.name, skins[folder.name], file=sys.stderr, flush=True)
    real = read_real(args.screens, args.model) if args.screens else []
    table = markdown(skins, real)
    print(table)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        result = {"seed": args.seed, "boards": args.boards, "skins": skins, "real": real}
        args.out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
