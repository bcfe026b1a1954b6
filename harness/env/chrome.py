"""The browser chrome and file dialog the harness draws, and what a click on them hits.

Headless Chromium has no visible UI, yet a real coordinator sees tabs, an address bar, a
bookmarks bar with the desk's apps and an "Open file" dialog. The harness draws them with Pillow around the page screenshot and
maps frame clicks back onto them, so an agent works exactly as it would on a desktop.
Drawing and hit-testing share one layout, so what is drawn is what is clickable.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

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


@lru_cache(maxsize=4)
def _font(size: int) -> ImageFont.FreeTypeFont:
    # Pillow's bundled font: identical pixels on every machine, no system font lookup.
    return ImageFont.load_default(size=size)


Box = tuple[int, int, int, int]  # left, top, right, bottom (exclusive)


def _inside(box: Box, x: int, y: int) -> bool:
    return box[0] <= x < box[2] and box[1] <= y < box[3]


@dataclass
class ChromeState:
    """What the drawn chrome shows: tabs, address bar (maybe being edited), file dialog."""

    width: int
    height: int
    tabs: list[tuple[str, str]] = field(default_factory=list)  # (title, url)
    active: int = 0
    address_focused: bool = False
    address_text: str = ""
    address_selected: bool = False  # whole text selected (as right after focusing it)
    dialog_files: list[tuple[str, int]] | None = None  # (name, size) while a chooser is open
    bookmarks: list[tuple[str, str]] = field(default_factory=list)  # (label, url)

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
        """The address bar field."""
        top = TAB_STRIP_HEIGHT + 5
        return (8 + 3 * NAV_BUTTON + 8, top, self.width - 12, top + 30)

    def bookmark_boxes(self) -> list[Box]:
        """One box per bookmark on the bookmarks bar, left to right."""
        top, left, boxes = TAB_STRIP_HEIGHT + TOOLBAR_HEIGHT, 8, []
        for label, _url in self.bookmarks:
            width = int(_font(13).getlength(label)) + 20
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

        Returns one of ("file", name), ("cancel",), ("dialog",), ("tab", i), ("close_tab", i),
        ("new_tab",), ("back",), ("forward",), ("reload",), ("address",), ("bookmark", url),
        ("chrome",),
        ("page", page_x, page_y) or ("outside",).
        """
        if not (0 <= x < self.width and 0 <= y < self.height):
            return ("outside",)
        if self.dialog_files is not None:
            if _inside(self.dialog_cancel_box(), x, y):
                return ("cancel",)
            for row, (name, _size) in zip(self.dialog_row_boxes(), self.dialog_files):
                if _inside(row, x, y):
                    return ("file", name)
            return ("dialog",)  # a modal dialog swallows every other click
        if y >= CHROME_HEIGHT:
            return ("page", x, y - CHROME_HEIGHT)
        for index, tab in enumerate(self.tab_boxes()):
            if _inside(self.close_box(tab), x, y):
                return ("close_tab", index)
            if _inside(tab, x, y):
                return ("tab", index)
        if _inside(self.new_tab_box(), x, y):
            return ("new_tab",)
        for name, box in self.nav_boxes().items():
            if _inside(box, x, y):
                return (name,)
        if _inside(self.address_box(), x, y):
            return ("address",)
        for box, (_label, url) in zip(self.bookmark_boxes(), self.bookmarks):
            if _inside(box, x, y):
                return ("bookmark", url)
        return ("chrome",)

    # ---- drawing ------------------------------------------------------------------------
    def draw(self, frame: Image.Image) -> None:
        """Draw the chrome onto the top of `frame` (and the dialog over it, if open)."""
        frame.paste(_drawn_strip(self.width, tuple(self.tabs), self.active, self.address_focused,
                                 self.address_text, self.address_selected, tuple(self.bookmarks)),
                    (0, 0))
        if self.dialog_files is not None:
            self._draw_dialog(frame)

    def _draw_strip(self, frame: Image.Image) -> None:
        """Tabs, toolbar and bookmarks bar (the top CHROME_HEIGHT rows)."""
        draw = ImageDraw.Draw(frame)
        font = _font(13)
        draw.rectangle((0, 0, self.width, TAB_STRIP_HEIGHT), fill=COLORS["strip"])
        for index, (box, (title, url)) in enumerate(zip(self.tab_boxes(), self.tabs)):
            active = index == self.active
            draw.rounded_rectangle(box, radius=6, fill=COLORS["tab" if active else "tab_idle"])
            label = _fit(draw, title or url or "New Tab", font, box[2] - box[0] - 40)
            draw.text((box[0] + 10, box[1] + 9), label, font=font, fill=COLORS["text"])
            close = self.close_box(box)
            draw.text((close[0] + 4, close[1] + 2), "x", font=font, fill=COLORS["muted"])
        plus = self.new_tab_box()
        draw.text((plus[0] + 6, plus[1] + 2), "+", font=_font(18), fill=COLORS["muted"])
        draw.rectangle((0, TAB_STRIP_HEIGHT, self.width, CHROME_HEIGHT - 1),
                       fill=COLORS["toolbar"])
        draw.line((0, CHROME_HEIGHT - 1, self.width, CHROME_HEIGHT - 1), fill=COLORS["border"])
        for box, (label, _url) in zip(self.bookmark_boxes(), self.bookmarks):
            draw.rounded_rectangle(box, radius=4, fill=COLORS["field"])
            draw.text((box[0] + 10, box[1] + 5), label, font=font, fill=COLORS["text"])
        for name, box in self.nav_boxes().items():
            glyph = {"back": "<", "forward": ">", "reload": "R"}[name]
            draw.rounded_rectangle(box, radius=14, fill=COLORS["button"])
            draw.text((box[0] + 10, box[1] + 7), glyph, font=_font(15), fill=COLORS["muted"])
        self._draw_address(draw, font)

    def _draw_address(self, draw: ImageDraw.ImageDraw, font: ImageFont.FreeTypeFont) -> None:
        box = self.address_box()
        draw.rounded_rectangle(box, radius=15, fill=COLORS["field"],
                               outline=COLORS["focus"] if self.address_focused else None,
                               width=2)
        text_x, text_y = box[0] + 14, box[1] + 8
        text = self.address_text if self.address_focused else self.current_url
        shown = _fit(draw, text, font, box[2] - box[0] - 28)
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
        draw.text((box[0] + 16, box[1] + 14), "Open File", font=_font(16), fill=COLORS["text"])
        draw.text((box[0] + 16, box[1] + 38), "Downloads", font=_font(12), fill=COLORS["muted"])
        rows = self.dialog_row_boxes()
        if not rows:
            draw.text((box[0] + 16, box[1] + 68), "No files in Downloads", font=_font(13),
                      fill=COLORS["muted"])
        for row, (name, size) in zip(rows, self.dialog_files or []):
            draw.rectangle(row, outline=COLORS["field"], fill=(250, 250, 251))
            draw.text((row[0] + 8, row[1] + 7), _fit(draw, name, _font(13), 380),
                      font=_font(13), fill=COLORS["text"])
            draw.text((row[2] - 90, row[1] + 7), _human_size(size), font=_font(12),
                      fill=COLORS["muted"])
        cancel = self.dialog_cancel_box()
        draw.rounded_rectangle(cancel, radius=4, fill=COLORS["button"], outline=COLORS["border"])
        draw.text((cancel[0] + 26, cancel[1] + 8), "Cancel", font=_font(13), fill=COLORS["text"])

    @property
    def current_url(self) -> str:
        """URL of the active tab ('' when there is none)."""
        return self.tabs[self.active][1] if 0 <= self.active < len(self.tabs) else ""


def _fit(draw: ImageDraw.ImageDraw, text: str, font: ImageFont.FreeTypeFont, width: int) -> str:
    """`text` cut (with an ellipsis) to fit `width` pixels."""
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "...", font=font) > width:
        text = text[:-1]
    return text + "..."


@lru_cache(maxsize=32)
def _drawn_strip(width: int, tabs: tuple[tuple[str, str], ...], active: int, address_focused: bool,
                 address_text: str, address_selected: bool,
                 bookmarks: tuple[tuple[str, str], ...]) -> Image.Image:
    """The chrome's top rows for one look, drawn once: most steps change nothing there, and
    fitting long titles and URLs (text measured a character at a time) is most of the cost."""
    state = ChromeState(width, CHROME_HEIGHT, list(tabs), active, address_focused, address_text,
                        address_selected, None, list(bookmarks))
    strip = Image.new("RGB", (width, CHROME_HEIGHT), (255, 255, 255))
    state._draw_strip(strip)
    return strip


def _human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"
