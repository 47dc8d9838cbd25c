"""DIMACS CNF in the Model Counting Competition's format (2024/2025 tracks ``pmc``, ``wmc``).

One Boolean variable per cell (``1..cells``), then the auxiliary variables of the
cardinality encodings. A ``pmc`` file says "these cells hold exactly ``k`` mines" and shows
only the cell variables (``c p show 1 .. n 0``), so its projected count is the number of
mine layouts whatever the auxiliary variables do. A ``wmc`` file has no mine-number
constraint; each cell's positive literal weighs ``weight`` and its negative one 1, so its
weighted count is ``sum_k counts[k] * weight**k``.

"Exactly ``t`` of these cells" goes through :func:`mscsp.formats.cnf.exactly`: a number's
constraint (at most 8 cells) directly, without auxiliary variables; larger ones (the mine
number over all cells) with :class:`pysat.card.CardEnc` and the chosen encoding.

:func:`read_cnf` reads such a file back strictly, so that a truncated or damaged file is
refused with the line at fault rather than counted.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from ..errors import InvalidInputError
from ..trust.escape import comment_line
from ..trust.inputs import read_bounded
from .cnf import exactly
from .instances import CellSystem

SUFFIX = ".cnf"
KINDS = ("pmc", "wmc")
#: :class:`pysat.card.EncType` names that encode "exactly k" for any k.
ENCODINGS = ("seqcounter", "totalizer", "mtotalizer", "kmtotalizer", "sortnetwrk", "cardnetwrk")
#: Encodings whose auxiliary variables are fixed by the cells in every model of "exactly k"
#: (checked by counting with and without projection), as a ``wmc`` file, which projects on
#: nothing, needs: the others let an auxiliary variable take both values in one layout.
DETERMINED = ("seqcounter", "mtotalizer", "kmtotalizer")
#: Largest CNF file :func:`read_cnf` reads (bytes).
MAX_CNF_BYTES = 512 * 1024 * 1024


class Written(NamedTuple):
    """A file's text, with its numbers of variables and constraints (clauses here)."""

    text: str
    variables: int
    constraints: int


def write(
    system: CellSystem,
    mines: int | None,
    kind: str = "pmc",
    encoding: str = "seqcounter",
    weight: int = 2,
    title: str = "",
) -> Written:
    """The CNF of ``system`` with exactly ``mines`` mines (``pmc``), or weighted (``wmc``,
    ``mines`` ``None``: every mine number)."""
    from pysat.card import EncType

    code = getattr(EncType, encoding)
    clauses: list[list[int]] = []
    top = system.cells
    for lits, t in system.constraints:
        more, top = exactly(list(lits), t, top, code)
        clauses += more
    cells = range(1, system.cells + 1)
    if mines is not None:
        more, top = exactly(list(cells), mines, top, code)
        clauses += more
    what = f"exactly {mines} mines" if mines is not None else f"weight {weight} per mine"
    lines = [
        f"c mscsp export: {comment_line(title)}, {what}",
        # (which year's rules: the weights above 1 of wmc files are allowed from 2024 on;
        # the checkers of 2020-2023 took weights in [0, 1] only)
        "c format: Model Counting Competition 2024-2025 (c t track line, c p show/weight)",
        f"c variables 1..{system.cells} are cells (a mine when true); "
        f"auxiliary variables above: CardEnc {encoding}",
        "c cells " + " ".join(f"{r},{c}" for r, c in system.board_cells),
        f"p cnf {top} {len(clauses)}",
        f"c t {kind}",
    ]
    if kind == "pmc":
        lines.append("c p show " + " ".join(map(str, cells)) + " 0")
    else:
        for v in cells:
            lines += [f"c p weight {v} {weight} 0", f"c p weight -{v} 1 0"]
    lines += [" ".join(map(str, clause)) + " 0" for clause in clauses]
    return Written("\n".join(lines) + "\n", top, len(clauses))


class Cnf(NamedTuple):
    """A CNF file read back: its track, clauses, shown variables and literal weights."""

    kind: str
    variables: int
    clauses: list[list[int]]
    show: list[int]
    weights: dict[int, str]


def read_cnf(path: str | Path) -> Cnf:
    """Reads an MCC-format CNF file strictly.

    Raises:
        InvalidInputError: No or a second ``p cnf`` header, a header not first, a clause
            count or variable out of the header's range, a clause not ended by 0 (a
            truncated file), an unknown track, a malformed ``c p`` line; the message names
            the file and line.
    """
    text = read_bounded(path, MAX_CNF_BYTES, "CNF file").decode("ascii", errors="replace")
    header: tuple[int, int] | None = None
    kind = "mc"
    clauses: list[list[int]] = []
    show: list[int] = []
    weights: dict[int, str] = {}
    pending: list[int] = []

    def fail(lineno: int, why: str) -> InvalidInputError:
        return InvalidInputError(f"{path}: line {lineno}: {why}")

    def literals(lineno: int, words: list[str]) -> list[int]:
        try:
            values = [int(w) for w in words]
        except ValueError:
            raise fail(lineno, f"expected integers, got {' '.join(words)!r}") from None
        if header is None:
            raise fail(lineno, "clause or 'c p' line before the 'p cnf' header")
        if any(abs(v) > header[0] for v in values):
            raise fail(lineno, f"a variable above the header's {header[0]}")
        return values

    lineno = 0
    for lineno, line in enumerate(text.splitlines(), start=1):
        words = line.split()
        if not words:
            continue
        if words[0] == "c":
            if words[1:2] == ["t"]:
                if len(words) != 3 or words[2] not in ("mc", "wmc", "pmc", "pwmc"):
                    raise fail(lineno, f"unknown track line {line!r}")
                kind = words[2]
            elif words[1:3] == ["p", "show"]:
                values = literals(lineno, words[3:])
                if not values or values[-1] != 0 or any(v <= 0 for v in values[:-1]):
                    raise fail(lineno, "a 'c p show' line lists positive variables and ends in 0")
                show += values[:-1]
            elif words[1:3] == ["p", "weight"]:
                if len(words) != 6 or words[5] != "0":
                    raise fail(lineno, "expected 'c p weight LITERAL WEIGHT 0'")
                (lit,) = literals(lineno, words[3:4])
                weights[lit] = words[4]
            continue
        if words[0] == "p":
            if header is not None:
                raise fail(lineno, "a second 'p' header")
            if clauses or pending or len(words) != 4 or words[1] != "cnf":
                raise fail(lineno, f"expected the header 'p cnf VARIABLES CLAUSES', got {line!r}")
            try:
                header = (int(words[2]), int(words[3]))
            except ValueError:
                raise fail(
                    lineno, f"expected the header 'p cnf VARIABLES CLAUSES', got {line!r}"
                ) from None
            continue
        for value in literals(lineno, words):
            if value:
                pending.append(value)
            else:
                clauses.append(pending)
                pending = []
    if header is None:
        raise InvalidInputError(f"{path}: no 'p cnf' header")
    if pending:
        raise fail(lineno, "the last clause does not end in 0 (a truncated file?)")
    if len(clauses) != header[1]:
        raise InvalidInputError(
            f"{path}: {len(clauses)} clauses, the header says {header[1]} (a truncated file?)"
        )
    if kind in ("pmc", "pwmc") and not show:
        raise InvalidInputError(f"{path}: track {kind} without a 'c p show' line")
    return Cnf(kind, header[0], clauses, show, weights)
