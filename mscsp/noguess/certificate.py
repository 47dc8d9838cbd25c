"""The boards file of ``mscsp generate --no-guess``: its name, version and limits.

A boards file is JSON Lines. The first line is the header::

    {"format": "mscsp-noguess-boards", "version": 1, "seed": 7, "settings": {...}}

then one line per board::

    {"board": 0, "rows": 16, "cols": 30, "mines": 99, "layout": [3, 17, ...],
     "first_click": [0, 0], "first_click_rule": "opening", "3bv": 131,
     "steps": [{"numbers": [[1, 2], [1, 3]], "safe": [[2, 4]], "mines": [], "total": false},
               ...]}

``layout`` holds the mines' row-major indices (``row * cols + col``), ascending. Replaying
the certificate: open ``first_click`` (a zero opens its whole region and border, as in the
game), then for each step the cells of ``safe`` are opened (the same way) and those of
``mines`` marked. A step's cells must be forced by its cited ``numbers`` alone, each a
revealed number, or by them and the mine total where ``total`` is true: no assignment of the
covered cells next to those numbers that satisfies them (and leaves the rest of the mines a
place among the other covered cells, with the total) gives a cell the other value. After the
last step every safe cell is open.

This module is data only: the generator writes these fields and the checker reads them, and
neither reaches the other's code through it.
"""

from __future__ import annotations

#: The header's ``format``.
FORMAT = "mscsp-noguess-boards"
#: The header's ``version``: a reader refuses any other.
VERSION = 1

#: Most numbers one step may cite: the checker enumerates the covered cells around them.
MAX_STEP_NUMBERS = 12
#: Most covered cells one step's check may range over (around its numbers, and its cells).
MAX_STEP_CELLS = 30
#: Most cells a step may settle (a number's covered neighbours; the total's chunks).
MAX_STEP_SETTLES = 30
#: Most search nodes the checker spends on one cell of one step before it calls the step
#: too large to verify (a valid step of the generator needs a few thousand at most).
MAX_STEP_NODES = 400_000
#: Most search nodes for all the steps of one board (an expert board's certificate takes
#: a few tens of thousands): a file of many hard steps is refused, not searched for hours.
MAX_BOARD_NODES = 4_000_000

#: Largest board of a boards file, in cells (the checker's work grows with it).
MAX_BOARD_CELLS = 10_000
#: Longest line of a boards file, in characters (a 100x100 board's record is far shorter).
MAX_LINE_CHARS = 4_000_000

#: First-click rules a record may name.
FIRST_CLICK_RULES = ("safe", "opening")
