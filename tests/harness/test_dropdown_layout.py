"""The drawn drop-down list, downloads bubble and their hit-testing, without a browser; and what
the agents' action documentation says about them."""
from __future__ import annotations

from admindesk.harness.agents.openai_compatible import system_prompt
from admindesk.harness.env.drawing.chrome import CHROME_HEIGHT, ChromeState
from admindesk.harness.env.drawing.dropdown import MAX_VISIBLE_ROWS, ROW_HEIGHT, DropDownList, ListRow

FRAME = (1280, 800)
PAGE_AREA = (0, CHROME_HEIGHT, *FRAME)


def listing(anchor=(100, 200, 220, 222), count: int = 5, **kwargs) -> DropDownList:
    rows = [ListRow(f"Option {i}", i, disabled=False) for i in range(count)]
    return DropDownList(anchor, rows, PAGE_AREA, highlight=0, **kwargs)


def centre(box) -> tuple[int, int]:
    return (box[0] + box[2]) // 2, (box[1] + box[3]) // 2


def test_the_list_opens_below_the_select_or_above_when_there_is_more_room():
    below = listing()
    assert below.box()[1] == 222 and below.box()[0] == 100
    near_bottom = listing(anchor=(100, 760, 220, 782), count=10)
    box = near_bottom.box()
    assert box[3] == 760 and box[3] - box[1] == 10 * ROW_HEIGHT + 2
    at_right_edge = listing(anchor=(1250, 200, 1279, 222))
    assert at_right_edge.box()[2] <= FRAME[0]


def test_a_long_list_shows_at_most_twenty_rows_and_scrolls():
    long = listing(count=60)
    assert len(long.row_boxes()) == MAX_VISIBLE_ROWS
    long.scroll(10 * ROW_HEIGHT)
    assert long.row_boxes()[0][1].label == "Option 10"
    long.scroll(1000 * ROW_HEIGHT)
    assert long.row_boxes()[-1][1].label == "Option 59"
    long.move("Home")
    assert long.highlight == 0 and long.row_boxes()[0][1].label == "Option 0"
    long.move("PageDown")
    assert long.highlight == MAX_VISIBLE_ROWS - 1


def test_keys_skip_disabled_options_and_group_labels():
    rows = [ListRow("Alpha", 0, False), ListRow("Bravo", 1, True), ListRow("Group", None, True),
            ListRow("Charlie", 2, False, grouped=True), ListRow("Cobalt", 3, False, grouped=True)]
    drawn = DropDownList((10, 200, 90, 220), rows, PAGE_AREA, highlight=0)
    drawn.move("ArrowDown")
    assert drawn.highlight == 2
    drawn.move("End")
    drawn.move("ArrowDown")
    assert drawn.highlight == 3
    drawn.type_ahead("b")  # Bravo is disabled: nothing else starts with b
    assert drawn.highlight == 3
    drawn.type_ahead("c")  # one letter again: the next option starting with it, wrapping
    assert drawn.highlight == 2
    drawn.type_ahead("co")
    assert drawn.highlight == 3
    assert drawn.hit(*centre(drawn.row_boxes()[1][0])) == ("list",)  # disabled Bravo
    assert drawn.hit(*centre(drawn.row_boxes()[3][0])) == ("option", 2)
    assert drawn.hit(500, 500) == ("off",)


def test_an_open_list_takes_every_click_before_the_chrome_and_page():
    drawn = listing()
    chrome = ChromeState(*FRAME, tabs=[("One", "http://a/")], dropdown=drawn)
    assert chrome.hit(*centre(drawn.row_boxes()[2][0])) == ("dropdown_option", 2)
    assert chrome.hit(600, 600) == ("dropdown_off",)
    assert chrome.hit(20, 10) == ("dropdown_off",)  # the tab strip: the click only closes the list


def test_the_download_button_and_bubble_are_hit_where_drawn():
    plain = ChromeState(*FRAME, tabs=[("One", "http://a/")])
    chrome = ChromeState(*FRAME, tabs=[("One", "http://a/")], download_button=True,
                         downloads_bubble=(("report.pdf", 2048),))
    assert chrome.address_box()[2] < plain.address_box()[2]  # the button takes the bar's end
    assert chrome.hit(*centre(chrome.download_button_box())) == ("downloads_button",)
    row = chrome.bubble().row_boxes()[0]
    assert chrome.hit(*centre(row)) == ("downloads_bubble",)
    assert plain.hit(*centre(row))[0] == "page"


def test_the_action_documentation_covers_sideways_scrolling_and_drop_downs():
    prompt = system_prompt("coordinate", FRAME)
    assert "dx pixels right" in prompt and "wider than the screen" in prompt
    assert "drop-down" in prompt and "download button" in prompt
    assert "dx pixels right" in system_prompt("element", FRAME)


def test_typing_a_whole_label_finds_it_past_an_option_it_begins():
    """As Chromium: "No" typed over "Not answered" moves on to "No" (the first letter
    searches from the next option)."""
    rows = [ListRow("Not answered", 0, False), ListRow("No", 1, False), ListRow("Yes", 2, False)]
    drawn = DropDownList((10, 200, 90, 220), rows, PAGE_AREA, highlight=0)
    drawn.type_ahead("No")
    assert drawn.highlight == 1
    drawn.type_ahead("Not")
    assert drawn.highlight == 0
    drawn.type_ahead("yes")
    assert drawn.highlight == 2
