"""A frame's PNG stitched from the chrome's rows and the page's own compressed rows is the
frame drawn the long way, pixel for pixel, and a valid PNG (its checksum included)."""
from __future__ import annotations

import io
import random
import zlib

import pytest
from PIL import Image, ImageDraw

from admindesk.harness.env import observation
from admindesk.harness.env.drawing.chrome import CHROME_HEIGHT, ChromeState

WIDTH, HEIGHT = 320, 240


def chrome(**changes) -> ChromeState:
    return ChromeState(WIDTH, HEIGHT, [("Worklist", "http://127.0.0.1:5001/")], 0,
                       bookmarks=[("EHR", "http://127.0.0.1:5001/")], **changes)


def page_png(mode: str = "RGB", height: int = HEIGHT - CHROME_HEIGHT, optimize: bool = False) -> bytes:
    """A busy page (noise and shapes) so that Pillow's encoder picks every row filter,
    the first row's included."""
    rng = random.Random(7)
    image = Image.new(mode, (WIDTH, height), (255,) * len(mode))
    draw = ImageDraw.Draw(image)
    for _ in range(60):
        x, y = rng.randrange(WIDTH), rng.randrange(height)
        draw.rectangle((x, y, x + rng.randrange(40), y + rng.randrange(30)),
                       fill=tuple(rng.randrange(256) for _ in mode))
    for x in range(WIDTH):
        image.putpixel((x, 0), tuple(rng.randrange(256) for _ in mode))
    out = io.BytesIO()
    image.save(out, "PNG", optimize=optimize)
    return out.getvalue()


def drawn_the_long_way(png: bytes, state: ChromeState) -> bytes:
    frame = Image.new("RGB", (state.width, state.height), (255, 255, 255))
    frame.paste(Image.open(io.BytesIO(png)).convert("RGB"), (0, CHROME_HEIGHT))
    state.draw(frame)
    return frame.tobytes()


@pytest.mark.parametrize("optimize", [False, True])
def test_a_stitched_frame_is_the_drawn_frame_and_a_valid_png(optimize):
    png, state = page_png(optimize=optimize), chrome()
    frame = observation.compose_frame(png, state)
    width, height, stream = observation._png_parts(frame)
    assert (width, height) == (WIDTH, HEIGHT)
    zlib.decompress(stream)  # raises unless the combined Adler-32 is right
    assert frame != observation.encode_png(Image.open(io.BytesIO(frame)))  # it was stitched, not encoded
    decoded = Image.open(io.BytesIO(frame))
    assert decoded.mode == "RGB" and decoded.tobytes() == drawn_the_long_way(png, state)


def test_whatever_the_chrome_shows_the_stitched_frame_shows_it():
    png = page_png()
    for state in (chrome(address_focused=True, address_text="http://127.0.0.1:5001/patients"),
                  chrome(download_button=True)):
        assert Image.open(io.BytesIO(observation.compose_frame(png, state))).tobytes() == \
            drawn_the_long_way(png, state)


@pytest.mark.parametrize("page", [page_png("RGBA"), page_png(height=HEIGHT - CHROME_HEIGHT - 1)],
                         ids=["rgba", "short"])
def test_a_page_png_that_does_not_fit_is_drawn_the_long_way(page):
    state = chrome()
    assert observation._stitched_frame(page, state) is None
    assert Image.open(io.BytesIO(observation.compose_frame(page, state))).tobytes() == \
        drawn_the_long_way(page, state)


def test_what_is_open_over_the_page_is_drawn_over_it():
    png = page_png()
    state = chrome(dialog_files=[("referral.pdf", 2048)])
    assert state.covers_page
    assert Image.open(io.BytesIO(observation.compose_frame(png, state))).tobytes() == \
        drawn_the_long_way(png, state)
    assert not chrome().covers_page


@pytest.mark.parametrize("lengths", [(0, 5), (5, 0), (1, 1), (70_000, 3), (100, 200_000)])
def test_adler32_combine_is_zlib_s(lengths):
    rng = random.Random(sum(lengths))
    first, second = (bytes(rng.randrange(256) for _ in range(n)) for n in lengths)
    assert observation._adler32_combine(zlib.adler32(first), zlib.adler32(second), len(second)) == \
        zlib.adler32(first + second)
