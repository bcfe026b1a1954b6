"""The downloads bubble the harness draws under the toolbar's download button.

Chromium shows a bubble under a download button after a download (each file's name and
"size • Done") and closes it by itself after 5 seconds unless the user is on it; the button
stays, and clicking it lists the recent downloads again. An agent's next action always
comes later than that, so here the bubble closes with the next action that is not on it
(counting actions, not seconds, keeps the frames the same when an episode is replayed).
"""
from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from admindesk.harness.env.drawing.primitives import Box, fit_text, font, human_size, inside

BUBBLE_WIDTH = 360
ROW_HEIGHT = 48
HEADER_HEIGHT = 36
MAX_ROWS = 6
COLORS = {"background": (255, 255, 255), "border": (190, 194, 199), "text": (32, 33, 36),
          "muted": (95, 99, 104), "icon": (232, 240, 254), "icon_mark": (26, 115, 232)}


@dataclass(frozen=True)
class DownloadsBubble:
    """An open bubble: the files it lists (newest first) and whether it is the full list
    opened from the button (with a header) or the one a finished download opened."""

    button: Box
    files: tuple[tuple[str, int], ...]
    full_list: bool = False

    def box(self) -> Box:
        """The bubble's outline, right-aligned under the button."""
        rows = min(len(self.files), MAX_ROWS)
        height = rows * ROW_HEIGHT + (HEADER_HEIGHT if self.full_list else 0) + 8
        right = self.button[2] + 4
        top = self.button[3] + 6
        return (right - BUBBLE_WIDTH, top, right, top + height)

    def row_boxes(self) -> list[Box]:
        """One box per listed file, top to bottom."""
        left, top, right, _ = self.box()
        top += 4 + (HEADER_HEIGHT if self.full_list else 0)
        return [(left + 1, top + i * ROW_HEIGHT, right - 1, top + (i + 1) * ROW_HEIGHT)
                for i in range(min(len(self.files), MAX_ROWS))]

    def covers(self, x: int, y: int) -> bool:
        """True when frame pixel (x, y) is on the bubble."""
        return inside(self.box(), x, y)

    def draw(self, frame: Image.Image) -> None:
        """Draw the bubble over `frame`."""
        box = self.box()
        draw = ImageDraw.Draw(frame)
        draw.rounded_rectangle((box[0], box[1], box[2] - 1, box[3] - 1), radius=8,
                               fill=COLORS["background"], outline=COLORS["border"])
        if self.full_list:
            draw.text((box[0] + 16, box[1] + 14), "Recent downloads", font=font(14),
                      fill=COLORS["text"])
        for row, (name, size) in zip(self.row_boxes(), self.files):
            icon = (row[0] + 14, row[1] + 10, row[0] + 38, row[1] + 38)
            draw.rounded_rectangle(icon, radius=4, fill=COLORS["icon"])
            draw_download_arrow(draw, (icon[0] + icon[2]) // 2, icon[1] + 4, COLORS["icon_mark"])
            text_left = icon[2] + 12
            draw.text((text_left, row[1] + 8), fit_text(draw, name, font(13), row[2] - text_left - 12),
                      font=font(13), fill=COLORS["text"])
            size_text = human_size(size)
            dot = text_left + draw.textlength(size_text, font=font(12)) + 6
            draw.text((text_left, row[1] + 27), size_text, font=font(12), fill=COLORS["muted"])
            draw.ellipse((dot, row[1] + 33, dot + 3, row[1] + 36), fill=COLORS["muted"])
            draw.text((dot + 9, row[1] + 27), "Done", font=font(12), fill=COLORS["muted"])


def draw_download_arrow(draw: ImageDraw.ImageDraw, middle: int, top: int, color: tuple) -> None:
    """Chromium's download glyph (an arrow onto a tray), 20 px tall from `top`."""
    draw.line((middle, top + 4, middle, top + 15), fill=color, width=2)
    draw.polygon(((middle - 5, top + 11), (middle + 5, top + 11), (middle, top + 17)), fill=color)
    draw.line((middle - 7, top + 20, middle + 7, top + 20), fill=color, width=2)
