"""The option list of an open `<select>`, drawn by the harness and driven by frame clicks.

Chromium paints a select's native list into page screenshots, but input sent to the page
never reaches that list: a click on a drawn option lands on the page beneath it. So when a
page action opens a native list, the harness closes it at once (Escape, which the page never
sees) and draws its own list in its place, from the select's own options. A click on an
option chooses it as Chromium's list does (the value changes, `input` and `change` fire, then
a `click` on the select, and the list closes); a click anywhere else closes the list and does
nothing more; the keys of Chromium's list (arrows, Home/End, Page Up/Down, typing the start
of an option, Enter, Tab, Escape) work on the drawn list. Event order, and Escape keeping
the option the keys moved to, were measured on Chromium's own list.
"""
from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw
from playwright.sync_api import ElementHandle, Error as PlaywrightError, Page

from admindesk.harness.env.drawing.primitives import Box, fit_text, font, inside

ROW_HEIGHT = 24
MAX_VISIBLE_ROWS = 20  # Chromium's list shows at most 20 rows, then scrolls
TEXT_PADDING = 8
GROUP_INDENT = 12
COLORS = {"background": (255, 255, 255), "border": (118, 118, 118), "text": (32, 33, 36),
          "disabled": (160, 160, 160), "group": (95, 99, 104), "highlight": (26, 115, 232),
          "highlight_text": (255, 255, 255), "scrollbar": (193, 193, 193)}
# Keys that close Chromium's list keeping the option the keys moved to (no `click` event).
CLOSING_KEYS = ("Escape", "F4", "Alt+ArrowUp", "Alt+ArrowDown")
# Keys that choose the highlighted option, as a click on it would.
CHOOSING_KEYS = ("Enter", "Tab")
LIST_KEYS_HELP = ("a drop-down list is open: click an option (or outside the list to close it), "
                  "or use ArrowUp/ArrowDown, Home/End, PageUp/PageDown, type the start of an "
                  "option, then Enter; Escape closes the list")

OPEN_SELECT_JS = "() => document.querySelector('select:open')"
READ_SELECT_JS = """select => {
  const shown = el => !el.hidden && getComputedStyle(el).display !== 'none';
  const rows = [];
  const add = (option, grouped, groupDisabled) => rows.push({
    label: option.label, index: option.index, disabled: groupDisabled || option.disabled,
    grouped: grouped});
  for (const child of select.children) {
    if (child instanceof HTMLOptGroupElement && shown(child)) {
      rows.push({label: child.label, index: null, disabled: true, grouped: false});
      for (const option of child.children)
        if (option instanceof HTMLOptionElement && shown(option)) add(option, true, child.disabled);
    } else if (child instanceof HTMLOptionElement && shown(child)) add(child, false, false);
  }
  const box = select.getBoundingClientRect();
  return {usable: select.isConnected && !select.disabled, selected: select.selectedIndex,
          box: [box.left, box.top, box.right, box.bottom], rows: rows};
}"""
# What Chromium's list does on choosing: value, `input` and `change` only if it changed,
# then (on a choice, not on Escape) a `click` on the select.
CHOOSE_OPTION_JS = """(select, [index, click]) => {
  if (select.selectedIndex !== index) {
    select.selectedIndex = index;
    select.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
    select.dispatchEvent(new Event('change', {bubbles: true}));
  }
  if (click)
    select.dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true,
                                                  composed: true, view: window}));
}"""


@dataclass(frozen=True)
class ListRow:
    """One row of the list: an option (its index among the select's options) or a group label."""

    label: str
    index: int | None
    disabled: bool
    grouped: bool = False


