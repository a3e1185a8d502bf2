"""Playwright (sync API) driving Debian's Chromium against pytest-django's live server.

``playwright install`` cannot download here, so the system Chromium is used. A missing
browser makes these tests FAIL with the command that installs it: a skipped browser test
would look like a pass.
"""

from __future__ import annotations

import datetime as dt
import os
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.functional.conftest import everyone_ranked, rate, record_results  # noqa: F401

# Playwright's sync API runs an event loop in this thread; Django's ORM calls from the
# test body are still synchronous and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = Path(os.environ.get("LEAGUE_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
LOCAL_HOSTS = {"localhost", "127.0.0.1", "[::1]", "::1"}


@pytest.fixture(scope="session")
def chromium_browser() -> Iterator:
    if not CHROMIUM.exists():
        pytest.fail(
            f"Chromium not found at {CHROMIUM}: install it with "
            "`apt-get update && apt-get install -y chromium` (or set LEAGUE_CHROMIUM). "
            "Browser tests fail rather than skip so that CI cannot pass without them.",
            pytrace=False,
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class PageWatch:
    """What a page did: console errors, uncaught exceptions and every host it contacted."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.hosts: set[str] = set()


@pytest.fixture
def watched_page(chromium_browser, live_server) -> Iterator:
    """A fresh page whose console errors and network hosts are recorded (and checked)."""
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    watch = PageWatch()
    page.on(
        "console",
        lambda message: message.type == "error" and watch.errors.append(message.text),
    )
    page.on("pageerror", lambda error: watch.errors.append(str(error)))

    def record_host(route, request) -> None:
        host = urlsplit(request.url).hostname or request.url
        watch.hosts.add(host)
        if host in LOCAL_HOSTS:
            route.continue_()
        else:
            route.abort()

    page.route("**/*", record_host)
    page.watch = watch
    yield page
    context.close()


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


@pytest.fixture
def ladder(league, make_player):
    """Twelve players of graded strength over ten weekly periods.

    The first six play two games every week except the one where the rotation pairs them
    with themself (nine periods each); the other six play every third week.
    """
    names = [
        "Alice Moreau", "Bruno Silva", "Chen Wei", "Dara Okafor", "Elif Kaya", "Farah Haddad",
        "Goran Petrov", "Hana Sato", "Ivo Novak", "Jonas Berg", "Kira Ivanova", "Luca Rossi",
    ]  # fmt: skip
    players = [make_player(league, name) for name in names]
    strength = {player.pk: (7 * index) % 12 for index, player in enumerate(players)}
    chance = random.Random(1872)

    def score(a, b) -> str:
        edge = (strength[a.pk] - strength[b.pk]) / 12
        draw = chance.random()
        if abs(edge) < 0.2 and draw < 0.25:
            return "0.5"
        return "1" if chance.random() < 0.5 + edge / 1.5 else "0"

    first = dt.date(2024, 1, 2)
    results = []
    for week in range(10):
        day = first + dt.timedelta(days=7 * week)
        for i in range(6):
            a, b = players[i], players[(i + week + 1) % 6]
            if a != b:
                results.append((a, b, score(a, b), day))
        if week % 3 == 0:
            for i in range(6, 12, 2):
                a, b = players[i], players[i + 1]
                results.append((a, b, score(a, b), day))
    record_results(league, results)
    config = rate(league, period_anchor=dt.date(2024, 1, 1), period_length=7)
    return {"league": league, "config": config, "players": players}


def wait_for_message(page, text: str, timeout_ms: int = 60_000) -> None:
    """Wait for the page's message ``text`` (a minute: under a loaded CI, two passes side by
    side, a round trip has taken over 30 s). When it never comes, fail with what the page
    shows instead and a screenshot, so that a flake says why."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    try:
        page.wait_for_selector(f".messages >> text={text}", timeout=timeout_ms)
    except PlaywrightTimeoutError:
        path = screenshot(page, "message-never-came")
        shown = page.locator("body").inner_text()[:1500]
        raise AssertionError(
            f"No message {text!r} within {timeout_ms / 1000:.0f} s at {page.url}; "
            f"screenshot {path}; the page shows:\n{shown}"
        ) from None


def send_and_wait(page, send: Callable[[], None], text: str) -> None:
    """Submit a form with ``send`` (a click), wait for the page it leads to, then for the
    message ``text`` on it. Waiting for the message alone can read it on the page before,
    when the same message ("Recorded") ended the last submission: the next box is then
    typed into a page about to go away."""
    with page.expect_navigation(timeout=60_000):
        send()
    wait_for_message(page, text)


def enter_and_wait(page, box, text: str) -> None:
    """Send ``box``'s form with Enter (the keyboard's way), then as ``send_and_wait``.

    Under a loaded CI an Enter was once lost: the page stayed as it was, the box filled,
    for a minute. When no page has come after 30 s and the box still holds what was typed
    (the same page), Enter is pressed once more; the forms carry an idempotency key, so a
    second sending of one that did go through records nothing twice."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    typed = box.input_value()
    try:
        with page.expect_navigation(timeout=30_000):
            box.press("Enter")
    except PlaywrightTimeoutError:
        if typed and box.count() and box.input_value(timeout=5_000) == typed:
            with page.expect_navigation(timeout=60_000):
                box.press("Enter")
    wait_for_message(page, text)
