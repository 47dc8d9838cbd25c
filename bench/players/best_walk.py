"""How often ``best``'s guesses cross between the package's rooms (issue 48).

Plays a few seeded games of ``best`` as ``mscsp play`` does (the harness's
:func:`~mscsp.evaluation.harness.play_game`, the kernel loaded first, a few games played
untraced before) and traces every Python-level function call (``sys.setprofile``; calls into
C are not seen). Each called function is put in the *room* of the module it was defined in
(``f_globals['__name__']``): the rooms and their layers are those of
``tests/test_import_graph.py`` (``ROOMS``, ``LAYERS``; docs/architecture.md draws them), read
from this checkout's tests whatever tree is measured. The tree before the layout of issue 48
had the engine, the harness and the runtime as top-level modules (``mscsp.compiled``,
``mscsp._regions``, ``mscsp.harness``, ``mscsp.deadline``, ...): :data:`MOVED` gives each
its module of today, so both trees are measured alike. Modules outside ``mscsp`` (numpy,
numba, the standard library) are in no room: a call into them is not counted, and a call out
of them into ``mscsp`` counts as made by the nearest caller in a room (a sort key, a
callback).

Per game it counts:

* ``guesses``: the guesses Python made (calls of ``BestPlayer.guess``; the engine makes
  the others in compiled code, with no Python call to see);
* ``room_changes``: calls whose room differs from their caller's;
* ``reentries``: room-changing calls made during a guess into a room already entered
  earlier in the same guess (by any call since the guess began): the round trips a guess
  makes to rooms it has been to, where one visit could have answered;
* ``reentries_outside``: the same between guesses (each stretch from the end of one guess
  to the start of the next, or to the end of the game, counts as one);
* ``climbs``: room-changing calls into a room on the same layer or a higher one (the
  engine calling back into ``players``, ``solve`` code calling a player, ...), in
  guesses or not: the calls that run against the imports' direction;
* ``by_pair``: the re-entries during guesses by (caller's room, callee's room).

With ``--callees N``, the totals also name the N (caller, callee) function pairs of the most
re-entries during guesses. Prints one JSON line per game and a last line with the totals::

    python bench/players/best_walk.py --games 100 --seed 4242
    cd /tmp && PYTHONPATH=/tmp/before python /work/main/bench/players/best_walk.py
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from test_import_graph import LAYERS, ROOMS, room_key  # noqa: E402

#: Top-level modules of the tree before the layout, by the module they became.
MOVED = {
    **{
        f"mscsp.{name}": f"mscsp.engine.{name}"
        for name in (
            "compiled",
            "compiled_play",
            "_kernel",
            "_kernel_status",
            "_kernel_ties",
            "_engine",
            "_lookahead",
            "_probe",
            "_condition",
            "_endgame",
            "_regions",
        )
    },
    **{
        f"mscsp.{name}": f"mscsp.evaluation.{name}"
        for name in ("harness", "benchmark", "bench_runs", "bench_plots", "families", "metrics")
    },
    "mscsp.positions": "mscsp.evaluation.played_positions",
    **{
        f"mscsp.{name}": f"mscsp.runtime.{name}"
        for name in ("deadline", "memlimit", "interrupts", "outlock")
    },
    "mscsp.inputs": "mscsp.trust.inputs",
    "mscsp.render": "mscsp.display.render",
    "mscsp.heatmap": "mscsp.display.heatmap",
    "mscsp.brute": "mscsp.reference",
    "mscsp.sampling": "mscsp.layouts",
}
FILED = {key: room for room, keys in ROOMS.items() for key in keys}
LAYER = {room: i for i, rooms in enumerate(LAYERS) for room in rooms}


def room_of(module: str | None) -> str | None:
    """The room of a module by its dotted name (``None``: not filed in one)."""
    if not module:
        return None
    return FILED.get(room_key(MOVED.get(module, module)))


class Walk:
    """The profile function that counts one game's calls (see the module's doc)."""

    def __init__(self, is_guess: Callable[[FrameType], bool]):
        self.is_guess = is_guess
        self.frames: list[tuple[str | None, str]] = [(None, "")]  # (room, function) a frame
        self.guessing = 0  # depth of the guess's frame on the stack (0: not guessing)
        self.entered: set[str] = set()
        self.counts: Counter[str] = Counter()
        self.pairs: Counter[str] = Counter()
        self.functions: Counter[str] = Counter()  # the re-entries during guesses, by call

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            self.call(frame)
        elif event == "return" and len(self.frames) > 1:
            self.frames.pop()
            if self.guessing and len(self.frames) < self.guessing:
                self.guessing = 0
                self.entered = set()  # (the stretch up to the next guess starts)

    def call(self, frame: FrameType) -> None:
        caller, calling = next(((r, f) for r, f in reversed(self.frames) if r), (None, ""))
        module = frame.f_globals.get("__name__")
        room = room_of(module)
        function = f"{module}.{frame.f_code.co_qualname}"
        self.frames.append((room, function))
        if not self.guessing and self.is_guess(frame):
            self.guessing = len(self.frames)
            self.counts["guesses"] += 1
            self.entered = {room} if room else set()
            return
        if room is None or caller is None or room == caller:
            return
        self.counts["room_changes"] += 1
        if LAYER[room] >= LAYER[caller]:
            self.counts["climbs"] += 1
        if room in self.entered:
            self.counts["reentries" if self.guessing else "reentries_outside"] += 1
            if self.guessing:
                self.pairs[f"{caller}->{room}"] += 1
                self.functions[f"{calling} -> {function}"] += 1
        self.entered.add(room)


def module(*names: str) -> Any:
    """The first of the modules ``names`` this tree has (the layout moved some)."""
    for name in names:
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise ImportError(f"none of {names}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games traced (0, 1, ...)")
    parser.add_argument("--warm", type=int, default=10, help="games played first, untraced")
    parser.add_argument("--seed", type=int, default=4242)
    parser.add_argument("--preset", default="expert")
    parser.add_argument("--callees", type=int, default=0, help="name this many call pairs")
    args = parser.parse_args()
    compiled = module("mscsp.engine.compiled", "mscsp.compiled")
    harness = module("mscsp.evaluation.harness", "mscsp.harness")
    from mscsp.game import PRESETS
    from mscsp.players import get_player
    from mscsp.players.best import BestPlayer

    compiled.load()
    guess_code = BestPlayer.guess.__code__
    config = harness.RunConfig("best", *PRESETS[args.preset], seed=args.seed)
    for index in range(args.games, args.games + args.warm):  # (numba's first loads)
        harness.play_game(get_player("best"), config, index)
    totals: Counter[str] = Counter()
    functions: Counter[str] = Counter()
    for index in range(args.games):
        player = get_player("best")
        walk = Walk(lambda frame: frame.f_code is guess_code)
        sys.setprofile(walk)
        try:
            result = harness.play_game(player, config, index)
        finally:
            sys.setprofile(None)
        row: dict[str, Any] = {"game": index, "won": bool(result.won), "moves": result.moves}
        for key in ("guesses", "room_changes", "reentries", "reentries_outside", "climbs"):
            row[key] = walk.counts[key]
            totals[key] += walk.counts[key]
        totals.update({"won": row["won"], "moves": row["moves"]})
        row["by_pair"] = dict(walk.pairs.most_common())
        totals.update({f"by_pair {pair}": n for pair, n in walk.pairs.items()})
        functions.update(walk.functions)
        print(json.dumps(row), flush=True)
    out: dict[str, Any] = {"total": dict(totals), "games": args.games, "seed": args.seed}
    if args.callees:
        out["callees"] = dict(functions.most_common(args.callees))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
