"""Screenshots in (mscsp.screen): bounded decoding, our own grid, the checks of a recognised
board, and ``mscsp probs --image``.

The images are drawn here with Pillow in the classic look (raised covered cells, opened
cells with a grey line, coloured digits). The checks and the grid never need the
recogniser's model; the tests that run the recogniser itself skip without ms_toollib or
without the model (``MSCSP_OBR_MODEL``: CI has no ``params.onnx``).
"""

from __future__ import annotations

import io
import json
import os

import numpy as np
import pytest
from click.testing import CliRunner

from mscsp.board import COVERED
from mscsp.cli import main
from mscsp.errors import BackendUnavailableError, InvalidInputError
from mscsp.screen import UNREADABLE, Reading, read_screenshot
from mscsp.screen import image as image_module
from mscsp.screen.checks import checked
from mscsp.screen.colours import grey_opened, off_colour
from mscsp.screen.image import MAX_PIXELS, decode_image
from mscsp.screen.lattice import find_lattice
from mscsp.screen.obr import MODEL_ENV

Image = pytest.importorskip("PIL.Image")
ImageDraw = pytest.importorskip("PIL.ImageDraw")

#: The classic digit colours, 1 to 8.
INK = {
    1: (0, 0, 255),
    2: (0, 128, 0),
    3: (255, 0, 0),
    4: (0, 0, 128),
    5: (128, 0, 0),
    6: (0, 128, 128),
    7: (0, 0, 0),
    8: (128, 128, 128),
}
GREY, DARK, WHITE = (192, 192, 192), (128, 128, 128), (255, 255, 255)

#: A position under way: ``?`` covered, ``F`` flagged, ``.`` and digits opened.
POSITION = """\
????1.1???
??211.1???
?F1...12??
?21....1??
?1..1111??
?1..1F????
?1111?????
??????????
??????????
??????????
"""


