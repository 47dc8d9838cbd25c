"""Exact counts as decimal text and back, however many digits they have.

Python refuses to convert an ``int`` of more than 4,300 digits to or from text (a guard
against quadratic-time conversion of untrusted input, ``sys.set_int_max_str_digits``). A
position of a few hundred covered cells already has more layouts than that, and every count
the project prints (bench rows, export indexes, explanations, the web API) must be exact, so
these two functions lift the guard for the numbers the project makes itself, under a bound
of its own: a board of at most ``MAX_CELLS`` cells has at most ``2 ** MAX_CELLS`` layouts.
"""

from __future__ import annotations

import math
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction

from .board import MAX_CELLS
from .errors import InvalidInputError

#: Most digits of a count: that of ``2 ** MAX_CELLS`` (log10(2) < 0.30103), plus one.
MAX_DIGITS = int(MAX_CELLS * 0.30103) + 1

_DIGITS = re.compile(r"[0-9]+")
#: One thread at a time changes the interpreter-wide guard.
_GUARD = threading.Lock()


@contextmanager
def _unguarded() -> Iterator[None]:
    with _GUARD:
        limit = sys.get_int_max_str_digits()
        sys.set_int_max_str_digits(0)
        try:
            yield
        finally:
            sys.set_int_max_str_digits(limit)


def _gmpy2():
    from .probabilities import _gmpy2 as load  # GMP converts in quasi-linear time

    return load()


def to_decimal(number: int) -> str:
    """``str(number)`` for an ``int`` of any size (GMP's conversion when installed)."""
    try:
        return str(number)
    except ValueError:  # past the interpreter's digit guard
        gmpy2 = _gmpy2()
        if gmpy2 is not None:
            return gmpy2.mpz(number).digits()
        with _unguarded():
            return str(number)


def from_decimal(text: str, what: str = "count") -> int:
    """The ``int`` of a decimal string of ASCII digits, at most :data:`MAX_DIGITS` long.

    Raises:
        InvalidInputError: Not digits only, or longer than any count can be.
    """
    if not isinstance(text, str) or not _DIGITS.fullmatch(text):
        raise InvalidInputError(f"{what} must be a decimal string of digits 0-9")
    if len(text) > MAX_DIGITS:
        raise InvalidInputError(
            f"{what} has {len(text)} digits; no count has more than {MAX_DIGITS}"
        )
    try:
        return int(text)
    except ValueError:
        gmpy2 = _gmpy2()
        if gmpy2 is not None:
            return int(gmpy2.mpz(text))
        with _unguarded():
            return int(text)


def fraction_text(value: Fraction) -> str:
    """``str(value)`` (``"3/7"``, ``"1"``) for a fraction of any size."""
    if value.denominator == 1:
        return to_decimal(value.numerator)
    return f"{to_decimal(value.numerator)}/{to_decimal(value.denominator)}"


#: Counts up to this are written out in prose; larger ones as a power of ten.
_PROSE_EXACT = 10**15


def readable(number: int | Fraction) -> str:
    """A count or fraction for people: exact while short (``"1360"``, ``"3/7"``), else
    rounded (``"about 1.23 x 10^8690"``; a fraction with long terms as its decimal value)."""
    if isinstance(number, Fraction):
        if max(abs(number.numerator), number.denominator) < _PROSE_EXACT:
            return str(number)
        return f"{float(number):.6g}"
    if abs(number) < _PROSE_EXACT:
        return str(number)
    exponent = math.floor(math.log10(abs(number)))
    mantissa = 10 ** (math.log10(abs(number)) - exponent)
    sign = "-" if number < 0 else ""
    return f"about {sign}{mantissa:.2f} x 10^{exponent}"
