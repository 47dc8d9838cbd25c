"""The parameter types of the command line: numbers in ASCII digits within a range, a board
size, a comma list of any of them."""

from __future__ import annotations

import math
from typing import Any

import click

from ..board import MAX_CELLS, MAX_SIDE


class _AsciiDigits(click.ParamType):
    """Refuses digits of other scripts (``٢``, ``３``), which ``int`` and ``float`` accept.

    Cells and board headers take ASCII digits only; so do options, so that one text means
    one number everywhere.
    """

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None):
        if isinstance(value, str) and not value.isascii():
            self.fail(f"{value!r} is not a number in ASCII digits (0-9)", param, ctx)
        return super().convert(value, param, ctx)


class AsciiInt(_AsciiDigits, click.IntRange):
    """An integer in ASCII digits, within an optional range (the arguments of IntRange)."""

    name = "integer"  # in messages and help: "'abc' is not a valid integer"


class AsciiFloat(_AsciiDigits, click.FloatRange):
    """A finite number in ASCII digits, within an optional range (those of FloatRange).

    ``nan`` and ``inf``, which ``float`` reads, are refused: no option means either.
    """

    name = "number"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None):
        try:
            infinite = not math.isfinite(float(value))
        except (TypeError, ValueError):
            infinite = False  # not a number at all: click's message says so
        if infinite:  # before the range: 'inf' is no number, not one out of range
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return super().convert(value, param, ctx)


class SizeType(click.ParamType):
    """``ROWSxCOLS`` (``16x30``): a board size inside the documented limits."""

    name = "ROWSxCOLS"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None):
        if isinstance(value, tuple):
            return value
        rows, sep, cols = str(value).strip().lower().partition("x")
        if not (sep and _ascii_digits(rows.strip()) and _ascii_digits(cols.strip())):
            self.fail(f"{value!r} is not ROWSxCOLS (e.g. 16x30)", param, ctx)
        if len(rows.strip()) > 6 or len(cols.strip()) > 6:
            self.fail(f"{value!r}: a side is at most {MAX_SIDE} cells", param, ctx)
        size = int(rows), int(cols)
        if min(size) < 1 or max(size) > MAX_SIDE or size[0] * size[1] > MAX_CELLS:
            self.fail(
                f"{value!r}: sides must be 1 to {MAX_SIDE} and the board at most {MAX_CELLS} cells",
                param,
                ctx,
            )
        return size


def _ascii_digits(text: str) -> bool:
    """Whether ``text`` is digits 0-9 only (``str.isdigit`` also takes other scripts')."""
    return text.isascii() and text.isdigit()


class ListOf(click.ParamType):
    """A comma list of values of another parameter type (``8x8,10x10``; ``0.2,0.4``)."""

    def __init__(self, item: click.ParamType):
        self.item = item
        self.name = f"{item.name}[,...]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None):
        if isinstance(value, list):
            return value
        parts = [part.strip() for part in str(value).split(",")]
        if not all(parts):
            self.fail(f"{value!r}: an empty item in the list", param, ctx)
        return [self.item.convert(part, param, ctx) for part in parts]
