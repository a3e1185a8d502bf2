"""axe-core on every public, account and organiser page of a league with data, in English,
German, French and Spanish at 1280 and 390 px: no page may have a serious or critical
violation of the WCAG 2.0, 2.1 or 2.2 A and AA rules (in the other languages the walk also
finds no English left and no page wider than the screen).

The league is the demo (international football since 2024) with everything its pages can
show: a season, a fixture, an API token, a backtest sweep (``demo_pages.build_demo_league``),
a Swiss event with a published round, a knockout cup with its first round, a player who
plays in it with their own account and a request to join, the season in two divisions, two
teams with a club match recorded and another to play, and a double-elimination cup with its
first round paired; a doubles league of the same organiser adds the pages of sides. It is
built for each walk (about 15 s) and walked in one browser context (anonymous first, then
signed in as the organiser); every violation of every page is reported at the end, each
with its rule, impact, elements and help URL. A walk in another language sets the language
picker's cookie in its browser context, and every page's ``<html lang>`` must be that
language (a walk that silently stayed English would check nothing new).

Pages with errors are checked too: the workspace's record form sent empty and a club match's
result form sent without results, whose errors must be announced and tied to their fields.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from tests.browser.accessibility import Violation, blocking_violations, install_axe
from tests.browser.conftest import screenshot
from tests.browser.demo_pages import (
    LONG_SLUG,
    build_demo_league,
    build_doubles_league,
    doubles_pages,
    organiser_pages,
    public_pages,
)
from tests.browser.english_left import data_names, language_problems

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: Each walk: its width and language, every language at both widths. The pages' words and
#: layout do not depend on the database, so CI's two passes share the other languages'
#: walks: the phone's on the embedded default, the laptop's on PostgreSQL (each pass then
#: walks five times, as many as when only the phone was walked in other languages).
WALKS = (
    pytest.param(1280, "en-gb", id="1280-en-gb"),
    pytest.param(390, "en-gb", id="390-en-gb"),
    *(
        pytest.param(390, code, id=f"390-{code}", marks=pytest.mark.sqlite)
        for code in ("de", "fr", "es")
    ),
    *(
        pytest.param(1280, code, id=f"1280-{code}", marks=pytest.mark.postgres)
        for code in ("de", "fr", "es")
    ),
)
# Who sees each page: nobody signed in, or the league's organiser.
ANONYMOUS, ORGANISER = "anonymous", "organiser"


@dataclass(frozen=True)
class Walk:
    """The pages to check, by name (each an address and who opens it), and the league's."""

    pages: dict[str, tuple[str, str]]
    organiser: Any
    slug: str


@pytest.fixture(autouse=True)
def _var_dir(settings, tmp_path):
    """The demo organiser's password file goes to a scratch folder, not the checkout's var/."""
    settings.VAR_DIR = tmp_path


def _events(demo) -> dict[str, str]:
    """A Swiss event with round 1 published and a four-player cup with its first round."""
    from league import competitions, cups
    from league.competition_pairing import propose_round

    league, organiser = demo.league, demo.organiser
    players = list(league.players.filter(active=True).order_by("display_name")[:8])
    swiss = competitions.create_competition(
        league, name="Caribbean Swiss", planned_rounds=3, recorded_by=organiser
    )
    for player in players[:4]:
        competitions.enter_player(swiss, player, recorded_by=organiser)
    proposal = propose_round(swiss)
    competitions.publish_round(
        swiss, proposal.round_number, list(proposal.pairings), recorded_by=organiser
    )
    cup = competitions.create_competition(
        league, name="Island Cup", format="knockout", planned_rounds=2, recorded_by=organiser
    )
    for player in players[4:8]:
        competitions.enter_player(cup, player, recorded_by=organiser)
    cups.publish_cup_round(cup, recorded_by=organiser)
    slug = league.slug
    return {
        "events": reverse("pages:competitions", args=[slug]),
        "event": reverse("pages:competition", args=[slug, swiss.slug]),
        "event round": reverse("pages:competition_round", args=[slug, swiss.slug, 1]),
        "event table": reverse("pages:competition_table", args=[slug, swiss.slug]),
        "cup": reverse("pages:competition", args=[slug, cup.slug]),
        "cup bracket": reverse("pages:competition_bracket", args=[slug, cup.slug]),
        "organise: events": reverse("workspace:competitions", args=[slug]),
        "organise: event": reverse("workspace:competition", args=[slug, swiss.slug]),
        "organise: cup": reverse("workspace:competition", args=[slug, cup.slug]),
    }


