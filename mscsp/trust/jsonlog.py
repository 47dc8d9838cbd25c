"""The lines of a resumable log checked at the boundary: keys present, of their JSON types.

A log that ``--resume`` reads back (:mod:`mscsp.runtime.runlog`) is a file from anyone: each
log's header and record parsers check every value they use with :func:`typed`, and say
what is wrong with a line by raising :class:`Damaged` (the line is then reported and
skipped, or, as the first line, the file refused).
"""

from __future__ import annotations

import math
from typing import Any


class Damaged(ValueError):
    """A log line that is not a record of its log; the message says why (one line)."""


def typed(record: Any, key: Any, *kinds: type) -> Any:
    """``record[key]``, if ``record`` is an object and the value is of one of ``kinds``.

    ``True`` is not an ``int`` here unless ``bool`` is asked for; an ``int`` is a ``float``;
    a float must be finite (JSON's ``NaN`` and ``Infinity``, or ``1e999``, are refused).

    Raises:
        Damaged: Not an object, no such key, or another type.
    """
    if not isinstance(record, dict):
        raise Damaged(f"not a JSON object but {_kind(record)}")
    if key not in record:
        raise Damaged(f"no {key!r}")
    value = record[key]
    if isinstance(value, bool) and bool not in kinds:
        ok = False
    elif isinstance(value, int) and float in kinds:
        ok = True
    else:
        ok = isinstance(value, kinds)
    if ok and isinstance(value, float) and not math.isfinite(value):
        raise Damaged(f"{key!r} is not a finite number")
    if not ok:
        wanted = " or ".join(_kind_name(kind) for kind in kinds)
        raise Damaged(f"{key!r} is {_kind(value)}, not {wanted}")
    return value


#: How a message names each JSON type.
_KIND_NAMES = {
    type(None): "null",
    bool: "true or false",
    int: "an integer",
    float: "a number",
    str: "a string",
    list: "a list",
    dict: "an object",
}


def _kind_name(kind: type) -> str:
    return _KIND_NAMES.get(kind, kind.__name__)


def _kind(value: Any) -> str:
    return "null" if value is None else _kind_name(type(value))
