"""Pillow helpers shared by everything the harness draws over the page (chrome, lists, bubbles)."""
from __future__ import annotations

from functools import lru_cache

from PIL import ImageDraw, ImageFont

Box = tuple[int, int, int, int]  # left, top, right, bottom (exclusive)


def inside(box: Box, x: int, y: int) -> bool:
    """True when frame pixel (x, y) is in `box`."""
    return box[0] <= x < box[2] and box[1] <= y < box[3]


@lru_cache(maxsize=4)
def font(size: int) -> ImageFont.FreeTypeFont:
    """Pillow's bundled font at `size`."""
    # Identical pixels on every machine, no system font lookup.
    return ImageFont.load_default(size=size)


def fit_text(draw: ImageDraw.ImageDraw, text: str, face: ImageFont.FreeTypeFont, width: int) -> str:
    """`text` cut (with an ellipsis) to fit `width` pixels."""
    if draw.textlength(text, font=face) <= width:
        return text
    while text and draw.textlength(text + "...", font=face) > width:
        text = text[:-1]
    return text + "..."


def human_size(size: int) -> str:
    """A byte count as a browser shows it ("812 B", "12.3 KB", "1.4 MB")."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"
