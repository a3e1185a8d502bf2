"""The demo league's home, leaderboard, matches, fixtures, seasons and player page and the
sign-in page in German,
French and Spanish, at 1280 and 390 px: chosen with the header's language picker (a form, no
JavaScript needed), with no English left in their text (names of teams, leagues and seasons
aside) and nothing scrolling sideways on a phone, German's long words included."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from tests.browser.conftest import screenshot
from tests.browser.demo_pages import BUSIEST_SLUG, SLUG, build_demo_league
from tests.browser.english_left import NOT_PROSE, PAGE_TEXT, english_words

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}


def new_page(chromium_browser, viewport):
    phone = viewport["width"] < 500
    context = chromium_browser.new_context(
        viewport=viewport, device_scale_factor=2 if phone else 1, is_mobile=phone,
        has_touch=phone, locale="en-GB",
    )  # fmt: skip
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    return page


def test_public_pages_in_three_languages(chromium_browser, live_server):
    build_demo_league(dt.date(2022, 1, 1), sweep=False)
    pages = {
        "sign-in": reverse("accounts:sign_in"),
        "home": reverse("pages:home"),
        "leaderboard": reverse("pages:league", args=[SLUG]),
        "matches": reverse("pages:matches", args=[SLUG]),
        "fixtures": reverse("pages:fixtures", args=[SLUG]),
        "seasons": reverse("pages:seasons", args=[SLUG]),
        # Last: the decimal comma is read on its card below.
        "player": reverse("pages:player", args=[SLUG, BUSIEST_SLUG]),
    }
    problems: list[str] = []
    for viewport in (LAPTOP, PHONE):
        page = new_page(chromium_browser, viewport)
        # The browser asks for British English: English is what a visitor sees first.
        page.goto(live_server.url + pages["leaderboard"])
        assert page.evaluate("document.documentElement.lang") == "en-gb"
        for language in ("de", "fr", "es"):
            # The picker, used from the keyboard: focus the list, choose, press the button.
            page.focus("#language-select")
            page.select_option("#language-select", language)
            page.keyboard.press("Tab")
            with page.expect_navigation():
                page.keyboard.press("Enter")
            for name, url in pages.items():
                page.goto(live_server.url + url)
                page.wait_for_load_state("networkidle")
                where = f"{name}, {language}, {viewport['width']} px"
                screenshot(page, f"language-{language}-{viewport['width']}-{name}")
                page.evaluate(
                    "() => document.querySelectorAll('details').forEach(d => d.open = true)"
                )
                seen = page.evaluate(PAGE_TEXT)
                if seen["lang"] != language:
                    problems.append(f"{where}: <html lang={seen['lang']!r}>")
                left = english_words(seen["text"])
                if left:
                    problems.append(f"{where}: English left: {left}")
                if seen["innerWidth"] != viewport["width"]:
                    problems.append(f"{where}: laid out {seen['innerWidth']} px wide")
                if seen["scrollWidth"] > viewport["width"]:
                    problems.append(f"{where}: scrolls sideways to {seen['scrollWidth']} px")
            # A decimal comma in every one of the three (the player card's RD, the last page).
            assert "," in page.text_content("#card-rd"), (language, page.text_content("#card-rd"))
        assert page.errors == [], page.errors
        page.context.close()
    assert problems == [], "\n".join(problems)


def test_workspace_recording_pages_in_german_on_a_phone(
    chromium_browser, live_server, ladder, organiser
):
    """The organiser's hub, entry pages, imports and export in German at 390 px: no English
    left in their text and nothing scrolling sideways. Cut out before reading: what is not
    the site's prose (commands and file names in <code>, the CSV file's column names in its
    help, the standings files' names) and the replay banner (``pages/_progress.html``, not
    converted yet)."""
    league = ladder["league"]
    slug = league.slug
    page = new_page(chromium_browser, PHONE)
    page.goto(live_server.url + reverse("pages:league", args=[slug]))
    page.click("#sign-in-link")
    page.fill("#id_username", organiser.username)
    page.fill("#id_password", "pw-organiser-1")  # tests/conftest.py's organiser
    page.click("#sign-in-password")
    page.wait_for_load_state("networkidle")
    page.select_option("#language-select", "de")
    with page.expect_navigation():
        page.click(".language-picker button")
    pages = {
        name: reverse(f"workspace:{name}", args=[slug])
        for name in ("hub", "record", "round", "import", "import_trf", "export")
    }
    problems: list[str] = []
    for name, url in pages.items():
        page.goto(live_server.url + url)
        page.wait_for_load_state("networkidle")
        screenshot(page, f"language-de-390-workspace-{name}")
        page.evaluate(NOT_PROSE)
        seen = page.evaluate(PAGE_TEXT)
        if seen["lang"] != "de":
            problems.append(f"{name}: <html lang={seen['lang']!r}>")
        left = english_words(seen["text"])
        if left:
            problems.append(f"{name}: English left: {left}")
        if seen["scrollWidth"] > PHONE["width"]:
            problems.append(f"{name}: scrolls sideways to {seen['scrollWidth']} px")
    assert page.errors == [], page.errors
    page.context.close()
    assert problems == [], "\n".join(problems)
