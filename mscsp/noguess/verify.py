"""Checks a boards file's certificates, step by step, on its own.

Nothing here comes from the generator or the solver: the layout gives the numbers, the
first click and each step's safe cells are opened as the game opens them, and each step is
re-derived by a small search of its own (:func:`_counterexample`): for every cell the step
settles, a search for an assignment of the covered cells next to the cited numbers that
satisfies those numbers (and, where the step says so, leaves the rest of the mines room
among the other covered cells) with the cell at the other value. Finding one refutes the
step. The search is bounded (numbers cited, cells ranged over, nodes per step and board);
a step past any bound is refused as too large to verify, never searched for long.

Every field of a line is checked for type and range before it is used; a malformed line is
one :class:`~mscsp.errors.InvalidInputError` naming the line, a refuted certificate one
:class:`CertificateError`, and neither ever a traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError, MscspError
from ..trust.files import open_regular
from ..trust.jsonl import loads_bounded
from .certificate import (
    FIRST_CLICK_RULES,
    FORMAT,
    MAX_BOARD_CELLS,
    MAX_BOARD_NODES,
    MAX_LINE_CHARS,
    MAX_STEP_CELLS,
    MAX_STEP_NODES,
    MAX_STEP_NUMBERS,
    MAX_STEP_SETTLES,
    VERSION,
)

Cell = tuple[int, int]

#: The fields of a board's line, and of a step (no more, no fewer).
BOARD_FIELDS = frozenset(
    {"board", "rows", "cols", "mines", "layout", "first_click", "first_click_rule", "3bv", "steps"}
)
STEP_FIELDS = frozenset({"numbers", "safe", "mines", "total"})


class CertificateError(MscspError):
    """A certificate that does not prove its board (a step not forced, a guess needed)."""

    exit_code = 1


@dataclass(frozen=True)
class Verdict:
    """What the check found for one line of a boards file.

    Attributes:
        line: The line's number (from 1).
        board: The board's index in the file, where the line gave one.
        ok: Whether the certificate proves the board.
        text: The one-line verdict.
        steps: Steps checked.
        total_steps: Steps that use the mine total.
        largest_step: Most numbers one step cites.
    """

    line: int
    board: int | None
    ok: bool
    text: str
    steps: int = 0
    total_steps: int = 0
    largest_step: int = 0


def _int(value: Any, what: str, where: str, low: int = 0, high: int | None = None) -> int:
    """``value`` if it is an integer (not a bool) in ``low``..``high``."""
    if type(value) is not int:
        raise InvalidInputError(f"{where}: {what} must be an integer")
    if value < low or (high is not None and value > high):
        top = "" if high is None else f" to {high}"
        raise InvalidInputError(f"{where}: {what} must be {low}{top}" + ("" if top else " or more"))
    return value


def _list(value: Any, what: str, where: str, most: int) -> list:
    if type(value) is not list:
        raise InvalidInputError(f"{where}: {what} must be a list")
    if len(value) > most:
        raise InvalidInputError(f"{where}: {what} holds more than {most} entries")
    return value


def _cell(value: Any, what: str, where: str, rows: int, cols: int) -> Cell:
    """A ``[row, col]`` pair on the board."""
    if type(value) is not list or len(value) != 2:
        raise InvalidInputError(f"{where}: {what} must be a [row, col] pair")
    return (
        _int(value[0], f"{what}'s row", where, 0, rows - 1),
        _int(value[1], f"{what}'s column", where, 0, cols - 1),
    )


def _fields(record: Any, expected: frozenset[str], what: str, where: str) -> dict[str, Any]:
    if type(record) is not dict:
        raise InvalidInputError(f"{where}: {what} must be a JSON object")
    if set(record) != expected:
        missing = sorted(expected - set(record))
        if missing:
            raise InvalidInputError(f"{where}: {what} has no {', '.join(missing)}")
        # (the unknown names are someone else's text: counted, never echoed)
        raise InvalidInputError(
            f"{where}: {what} has {len(set(record) - expected)} unknown field(s)"
        )
    return record


def check_header(record: Any, where: str) -> None:
    """Raises :class:`InvalidInputError` unless ``record`` is a boards file's header."""
    if type(record) is not dict or record.get("format") != FORMAT:
        raise InvalidInputError(f"{where}: not a boards file (its first line names no {FORMAT})")
    if type(record.get("version")) is not int or record["version"] != VERSION:
        raise InvalidInputError(f"{where}: a boards file of another version (this reads {VERSION})")
    if "seed" in record:
        _int(record["seed"], "seed", where)
    if "settings" in record and type(record["settings"]) is not dict:
        raise InvalidInputError(f"{where}: settings must be a JSON object")


