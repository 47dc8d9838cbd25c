"""``index.jsonl``: one JSON line per exported instance, with its exact count.

Every line has ``file`` (relative to the folder), ``kind`` (``pmc``, ``wmc``, ``opb``,
``mzn``, ``lp``), ``count`` (the exact count as a decimal string: counts outgrow any
fixed-width integer), ``position``, ``component`` (``null`` for a whole position),
``mines`` (``null`` for ``wmc``: every mine number, weighted), ``variables``,
``constraints`` and ``source`` (where the position came from). :func:`read_index` checks
all of it, so a damaged index is refused rather than trusted.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError
from ..trust.inputs import read_bounded

INDEX = "index.jsonl"
KINDS = ("pmc", "wmc", "opb", "mzn", "lp")
#: Largest index read (bytes).
MAX_INDEX_BYTES = 256 * 1024 * 1024
_DECIMAL = re.compile(r"(0|[1-9][0-9]*)\Z")
_FIELDS: dict[str, tuple[type, ...]] = {
    "file": (str,),
    "kind": (str,),
    "count": (str,),
    "position": (int,),
    "component": (int, type(None)),
    "mines": (int, type(None)),
    "variables": (int,),
    "constraints": (int,),
    "source": (str,),
}


def index_line(record: dict[str, Any]) -> str:
    """One line of the index (keys in a fixed order, counts as decimal strings)."""
    return json.dumps(record, separators=(", ", ": ")) + "\n"


def read_index(folder: str | Path) -> list[dict[str, Any]]:
    """The records of ``folder/index.jsonl``, each checked (``count`` stays a string;
    ``mscsp.bigint.from_decimal(record["count"])`` is exact). Empty when no position had a
    component left to count (every cell decided by the rules).

    Raises:
        InvalidInputError: A line is not a JSON object, misses a field or has one of the
            wrong type, a count that is not a decimal integer, an unknown kind, a file
            outside the folder or missing; the message names the line.
    """
    folder = Path(folder)
    path = folder / INDEX
    text = read_bounded(path, MAX_INDEX_BYTES, "export index").decode("utf-8", errors="replace")
    records = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}: line {lineno}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            raise InvalidInputError(f"{where}: not JSON (a truncated line?)") from None
        if not isinstance(record, dict):
            raise InvalidInputError(f"{where}: expected a JSON object")
        for key, types in _FIELDS.items():
            value = record.get(key, ...)
            if value is ... or not isinstance(value, types) or isinstance(value, bool):
                raise InvalidInputError(f"{where}: field {key!r} missing or of the wrong type")
        if record["kind"] not in KINDS:
            raise InvalidInputError(f"{where}: unknown kind {record['kind']!r}")
        if not _DECIMAL.match(record["count"]):
            raise InvalidInputError(f"{where}: count {record['count']!r} is not a decimal integer")
        name = Path(record["file"])
        if name.is_absolute() or ".." in name.parts or not (folder / name).is_file():
            raise InvalidInputError(f"{where}: file {record['file']!r} is not in {folder}")
        records.append(record)
    return records
