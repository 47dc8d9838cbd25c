"""Screenshots in: the board in a screenshot, read by ms_toollib's recogniser and checked.

:func:`read_screenshot` decodes the image (:mod:`.image`, bounded), finds its grid of cells
by our own code (:mod:`.lattice`), has ``obr_board`` read the cells in a child process
(:mod:`.obr`), and checks the answer against the grid, the cells' looks and the rules
(:mod:`.checks`): a :class:`Reading` whose doubtful cells are marked, never guessed. Nothing
here is imported by ``import mscsp``; Pillow and ms_toollib load only when an image is read.
"""

from .checks import UNREADABLE
from .obr import MODEL_ENV
from .reading import FLAGS_NOTE, UNREADABLE_MARK, Reading, read_screenshot

__all__ = ["FLAGS_NOTE", "MODEL_ENV", "UNREADABLE", "UNREADABLE_MARK", "Reading", "read_screenshot"]
