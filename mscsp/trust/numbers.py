"""One parser for integers written inside untrusted text (``sampler:N``, ``bp:N``, ...)."""

from __future__ import annotations

from mscsp.errors import InvalidInputError

#: Digits an integer written in a name or a file may have: beyond any count this toolkit
#: takes, and far below Python's own limit on converting text to int (4,300 digits).
MAX_DIGITS = 18


def parse_ascii_int(
    text: str, what: str, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """``text`` as a non-negative integer written in ASCII digits 0-9 only.

    ``str.isdigit`` also takes other scripts' digits and superscripts (``"²"``), which
    ``int`` then refuses or reads: this takes ``0-9`` and nothing else, at most
    :data:`MAX_DIGITS` of them, so no input reaches ``int`` that it cannot read quickly.

    Args:
        text: The text, as written (no sign, no spaces, no underscores).
        what: What the number is, for the error (``"sampler's sample count"``).
        minimum: The least value accepted, if any.
        maximum: The greatest value accepted, if any.

    Raises:
        InvalidInputError: Anything else, in one line naming ``what``.
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"{what} must be an integer, got {type(text).__name__}")
    shown = text if len(text) <= 24 else text[:21] + "..."
    if not (text.isascii() and text.isdigit()):
        raise InvalidInputError(f"{what} must be digits 0-9, got {shown!r}")
    if len(text) > MAX_DIGITS:
        raise InvalidInputError(f"{what} has more than {MAX_DIGITS} digits: {shown!r}")
    value = int(text)
    if minimum is not None and value < minimum:
        raise InvalidInputError(f"{what} must be at least {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise InvalidInputError(f"{what} must be at most {maximum}, got {value}")
    return value
