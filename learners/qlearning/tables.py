"""Saving and resuming Q-tables: keys, values and the number of episodes already played."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from mscsp.errors import InvalidInputError

from ..artefacts import write_atomic


def save_table(
    path: str | Path, keys: np.ndarray, values: np.ndarray, meta: dict[str, Any]
) -> None:
    """Writes a table (``keys``, ``values`` row-aligned) and its metadata, atomically."""
    buffer = io.BytesIO()
    np.savez_compressed(buffer, keys=keys, values=values, meta=json.dumps(meta))
    write_atomic(path, buffer.getvalue())


def load_table(path: str | Path) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """``(keys, values, meta)`` of a table written by :func:`save_table`.

    Raises:
        InvalidInputError: The file is missing or not such a table.
    """
    try:
        with np.load(path) as data:
            return data["keys"], data["values"], json.loads(str(data["meta"]))
    except (OSError, KeyError, ValueError) as exc:
        raise InvalidInputError(f"{path} is not a Q-table ({exc})") from None


def epsilon(episode: int, high: float = 0.9, low: float = 0.1, decay: float = 0.99) -> float:
    """Seed 002's exploration schedule: ``high * decay ** episode``, never below ``low``."""
    return max(low, high * decay**episode)
