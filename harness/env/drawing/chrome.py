"""The browser chrome and file dialog the harness draws, and what a click on them hits.

Headless Chromium has no visible UI, yet a real coordinator sees tabs, an address bar, a
bookmarks bar with the desk's apps, a download button and its bubble, an open drop-down
list and an "Open file" dialog. The harness draws them with Pillow around the page
screenshot and maps frame clicks back onto them, so an agent works exactly as it would on a
desktop. Drawing and hit-testing share one layout, so what is drawn is what is clickable.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw, ImageFont

from admindesk.harness.env.drawing import primitives as drawing
from admindesk.harness.env.drawing.downloads_bubble import DownloadsBubble, draw_download_arrow
from admindesk.harness.env.drawing.primitives import Box

if TYPE_CHECKING:
    from admindesk.harness.env.drawing.dropdown import DropDownList

TAB_STRIP_HEIGHT = 36
TOOLBAR_HEIGHT = 40
BOOKMARKS_HEIGHT = 28
CHROME_HEIGHT = TAB_STRIP_HEIGHT + TOOLBAR_HEIGHT + BOOKMARKS_HEIGHT
TAB_MAX_WIDTH = 220
NEW_TAB_BUTTON = 28
NAV_BUTTON = 32
DIALOG_WIDTH, DIALOG_HEIGHT, DIALOG_ROW = 560, 380, 28
DIALOG_VISIBLE_ROWS = (DIALOG_HEIGHT - 100) // DIALOG_ROW

COLORS = {"strip": (222, 225, 230), "tab": (255, 255, 255), "tab_idle": (205, 209, 215),
          "text": (32, 33, 36), "muted": (95, 99, 104), "toolbar": (255, 255, 255),
          "field": (241, 243, 244), "focus": (26, 115, 232), "select": (195, 217, 255),
          "border": (190, 194, 199), "shade": (0, 0, 0, 90), "button": (232, 234, 237)}
# The line between the chrome and the page. Black, so that a frame's PNG can be the chrome's
# rows followed by Chromium's own compressed page rows as they are (observation.py): a PNG's
# first row is filtered against a row of zeros, and here the row above the page is one.
SEPARATOR = (0, 0, 0)


@dataclass
class ChromeState:
    """What the drawn chrome shows: tabs, address bar (maybe being edited), download button
    and bubble, an open drop-down list, file dialog."""

    width: int
    height: int
    tabs: list[tuple[str, str]] = field(default_factory=list)  # (title, url)
    active: int = 0
    address_focused: bool = False
    address_text: str = ""
    address_selected: bool = False  # whole text selected (as right after focusing it)
    dialog_files: list[tuple[str, int]] | None = None  # (name, size) while a chooser is open
    bookmarks: list[tuple[str, str]] = field(default_factory=list)  # (label, url)
    download_button: bool = False  # shown once the episode has downloaded a file
    downloads_bubble: tuple[tuple[str, int], ...] | None = None  # (name, size) listed, newest first
    downloads_full_list: bool = False  # the bubble was opened from the button
    dropdown: DropDownList | None = None  # an open <select>'s list

    # ---- layout -------------------------------------------------------------------------
    def tab_boxes(self) -> list[Box]:
        """Tab rectangles, left to right."""
        count = max(len(self.tabs), 1)
        width = min(TAB_MAX_WIDTH, (self.width - 16 - NEW_TAB_BUTTON) // count)
        return [(8 + i * width, 4, 8 + (i + 1) * width - 2, TAB_STRIP_HEIGHT)
                for i in range(len(self.tabs))]

    @staticmethod
    def close_box(tab: Box) -> Box:
        """The "x" that closes a tab, at its right end."""
        return (tab[2] - 24, tab[1] + 6, tab[2] - 6, tab[3] - 6)

    def new_tab_box(self) -> Box:
        """The "+" button after the last tab."""
        boxes = self.tab_boxes()
        left = (boxes[-1][2] + 4) if boxes else 8
        return (left, 6, left + NEW_TAB_BUTTON - 4, TAB_STRIP_HEIGHT - 4)

    def nav_boxes(self) -> dict[str, Box]:
        """Back, forward and reload buttons on the toolbar."""
        top = TAB_STRIP_HEIGHT + 4
        return {name: (8 + i * NAV_BUTTON, top, 8 + (i + 1) * NAV_BUTTON - 4, top + 32)
                for i, name in enumerate(("back", "forward", "reload"))}

    def address_box(self) -> Box:
        """The address bar field (shorter once the download button shows)."""
        top = TAB_STRIP_HEIGHT + 5
        right = self.download_button_box()[0] - 8 if self.download_button else self.width - 12
        return (8 + 3 * NAV_BUTTON + 8, top, right, top + 30)

    def download_button_box(self) -> Box:
        """The download button at the toolbar's right end (drawn once a file is downloaded)."""
        top = TAB_STRIP_HEIGHT + 4
        return (self.width - 12 - NAV_BUTTON + 4, top, self.width - 12, top + 32)

    def bubble(self) -> DownloadsBubble | None:
        """The open downloads bubble, if any."""
        if self.downloads_bubble is None:
            return None
        return DownloadsBubble(self.download_button_box(), self.downloads_bubble,
                               self.downloads_full_list)

    def bookmark_boxes(self) -> list[Box]:
        """One box per bookmark on the bookmarks bar, left to right."""
        top, left, boxes = TAB_STRIP_HEIGHT + TOOLBAR_HEIGHT, 8, []
        for label, _url in self.bookmarks:
            width = int(drawing.font(13).getlength(label)) + 20
            boxes.append((left, top + 2, left + width, top + BOOKMARKS_HEIGHT - 3))
            left += width + 6
        return boxes

    def dialog_box(self) -> Box:
        """The file dialog, centred on the frame."""
        left, top = (self.width - DIALOG_WIDTH) // 2, (self.height - DIALOG_HEIGHT) // 2
        return (left, top, left + DIALOG_WIDTH, top + DIALOG_HEIGHT)

    def dialog_row_boxes(self) -> list[Box]:
        """One row per file listed in the dialog (at most DIALOG_VISIBLE_ROWS)."""
        left, top, right, _ = self.dialog_box()
        rows = (self.dialog_files or [])[:DIALOG_VISIBLE_ROWS]
        return [(left + 16, top + 60 + i * DIALOG_ROW, right - 16, top + 60 + (i + 1) * DIALOG_ROW)
                for i in range(len(rows))]

    def dialog_cancel_box(self) -> Box:
        """The dialog's Cancel button."""
        _, _, right, bottom = self.dialog_box()
        return (right - 112, bottom - 44, right - 16, bottom - 12)

    # ---- hit testing --------------------------------------------------------------------
    def hit(self, x: int, y: int) -> tuple:
        """What a click at frame pixel (x, y) lands on.

        Returns one of ("file", name), ("cancel",), ("dialog",), ("dropdown_option", index),
        ("dropdown",), ("dropdown_off",), ("downloads_bubble",), ("tab", i), ("close_tab", i),
        ("new_tab",), ("back",), ("forward",), ("reload",), ("address",), ("bookmark", url),
        ("downloads_button",), ("chrome",), ("page", page_x, page_y) or ("outside",).
        """
        if not (0 <= x < self.width and 0 <= y < self.height):
            return ("outside",)
        if self.dialog_files is not None:
            if drawing.inside(self.dialog_cancel_box(), x, y):
                return ("cancel",)
            for row, (name, _size) in zip(self.dialog_row_boxes(), self.dialog_files):
                if drawing.inside(row, x, y):
                    return ("file", name)
            return ("dialog",)  # a modal dialog swallows every other click
        if self.dropdown is not None:
            target = self.dropdown.hit(x, y)
            if target[0] == "option":
                return ("dropdown_option", target[1])
            return ("dropdown",) if target[0] == "list" else ("dropdown_off",)
        bubble = self.bubble()
        if bubble is not None and bubble.covers(x, y):
            return ("downloads_bubble",)
        if y >= CHROME_HEIGHT:
            return ("page", x, y - CHROME_HEIGHT)
        for index, tab in enumerate(self.tab_boxes()):
            if drawing.inside(self.close_box(tab), x, y):
                return ("close_tab", index)
            if drawing.inside(tab, x, y):
                return ("tab", index)
        if drawing.inside(self.new_tab_box(), x, y):
            return ("new_tab",)
        for name, box in self.nav_boxes().items():
            if drawing.inside(box, x, y):
                return (name,)
        if drawing.inside(self.address_box(), x, y):
            return ("address",)
        for box, (_label, url) in zip(self.bookmark_boxes(), self.bookmarks):
            if drawing.inside(box, x, y):
                return ("bookmark", url)
        if self.download_button and drawing.inside(self.download_button_box(), x, y):
            return ("downloads_button",)
        return ("chrome",)

    # ---- drawing ------------------------------------------------------------------------
    def draw(self, frame: Image.Image) -> None:
        """Draw the chrome onto the top of `frame`, and over it what is open: the downloads
        bubble, a drop-down list, the file dialog."""
        frame.paste(drawn_strip(self.strip_key()), (0, 0))
        bubble = self.bubble()
        if bubble is not None:
            bubble.draw(frame)
        if self.dropdown is not None:
            self.dropdown.draw(frame)
        if self.dialog_files is not None:
            self._draw_dialog(frame)

    def strip_key(self) -> tuple:
        """Everything the top CHROME_HEIGHT rows show (the key of their drawing)."""
        return (self.width, tuple(self.tabs), self.active, self.address_focused, self.address_text,
                self.address_selected, tuple(self.bookmarks), self.download_button)

    @property
    def covers_page(self) -> bool:
        """True when something open is drawn over the page (bubble, drop-down, dialog)."""
        return self.bubble() is not None or self.dropdown is not None or self.dialog_files is not None

    def _draw_strip(self, frame: Image.Image) -> None:
        """Tabs, toolbar and bookmarks bar (the top CHROME_HEIGHT rows)."""
        draw = ImageDraw.Draw(frame)
        font = drawing.font(13)
        draw.rectangle((0, 0, self.width, TAB_STRIP_HEIGHT), fill=COLORS["strip"])
        for index, (box, (title, url)) in enumerate(zip(self.tab_boxes(), self.tabs)):
            active = index == self.active
            draw.rounded_rectangle(box, radius=6, fill=COLORS["tab" if active else "tab_idle"])
            label = drawing.fit_text(draw, title or url or "New Tab", font, box[2] - box[0] - 40)
            draw.text((box[0] + 10, box[1] + 9), label, font=font, fill=COLORS["text"])
            close = self.close_box(box)
            draw.text((close[0] + 4, close[1] + 2), "x", font=font, fill=COLORS["muted"])
        plus = self.new_tab_box()
        draw.text((plus[0] + 6, plus[1] + 2), "+", font=drawing.font(18), fill=COLORS["muted"])
        draw.rectangle((0, TAB_STRIP_HEIGHT, self.width, CHROME_HEIGHT - 1),
                       fill=COLORS["toolbar"])
        draw.line((0, CHROME_HEIGHT - 1, self.width, CHROME_HEIGHT - 1), fill=SEPARATOR)
        for box, (label, _url) in zip(self.bookmark_boxes(), self.bookmarks):
            draw.rounded_rectangle(box, radius=4, fill=COLORS["field"])
            draw.text((box[0] + 10, box[1] + 5), label, font=font, fill=COLORS["text"])
        for name, box in self.nav_boxes().items():
            glyph = {"back": "<", "forward": ">", "reload": "R"}[name]
            draw.rounded_rectangle(box, radius=14, fill=COLORS["button"])
            draw.text((box[0] + 10, box[1] + 7), glyph, font=drawing.font(15), fill=COLORS["muted"])
        if self.download_button:
            self._draw_download_button(draw)
        self._draw_address(draw, font)

    def _draw_download_button(self, draw: ImageDraw.ImageDraw) -> None:
        left, top, right, bottom = self.download_button_box()
        draw.rounded_rectangle((left, top, right, bottom), radius=14, fill=COLORS["button"])
        draw_download_arrow(draw, (left + right) // 2, top + 4, COLORS["muted"])

    def _draw_address(self, draw: ImageDraw.ImageDraw, font: ImageFont.FreeTypeFont) -> None:
        box = self.address_box()
        draw.rounded_rectangle(box, radius=15, fill=COLORS["field"],
                               outline=COLORS["focus"] if self.address_focused else None,
                               width=2)
        text_x, text_y = box[0] + 14, box[1] + 8
        text = self.address_text if self.address_focused else self.current_url
        shown = drawing.fit_text(draw, text, font, box[2] - box[0] - 28)
        if self.address_focused and self.address_selected and shown:
            draw.rectangle((text_x - 1, text_y - 2, text_x + draw.textlength(shown, font=font),
                            text_y + 15), fill=COLORS["select"])
        draw.text((text_x, text_y), shown, font=font, fill=COLORS["text"])
        if self.address_focused and not self.address_selected:
            caret = text_x + draw.textlength(shown, font=font) + 1
            draw.line((caret, text_y - 2, caret, text_y + 15), fill=COLORS["text"], width=1)

    def _draw_dialog(self, frame: Image.Image) -> None:
        shade = Image.new("RGBA", frame.size, COLORS["shade"])
        frame.paste(shade, (0, 0), shade)
        draw = ImageDraw.Draw(frame)
        box = self.dialog_box()
        draw.rounded_rectangle(box, radius=8, fill=(255, 255, 255), outline=COLORS["border"])
        draw.text((box[0] + 16, box[1] + 14), "Open File", font=drawing.font(16), fill=COLORS["text"])
        draw.text((box[0] + 16, box[1] + 38), "Downloads", font=drawing.font(12), fill=COLORS["muted"])
        rows = self.dialog_row_boxes()
        if not rows:
            draw.text((box[0] + 16, box[1] + 68), "No files in Downloads", font=drawing.font(13),
                      fill=COLORS["muted"])
        for row, (name, size) in zip(rows, self.dialog_files or []):
            draw.rectangle(row, outline=COLORS["field"], fill=(250, 250, 251))
            draw.text((row[0] + 8, row[1] + 7), drawing.fit_text(draw, name, drawing.font(13), 380),
                      font=drawing.font(13), fill=COLORS["text"])
            draw.text((row[2] - 90, row[1] + 7), drawing.human_size(size), font=drawing.font(12),
                      fill=COLORS["muted"])
        cancel = self.dialog_cancel_box()
        draw.rounded_rectangle(cancel, radius=4, fill=COLORS["button"], outline=COLORS["border"])
        draw.text((cancel[0] + 26, cancel[1] + 8), "Cancel", font=drawing.font(13), fill=COLORS["text"])

    @property
    def current_url(self) -> str:
        """URL of the active tab ('' when there is none)."""
        return self.tabs[self.active][1] if 0 <= self.active < len(self.tabs) else ""


@lru_cache(maxsize=32)
def drawn_strip(key: tuple) -> Image.Image:
    """The chrome's top rows for one look (`ChromeState.strip_key`), drawn once: most steps
    change nothing there, and fitting long titles and URLs (text measured a character at a
    time) is most of the cost."""
    width, tabs, active, address_focused, address_text, address_selected, bookmarks, download_button = key
    state = ChromeState(width, CHROME_HEIGHT, list(tabs), active, address_focused, address_text,
                        address_selected, None, list(bookmarks), download_button)
    strip = Image.new("RGB", (width, CHROME_HEIGHT), (255, 255, 255))
    state._draw_strip(strip)
    return strip

