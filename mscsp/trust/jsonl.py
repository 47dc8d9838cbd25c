"""JSON from files and requests someone else wrote, bounded in size, nesting and digits.

``json.loads`` on hostile text can raise :class:`RecursionError` (100,000 ``[``), a
:class:`ValueError` past Python's int-conversion limit (a 5,000-digit number), or build a
huge number slowly: :func:`loads_bounded` turns each into one typed, one-line error that
names where the text came from.
"""

from __future__ import annotations

import json
from typing import Any

from mscsp.errors import InvalidInputError

#: Deepest nesting of arrays and objects accepted (the deepest record we write has 4).
MAX_DEPTH = 32
#: Digits an integer may have: exact counts of the largest boards have a few hundred.
MAX_INT_DIGITS = 2000
#: Characters a float literal may have.
MAX_FLOAT_CHARS = 64


def _depth_over(text: str, limit: int) -> bool:
    """Whether arrays/objects in ``text`` nest deeper than ``limit`` (strings skipped)."""
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def loads_bounded(
    text: str | bytes,
    where: str,
    *,
    max_depth: int = MAX_DEPTH,
    max_int_digits: int = MAX_INT_DIGITS,
) -> Any:
    """The JSON value of ``text``, or a one-line :class:`InvalidInputError` naming ``where``.

    Args:
        text: The JSON text (one line of a JSONL file, or a request body).
        where: Where it came from, for the error (``"corpus.jsonl line 12"``).
        max_depth: Deepest nesting of arrays and objects accepted.
        max_int_digits: Most digits an integer may have.

    Raises:
        InvalidInputError: Not JSON, not UTF-8, nested too deep, or a number too long.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidInputError(f"{where}: not UTF-8 text") from None
    if _depth_over(text, max_depth):
        raise InvalidInputError(f"{where}: JSON nested deeper than {max_depth} levels")

    def bounded_int(literal: str) -> int:
        if len(literal.lstrip("-")) > max_int_digits:
            raise InvalidInputError(f"{where}: an integer of more than {max_int_digits} digits")
        return int(literal)

    def bounded_float(literal: str) -> float:
        if len(literal) > MAX_FLOAT_CHARS:
            raise InvalidInputError(f"{where}: a number of more than {MAX_FLOAT_CHARS} characters")
        return float(literal)

    try:
        return json.loads(text, parse_int=bounded_int, parse_float=bounded_float)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"{where}: not JSON ({exc.msg} at column {exc.colno})") from None
    except (RecursionError, ValueError) as exc:  # (InvalidInputError is a ValueError too)
        if isinstance(exc, InvalidInputError):
            raise
        raise InvalidInputError(
            f"{where}: not JSON that can be read ({type(exc).__name__})"
        ) from None
