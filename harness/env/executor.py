"""Applies one agent action to the episode's browser, routing frame pixels to their target.

A frame click lands on the file dialog when one is open, else on an open drop-down list
(a click beside it only closes it), the downloads bubble, the drawn chrome (tabs, navigation
buttons, address bar, download button) or the page. Keyboard input goes to the open
drop-down list, or to the address bar while it has focus, as in a desktop browser.
"""
from __future__ import annotations

from dataclasses import dataclass

from playwright.sync_api import Error as PlaywrightError, Locator

from admindesk.harness.env import actions as act
from admindesk.harness.env.drawing.chrome import CHROME_HEIGHT, ChromeState
from admindesk.harness.env.drawing.dropdown import OpenSelect
from admindesk.harness.env.episode_browser import EpisodeBrowser
from admindesk.harness.env.sandbox import NavigationBlocked
from admindesk.harness.env.text_entry import type_text

DIALOG_OPEN = "a file dialog is open: pick a file in it, or click Cancel (or press Escape)"
# How long an element action waits for its element to be actionable (visible, enabled,
# stable): the page has settled before the step, so a longer wait only hides a wrong id.
ELEMENT_TIMEOUT_MS = 3_000
# Actions that take the user away from an open drop-down list, which closes it first.
LEAVES_DROPDOWN = ("goto", "new_tab", "switch_tab", "close_tab", "choose_file", "click_element",
                   "fill_element", "select_option", "upload_to_element")
POINTER_ACTIONS = ("click", "double_click", "right_click", "move")
AFTER_TWO_FRAMES_JS = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


class ActionFailed(Exception):
    """An action was invalid in the current state, or the browser refused it."""


@dataclass
class AddressBar:
    """The drawn address bar's editing state."""

    focused: bool = False
    text: str = ""
    selected: bool = False  # whole text selected, as right after focusing it

    def focus(self, url: str) -> None:
        """Focus with the current URL selected (typing replaces it)."""
        self.focused, self.text, self.selected = True, url, True

    def blur(self) -> None:
        """Give keyboard focus back to the page."""
        self.focused, self.selected = False, False


