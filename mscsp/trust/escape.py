"""Free text written into another format, escaped for that format.

A name, a family, a file name or a player from a corpus line, a log or a replay is text
someone else chose; written as-is it can end a comment and start a clause (CNF, OPB, LP,
MiniZinc), run as a spreadsheet formula (CSV), run as script (HTML) or stop a figure from
drawing (matplotlib's mathtext). Each function here makes such text inert in one format.
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: Most characters of a comment or label (each instance file repeats its title; a figure has
#: room for one line).
MAX_LINE_CHARS = 240
#: First characters that make a spreadsheet read a cell as a formula (OWASP's list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
#: Marks that act anywhere in a line of Markdown (GitHub's): escapes, code, emphasis, links
#: and images, HTML and entities, table cells, strikethrough.
MARKDOWN_MARKS = frozenset("\\`*_[]<>&!|~")


def _escaped(char: str) -> str:
    """``char`` as a Python-style escape (``\\n``, ``\\x1b``, ``\\u2028``)."""
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _one_line(text: Any, limit: int | None, keep: Any) -> str:
    """``text`` as one line: the characters ``keep`` refuses escaped, cut to ``limit``
    (``None``: never cut)."""
    line = "".join(char if keep(char) else _escaped(char) for char in str(text))
    return line if limit is None or len(line) <= limit else line[: limit - 3] + "..."


def comment_line(text: Any, limit: int = MAX_LINE_CHARS) -> str:
    """``text`` made safe to follow a comment marker (``c``, ``*``, ``\\``, ``%``) in an
    instance file: printable ASCII only, everything else (newlines, carriage returns, every
    control character, Unicode line separators, any non-ASCII character) written as a
    backslash escape, so nothing in it can start a new line; at most ``limit`` characters.

    Instance files are read by solvers written in C and C++ that split lines on bytes
    (some on ``\\r`` or a form feed too) and may refuse non-ASCII bytes: ASCII keeps every
    reader's view of the file the same.
    """
    return _one_line(text, limit, lambda char: " " <= char <= "~")


def csv_cell(value: Any) -> Any:
    """``value`` as a CSV cell that no spreadsheet runs as a formula.

    Text that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a
    leading apostrophe, as OWASP advises for CSV injection; numbers (and ``None``, an empty
    cell) are returned unchanged, so a negative number stays a number.
    """
    if value is None or isinstance(value, (bool, int, float)):
        return value
    text = str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def markdown_text(value: Any, limit: int = MAX_LINE_CHARS) -> str:
    """``value`` as inert Markdown text inside a line (a table cell, after a label):
    printable ASCII as :func:`comment_line` makes it, then every mark that acts inside a
    line backslash-escaped (:data:`MARKDOWN_MARKS`), so no name can open a link, an HTML
    tag, emphasis or code, or end a table cell (CommonMark renders ``\\*`` as ``*``).
    Marks that act only at a line's start (``#``, ``-``, ``1.``) stay: never start a line
    with it."""
    return "".join(
        "\\" + char if char in MARKDOWN_MARKS else char for char in comment_line(value, limit)
    )


def html_text(value: Any) -> str:
    """``value`` as HTML text or an attribute value (``<``, ``>``, ``&``, ``"`` and ``'``
    escaped): for every field written into a page, numbers included."""
    return html.escape(str(value), quote=True)


def plain_label(text: Any, limit: int = MAX_LINE_CHARS) -> str:
    """``text`` as one line of a matplotlib label: control characters and line breaks
    escaped, at most ``limit`` characters. Draw it inside :func:`plain_text`, which turns
    mathtext off, so a ``$`` is a dollar sign and not the start of a formula."""
    return _one_line(text, limit, str.isprintable)


@contextmanager
def plain_text() -> Iterator[None]:
    """matplotlib with mathtext and TeX off for every text made in the block (titles,
    axis labels, legend entries, tick labels), whatever the user's ``matplotlibrc`` says.

    matplotlib reads ``text.parse_math`` when it creates each text, and tick labels are
    created while a figure is drawn: make, draw and save a figure with data in its labels
    inside the block.
    """
    import matplotlib

    with matplotlib.rc_context({"text.parse_math": False, "text.usetex": False}):
        yield


def shown(text: str, limit: int = 40) -> str:
    """``text`` quoted for a one-line error, cut to ``limit`` characters (a name from a
    request or a file may be long; its control characters are escaped by ``repr``)."""
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def terminal_text(text: Any) -> str:
    """``text`` for a terminal: its lines kept, every other control character (an escape
    sequence's ``ESC``, a carriage return, a Unicode line separator) escaped, so a name from
    someone else's file cannot move the cursor, recolour or hide what is printed."""
    return "\n".join(
        _one_line(line, None, lambda char: char == "\t" or char.isprintable())
        for line in str(text).split("\n")
    )
