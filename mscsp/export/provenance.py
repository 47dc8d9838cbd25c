"""How a packaged position was made: the ``mscsp corpus`` command that makes it again.

A position written by ``mscsp corpus`` is named by its generator's settings (``lattice
12x12 d0.4 s1``, ``game 16x30 d0.206 s3 step 5``: :attr:`Setting.name`). A name is only a
claim (a corpus line is anyone's text), so the command is given only when the setting it
reads as names it back exactly and makes the very same board again.
"""

from __future__ import annotations

import re

from ..errors import InvalidInputError
from ..evaluation.benchmark import CorpusEntry
from ..evaluation.families import FAMILIES, Setting

#: A generator's name: family, size, density (not for strips), seed, step (games).
_NAME = re.compile(
    r"(?P<family>[a-z]+) (?P<rows>[0-9]{1,5})x(?P<cols>[0-9]{1,5})"
    r"(?: d(?P<density>[0-9.e-]{1,20}))? s(?P<seed>[0-9]{1,12})(?: step (?P<step>[0-9]{1,6}))?\Z"
)


def setting_of(entry: CorpusEntry) -> Setting | None:
    """The generator setting that made ``entry`` (``None``: its name reads as none, or the
    setting makes another board)."""
    match = _NAME.match(entry.name)
    if match is None or match["family"] not in FAMILIES or entry.family != match["family"]:
        return None
    spec = FAMILIES[match["family"]]
    try:
        setting = Setting(
            match["family"],
            int(match["rows"]),
            int(match["cols"]),
            float(match["density"]) if spec.density and match["density"] else 0.2,
            int(match["seed"]),
            int(match["step"] or 0),
        )
        if setting.name != entry.name:
            return None
        board = setting.board()
    except (InvalidInputError, ValueError):
        return None
    if board is None or board.to_text() != entry.board.to_text():
        return None
    if board.mines != entry.board.mines:
        return None
    return setting


def command(setting: Setting) -> str:
    """The ``mscsp corpus`` command that writes the position of ``setting``."""
    parts = ["mscsp corpus", setting.family, f"--size {setting.rows}x{setting.cols}"]
    if FAMILIES[setting.family].density:
        parts.append(f"--density {setting.density:g}")
    parts.append(f"--seed {setting.seed}")
    if FAMILIES[setting.family].steps:
        parts.append(f"--steps {setting.step}")
    return " ".join(parts)
