"""Every control reachable with the Tab key, each with a focus indicator one can see.

On a public page (a player's page: range buttons, folds, tables of links, the level form)
and on the workspace's result-entry page, the test lists the page's tabbable controls (links,
buttons, fields, summaries, scrolling regions given a tabindex; visible, not disabled), then
presses Tab until focus leaves the page's last control, and checks that Tab reached every
one of them, in turn, and that each one's outline or box-shadow while focused differs from
its look without focus. The skip link comes first, shows itself when focused, and takes
focus to the main content.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.browser.conftest import screenshot
from tests.browser.test_fixtures_browser import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Numbers every tabbable control of the page in document order (``data-kb``) and returns how
# many there are. Tab order follows the document here: no control has a positive tabindex.
MARK_TABBABLE = """
() => {
  const selector = "a[href], button, input, select, textarea, summary, [tabindex]";
  let count = 0;
  for (const element of document.querySelectorAll(selector)) {
    if (element.matches(":disabled, [type=hidden], [tabindex='-1']")) continue;
    if (!element.checkVisibility({ visibilityProperty: true })) continue;
    const box = element.getBoundingClientRect();
    // The skip link sits off-screen until focused: it counts, and must be reached.
    if ((box.width === 0 || box.height === 0) && !element.matches(".skip-link")) continue;
    element.dataset.kb = String(count++);
  }
  return count;
}
"""

# The focused element's number and the look of its focus ring.
FOCUSED = """
() => {
  const element = document.activeElement;
  if (!element || !element.dataset || element.dataset.kb === undefined) {
    return { kb: null, tag: element ? element.tagName : null };
  }
  const style = getComputedStyle(element);
  return {
    kb: Number(element.dataset.kb),
    tag: element.tagName,
    ring: [style.outlineStyle, style.outlineWidth, style.outlineColor, style.boxShadow].join(" | "),
  };
}
"""

# The look of each numbered control without focus.
UNFOCUSED = """
() => {
  document.activeElement && document.activeElement.blur();
  const rings = {};
  for (const element of document.querySelectorAll("[data-kb]")) {
    const style = getComputedStyle(element);
    rings[element.dataset.kb] =
      [style.outlineStyle, style.outlineWidth, style.outlineColor, style.boxShadow].join(" | ");
  }
  return rings;
}
"""


# Moves the keyboard's starting point to the top of the document: focus on a throwaway,
# untabbable element before everything else (blur alone leaves the browser's sequential
# focus starting point where focus was, and a page may autofocus its first field).
FROM_THE_TOP = """
() => {
  let start = document.getElementById("kb-start");
  if (!start) {
    start = document.createElement("span");
    start.id = "kb-start";
    start.tabIndex = -1;
    document.body.prepend(start);
  }
  start.focus();
}
"""


def tab_through(page) -> list[str]:
    """Tab from the top of ``page`` through all its controls; the problems found."""
    count = page.evaluate(MARK_TABBABLE)
    assert count > 5, f"only {count} controls on the page"
    problems: list[str] = []
    reached: list[int] = []
    rings: dict[int, str] = {}
    page.evaluate(FROM_THE_TOP)
    for _ in range(count + 5):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if focused["kb"] is None:
            if focused["tag"] in (None, "BODY") and reached and reached[-1] == count - 1:
                break  # past the last control: into the browser's own interface
            problems.append(f"Tab #{len(reached) + 1} focused an unlisted {focused['tag']}")
            continue
        # A date field takes one Tab per part (day, month, year): one control.
        if not reached or reached[-1] != focused["kb"]:
            reached.append(focused["kb"])
        rings[focused["kb"]] = focused["ring"]
    if reached != list(range(count)):
        missing = sorted(set(range(count)) - set(reached))
        problems.append(f"Tab order {reached[:20]}…; never reached: {missing[:20]}")
    plain = page.evaluate(UNFOCUSED)
    for kb, ring in rings.items():
        if ring == plain[str(kb)]:
            html = page.evaluate(
                "(kb) => document.querySelector(`[data-kb='${kb}']`).outerHTML.slice(0, 120)", kb
            )
            problems.append(f"no visible focus change on {html} ({ring})")
    return problems


def check_skip_link(page) -> None:
    page.evaluate(FROM_THE_TOP)
    page.keyboard.press("Tab")
    skip = page.locator(".skip-link")
    assert page.evaluate("() => document.activeElement.className") == "skip-link"
    box = skip.bounding_box()
    assert box is not None
    assert box["x"] >= 0, box
    assert box["y"] >= 0, box
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.id") == "main"


@pytest.mark.parametrize("width", [1280, 390])
def test_a_player_page_is_walked_with_the_keyboard(watched_page, live_server, ladder, width):
    page = watched_page
    page.set_viewport_size({"width": width, "height": 900})
    league, player = ladder["league"], ladder["players"][0]
    page.goto(live_server.url + reverse("pages:player", args=[league.slug, player.slug]))
    page.wait_for_load_state("networkidle")
    check_skip_link(page)
    problems = tab_through(page)
    screenshot(page, f"keyboard-player-{width}")
    assert problems == [], "\n".join(problems)
    assert page.watch.errors == []


@pytest.mark.parametrize("width", [1280, 390])
def test_the_result_entry_page_is_walked_with_the_keyboard(
    watched_page, live_server, league, make_player, organiser, width
):
    page = watched_page
    page.set_viewport_size({"width": width, "height": 900})
    for name in ("Ann Achebe", "Bob Brandt", "Cem Coşkun"):
        make_player(league, name)
    sign_in(page, live_server, organiser)
    page.goto(live_server.url + reverse("workspace:record", args=[league.slug]))
    check_skip_link(page)
    problems = tab_through(page)
    assert problems == [], "\n".join(problems)
    # Sent empty, the form's errors are announced and tied to their fields.
    page.click("form.entry-form button[type='submit']")
    alert = page.locator(".form-errors[role='alert']")
    alert.wait_for()
    invalid = page.locator("[aria-invalid='true']")
    assert invalid.count() >= 2
    for index in range(invalid.count()):
        field = invalid.nth(index)
        described = (field.get_attribute("aria-describedby") or "").split()
        errors = [i for i in described if i.endswith("_error")]
        assert errors, field.evaluate("(e) => e.outerHTML")
        message = page.locator(f"#{errors[0]}")
        assert message.inner_text().strip(), errors[0]
        # The summary links to the field.
        field_id = field.get_attribute("id")
        assert alert.locator(f"a[href='#{field_id}']").count() == 1, field_id
    screenshot(page, f"keyboard-record-errors-{width}")
    # The errors' page is walked from the keyboard too, summary links included.
    problems = tab_through(page)
    assert problems == [], "\n".join(problems)
    assert page.watch.errors == []