def _people(demo) -> dict[str, str]:
    """A player with an account (their games page) and a stranger asking to join."""
    from league import join_requests, player_accounts
    from league.models import Event

    users = get_user_model().objects
    league, organiser = demo.league, demo.organiser
    player = league.players.get(slug=LONG_SLUG)
    user = users.create_user("kingstown", password="pw-kingstown-1", email="k@example.org")
    player_accounts.claim_player(player, user, by=organiser)
    stranger = users.create_user("stranger", password="pw-stranger-1")
    # The league setting an operator turns on in the admin: its join page takes requests.
    type(league).objects.filter(pk=league.pk).update(players_may_join=True)
    league.refresh_from_db()
    join_requests.ask_to_join(league, stranger, "Montserrat")
    newest = league.events.filter(kind=Event.Kind.MATCH_RECORDED).latest("seq").seq
    slug = league.slug
    return {
        "organise: void a match": reverse("workspace:void", args=[slug, newest]),
        "organise: correct a match": reverse("workspace:correct", args=[slug, newest]),
        "organise: reports": reverse("workspace:reports", args=[slug]),
        "organise: organisers": reverse("workspace:organisers", args=[slug]),
        "organise: join requests": reverse("workspace:join_requests", args=[slug]),
        "organise: player account": reverse("workspace:player_account", args=[slug, LONG_SLUG]),
        "organise: webhook": reverse("workspace:webhook", args=[slug]),
        "organise: import TRF": reverse("workspace:import_trf", args=[slug]),
        "organise: new league": reverse("workspace:new_league"),
        "account": reverse("accounts:home"),
        "account: privacy": reverse("accounts:privacy"),
        "account: e-mail": reverse("mail:preferences"),
    }


def _divisions(demo) -> dict[str, str]:
    """The demo season in two divisions of three, set but not yet fixed (so its workspace page
    shows every form: move a player, fix, set again)."""
    from league.divisions import DivisionInput, set_divisions

    league = demo.league
    players = list(league.players.filter(active=True).order_by("-display_name")[:6])
    set_divisions(
        demo.season,
        [
            DivisionInput("Premier Division", tuple(p.pk for p in players[:3])),
            DivisionInput("Championship", tuple(p.pk for p in players[3:])),
        ],
        promotion=1,
        by=demo.organiser,
    )
    args = [league.slug, demo.season.slug]
    return {
        "season divisions": reverse("pages:season_divisions", args=args),
        "organise: season divisions": reverse("workspace:season_divisions", args=args),
    }


def _club_matches(demo) -> dict[str, str]:
    """Two teams of four, a club match recorded over four boards and a second one scheduled
    (its workspace page holds the board orders and the result entry); the organiser holds a
    home player who captains the team (their "My team" page), and the round-robin
    generator's page."""
    from league import player_accounts
    from ratings import club_matches as clubs

    league, organiser = demo.league, demo.organiser
    players = list(league.players.filter(active=True).order_by("-display_name")[6:14])
    home = clubs.create_team(league, name="Kingstown Chess Club", recorded_by=organiser)
    away = clubs.create_team(league, name="Saint Vincent Knights", recorded_by=organiser)
    for team, members in ((home, players[:4]), (away, players[4:])):
        for player in members:
            clubs.add_to_roster(league, team, player, recorded_by=organiser)
    played, waiting = (
        clubs.schedule_club_match(
            league, home=one, away=two, boards=4, scheduled_at=day, recorded_by=organiser
        )
        for one, two, day in ((home, away, "2024-03-05"), (away, home, "2024-04-02"))
    )
    clubs.record_club_match(
        league, played, results=["1-0", "½-½", "0-1", "1-0"], played_at="2024-03-05",
        recorded_by=organiser,
    )  # fmt: skip
    player_accounts.claim_player(players[0], organiser, by=organiser)
    clubs.set_captain(league, home, players[0], recorded_by=organiser)
    slug = league.slug
    return {
        "organise: my team, as its captain": reverse("workspace:my_team", args=[slug]),
        "organise: generate club matches": reverse("workspace:club_fixtures", args=[slug]),
        "teams": reverse("pages:teams", args=[slug]),
        "club match": reverse("pages:club_match", args=[slug, played.pk]),
        "organise: club matches": reverse("workspace:clubs", args=[slug]),
        "organise: club match, recorded": reverse("workspace:club_match", args=[slug, played.pk]),
        "organise: club match, to play": reverse("workspace:club_match", args=[slug, waiting.pk]),
    }


def _double_elimination(demo) -> dict[str, str]:
    """A four-player double-elimination cup with its first round paired: the bracket shows the
    winners' and losers' brackets and the grand final, ties still to be played."""
    from league import competitions, cups

    league, organiser = demo.league, demo.organiser
    players = list(league.players.filter(active=True).order_by("-display_name")[14:18])
    cup = competitions.create_competition(
        league, name="Windward Double Cup", format="knockout", planned_rounds=2,
        double_elimination=True, bracket_reset=True, recorded_by=organiser,
    )  # fmt: skip
    for player in players:
        competitions.enter_player(cup, player, recorded_by=organiser)
    cups.publish_cup_round(cup, recorded_by=organiser)
    args = [league.slug, cup.slug]
    return {
        "double-elimination cup": reverse("pages:competition", args=args),
        "double-elimination bracket": reverse("pages:competition_bracket", args=args),
        "organise: double-elimination cup": reverse("workspace:competition", args=args),
    }


def _anonymous_extras(demo) -> dict[str, str]:
    slug = demo.league.slug
    return {
        "sign in": reverse("accounts:sign_in"),
        "sign-in link sent": reverse("accounts:link_sent"),
        "password reset": reverse("accounts:password_reset"),
        "sign up": reverse("workspace:sign_up"),
        "join": reverse("accounts:join", args=[slug]),
    }