@dataclass(frozen=True)
class _Step:
    numbers: tuple[int, ...]
    safe: tuple[int, ...]
    mines: tuple[int, ...]
    total: bool


@dataclass(frozen=True)
class _Record:
    index: int
    rows: int
    cols: int
    mines: int
    layout: tuple[int, ...]
    start: int
    rule: str
    bv3: int
    steps: tuple[_Step, ...]


def parse_record(record: Any, where: str) -> _Record:
    """A board's line, every field checked for type and range.

    Raises:
        InvalidInputError: A field missing, of the wrong type or out of range (one line,
            naming ``where``).
    """
    record = _fields(record, BOARD_FIELDS, "a board", where)
    index = _int(record["board"], "board", where)
    rows = _int(record["rows"], "rows", where, 1, MAX_BOARD_CELLS)
    cols = _int(record["cols"], "cols", where, 1, MAX_BOARD_CELLS)
    if rows * cols > MAX_BOARD_CELLS:
        raise InvalidInputError(f"{where}: a board of more than {MAX_BOARD_CELLS} cells")
    n = rows * cols
    mines = _int(record["mines"], "mines", where, 0, n - 1)
    layout = _list(record["layout"], "layout", where, n)
    for i in layout:
        _int(i, "a layout index", where, 0, n - 1)
    if len(layout) != mines or len(set(layout)) != mines:
        raise InvalidInputError(f"{where}: layout must hold {mines} distinct cells")
    r, c = _cell(record["first_click"], "first_click", where, rows, cols)
    rule = record["first_click_rule"]
    if type(rule) is not str or rule not in FIRST_CLICK_RULES:
        raise InvalidInputError(
            f"{where}: first_click_rule must be one of {', '.join(FIRST_CLICK_RULES)}"
        )
    bv3 = _int(record["3bv"], "3bv", where, 0, n)
    steps = []
    for k, raw in enumerate(_list(record["steps"], "steps", where, n)):
        at = f"{where} step {k + 1}"
        raw = _fields(raw, STEP_FIELDS, "a step", at)
        if type(raw["total"]) is not bool:
            raise InvalidInputError(f"{at}: total must be true or false")
        # (more numbers or cells than the checker takes are parsed, then refused as too
        # large; these bounds only keep the parse itself short)
        parts = []
        for name in ("numbers", "safe", "mines"):
            cells = _list(raw[name], name, at, 64)
            parts.append(
                tuple(x * cols + y for x, y in (_cell(v, name, at, rows, cols) for v in cells))
            )
        steps.append(_Step(parts[0], parts[1], parts[2], raw["total"]))
    return _Record(index, rows, cols, mines, tuple(layout), r * cols + c, rule, bv3, tuple(steps))


def _neighbours(rows: int, cols: int) -> list[tuple[int, ...]]:
    out = []
    for r in range(rows):
        for c in range(cols):
            out.append(
                tuple(
                    (r + dr) * cols + c + dc
                    for dr in (-1, 0, 1)
                    for dc in (-1, 0, 1)
                    if (dr or dc) and 0 <= r + dr < rows and 0 <= c + dc < cols
                )
            )
    return out


class _TooLarge(Exception):
    """The search passed its node bound."""


def _counterexample(
    variables: list[int],
    constraints: list[tuple[list[int], int]],
    fixed: int,
    value: int,
    total: tuple[int, int] | None,
    budget: list[int],
) -> bool:
    """Whether some 0/1 assignment of ``variables`` with ``variables[fixed] = value``
    satisfies every ``(members, mines)`` constraint (and, with ``total = (left, others)``,
    leaves between 0 and ``others`` of the ``left`` mines outside the variables).

    Raises:
        _TooLarge: ``budget[0]`` (nodes left to the step) used up.
    """
    n = len(variables)
    watch: list[list[int]] = [[] for _ in range(n)]
    for k, (members, _) in enumerate(constraints):
        for i in members:
            watch[i].append(k)
    placed = [0] * len(constraints)
    free = [len(m) for m, _ in constraints]
    need = [t for _, t in constraints]
    order = [fixed] + [i for i in range(n) if i != fixed]

    def fits(i: int) -> bool:
        return all(placed[k] <= need[k] <= placed[k] + free[k] for k in watch[i])

    def search(depth: int, mines: int) -> bool:
        budget[0] -= 1
        if budget[0] < 0:
            raise _TooLarge
        if total is not None and mines > total[0]:
            return False
        if depth == n:
            return total is None or total[0] - mines <= total[1]
        i = order[depth]
        for v in (value,) if depth == 0 else (0, 1):
            for k in watch[i]:
                placed[k] += v
                free[k] -= 1
            good = fits(i) and search(depth + 1, mines + v)
            for k in watch[i]:
                placed[k] -= v
                free[k] += 1
            if good:
                return True
        return False

    if any(t < 0 or t > len(m) for m, t in constraints):
        return False
    return search(0, 0)