@dataclass
class DropDownList:
    """The drawn list: where it is, its rows, the highlighted option and how far it is scrolled.

    `anchor` is the select's box in frame pixels; `area` is the frame region the list may
    use (the page, below the chrome). The list opens below the select, or above it when
    there is more room there, as Chromium's does.
    """

    anchor: Box
    rows: list[ListRow]
    area: Box
    highlight: int = -1
    first_row: int = 0

    # ---- layout -------------------------------------------------------------------------
    def visible_count(self) -> int:
        """How many rows fit on the side of the select the list opens on."""
        below, above = self.area[3] - self.anchor[3], self.anchor[1] - self.area[1]
        room = below if below >= len(self.rows) * ROW_HEIGHT + 2 or below >= above else above
        return max(1, min(len(self.rows), MAX_VISIBLE_ROWS, (room - 2) // ROW_HEIGHT))

    def box(self) -> Box:
        """The list's outline (1 px border included)."""
        width = max(self.anchor[2] - self.anchor[0],
                    max((int(font(13).getlength(row.label)) + 2 * TEXT_PADDING + GROUP_INDENT
                         for row in self.rows), default=0) + 14)
        width = min(width, self.area[2] - self.area[0])
        left = max(self.area[0], min(self.anchor[0], self.area[2] - width))
        height = self.visible_count() * ROW_HEIGHT + 2
        below = self.area[3] - self.anchor[3]
        top = self.anchor[3] if below >= height else self.anchor[1] - height
        top = max(self.area[1], min(top, self.area[3] - height))
        return (left, top, left + width, top + height)

    def row_boxes(self) -> list[tuple[Box, ListRow]]:
        """The rows on show, top to bottom, with their boxes."""
        left, top, right, _ = self.box()
        shown = self.rows[self.first_row:self.first_row + self.visible_count()]
        return [((left + 1, top + 1 + i * ROW_HEIGHT, right - 1, top + 1 + (i + 1) * ROW_HEIGHT), row)
                for i, row in enumerate(shown)]

    def hit(self, x: int, y: int) -> tuple:
        """("option", index) on a choosable option, ("list",) elsewhere on the list, else ("off",)."""
        if not inside(self.box(), x, y):
            return ("off",)
        for box, row in self.row_boxes():
            if inside(box, x, y) and row.index is not None and not row.disabled:
                return ("option", row.index)
        return ("list",)

    # ---- keyboard and wheel -------------------------------------------------------------
    def choosable(self) -> list[int]:
        """Indexes of the options that can be chosen (not disabled), in list order."""
        return [row.index for row in self.rows if row.index is not None and not row.disabled]

    def move(self, keys: str) -> None:
        """Move the highlight for an arrow, Home/End or Page key (disabled options skipped)."""
        choosable = self.choosable()
        if not choosable:
            return
        position = choosable.index(self.highlight) if self.highlight in choosable else -1
        page = max(self.visible_count() - 1, 1)
        target = {"ArrowDown": position + 1, "ArrowUp": position - 1 if position >= 0 else 0,
                  "Home": 0, "End": len(choosable) - 1, "PageDown": position + page,
                  "PageUp": position - page}[keys]
        self.highlight = choosable[max(0, min(target, len(choosable) - 1))]
        self.reveal()

    def type_ahead(self, text: str) -> None:
        """Move the highlight as typing `text` does in Chromium's list (Blink's TypeAhead).

        Each character searches the labels for what was typed so far: the first character
        from the option after the highlighted one, later ones from the highlighted one; a
        character typed again right after itself searches for the next option starting with
        it. Text typed in one action is one burst; the next action starts afresh (Chromium
        forgets after a second, and an agent's actions are further apart than that).
        """
        choosable = [row for row in self.rows if row.index is not None and not row.disabled]
        if not choosable:
            return
        indexes = [row.index for row in choosable]
        typed, repeating = "", None
        for char in text.casefold():
            typed += char
            if char == repeating:
                prefix, offset = char, 1
            else:
                prefix, offset = typed, 1 if len(typed) == 1 else 0
                repeating = char if len(typed) == 1 else None
            start = (indexes.index(self.highlight) if self.highlight in indexes else 0) + offset
            for step in range(len(choosable)):
                row = choosable[(start + step) % len(choosable)]
                if row.label.lstrip().casefold().startswith(prefix):
                    self.highlight = row.index
                    break
        self.reveal()

    def scroll(self, dy: int) -> None:
        """Scroll the rows by a wheel movement of `dy` pixels."""
        rows = round(dy / ROW_HEIGHT) or (1 if dy > 0 else -1 if dy < 0 else 0)
        last_first = len(self.rows) - self.visible_count()
        self.first_row = max(0, min(self.first_row + rows, last_first))

    def hover(self, x: int, y: int) -> None:
        """Highlight the option under the pointer, as moving over Chromium's list does."""
        target = self.hit(x, y)
        if target[0] == "option":
            self.highlight = target[1]

    def reveal(self) -> None:
        """Scroll so the highlighted option is on show."""
        row = next((i for i, r in enumerate(self.rows) if r.index == self.highlight), None)
        if row is None:
            return
        count = self.visible_count()
        if row < self.first_row:
            self.first_row = row
        elif row >= self.first_row + count:
            self.first_row = row - count + 1

    # ---- drawing ------------------------------------------------------------------------
    def draw(self, frame: Image.Image) -> None:
        """Draw the list over `frame`."""
        draw = ImageDraw.Draw(frame)
        box = self.box()
        draw.rectangle((box[0], box[1], box[2] - 1, box[3] - 1), fill=COLORS["background"],
                       outline=COLORS["border"])
        scrolls = len(self.rows) > self.visible_count()
        for row_box, row in self.row_boxes():
            right = row_box[2] - (6 if scrolls else 0)
            highlighted = row.index is not None and row.index == self.highlight
            if highlighted:
                draw.rectangle((row_box[0], row_box[1], right - 1, row_box[3] - 1),
                               fill=COLORS["highlight"])
            color = ("highlight_text" if highlighted else "group" if row.index is None
                     else "disabled" if row.disabled else "text")
            left = row_box[0] + TEXT_PADDING + (GROUP_INDENT if row.grouped else 0)
            label = fit_text(draw, row.label, font(13), right - left - TEXT_PADDING)
            draw.text((left, row_box[1] + 5), label, font=font(13), fill=COLORS[color])
        if scrolls:
            track = box[3] - box[1] - 2
            thumb = max(12, track * self.visible_count() // len(self.rows))
            offset = (track - thumb) * self.first_row // (len(self.rows) - self.visible_count())
            draw.rectangle((box[2] - 6, box[1] + 1 + offset, box[2] - 2, box[1] + 1 + offset + thumb),
                           fill=COLORS["scrollbar"])


class OpenSelect:
    """A `<select>` of the active page whose list is open: the element and its drawn list."""

    def __init__(self, page: Page, select: ElementHandle, drawn: DropDownList) -> None:
        self.page = page
        self.select = select
        self.drawn = drawn

    @classmethod
    def take_over(cls, page: Page, area: Box, top: int) -> OpenSelect | None:
        """If `page` has a select's native list open, close it and return the drawn stand-in.

        `top` is the frame row of the page's top edge (the chrome's height).
        """
        try:
            handle = page.evaluate_handle(OPEN_SELECT_JS)
        except PlaywrightError:  # the action started a navigation: no list is open
            return None
        select = handle.as_element()
        if select is None:
            handle.dispose()
            return None
        page.keyboard.press("Escape")  # goes to the native list, which closes unchanged
        opened = cls(page, select, DropDownList((0, 0, 0, 0), [], area))
        if not opened.refresh(top):
            opened.dispose()
            return None
        selected = opened.drawn.highlight
        opened.drawn.highlight = selected if selected in opened.drawn.choosable() else -1
        opened.drawn.reveal()
        return opened

    def refresh(self, top: int) -> bool:
        """Re-read the select (it may have moved or changed); False once it is gone, disabled
        or scrolled out of the page, which closes a real list too."""
        try:
            state = self.select.evaluate(READ_SELECT_JS)
        except PlaywrightError:  # the document was replaced
            return False
        left, upper, right, lower = (round(value) for value in state["box"])
        anchor = (left, upper + top, right, lower + top)
        area = self.drawn.area
        if not state["usable"] or anchor[3] <= area[1] or anchor[1] >= area[3]:
            return False
        rows = [ListRow(row["label"], row["index"], row["disabled"], row["grouped"])
                for row in state["rows"]]
        if not rows:
            return False
        first_use = not self.drawn.rows
        self.drawn.anchor, self.drawn.rows = anchor, rows
        if first_use:
            self.drawn.highlight = state["selected"]
        self.drawn.first_row = max(0, min(self.drawn.first_row, len(rows) - self.drawn.visible_count()))
        return True

    def choose(self, index: int, *, click: bool = True) -> None:
        """Make option `index` the select's value as Chromium's list does."""
        self.select.evaluate(CHOOSE_OPTION_JS, [index, click])

    def press(self, keys: str) -> bool:
        """Apply a key to the list; True when the list closed. Raises ValueError for a key
        Chromium's list has no use for."""
        drawn = self.drawn
        if keys in ("ArrowDown", "ArrowUp", "Home", "End", "PageDown", "PageUp"):
            drawn.move(keys)
            return False
        if keys in CHOOSING_KEYS or keys in CLOSING_KEYS:
            if drawn.highlight >= 0:
                self.choose(drawn.highlight, click=keys in CHOOSING_KEYS)
            return True
        if keys == "Space" or len(keys) == 1:
            drawn.type_ahead(" " if keys == "Space" else keys)
            return False
        raise ValueError(f"key {keys!r} does nothing in the list: {LIST_KEYS_HELP}")

    def dispose(self) -> None:
        """Let go of the element handle (the list is closed)."""
        try:
            self.select.dispose()
        except PlaywrightError:
            pass  # its document is already gone
