"""Tables on a phone (390 px) and on a laptop (1280 px), with the demo's longest names.

Every table marks the columns that carry its meaning with ``data-key`` on their headers (a
table that marks none must show every column it displays). Walking every public and
organiser page of the demo league on a phone, each key cell's content must lie wholly
inside the viewport and inside every scrolling box around it (a cell scrolled out of its
table's wrapper counts as cut off), and the page must not scroll sideways. On a laptop the
"Listed separately" table gives "Why not ranked" a column's room; the leaderboard's first
screen shows a dozen rows; a long head-to-head table shows the opponents played most often,
and all of them through a link that works without JavaScript.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client
from django.urls import reverse

from tests.browser.conftest import screenshot
from tests.browser.demo_pages import (
    BUSIEST_SLUG,
    LONGEST,
    build_demo_league,
    build_doubles_league,
    doubles_pages,
    organiser_pages,
    public_pages,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}

# What each table's key cells must show; checked in the page, after opening every fold.
KEY_CELLS = r"""
() => {
  const problems = [], tables = [], texts = [];
  for (const table of document.querySelectorAll("table")) {
    if (!table.checkVisibility()) continue;
    const name = "#" + (table.id || table.className || "table");
    const head = table.tHead ? table.tHead.rows[table.tHead.rows.length - 1] : null;
    const labels = {}, keys = new Set();
    let column = 0;
    for (const th of head ? head.cells : []) {
      labels[column] = th.textContent.trim().replace(/\s+/g, " ");
      if (th.hasAttribute("data-key")) keys.add(column);
      column += th.colSpan;
    }
    // The box the table can be seen in: the viewport, narrowed by every scrolling ancestor.
    let left = 0, right = window.innerWidth;
    for (let box = table.parentElement; box && box !== document.body; box = box.parentElement) {
      if (getComputedStyle(box).overflowX === "visible") continue;
      const rect = box.getBoundingClientRect();
      left = Math.max(left, rect.left + box.clientLeft);
      right = Math.min(right, rect.left + box.clientLeft + box.clientWidth);
    }
    let checked = 0;
    for (const body of table.tBodies) for (const row of body.rows) {
      let start = 0;
      for (const cell of row.cells) {
        const column = start;
        start += cell.colSpan;
        const key = keys.has(column);
        if (keys.size && !key) continue;
        const what = `${name} row ${row.rowIndex} "${labels[column] ?? column}"`;
        const shown = cell.checkVisibility() && cell.getBoundingClientRect().width > 0;
        if (!shown) {
          // A key cell may step aside only when it has nothing to show.
          if (key && cell.textContent.trim()) problems.push(`${what}: hidden`);
          continue;
        }
        const range = document.createRange();
        range.selectNodeContents(cell);
        const content = range.getBoundingClientRect();
        if (content.width === 0) continue;  // an empty cell
        checked += 1;
        texts.push(cell.innerText.trim());
        if (content.left < left - 0.5 || content.right > right + 0.5) {
          problems.push(
            `${what} "${cell.innerText.trim().slice(0, 40)}" spans ` +
            `${Math.round(content.left)}–${Math.round(content.right)} px, ` +
            `visible ${Math.round(left)}–${Math.round(right)} px`
          );
        }
      }
    }
    tables.push({ name, keys: keys.size ? [...keys].map((k) => labels[k]) : "all", checked });
  }
  return {
    problems, tables, texts,
    innerWidth: window.innerWidth,
    scrollWidth: document.scrollingElement.scrollWidth,
  };
}
"""

# Pages where one of the two longest names must be in a key cell, and the tables each page
# must have: the walk cannot pass by finding nothing to check.
LONG_NAMES_ON = (
    "standings, searched", "player", "player, in a season", "matches",
    "season", "organise: players", "organise: matches, as organiser",
    "organise: player, as organiser", "doubles: standings", "doubles: matches",
    "doubles: player",
)  # fmt: skip
TABLES_ON = {
    "home": {"#board"},
    "standings": {"#leaderboard"},
    "standings, listed separately": {"#leaderboard"},
    "player": {"#history-table", "#results", "#head-to-head"},
    "why the rating moved": {"#explanation"},
    "head to head": {"#calibration", "#shared-matches"},
    "matches": {"#matches"},
    "seasons": {"#seasons"},
    "season": {"#season-table"},
    "compare versions": {"#params"},
    "embedded standings": {"#embed-standings"},
    "embedded season": {"#season-table"},
    "organise: tokens": {"#tokens"},
    "organise: players": {"#players-table"},
    "organise: seasons": {"#organiser-seasons"},
    "organise: config": {"#replays"},
    "organise: backtest": {"#sweeps"},
    "organise: backtest sweep": {"#runs", "#calibration-table"},
    "organise: matches, as organiser": {"#matches"},
    "organise: player, as organiser": {"#results", "#head-to-head"},
    "doubles: standings": {"#leaderboard"},
    "doubles: matches": {"#matches"},
    "doubles: player": {"#team-results", "#partners", "#team-opponents"},
}
# Columns that must be among a table's key columns (checked whole above): the ones issue 28
# found cut off on a phone. A header's text is matched by its start.
REQUIRED_KEYS = {
    "standings": {"#leaderboard": ("Player", "Rating", "95 % interval")},
    "player": {"#results": ("Opponent", "Result", "Score")},
    "why the rating moved": {"#explanation": ("Opponent", "Result", "Effect")},
    "matches": {"#matches": ("Player A", "Result", "Player B", "Score")},
    "season": {"#season-table": ("Player", "Points")},
}
EXPECTED_PAGES = [
    "home", "standings", "standings, searched", "standings, listed separately", "player",
    "player, busiest", "player, in a season", "why the rating moved", "rank history",
    "head to head", "matches", "fixtures", "event log", "seasons", "season",
    "compare versions", "embedded standings", "embedded season", "embedded fixtures",
    "organise: hub", "organise: ranking", "organise: record", "organise: round",
    "organise: log", "organise: import", "organise: export", "organise: tokens",
    "organise: players", "organise: seasons", "organise: website", "organise: fixtures",
    "organise: pairings", "organise: config", "organise: backtest", "organise: player",
    "organise: season", "organise: log, searched", "organise: backtest sweep",
    "organise: matches, as organiser", "organise: player, as organiser",
    "doubles: standings", "doubles: matches", "doubles: player",
    "organise: doubles: team match", "organise: doubles: team round",
    "doubles: fixtures", "organise: doubles: fixtures", "organise: doubles: fixtures with sides",
    "organise: doubles: fixture result",
]  # fmt: skip


@pytest.fixture(autouse=True)
def _var_dir(settings, tmp_path):
    """The demo organiser's password file goes to a scratch folder, not the checkout's var/."""
    settings.VAR_DIR = tmp_path


def new_page(chromium_browser, live_server, viewport, *, user=None, javascript=True):
    """A page in a fresh context: a phone (mobile, 2x) or a laptop, signed in as ``user``."""
    phone = viewport["width"] < 500
    context = chromium_browser.new_context(
        viewport=viewport,
        device_scale_factor=2 if phone else 1,
        is_mobile=phone,
        has_touch=phone,
        java_script_enabled=javascript,
    )
    if user is not None:
        client = Client()
        client.force_login(user)
        context.add_cookies(
            [
                {
                    "name": "sessionid",
                    "value": client.cookies["sessionid"].value,
                    "url": live_server.url,
                }
            ]
        )
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    return page


def open_folds(page) -> None:
    page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")


def test_every_page_keeps_its_key_columns_whole_on_a_phone(chromium_browser, live_server, tmp_path):
    demo = build_demo_league(dt.date(2016, 1, 1))
    doubles = build_doubles_league(demo.organiser, tmp_path)
    walk = {**public_pages(demo), **organiser_pages(demo), **doubles_pages(doubles)}
    assert list(walk) == EXPECTED_PAGES
    visitor = new_page(chromium_browser, live_server, PHONE)
    organiser = new_page(chromium_browser, live_server, PHONE, user=demo.organiser)
    problems: list[str] = []
    for name, url in walk.items():
        page = organiser if name.startswith("organise: ") else visitor
        response = page.goto(live_server.url + url)
        assert response.status == 200, f"{name}: {url} answered {response.status}"
        page.wait_for_load_state("networkidle")
        screenshot(page, "phone-" + name.replace(": ", "-").replace(", ", "-").replace(" ", "-"))
        open_folds(page)
        seen = page.evaluate(KEY_CELLS)
        # A mobile browser widens its layout to fit a page that overflows: the width must
        # still be the phone's, or "nothing scrolls sideways" would hold vacuously.
        if seen["innerWidth"] != PHONE["width"]:
            problems.append(f"{name}: the page is laid out {seen['innerWidth']} px wide")
        if seen["scrollWidth"] > PHONE["width"]:
            problems.append(f"{name}: the page scrolls sideways to {seen['scrollWidth']} px")
        problems.extend(f"{name}: {problem}" for problem in seen["problems"])
        tables = {table["name"] for table in seen["tables"]}
        missing = TABLES_ON.get(name, set()) - tables
        if missing:
            problems.append(f"{name}: no {sorted(missing)} on the page (found {sorted(tables)})")
        assert all(table["checked"] > 0 for table in seen["tables"]), (name, seen["tables"])
        keys_of = {table["name"]: table["keys"] for table in seen["tables"]}
        for table, required in REQUIRED_KEYS.get(name, {}).items():
            keys = keys_of.get(table, [])
            for label in required:
                if keys != "all" and not any(key.startswith(label) for key in keys):
                    problems.append(f"{name}: {table} does not keep {label!r} whole ({keys})")
        if name in LONG_NAMES_ON:
            assert any(long in text for text in seen["texts"] for long in LONGEST[:2]), (
                f"{name}: neither of the longest names is in a key cell"
            )
    assert visitor.errors == [], visitor.errors
    assert organiser.errors == [], organiser.errors
    assert problems == [], "\n".join(problems)


def test_listed_separately_gives_why_not_ranked_room_on_a_laptop(chromium_browser, live_server):
    demo = build_demo_league(dt.date(2018, 1, 1), sweep=False)
    page = new_page(chromium_browser, live_server, LAPTOP)
    board = reverse("pages:league", args=[demo.league.slug])
    page.goto(f"{live_server.url}{board}?listed=separate")
    rows = page.evaluate(
        """() => [...document.querySelectorAll('#leaderboard tbody tr')].map((row) => ({
          height: row.getBoundingClientRect().height,
          reasons: row.querySelector('.col-reasons').getBoundingClientRect().width,
        }))"""
    )
    screenshot(page, "laptop-listed-separately")
    assert len(rows) >= 10
    tallest = max(row["height"] for row in rows)
    narrowest = min(row["reasons"] for row in rows)
    # Two lines of reasons at most (each line about 22 px, with the cell's padding).
    assert tallest <= 64, f"the tallest row is {tallest:.0f} px"
    assert narrowest >= 240, f"'Why not ranked' is {narrowest:.0f} px wide"
    seen = page.evaluate(KEY_CELLS)
    assert seen["problems"] == []
    assert seen["scrollWidth"] <= LAPTOP["width"]


@pytest.mark.parametrize(("viewport", "least"), [(LAPTOP, 12), (PHONE, 7)])
def test_the_leaderboards_first_screen_shows_its_first_rows(
    chromium_browser, live_server, viewport, least
):
    demo = build_demo_league(dt.date(2018, 1, 1), sweep=False)
    page = new_page(chromium_browser, live_server, viewport)
    page.goto(live_server.url + reverse("pages:league", args=[demo.league.slug]))
    bottoms = page.evaluate(
        "() => [...document.querySelectorAll('#leaderboard tbody tr')]"
        ".map((row) => row.getBoundingClientRect().bottom)"
    )
    screenshot(page, f"first-screen-{viewport['width']}")
    assert len(bottoms) >= least
    whole = sum(bottom <= viewport["height"] for bottom in bottoms)
    assert whole >= least, f"{whole} rows on the first screen at {viewport['width']} px"


def test_a_long_head_to_head_shows_the_most_played_and_all_on_request(
    chromium_browser, live_server
):
    from ratings.selectors.players import head_to_head
    from ratings.services import latest_config

    demo = build_demo_league(dt.date(2018, 1, 1), sweep=False)
    league = demo.league
    busiest = league.players.get(slug=BUSIEST_SLUG)
    records = head_to_head(league, latest_config(league), busiest)
    assert len(records) > 30
    # Without JavaScript: the link is a plain address.
    page = new_page(chromium_browser, live_server, LAPTOP, javascript=False)
    page.goto(live_server.url + reverse("pages:player", args=[league.slug, BUSIEST_SLUG]))
    shown = page.locator("#head-to-head tbody tr a").all_inner_texts()
    most_played = sorted(records, key=lambda row: (-row.games, row.opponent))
    assert shown == [row.opponent for row in most_played[:15]]
    table_height = "() => document.querySelector('#head-to-head').getBoundingClientRect().height"
    short = page.evaluate(table_height)
    assert short < 1000, f"the head-to-head table is {short:.0f} px tall"
    page.click(f"#head-to-head-all:has-text('Show all {len(records)} opponents')")
    page.wait_for_url("**opponents=all**")
    every = page.locator("#head-to-head tbody tr a").all_inner_texts()
    assert sorted(every) == sorted(row.opponent for row in records)
    assert page.evaluate(table_height) > 2 * short
    page.click("#head-to-head-fewer")
    page.wait_for_url(lambda url: "opponents" not in url)
    assert page.locator("#head-to-head tbody tr").count() == 15
