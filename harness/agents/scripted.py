"""`ScriptedActor`: drive an `Env` the way a person would, for demos, tests and reference solutions.

Every helper acts only through `env.step` with public actions (click, type, key, scroll).
The page is read (element boxes, text) only to decide where to click and to check the
effect, as a reference solution may do:

    actor = ScriptedActor(env)
    actor.open_app("Payer Portal A", new_tab=True)
    actor.login()
    actor.fill("input[name=member_id]", "ACH6016951")
    actor.select_option("select[name=payer_id]", "Atlas Choice Health")
"""
from __future__ import annotations

from playwright.sync_api import Locator

from admindesk.harness.env.drawing.chrome import CHROME_HEIGHT, Box
from admindesk.harness.env.environment import Env
from admindesk.harness.env.observation import Observation

# The most wheel scrolls spent bringing one element into view: a page taller than this
# many viewports means the selector is wrong, not that more scrolling would help.
MAX_SCROLLS = 8


class ScriptFailed(RuntimeError):
    """A scripted step did not have the effect it should have had."""


class ScriptedActor:
    """Acts on one `Env` episode through public actions; each helper is one human gesture."""

    def __init__(self, env: Env) -> None:
        self.env = env
        self.obs: Observation | None = None

    # ---- acting -------------------------------------------------------------------------
    def do(self, action: dict) -> Observation:
        """One action; raises ScriptFailed when the Env reports it failed."""
        self.obs, *_ = self.env.step(action)
        if self.obs.last_action_error:
            raise ScriptFailed(f"{action}: {self.obs.last_action_error}")
        return self.obs

    def click(self, selector: str) -> Observation:
        """Click the centre of the first element matching `selector`, scrolling to it first."""
        x, y = self.scroll_into_view(selector)
        return self.do({"type": "click", "x": x, "y": y})

    def fill(self, selector: str, text: str) -> None:
        """Click a text field, select what it holds and type `text` over it."""
        self.click(selector)
        self.do({"type": "key", "keys": "Control+A"})
        self.do({"type": "type", "text": text})

    def select_option(self, selector: str, label: str) -> None:
        """Choose the option shown as `label` in a `<select>` with the keyboard.

        A click focuses the select (and opens its list); typing the label jumps to the
        first option starting with it and Enter commits, as on a desktop browser.
        """
        self.click(selector)
        self.do({"type": "type", "text": label})
        self.do({"type": "key", "keys": "Enter"})
        chosen = self.read(selector).evaluate("s => s.options[s.selectedIndex]?.text ?? ''")
        if chosen.strip() != label:
            raise ScriptFailed(f"{selector}: chose {chosen!r}, not {label!r}")

    def click_chrome(self, box: Box) -> Observation:
        """Click the centre of a box of the drawn chrome (tab, bookmark, dialog row)."""
        return self.do({"type": "click", "x": (box[0] + box[2]) // 2, "y": (box[1] + box[3]) // 2})

    def choose_file(self, name: str) -> Observation:
        """Click `name` in the open file dialog (drawn by the harness over the page)."""
        layout = self.env.chrome_layout()
        if layout.dialog_files is None:
            raise ScriptFailed("no file dialog is open")
        rows = dict(zip((file_name for file_name, _size in layout.dialog_files),
                        layout.dialog_row_boxes()))
        if name not in rows:
            raise ScriptFailed(f"{name!r} is not listed in the file dialog")
        return self.click_chrome(rows[name])

    def open_app(self, label: str, *, new_tab: bool = False) -> Observation:
        """Click an app's bookmark (e.g. "Payer Portal A"), in a new tab (the drawn "+") if asked."""
        if new_tab:
            self.click_chrome(self.env.chrome_layout().new_tab_box())
        layout = self.env.chrome_layout()
        boxes = {bookmark_label: box for box, (bookmark_label, _url)
                 in zip(layout.bookmark_boxes(), layout.bookmarks)}
        if label not in boxes:
            raise ScriptFailed(f"no bookmark {label!r}; the bar shows {sorted(boxes)}")
        return self.click_chrome(boxes[label])

    def switch_to_tab(self, index: int) -> Observation:
        """Click the drawn tab at `index` (0 is the leftmost)."""
        return self.click_chrome(self.env.chrome_layout().tab_boxes()[index])

    def login(self, username: str | None = None, password: str | None = None) -> Observation:
        """Sign in through the app's login form (default: the Env's credentials)."""
        default_user, default_password = self.env.credentials
        self.fill("input[name=username]", username or default_user)
        self.fill("input[name=password]", password or default_password)
        return self.do({"type": "key", "keys": "Enter"})

    def scroll_into_view(self, selector: str) -> tuple[int, int]:
        """Wheel-scroll until the element's centre is inside the page viewport; return it."""
        top, bottom = CHROME_HEIGHT, self.env.frame_size[1]
        middle = (top + bottom) // 2
        for _ in range(MAX_SCROLLS):
            x, y = self.env.element_center(selector)
            if top <= y < bottom:
                return x, y
            self.do({"type": "scroll", "x": self.env.frame_size[0] // 2, "y": middle,
                     "dx": 0, "dy": y - middle})
        raise ScriptFailed(f"{selector!r} stayed outside the viewport after {MAX_SCROLLS} scrolls")

    # ---- reading (to decide and to assert, never to act) --------------------------------
    def read(self, selector: str) -> Locator:
        """The first element matching `selector` on the active page, for reading only."""
        return self.env.page_locator(selector).first

    def text(self, selector: str) -> str:
        """The visible text of the first element matching `selector`, stripped."""
        return self.read(selector).inner_text(timeout=5_000).strip()