def _name(index: int, cols: int) -> str:
    return f"({index // cols}, {index % cols})"


def three_bv(numbers: list[int], nbrs: list[tuple[int, ...]]) -> int:
    """The board's 3BV: one click per zero region, one per safe number touching no zero."""
    reached = [False] * len(numbers)
    clicks = 0
    for i, value in enumerate(numbers):
        if value == 0 and not reached[i]:
            clicks += 1
            reached[i] = True
            todo = [i]
            while todo:
                for j in nbrs[todo.pop()]:
                    if not reached[j]:
                        reached[j] = True
                        if numbers[j] == 0:
                            todo.append(j)
    return clicks + sum(1 for i, v in enumerate(numbers) if v > 0 and not reached[i])


def verify_record(record: Any, where: str, line: int = 0) -> Verdict:
    """Checks one board's certificate.

    Returns:
        The verdict (``ok``); a refuted certificate raises instead.

    Raises:
        InvalidInputError: The line is malformed.
        CertificateError: The certificate does not prove the board (the message names the
            step and the cell).
    """
    rec = parse_record(record, where)
    rows, cols, n = rec.rows, rec.cols, rec.rows * rec.cols
    nbrs = _neighbours(rows, cols)
    mine = [False] * n
    for i in rec.layout:
        mine[i] = True
    numbers = [-1 if mine[i] else sum(mine[j] for j in nbrs[i]) for i in range(n)]
    about = f"board {rec.index}"

    def fail(text: str) -> CertificateError:
        return CertificateError(f"{where}: {about}: {text}")

    if three_bv(numbers, nbrs) != rec.bv3:
        raise fail(f"its 3BV is {three_bv(numbers, nbrs)}, not {rec.bv3}")
    opened = [False] * n
    marked = [False] * n
    left = [n - rec.mines]  # safe cells still covered

    def open_cell(i: int) -> None:
        todo = [i]
        opened[i] = True
        left[0] -= 1
        while todo:
            j = todo.pop()
            if numbers[j] == 0:
                for k in nbrs[j]:
                    if not opened[k]:
                        opened[k] = True
                        left[0] -= 1
                        todo.append(k)

    start = rec.start
    if mine[start] or (rec.rule == "opening" and any(mine[j] for j in nbrs[start])):
        raise fail(
            f"the first click {_name(start, cols)} is not "
            + ("an opening" if rec.rule == "opening" else "safe")
        )
    open_cell(start)
    total_steps = largest = 0
    board_nodes = [MAX_BOARD_NODES]
    for k, step in enumerate(rec.steps, 1):
        at = f"step {k}"
        cells = [(i, False) for i in step.safe] + [(i, True) for i in step.mines]
        if not cells:
            raise fail(f"{at} settles no cell")
        if len({i for i, _ in cells}) != len(cells):
            raise fail(f"{at} names a cell twice")
        if len(step.numbers) > MAX_STEP_NUMBERS or len(cells) > MAX_STEP_SETTLES:
            raise fail(
                f"{at} is too large to verify (more than {MAX_STEP_NUMBERS} numbers "
                f"or {MAX_STEP_SETTLES} cells)"
            )
        if not step.numbers and not step.total:
            raise fail(f"{at} cites no number and not the total")
        for i in step.numbers:
            if not opened[i]:
                raise fail(f"{at} cites {_name(i, cols)}, which is not open")
        if len(set(step.numbers)) != len(step.numbers):
            raise fail(f"{at} cites a number twice")
        for i, _ in cells:
            if opened[i] or marked[i]:
                raise fail(f"{at} settles {_name(i, cols)}, which is settled already")
        variables = sorted(
            {j for i in step.numbers for j in nbrs[i] if not opened[j] and not marked[j]}
            | {i for i, _ in cells}
        )
        if len(variables) > MAX_STEP_CELLS:
            raise fail(
                f"{at} is too large to verify ({len(variables)} covered cells, "
                f"most {MAX_STEP_CELLS})"
            )
        index = {j: v for v, j in enumerate(variables)}
        constraints = [
            (
                [index[j] for j in nbrs[i] if j in index and not opened[j] and not marked[j]],
                numbers[i] - sum(marked[j] for j in nbrs[i]),
            )
            for i in step.numbers
        ]
        mines_left = rec.mines - sum(marked)
        covered = sum(1 for i in range(n) if not opened[i] and not marked[i])
        bound = (mines_left, covered - len(variables))
        cited = ", ".join(_name(i, cols) for i in step.numbers) or "no number"
        # One budget for all the step's searches, and the board's searches bounded too: a
        # hostile file of many hard steps is refused, not searched for hours.
        budget = [min(MAX_STEP_NODES, board_nodes[0])]
        try:
            for i, is_mine in cells:
                if mine[i] != is_mine:  # (a forced cell cannot disagree with the layout)
                    raise fail(
                        f"{at} calls {_name(i, cols)} {'a mine' if is_mine else 'safe'}, "
                        "but the layout says otherwise"
                    )
                if _counterexample(
                    variables,
                    constraints,
                    index[i],
                    int(not is_mine),
                    bound if step.total else None,
                    budget,
                ):
                    what = "safe" if not is_mine else "a mine"
                    extra = " and the mine total" if step.total else ""
                    raise fail(
                        f"{at}: {_name(i, cols)} is not forced to be {what} by {cited}{extra} "
                        "(a layout they allow has it otherwise)"
                    )
            if step.total and all(
                not _counterexample(
                    variables, constraints, index[i], int(not is_mine), None, budget
                )
                for i, is_mine in cells
            ):
                raise fail(f"{at} is marked as needing the mine total, but {cited} alone force it")
        except _TooLarge:
            raise fail(
                f"{at} is too large to verify (its search passed {MAX_STEP_NODES} nodes, "
                f"or the board's {MAX_BOARD_NODES})"
            ) from None
        finally:
            board_nodes[0] -= min(MAX_STEP_NODES, board_nodes[0]) - max(budget[0], 0)
        total_steps += step.total
        largest = max(largest, len(step.numbers))
        for i, is_mine in cells:
            if is_mine:
                marked[i] = True
            elif not opened[i]:
                open_cell(i)
    if left[0]:
        raise fail(
            f"after the last step {left[0]} safe cell(s) are still covered: a guess would be needed"
        )
    return Verdict(
        line,
        rec.index,
        True,
        f"{where}: {about}: ok ({rows}x{cols}/{rec.mines}, 3BV {rec.bv3}, {len(rec.steps)} steps, "
        f"{total_steps} with the total, largest cites {largest} numbers)",
        len(rec.steps),
        total_steps,
        largest,
    )


def _lines(path: str | Path) -> Iterator[tuple[int, str | bytes]]:
    """The lines of a boards file, each bounded in length."""
    with open_regular(path, "boards file") as handle:
        number = 0
        while True:
            raw = handle.readline(MAX_LINE_CHARS + 1)
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_CHARS:
                raise InvalidInputError(
                    f"{path} line {number}: longer than {MAX_LINE_CHARS} characters"
                )
            yield number, raw


def verify_file(path: str | Path) -> Iterator[Verdict]:
    """The verdict of every board of a boards file, in order.

    Raises:
        InvalidInputError: The file cannot be read, its first line is no header, or a line
            is longer than :data:`MAX_LINE_CHARS` (a malformed board line is a failed
            verdict instead, and the check goes on).
    """
    header = False
    for number, raw in _lines(path):
        where = f"{path} line {number}"
        if not raw.strip():
            continue
        if not header:
            check_header(loads_bounded(raw, where), where)
            header = True
            continue
        try:
            yield verify_record(loads_bounded(raw, where), where, number)
        except MscspError as exc:
            board = None
            yield Verdict(number, board, False, str(exc))
    if not header:
        raise InvalidInputError(f"{path}: empty; a boards file starts with its header line")
