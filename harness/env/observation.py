"""What the agent sees after each step: the `Observation` model and how it is composed."""
from __future__ import annotations

import io
import re
import struct
import zlib
from typing import Literal, get_args

import numpy as np
from PIL import Image
from playwright.sync_api import Error as PlaywrightError, Page
from pydantic import BaseModel, Field

from admindesk.harness.env.drawing.chrome import CHROME_HEIGHT, ChromeState

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
    frame = Image.new("RGB", (chrome.width, chrome.height), (255, 255, 255))
    with Image.open(io.BytesIO(page_png)) as page:
        frame.paste(page.convert("RGB"), (0, CHROME_HEIGHT))
    chrome.draw(frame)
    return encode_png(frame)


def _png_chunk(tag: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body))


def encode_png(image: Image.Image) -> bytes:
    """An RGB image as PNG, built for speed: one frame is encoded every step.

    Pillow's encoder tries a row filter per scanline; screenshots of flat UI compress
    nearly as well unfiltered, so rows go to zlib level 1 as they are (about 2x faster,
    files ~5% larger; measured on app screenshots).
    """
    width, height = image.size
    rows = np.frombuffer(image.tobytes(), dtype=np.uint8).reshape(height, width * 3)
    scanlines = np.zeros((height, width * 3 + 1), dtype=np.uint8)  # column 0: filter "none"
    scanlines[:, 1:] = rows
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header)
            + _png_chunk(b"IDAT", zlib.compress(scanlines.tobytes(), 1)) + _png_chunk(b"IEND", b""))


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
