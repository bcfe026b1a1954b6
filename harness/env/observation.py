"""What the agent sees after each step: the `Observation` model and how it is composed."""
from __future__ import annotations

import io
import re
import struct
import zlib
from functools import lru_cache
from typing import Literal, get_args

import numpy as np
from PIL import Image
from playwright.sync_api import Error as PlaywrightError, Page
from pydantic import BaseModel, Field

from admindesk.harness.env.drawing.chrome import CHROME_HEIGHT, ChromeState, drawn_strip

# "none" leaves out both pictures of the page: for scripted agents that read the page
# themselves (the reference, the controls). A frame costs a quarter of a step's CPU, and
# the proof of the checks (`admindesk tasks check`) runs over a thousand episodes.
ObservationMode = Literal["screenshot", "axtree", "both", "none"]
OBSERVATION_MODES: tuple[str, ...] = get_args(ObservationMode)


class TabInfo(BaseModel):
    """One open tab as shown in the drawn tab strip."""

    title: str
    url: str


class Observation(BaseModel):
    """One observation; `screenshot` is a PNG of the whole frame (chrome + page)."""

    screenshot: bytes | None = Field(default=None, repr=False)
    axtree: str | None = None
    url: str
    tabs: list[TabInfo]
    active_tab: int
    downloads: list[str]
    file_dialog_open: bool = False
    step: int
    last_action_error: str | None = None

    def image(self) -> Image.Image:
        """The screenshot as a Pillow image (raises if this observation has none)."""
        if self.screenshot is None:
            raise ValueError("this observation has no screenshot (observation mode 'axtree')")
        return Image.open(io.BytesIO(self.screenshot))


def compose_frame(page_png: bytes, chrome: ChromeState) -> bytes:
    """The page screenshot placed under the drawn chrome, as one PNG of the frame size."""
    if not chrome.covers_page:
        stitched = _stitched_frame(page_png, chrome)
        if stitched is not None:
            return stitched
    frame = Image.new("RGB", (chrome.width, chrome.height), (255, 255, 255))
    with Image.open(io.BytesIO(page_png)) as page:
        frame.paste(page.convert("RGB"), (0, CHROME_HEIGHT))
    chrome.draw(frame)
    return encode_png(frame)


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ZLIB_HEADER = b"\x78\x01"  # deflate, 32 KB window, no preset dictionary


def _stitched_frame(page_png: bytes, chrome: ChromeState) -> bytes | None:
    """The frame as the chrome's rows followed by Chromium's compressed page rows untouched:
    no decoding or encoding of the page, most of a frame's cost. None when the page PNG is
    not an 8-bit RGB image of the page area (then the frame is drawn the long way).

    A zlib stream can go on with another's raw deflate blocks once its own end at a byte
    boundary (a sync flush): the page's blocks refer only to their own bytes. The page's
    first row was filtered against a row of zeros, and the chrome's last row is zeros
    (`SEPARATOR`). The stream's checksum is the two parts' Adler-32s combined."""
    page = _png_parts(page_png)
    if page is None or page[:2] != (chrome.width, chrome.height - CHROME_HEIGHT):
        return None
    width, page_height, page_stream = page
    strip_deflate, strip_adler = _strip_stream(chrome.strip_key())
    page_adler = int.from_bytes(page_stream[-4:], "big")
    adler = _adler32_combine(strip_adler, page_adler, page_height * (width * 3 + 1))
    header = struct.pack(">IIBBBBB", width, chrome.height, 8, 2, 0, 0, 0)
    return (PNG_SIGNATURE + _png_chunk(b"IHDR", header)
            + _png_chunk(b"IDAT", ZLIB_HEADER + strip_deflate + page_stream[2:-4] + adler.to_bytes(4, "big"))
            + _png_chunk(b"IEND", b""))


def _png_parts(png: bytes) -> tuple[int, int, bytes] | None:
    """(width, height, zlib stream) of a non-interlaced 8-bit RGB PNG, else None."""
    if not png.startswith(PNG_SIGNATURE):
        return None
    position, header, stream = len(PNG_SIGNATURE), None, []
    while position + 8 <= len(png):
        length, tag = struct.unpack(">I4s", png[position:position + 8])
        body = png[position + 8:position + 8 + length]
        if tag == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif tag == b"IDAT":
            stream.append(body)
        position += 12 + length
    data = b"".join(stream)
    if header is None or header[2:] != (8, 2, 0, 0, 0) or len(data) < 6:
        return None
    if data[0] & 0x0F != 8 or data[1] & 0x20:  # not deflate, or a preset dictionary
        return None
    return header[0], header[1], data


@lru_cache(maxsize=32)
def _strip_stream(strip_key: tuple) -> tuple[bytes, int]:
    """The chrome rows' raw deflate blocks, ending at a byte boundary, and their Adler-32."""
    raw = _unfiltered_scanlines(drawn_strip(strip_key))
    compressor = zlib.compressobj(1, zlib.DEFLATED, -15)
    return compressor.compress(raw) + compressor.flush(zlib.Z_SYNC_FLUSH), zlib.adler32(raw)


def _adler32_combine(first: int, second: int, second_length: int) -> int:
    """The Adler-32 of two byte strings one after the other, from theirs (zlib's
    adler32_combine, which Python's zlib does not offer)."""
    base = 65521
    remainder = second_length % base
    low = ((first & 0xFFFF) + (second & 0xFFFF) + base - 1) % base
    high = (remainder * (first & 0xFFFF) + (first >> 16) + (second >> 16) + base - remainder) % base
    return (high << 16) | low


def _png_chunk(tag: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body))


def encode_png(image: Image.Image) -> bytes:
    """An RGB image as PNG, built for speed: one frame is encoded every step.

    Pillow's encoder tries a row filter per scanline; screenshots of flat UI compress
    nearly as well unfiltered, so rows go to zlib level 1 as they are (about 2x faster,
    files ~5% larger; measured on app screenshots).
    """
    width, height = image.size
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    return (PNG_SIGNATURE + _png_chunk(b"IHDR", header)
            + _png_chunk(b"IDAT", zlib.compress(_unfiltered_scanlines(image), 1)) + _png_chunk(b"IEND", b""))


def _unfiltered_scanlines(image: Image.Image) -> bytes:
    """An RGB image's rows as PNG scanlines, each with filter byte 0 ("none")."""
    width, height = image.size
    rows = np.frombuffer(image.tobytes(), dtype=np.uint8).reshape(height, width * 3)
    scanlines = np.zeros((height, width * 3 + 1), dtype=np.uint8)  # column 0: the filter byte
    scanlines[:, 1:] = rows
    return scanlines.tobytes()


_BOX = re.compile(r"\[box=(-?\d+),(-?\d+),(\d+),(\d+)\]")


def accessibility_text(page: Page) -> str:
    """The active page's accessibility tree as compact text with element refs.

    Each line is a role, its accessible name, state, `[ref=eN]` and `[box=x,y,w,h]` in
    *frame* pixels (chrome included), so a model can click the centre of what it reads.
    The refs are the element ids of the element action space (`click_element` etc.):
    an element keeps its ref while it stays on the page, and ids resolve against the
    latest tree taken, i.e. the latest observation's.
    """
    try:
        text = page.aria_snapshot(mode="ai", boxes=True, timeout=5_000)
    except PlaywrightError as exc:
        return f"(accessibility tree unavailable: {exc.message.splitlines()[0]})"
    return _BOX.sub(lambda m: f"[box={m[1]},{int(m[2]) + CHROME_HEIGHT},{m[3]},{m[4]}]", text)
