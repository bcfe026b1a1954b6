"""What the agent sees after each step: the `Observation` model and how it is composed."""
from __future__ import annotations

import io
import re
from typing import Literal

from PIL import Image
from playwright.sync_api import Error as PlaywrightError, Page
from pydantic import BaseModel, Field

from admindesk.harness.chrome import CHROME_HEIGHT, ChromeState

ObservationMode = Literal["screenshot", "axtree", "both"]


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
    buffer = io.BytesIO()
    # Level 1: the frame is re-encoded every step; speed matters more than a few KB.
    frame.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


_BOX = re.compile(r"\[box=(-?\d+),(-?\d+),(\d+),(\d+)\]")


def accessibility_text(page: Page) -> str:
    """The active page's accessibility tree as compact text with element refs.

    Each line is a role, its accessible name, state, `[ref=eN]` and `[box=x,y,w,h]` in
    *frame* pixels (chrome included), so a model can click the centre of what it reads.
    """
    try:
        text = page.aria_snapshot(mode="ai", boxes=True, timeout=5_000)
    except PlaywrightError as exc:
        return f"(accessibility tree unavailable: {exc.message.splitlines()[0]})"
    return _BOX.sub(lambda m: f"[box={m[1]},{int(m[2]) + CHROME_HEIGHT},{m[3]},{m[4]}]", text)
