"""A screenshot's bytes decoded to pixels, bounded: no bomb, no huge image, no non-image.

Pillow reads an image's header before its pixels, so the size is checked first and an
image over :data:`MAX_PIXELS` is refused unread: a small PNG that claims 100,000 x 100,000
pixels (a decompression bomb) costs nothing. Only the formats screenshots come in are
opened; anything else is refused in one line.
"""

from __future__ import annotations

import io
import warnings

import numpy as np

from ..errors import BackendUnavailableError, InvalidInputError

#: Most bytes of an image file read (a 5K screenshot as PNG is about 20 MB).
MAX_IMAGE_BYTES = 64 * 2**20
#: Most pixels decoded: a 5K screen (5120 x 2880) and a little more.
MAX_PIXELS = 16_000_000
#: The formats screenshots come in; no other decoder of Pillow's is ever run.
FORMATS = ("PNG", "JPEG", "BMP", "GIF", "WEBP")


def decode_image(data: bytes) -> np.ndarray:
    """The pixels of an image file, as a ``uint8`` array of rows x columns x (R, G, B).

    Raises:
        InvalidInputError: Not an image in one of :data:`FORMATS`, damaged, over
            :data:`MAX_IMAGE_BYTES` or :data:`MAX_PIXELS`.
        BackendUnavailableError: Pillow is not installed.
    """
    try:
        from PIL import Image, UnidentifiedImageError
    except ImportError:
        raise BackendUnavailableError(
            "reading a screenshot needs Pillow: pip install 'mscsp[replay]'"
        ) from None
    if len(data) > MAX_IMAGE_BYTES:
        raise InvalidInputError(
            f"image too large: {len(data)} bytes, the limit is {MAX_IMAGE_BYTES}"
        )
    with warnings.catch_warnings():
        # Pillow warns past its own bomb limit; ours below refuses earlier, in one line.
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            image = Image.open(io.BytesIO(data), formats=FORMATS)
        except UnidentifiedImageError:
            raise InvalidInputError(
                f"not an image: Pillow reads none of {', '.join(FORMATS)} in it"
            ) from None
        except Image.DecompressionBombError:
            raise InvalidInputError(f"image too large: over {MAX_PIXELS} pixels") from None
        width, height = image.size
        if width * height > MAX_PIXELS:
            raise InvalidInputError(
                f"image too large: {width}x{height} pixels, the limit is {MAX_PIXELS}"
            )
        try:
            return np.asarray(image.convert("RGB"), dtype=np.uint8)  # an animation: frame 1
        except (OSError, SyntaxError, ValueError, EOFError) as exc:
            raise InvalidInputError(f"damaged image: {exc}") from None