def tile(kind: str, size: int) -> Image.Image:
    """One cell drawn in the classic look."""
    cell = Image.new("RGB", (size, size), GREY)
    pen = ImageDraw.Draw(cell)
    bevel = max(2, size // 8)
    if kind in "?F":
        for k in range(bevel):  # raised: light top-left, dark bottom-right
            pen.line([(k, size - 1 - k), (k, k), (size - 1 - k, k)], fill=WHITE)
            pen.line(
                [(size - 1 - k, k), (size - 1 - k, size - 1 - k), (k, size - 1 - k)], fill=DARK
            )
        if kind == "F":
            pen.polygon(
                [(size // 2, size // 4), (size // 4, size // 3), (size // 2, size // 2)],
                fill=(255, 0, 0),
            )
            pen.rectangle([size // 4, size * 2 // 3, size * 3 // 4, size * 3 // 4], fill=(0, 0, 0))
        return cell
    pen.line([(0, size - 1), (0, 0), (size - 1, 0)], fill=DARK)
    if kind != ".":
        n = int(kind)
        # A digit-like mark of its own shape and colour: bars in a pattern of the number.
        for bit in range(4):
            if (n >> bit) & 1 or bit == 3:
                top = size // 5 + bit * size // 6
                pen.rectangle([size // 4, top, size * 3 // 4, top + size // 10], fill=INK[n])
        pen.rectangle([size // 4, size // 5, size // 4 + size // 10, size * 4 // 5], fill=INK[n])
    return cell


def draw(position: str, size: int = 16, margin: int = 20) -> np.ndarray:
    """The position's pixels, with a sunken frame inside a plain margin."""
    rows = position.split()
    width, height = len(rows[0]) * size, len(rows) * size
    picture = Image.new("RGB", (width + 2 * margin, height + 2 * margin), GREY)
    pen = ImageDraw.Draw(picture)
    for k in range(1, 4):  # sunken, as the classic clients draw it: dark above, light below
        x0, y0, x1, y1 = margin - k, margin - k, margin + width - 1 + k, margin + height - 1 + k
        pen.line([(x0, y1), (x0, y0), (x1, y0)], fill=DARK)
        pen.line([(x1, y0), (x1, y1), (x0, y1)], fill=WHITE)
    for r, line in enumerate(rows):
        for c, kind in enumerate(line):
            picture.paste(tile(kind, size), (margin + c * size, margin + r * size))
    return np.asarray(picture)


def png(pixels: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="PNG")
    return out.getvalue()


def codes(position: str) -> np.ndarray:
    """What a perfect reading gives: numbers, covered for covered and flagged cells."""
    return np.array(
        [
            [COVERED if ch in "?F" else 0 if ch == "." else int(ch) for ch in line]
            for line in position.split()
        ],
        dtype=np.int8,
    )


# --- decoding ---------------------------------------------------------------------------


def test_an_image_decodes_to_its_pixels() -> None:
    pixels = draw(POSITION)
    assert np.array_equal(decode_image(png(pixels)), pixels)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"30x16x99\n????\n", "not an image"),
        (b"", "not an image"),
        (png(np.zeros((40, 40, 3), np.uint8))[:60], "damaged image"),
    ],
)
def test_what_is_no_image_is_refused_in_one_line(data: bytes, words: str) -> None:
    with pytest.raises(InvalidInputError, match=words) as caught:
        decode_image(data)
    assert "\n" not in str(caught.value)


def test_an_image_over_the_pixel_limit_is_refused_unread() -> None:
    side = int(MAX_PIXELS**0.5) + 1
    bomb = io.BytesIO()
    Image.new("1", (side, side)).save(bomb, format="PNG")  # a few kB for 16 M pixels
    with pytest.raises(InvalidInputError, match=f"{side}x{side} pixels"):
        decode_image(bomb.getvalue())


def test_a_file_over_the_byte_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    data = png(draw(POSITION))
    monkeypatch.setattr(image_module, "MAX_IMAGE_BYTES", len(data) - 1)
    with pytest.raises(InvalidInputError, match="image too large"):
        decode_image(data)


# --- the grid ---------------------------------------------------------------------------


@pytest.mark.parametrize("size", [16, 24, 32])
def test_the_grid_is_found_at_each_zoom(size: int) -> None:
    lattice = find_lattice(draw(POSITION, size, margin=size))
    assert lattice is not None
    assert (lattice.rows, lattice.cols) == (10, 10)
    assert lattice.xs[0] == lattice.ys[0] == size
    assert lattice.cell_size == (size, size)


def test_a_wide_board_gives_its_rows_and_columns() -> None:
    wide = "\n".join(line * 3 for line in POSITION.split())
    lattice = find_lattice(draw(wide))
    assert lattice is not None and (lattice.rows, lattice.cols) == (10, 30)


def test_a_grid_line_snapped_on_either_side_gives_the_same_grid() -> None:
    """A line one pixel thick has an edge on each side, about as strong: where a mark
    beside the line weakens the edge before it, the edge after it is the stronger, and the
    grid must not move a pixel (a least-squares fit did, on Metasweeper's 16-pixel look)."""
    size = 16
    opened = "\n".join(["." * 10] * 10)  # (the lines are then most of the edges)
    pixels = draw(opened, size, margin=size).copy()
    for c in (0, 1):
        pixels[:, size + c * size - 1] = (170, 170, 170)  # (just before the cells' line)
    lattice = find_lattice(pixels)
    assert lattice is not None
    assert lattice.xs == tuple(size + k * size for k in range(11))
    assert lattice.ys == tuple(size + k * size for k in range(11))


def test_an_image_without_a_grid_has_none() -> None:
    assert find_lattice(np.full((200, 300, 3), 192, np.uint8)) is None
    noise = np.random.default_rng(1).integers(0, 256, (200, 300, 3), dtype=np.uint8)
    found = find_lattice(noise)
    assert found is None or found.rows * found.cols < 4


# --- the checks -------------------------------------------------------------------------


def check(guess: np.ndarray, position: str = POSITION) -> np.ndarray:
    pixels = draw(position)
    lattice = find_lattice(pixels)
    assert lattice is not None
    return checked(guess, pixels, lattice)


def test_a_right_reading_keeps_every_cell() -> None:
    truth = codes(POSITION)
    assert np.array_equal(check(truth.copy()), truth)


def test_a_number_read_unlike_its_look_alikes_is_unreadable() -> None:
    guess = codes(POSITION)
    guess[2, 2] = 2  # a 1 read as 2: the other 1s look like it, and the 2s do not
    out = check(guess)
    assert out[2, 2] == UNREADABLE
    assert (out == UNREADABLE).sum() <= 4  # (and the 2s, which no longer look one way)


def test_flags_read_as_a_number_are_unreadable() -> None:
    guess = codes(POSITION)
    guess[2, 1] = guess[5, 5] = 3  # the recogniser's flag-as-3
    out = check(guess)
    assert out[2, 1] == out[5, 5] == UNREADABLE


def test_covered_cells_read_as_zero_are_unreadable() -> None:
    guess = codes(POSITION)
    guess[guess == COVERED] = 0  # the covered tile read as 0 everywhere
    out = check(guess)
    assert not ((out == 0) & (codes(POSITION) == COVERED)).any()


def test_a_number_read_covered_beside_flags_read_as_numbers_is_unreadable() -> None:
    """No 0 on the board, and the flags read as 3s: the opened rim is then the real
    numbers', not the flags' (the covered rim), so a 3 read as covered is caught."""
    position = "\n".join(
        ["??????????"] * 2
        + ["???1??????", "??????????", "?F???3?F??", "??F???????"]
        + ["??????????"] * 4
    )
    guess = codes(position)
    flags = np.array([[ch == "F" for ch in line] for line in position.split()])
    guess[flags] = 3
    guess[4, 5] = COVERED
    out = check(guess, position)
    assert (out[flags] == UNREADABLE).all()
    assert out[4, 5] == UNREADABLE


def test_a_number_above_its_covered_neighbours_is_unreadable() -> None:
    guess = codes(POSITION)
    guess[4, 4] = 7  # a 7 with one covered neighbour (a flag)
    assert check(guess)[4, 4] == UNREADABLE


def test_numbers_no_layout_fits_are_unreadable() -> None:
    position = POSITION.replace("?1..1111??", "?1..1113??")  # a 3 no layout satisfies
    out = check(codes(position), position)
    assert UNREADABLE in out
    assert (out[out != UNREADABLE] == codes(position)[out != UNREADABLE]).all()


def test_numbers_in_their_classic_colours_pass_and_a_misread_one_does_not() -> None:
    pixels = draw(POSITION, 24, 24)
    lattice = find_lattice(pixels)
    assert lattice is not None
    truth = codes(POSITION)
    assert not off_colour(truth, pixels, lattice).any()
    guess = truth.copy()
    guess[1, 2] = 3  # a green 2 read as 3 (red)
    guess[0, 4] = 4  # a blue 1 read as 4 (blue too: only the hue is checked)
    assert np.argwhere(off_colour(guess, pixels, lattice)).tolist() == [[1, 2]]


def test_opened_cells_must_be_the_classic_light_grey() -> None:
    pixels = draw(POSITION, 24, 24)
    lattice = find_lattice(pixels)
    assert lattice is not None
    truth = codes(POSITION)
    assert grey_opened(truth, pixels, lattice)
    sand = pixels.copy()
    sand[(pixels == GREY).all(axis=-1)] = (233, 198, 175)  # LibreMines' flower field
    assert not grey_opened(truth, sand, lattice)
    dark = pixels.copy()
    dark[(pixels == GREY).all(axis=-1)] = (70, 70, 70)  # a dark look
    assert not grey_opened(truth, dark, lattice)
    assert grey_opened(np.full(truth.shape, COVERED), sand, lattice)  # (none read opened)


def test_the_colour_checks_refuse_what_does_not_fit() -> None:
    from mscsp.errors import InvalidTypeError
    from mscsp.screen.colours import family

    pixels = draw(POSITION, 24, 24)
    lattice = find_lattice(pixels)
    assert lattice is not None
    truth = codes(POSITION)
    for check in (off_colour, grey_opened):
        with pytest.raises(InvalidInputError, match="cells"):
            check(truth[:5], pixels, lattice)
        with pytest.raises(InvalidInputError, match="cells"):
            check(truth.astype(float), pixels, lattice)
        with pytest.raises(InvalidInputError, match="pixels"):
            check(truth, pixels.astype(np.float32), lattice)
        with pytest.raises(InvalidInputError, match="past the image"):
            check(truth, pixels[:100], lattice)
        with pytest.raises(InvalidTypeError):
            check(truth, pixels, (lattice.xs, lattice.ys))
        with pytest.raises(InvalidTypeError):
            check(truth.tolist(), pixels, lattice)
    for bad in ([1, 2], [0, 0, 300], [float("nan"), 0, 0]):
        with pytest.raises(InvalidInputError, match="colour"):
            family(np.array(bad))
    assert family(np.array([0, 0, 255])) == "blue"


def test_the_board_zoomed_for_the_recogniser_keeps_its_grid() -> None:
    from mscsp.screen.reading import _zoomed

    pixels = draw(POSITION, 16, 40)
    lattice = find_lattice(pixels)
    assert lattice is not None
    for factor in (1, 2, 3):
        shown = _zoomed(pixels, lattice, factor)
        again = find_lattice(shown)
        assert again is not None and (again.rows, again.cols) == (10, 10)
        assert again.cell_size == (16 * factor, 16 * factor)


# --- the reading ------------------------------------------------------------------------


def test_a_reading_writes_board_text_with_its_doubts_marked() -> None:
    cells = codes(POSITION)
    reading = Reading(cells, cells, (16.0, 16.0))
    assert reading.text(10) == "10x10x10\n" + POSITION.replace("F", "?")
    assert reading.board(10).shape == (10, 10)
    cells = cells.copy()
    cells[2, 3] = UNREADABLE
    doubted = Reading(cells, cells, (16.0, 16.0))
    assert doubted.unreadable == [(2, 3)]
    assert doubted.text().splitlines()[2] == "??1#..12??"
    with pytest.raises(
        InvalidInputError, match=r"1 cells unreadable: \(2,3\);.*instead of --image"
    ):
        doubted.board(10)


def test_no_model_named_is_one_line_naming_the_extra_and_the_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("ms_toollib")
    monkeypatch.delenv(MODEL_ENV, raising=False)
    with pytest.raises(BackendUnavailableError, match="--obr-model PATH.*params.onnx"):
        read_screenshot(png(draw(POSITION)))
    with pytest.raises(BackendUnavailableError, match="no readable model file"):
        read_screenshot(png(draw(POSITION)), "/nonexistent/params.onnx")


def test_a_recogniser_that_crashes_is_one_line_and_the_directory_stays(tmp_path) -> None:
    pytest.importorskip("ms_toollib")
    broken = tmp_path / "params.onnx"
    broken.write_bytes(b"not a model")  # ms_toollib panics on it, in the child only
    here = os.getcwd()
    with pytest.raises(InvalidInputError, match="no board recognised: the recogniser"):
        read_screenshot(png(draw(POSITION, 24, 24)), broken)
    assert os.getcwd() == here


def test_an_image_without_a_board_is_no_board_found(tmp_path) -> None:
    pytest.importorskip("ms_toollib")
    model = tmp_path / "params.onnx"
    model.write_bytes(b"unused: no grid, so the recogniser never runs")
    with pytest.raises(InvalidInputError, match="no board found"):
        read_screenshot(png(np.full((120, 160, 3), 192, np.uint8)), model)


def recogniser_model() -> str:
    """The model file for the tests that run the recogniser, or a skip."""
    pytest.importorskip("ms_toollib")
    model = os.environ.get(MODEL_ENV)
    if not model or not os.path.isfile(model):
        pytest.skip(f"needs ms_toollib's params.onnx named by {MODEL_ENV} (CI has none)")
    return model


def test_a_classic_board_is_read_right() -> None:
    model = recogniser_model()
    reading = read_screenshot(png(draw(POSITION, 24, 24)), model)
    truth = codes(POSITION)
    doubted = reading.cells == UNREADABLE
    assert (reading.cells[~doubted] == truth[~doubted]).all()  # a doubt, never a wrong value


# --- the command ------------------------------------------------------------------------


def test_probs_image_refuses_a_file_too(tmp_path) -> None:
    shot = tmp_path / "shot.png"
    shot.write_bytes(png(draw(POSITION)))
    result = CliRunner().invoke(main, ["probs", "board.txt", "--image", str(shot)])
    assert result.exit_code == 2 and "FILE or --image, not both" in result.output


def test_probs_image_errors_are_one_line(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("ms_toollib")
    monkeypatch.delenv(MODEL_ENV, raising=False)
    text = tmp_path / "board.txt"
    text.write_text(POSITION)
    result = CliRunner().invoke(main, ["probs", "--image", str(text)])
    assert result.exit_code == 4 and "--obr-model" in result.output
    model = tmp_path / "params.onnx"
    model.write_bytes(b"x")
    result = CliRunner().invoke(main, ["probs", "--image", str(text), "--obr-model", str(model)])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "mscsp: error: not an image: Pillow reads none of PNG, JPEG, BMP, GIF, WEBP in it"
    ]


def test_probs_image_shows_the_board_then_the_odds(tmp_path) -> None:
    model = recogniser_model()
    shot = tmp_path / "shot.png"
    shot.write_bytes(png(draw(POSITION, 24, 24)))
    result = CliRunner().invoke(
        main, ["probs", "--image", str(shot), "--obr-model", model, "--mines", "10", "--json"]
    )
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["image"]["board"].startswith("10x10x10\n")
    if result.exit_code == 0:
        assert out["image"]["unreadable"] == [] and "probabilities" in json.dumps(out)
    else:  # doubts: the board and its unreadable cells, and no odds
        assert result.exit_code == 2 and out["image"]["unreadable"] and set(out) == {"image"}