@pytest.fixture
def walk(tmp_path) -> Walk:
    demo = build_demo_league(dt.date(2024, 1, 1))
    doubles = build_doubles_league(demo.organiser, tmp_path)
    pages: dict[str, tuple[str, str]] = {}
    pages.update({name: (url, ANONYMOUS) for name, url in public_pages(demo).items()})
    pages.update({name: (url, ANONYMOUS) for name, url in _anonymous_extras(demo).items()})
    events = _events(demo)
    people = _people(demo)
    every = {
        **organiser_pages(demo),
        **doubles_pages(doubles),
        **events,
        **people,
        **_divisions(demo),
        **_club_matches(demo),
        **_double_elimination(demo),
    }
    for name, url in every.items():
        who = ORGANISER if name.startswith(("organise: ", "account")) else ANONYMOUS
        pages[name] = (url, who)
    return Walk(pages, demo.organiser, demo.league.slug)


def _session_cookie(user, url: str) -> dict:
    client = Client()
    client.force_login(user)
    return {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": url}


def _check(page, name: str, problems: list[str]) -> None:
    found: list[Violation] = blocking_violations(page)
    problems.extend(violation.describe(name) for violation in found)


# About 80 pages, each loaded, settled and checked by axe: some 2 minutes a walk on a quiet
# machine, up to twice that with CI's two passes side by side (the default limit is 5 minutes).
@pytest.mark.timeout(600)
@pytest.mark.parametrize(("width", "language"), WALKS)
def test_no_page_has_a_serious_or_critical_violation(
    chromium_browser, live_server, walk, width, language
):
    ordered = sorted(walk.pages.items(), key=lambda item: item[1][1] == ORGANISER)
    assert len(ordered) >= 75, len(ordered)
    problems: list[str] = []
    phone = width < 500
    context = chromium_browser.new_context(
        viewport={"width": width, "height": 844 if phone else 900},
        device_scale_factor=2 if phone else 1,
        is_mobile=phone,
        has_touch=phone,
    )
    install_axe(context)
    # The language picker's cookie, as choosing in the header's picker leaves it.
    context.add_cookies(
        [
            {
                "name": django_settings.LANGUAGE_COOKIE_NAME,
                "value": language,
                "url": live_server.url,
            }
        ]
    )
    page = context.new_page()
    where = f"{width} px, {language}"
    names = data_names()
    signed_in = False
    for name, (url, who) in ordered:
        if who == ORGANISER and not signed_in:
            context.add_cookies([_session_cookie(walk.organiser, live_server.url)])
            signed_in = True
        response = page.goto(live_server.url + url)
        assert response.status == 200, f"{name}: {url} answered {response.status}"
        # What htmx loads after the page (a player's rank history) is checked with it.
        page.wait_for_load_state("networkidle")
        shown_in = page.get_attribute("html", "lang")
        assert shown_in == language, f"{name}: {url} is in {shown_in!r}, not {language!r}"
        _check(page, f"{where}, {name}", problems)
        if not language.startswith("en"):
            # The same page, read once axe is done: no English left, nothing wider than it.
            problems.extend(language_problems(page, f"{where}, {name}", width, names))
    # A form sent with errors: the record form, empty.
    page.goto(live_server.url + reverse("workspace:record", args=[walk.slug]))
    page.click("form.entry-form button[type='submit']")
    page.wait_for_selector(".field--error")
    screenshot(page, f"a11y-record-errors-{width}-{language}")
    _check(page, f"{where}, record with errors", problems)
    # The club match's result form sent without any board's result: a summary linking to each.
    page.goto(live_server.url + walk.pages["organise: club match, to play"][0])
    page.click("#results-form button[type='submit']")
    page.wait_for_selector("#results-form .form-errors")
    _check(page, f"{where}, club match results with errors", problems)
    context.close()
    assert problems == [], "\n".join(problems)


# A page with faults axe must find: an image without a text alternative, grey on grey text,
# a field without a label. Were the engine not running (or its rules not selected), the walk
# above would pass on finding nothing.
FAULTY_PAGE = """<!doctype html><html lang="en"><head><title>Faults</title></head><body>
<main><h1>Faults</h1>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<p style="color:#bbb;background:#ccc">Grey on grey</p>
<input type="text" name="unlabelled">
</main></body></html>"""


def test_the_helper_finds_known_violations(chromium_browser):
    context = chromium_browser.new_context()
    install_axe(context)
    page = context.new_page()
    page.goto("about:blank")
    page.set_content(FAULTY_PAGE)
    found = {violation.rule: violation for violation in blocking_violations(page)}
    context.close()
    assert {"image-alt", "color-contrast", "label"} <= set(found), sorted(found)
    assert found["image-alt"].impact == "critical"
    assert found["color-contrast"].targets == ("p",)
    report = found["label"].describe("faulty page")
    assert report.startswith("faulty page: label (critical): ")
    assert "https://dequeuniversity.com/rules/axe/4.14/label" in report