class ActionExecutor:
    """Turns actions into Playwright calls for one episode."""

    def __init__(self, browser: EpisodeBrowser, frame_size: tuple[int, int],
                 bookmarks: list[tuple[str, str]]) -> None:
        self.browser = browser
        self.width, self.height = frame_size
        self.bookmarks = bookmarks
        self.address = AddressBar()
        self.dropdown: OpenSelect | None = None
        self.downloads_bubble: tuple[tuple[str, int], ...] | None = None  # files it lists
        self.downloads_full_list = False
        self.downloads_shown = 0  # downloads a bubble has announced so far

    def chrome_state(self, titles: bool = True) -> ChromeState:
        """The chrome as it should be drawn now, or (`titles=False`, cheaper) as last drawn,
        for hit-testing."""
        if titles:
            self._refresh_overlays()
        tabs = (self.browser.tabs() if titles
                else [("", page.url) for page in self.browser.pages])
        dialog = self.browser.download_listing() if self.browser.file_chooser else None
        return ChromeState(width=self.width, height=self.height, tabs=tabs,
                           bookmarks=self.bookmarks,
                           active=self.browser.active, address_focused=self.address.focused,
                           address_text=self.address.text,
                           address_selected=self.address.selected, dialog_files=dialog,
                           download_button=bool(self.browser.downloads),
                           downloads_bubble=self.downloads_bubble,
                           downloads_full_list=self.downloads_full_list,
                           dropdown=self.dropdown.drawn if self.dropdown is not None else None)

    def _refresh_overlays(self) -> None:
        """Open the downloads bubble for downloads that finished since it last showed, and
        drop a drop-down list whose select has gone (navigated away, removed, disabled)."""
        dropdown = self.dropdown
        if dropdown is not None and (dropdown.page is not self.browser.page
                                     or not dropdown.refresh(CHROME_HEIGHT)):
            self._close_dropdown()
        finished = self.browser.downloads[self.downloads_shown:]
        if finished:
            self.downloads_bubble = tuple((f.name, f.size) for f in reversed(finished))
            self.downloads_full_list = False
            self.downloads_shown += len(finished)

    def _close_dropdown(self) -> None:
        if self.dropdown is not None:
            self.dropdown.dispose()
            self.dropdown = None

    def _watch_for_select(self) -> None:
        """After input to the page: if it opened a select's list, draw the harness's instead."""
        self.dropdown = OpenSelect.take_over(self.browser.page, (0, CHROME_HEIGHT, self.width,
                                                                 self.height), CHROME_HEIGHT)

    def _leave_downloads_bubble(self, action: act.Action) -> None:
        """Close the bubble unless the action points at it or at the download button."""
        if self.downloads_bubble is None or action.type in ("wait", "done"):
            return
        if action.type in POINTER_ACTIONS:
            on = self.chrome_state(titles=False).hit(action.x, action.y)[0]
            if on in ("downloads_bubble", "downloads_button"):
                return
        self.downloads_bubble = None

    def apply(self, action: act.Action) -> None:
        """Perform `action`; raises ActionFailed with a message the agent can act on."""
        self._leave_downloads_bubble(action)
        if action.type in LEAVES_DROPDOWN:
            self._close_dropdown()
        try:
            handler = getattr(self, f"_do_{action.type}")
            handler(action)
        except (NavigationBlocked, FileNotFoundError, IndexError, RuntimeError) as exc:
            raise ActionFailed(str(exc)) from exc
        except PlaywrightError as exc:
            raise ActionFailed(exc.message.splitlines()[0]) from exc

    # ---- pointer ------------------------------------------------------------------------
    def _pointer(self, action, button: str = "left", clicks: int = 1) -> None:
        target = self.chrome_state(titles=False).hit(action.x, action.y)
        kind = target[0]
        if kind == "outside":
            raise ActionFailed(f"({action.x}, {action.y}) is outside the "
                               f"{self.width}x{self.height} frame")
        if kind in ("file", "cancel", "dialog"):
            if button != "left":
                return
            if kind == "file":
                self.browser.choose_file(target[1])
            elif kind == "cancel":
                self.browser.cancel_file_chooser()
            return  # clicks on the dialog's background do nothing, like a modal dialog
        if kind in ("dropdown_option", "dropdown", "dropdown_off"):
            if kind == "dropdown_option" and button == "left":
                self.dropdown.choose(target[1])
                self._close_dropdown()
            elif kind == "dropdown_off":
                self._close_dropdown()  # a click beside an open list only closes it
            return
        if kind == "downloads_bubble":
            return  # the listed files are done: nothing to open or retry
        if kind == "page":
            self.address.blur()
            self.browser.page.mouse.click(target[1], target[2], button=button,
                                          click_count=clicks)
            if button == "left":
                self._watch_for_select()
            return
        if button != "left":
            return  # no context menus on the drawn chrome
        self._chrome_click(target)

    def _chrome_click(self, target: tuple) -> None:
        kind = target[0]
        if kind == "address":
            self.address.focus(self.browser.page.url)
            return
        self.address.blur()
        if kind == "tab":
            self.browser.switch_tab(target[1])
        elif kind == "close_tab":
            self.browser.close_tab(target[1])
        elif kind == "new_tab":
            self.browser.new_tab()
            self.address.focus("")  # a new tab starts with the address bar focused
        elif kind == "back":
            self.browser.page.go_back(wait_until="commit")
        elif kind == "forward":
            self.browser.page.go_forward(wait_until="commit")
        elif kind == "reload":
            self.browser.page.reload(wait_until="commit")
        elif kind == "bookmark":
            self.browser.goto(target[1])
        elif kind == "downloads_button":
            self._toggle_downloads_list()

    def _toggle_downloads_list(self) -> None:
        """The download button shows every download of the episode, newest first; pressed
        while its bubble is open, it closes the bubble."""
        if self.downloads_bubble is not None:
            self.downloads_bubble = None
            return
        self.downloads_bubble = tuple((f.name, f.size) for f in reversed(self.browser.downloads))
        self.downloads_full_list = True

    def _do_click(self, action: act.Click) -> None:
        self._pointer(action)

    def _do_double_click(self, action: act.DoubleClick) -> None:
        self._pointer(action, clicks=2)

    def _do_right_click(self, action: act.RightClick) -> None:
        self._pointer(action, button="right")

    def _page_point(self, x: int, y: int) -> tuple[int, int]:
        if self.browser.file_chooser is not None:
            raise ActionFailed(DIALOG_OPEN)
        if not (0 <= x < self.width and CHROME_HEIGHT <= y < self.height):
            raise ActionFailed(f"({x}, {y}) is not on the page (the page spans y "
                               f"{CHROME_HEIGHT}..{self.height - 1})")
        return x, y - CHROME_HEIGHT

    def _do_move(self, action: act.Move) -> None:
        on = self.chrome_state(titles=False).hit(action.x, action.y)[0]
        if on in ("dropdown_option", "dropdown"):
            self.dropdown.drawn.hover(action.x, action.y)
        elif on in ("page", "dropdown_off"):
            self.browser.page.mouse.move(*self._page_point(action.x, action.y))

    def _do_drag(self, action: act.Drag) -> None:
        if self.dropdown is not None:
            self._close_dropdown()  # the press closes the list, like a click beside it
            return
        start = self._page_point(action.x1, action.y1)
        end = self._page_point(action.x2, action.y2)
        mouse = self.browser.page.mouse
        mouse.move(*start)
        mouse.down()
        mouse.move(*end, steps=8)  # intermediate moves: drag handlers need to see motion
        mouse.up()

    def _do_scroll(self, action: act.Scroll) -> None:
        if self.dropdown is not None:
            if self.chrome_state(titles=False).hit(action.x, action.y)[0] != "dropdown_off":
                self.dropdown.drawn.scroll(action.dy)
                return
            self._close_dropdown()  # scrolling the page closes the list
        point = self._page_point(action.x, action.y)
        self.browser.page.mouse.move(*point)
        self.browser.page.mouse.wheel(action.dx, action.dy)
        # The wheel is acknowledged before the page scrolls (the compositor scrolls it on a
        # later frame). Two frames on, the scroll has begun and its scroll events mark the
        # page busy until it ends (PAGE_ACTIVITY_JS), so the settle that follows waits for it.
        # A frame taken for the observation used to hide this; without frames it showed.
        self.browser.page.evaluate(AFTER_TWO_FRAMES_JS)

    # ---- keyboard -----------------------------------------------------------------------
    def _do_type(self, action: act.TypeText) -> None:
        if self.browser.file_chooser is not None:
            raise ActionFailed(DIALOG_OPEN)
        if self.address.focused:
            base = "" if self.address.selected else self.address.text
            self.address.text, self.address.selected = base + action.text, False
            return
        if self.dropdown is not None:
            self.dropdown.drawn.type_ahead(action.text)
            return
        type_text(self.browser.page, self.browser.devtools_evaluate, action.text)
        self._watch_for_select()

    def _do_key(self, action: act.Key) -> None:
        keys = action.keys.strip()
        if self.browser.file_chooser is not None:
            if keys != "Escape":
                raise ActionFailed(DIALOG_OPEN)
            self.browser.cancel_file_chooser()
            return
        if keys in ("Control+L", "F6", "Alt+D", "Alt+ArrowLeft", "Alt+ArrowRight"):
            self._close_dropdown()  # the list closes as focus leaves the page
        if keys in ("Control+L", "F6", "Alt+D"):
            self.address.focus(self.browser.page.url)
            return
        if keys == "Alt+ArrowLeft":
            self.browser.page.go_back(wait_until="commit")
            return
        if keys == "Alt+ArrowRight":
            self.browser.page.go_forward(wait_until="commit")
            return
        if self.address.focused:
            self._address_key(keys)
            return
        if self.dropdown is not None:
            try:
                closed = self.dropdown.press(keys)
            except ValueError as exc:
                raise ActionFailed(str(exc)) from exc
            if closed:
                self._close_dropdown()
            return
        self.browser.page.keyboard.press(keys)
        self._watch_for_select()

    def _address_key(self, keys: str) -> None:
        bar = self.address
        if keys == "Enter":
            target = bar.text
            bar.blur()
            self.browser.goto(target)
        elif keys == "Escape":
            bar.blur()
        elif keys in ("Control+A", "Meta+A"):
            bar.selected = True
        elif keys == "Backspace":
            bar.text, bar.selected = ("" if bar.selected else bar.text[:-1]), False
        elif keys in ("ArrowLeft", "ArrowRight", "End", "Home"):
            bar.selected = False  # the caret stays at the end: the drawn bar has no cursor
        else:
            raise ActionFailed(f"key {keys!r} does nothing in the address bar "
                               "(type text, Backspace, Control+A, Enter or Escape)")

    # ---- browser-level ------------------------------------------------------------------
    def _do_wait(self, action: act.Wait) -> None:
        self.browser.page.wait_for_timeout(action.seconds * 1000)

    def _do_goto(self, action: act.Goto) -> None:
        self.address.blur()
        self.browser.goto(action.url)

    def _do_new_tab(self, action: act.NewTab) -> None:
        self.address.blur()
        self.browser.new_tab(action.url)
        if not action.url:
            self.address.focus("")

    def _do_switch_tab(self, action: act.SwitchTab) -> None:
        self.address.blur()
        self.browser.switch_tab(action.index)

    def _do_close_tab(self, action: act.CloseTab) -> None:
        self.address.blur()
        self.browser.close_tab(action.index)

    def _do_choose_file(self, action: act.ChooseFile) -> None:
        self.browser.choose_file(action.name)

    # ---- element action space ----------------------------------------------------------
    def _element(self, element_id: str) -> Locator:
        """The element `element_id` names in the active page's latest accessibility tree.

        Ids are the tree's `[ref=...]` values; Playwright resolves them against the last
        tree taken of the page, which is the latest observation's. An element that has
        since left the page, an id the tree never had, and any id when no tree was taken
        (screenshot-only observations) are all refused here, before anything is done.
        """
        if self.browser.file_chooser is not None:
            raise ActionFailed(DIALOG_OPEN)
        self.address.blur()
        locator = self.browser.page.locator(f"aria-ref={element_id}")
        try:
            found = locator.count()
        except PlaywrightError:  # the id names a frame (document) that is gone
            found = 0
        if found != 1:
            raise ActionFailed(
                f"no element {element_id} in the latest accessibility tree (ids are valid for "
                "the latest observation only, and need the axtree or both observation mode)")
        return locator

    def _do_click_element(self, action: act.ClickElement) -> None:
        self._element(action.element).click(timeout=ELEMENT_TIMEOUT_MS)

    def _do_fill_element(self, action: act.FillElement) -> None:
        self._element(action.element).fill(action.text, timeout=ELEMENT_TIMEOUT_MS)

    def _do_select_option(self, action: act.SelectOption) -> None:
        self._element(action.element).select_option(label=action.option,
                                                    timeout=ELEMENT_TIMEOUT_MS)

    def _do_upload_to_element(self, action: act.UploadToElement) -> None:
        """Click the file input, then answer the dialog it opens, as a person would: the
        upload is recorded like one picked in the drawn dialog."""
        element = self._element(action.element)
        with self.browser.page.expect_file_chooser(timeout=ELEMENT_TIMEOUT_MS):
            element.click(timeout=ELEMENT_TIMEOUT_MS)
        try:
            self.browser.choose_file(action.name)
        except FileNotFoundError:
            self.browser.cancel_file_chooser()  # no dialog is left hanging over the page
            raise

    def _do_done(self, action: act.Done) -> None:
        """Ending the episode is the Env's business; the browser has nothing to do."""
