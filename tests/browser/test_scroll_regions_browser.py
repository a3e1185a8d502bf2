"""Tables that scroll sideways are reachable from the keyboard, and only those
(``static/js/scroll_regions.js``; axe's scrollable-region-focusable rule, WCAG 2.1.1).

A ``.table-wrap`` wider inside than its box takes focus (``tabindex="0"``), is a named
region (its caption) and scrolls with the arrow keys; one that fits is no Tab stop and has
no name. Turning the phone into a laptop (a resize) takes the focus stop away again, and a
wrap added after the page loaded (as htmx adds fragments) is handled like the others. A
template's own ``aria-labelledby`` on the wrap stays its name while the element exists, and
a wrap taken out of the page is no longer observed.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}

# Wraps added to the page after it loaded: one 800 px wide inside (wider than a phone,
# narrower than a laptop), one that fits anywhere, and two as wide naming themselves, one
# by an element of the page, one by an id that names nothing.
ADD_WRAPS = """
() => {
  const main = document.querySelector("main");
  main.insertAdjacentHTML("afterbegin", `
    <div class="table-wrap" id="wide-wrap"><table>
      <caption>Wide table</caption><tbody><tr><td><div id="wide-cell">0</div></td></tr>
      </tbody></table></div>
    <div class="table-wrap" id="narrow-wrap"><table>
      <caption>Narrow table</caption><tbody><tr><td>1</td></tr></tbody></table></div>
    <p id="own-label">Own label</p>
    <div class="table-wrap" id="own-wrap" tabindex="0" role="region"
      aria-labelledby="own-label"><table><caption>Its caption</caption><tbody><tr><td>
      <div class="wide-cell">2</div></td></tr></tbody></table></div>
    <div class="table-wrap" id="lost-wrap" tabindex="0" role="region"
      aria-labelledby="no-such-element"><table><caption>Lost caption</caption><tbody><tr><td>
      <div class="wide-cell">3</div></td></tr></tbody></table></div>`);
  // Through the CSSOM: the site's Content-Security-Policy refuses style attributes.
  document.getElementById("wide-cell").style.width = "800px";
  document.querySelectorAll(".wide-cell").forEach((cell) => { cell.style.width = "800px"; });
}
"""


# Every wrap of the page: whether it overflows, and what the script gave it.
WRAPS = """
() => Array.from(document.querySelectorAll(".table-wrap")).map((wrap) => {
  const by = wrap.getAttribute("aria-labelledby");
  const named = by ? document.getElementById(by) : null;
  return {
    id: wrap.id,
    overflows: wrap.scrollWidth > wrap.clientWidth + 1,
    tabindex: wrap.getAttribute("tabindex"),
    role: wrap.getAttribute("role"),
    name: named ? named.textContent.trim() : wrap.getAttribute("aria-label"),
  };
})
"""


# Before the page's scripts: every target the scroll regions' ResizeObserver lets go of.
SPY_UNOBSERVE = """
window.unobserved = [];
const unobserve = ResizeObserver.prototype.unobserve;
ResizeObserver.prototype.unobserve = function (target) {
  window.unobserved.push(target.id || target.tagName);
  return unobserve.call(this, target);
};
"""


def _wraps(page) -> dict[str, dict]:
    found = page.evaluate(WRAPS)
    for wrap in found:
        # Every wrap of the page, server-rendered ones too: a focus stop exactly when it scrolls.
        if wrap["overflows"]:
            assert (wrap["tabindex"], wrap["role"]) == ("0", "region"), wrap
            assert wrap["name"], wrap
        else:
            assert (wrap["tabindex"], wrap["role"], wrap["name"]) == (None, None, None), wrap
    return {wrap["id"]: wrap for wrap in found if wrap["id"]}


def _tab_to(page, element_id: str, limit: int = 200) -> list[str]:
    """Press Tab until ``element_id`` has focus; every id focused on the way."""
    seen = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate("() => document.activeElement && document.activeElement.id")
        seen.append(focused)
        if focused == element_id:
            return seen
    raise AssertionError(f"#{element_id} never took focus from the keyboard: {seen[:40]}")


def test_a_table_that_scrolls_sideways_is_a_named_tab_stop_and_scrolls_with_the_arrows(
    chromium_browser, live_server, ladder
):
    context = chromium_browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.add_init_script(SPY_UNOBSERVE)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(live_server.url + reverse("pages:league", args=[ladder["league"].slug]))
    page.wait_for_load_state("networkidle")
    _wraps(page)  # the page's own tables, as rendered
    page.evaluate(ADD_WRAPS)
    page.wait_for_function("() => document.getElementById('wide-wrap').hasAttribute('role')")
    wraps = _wraps(page)
    assert wraps["wide-wrap"]["overflows"]
    assert wraps["wide-wrap"]["name"] == "Wide table"
    assert not wraps["narrow-wrap"]["overflows"]
    assert wraps["own-wrap"]["name"] == "Own label"  # the template's own, not the caption
    assert wraps["lost-wrap"]["name"] == "Lost caption"  # its own names nothing

    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    passed = _tab_to(page, "wide-wrap")
    assert "narrow-wrap" not in passed
    assert page.evaluate("() => document.getElementById('wide-wrap').scrollLeft") == 0
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    page.wait_for_function("() => document.getElementById('wide-wrap').scrollLeft > 0")
    # The narrow wrap is skipped: from the wide one, Tab goes on to the page's own controls.
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") != "narrow-wrap"

    # On a laptop the wide table fits: no Tab stop, no region, no name any more.
    page.set_viewport_size(LAPTOP)
    page.wait_for_function("() => !document.getElementById('wide-wrap').hasAttribute('tabindex')")
    wraps = _wraps(page)
    assert not wraps["wide-wrap"]["overflows"]
    # Back on the phone, it is a stop again.
    page.set_viewport_size(PHONE)
    page.wait_for_function("() => document.getElementById('wide-wrap').hasAttribute('tabindex')")
    page.wait_for_function("() => document.getElementById('own-wrap').hasAttribute('tabindex')")
    wraps = _wraps(page)
    assert wraps["own-wrap"]["name"] == "Own label"  # kept through fitting and back

    # A wrap taken out of the page (an htmx swap): neither it nor its table stays observed.
    assert page.evaluate("() => window.unobserved") == []
    page.evaluate("() => document.getElementById('wide-wrap').remove()")
    page.wait_for_function("() => window.unobserved.includes('wide-wrap')")
    assert "TABLE" in page.evaluate("() => window.unobserved")
    assert errors == [], errors
    context.close()
