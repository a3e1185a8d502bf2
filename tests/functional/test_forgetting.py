"""Forgetting a player: no trace of their name or address anywhere, the history exact.

The forgotten person is "Zelda Quintero", renamed "Zelda Marsh", named in a match note, a
void's reason, a fixture's label and a join request, invited at zelda@example.org. Before
the forgetting every public page, feed, export and API answer is read (so the page cache
holds them); after it, a crawl of every page reachable from the league's pages and the
workspace, every export and feed, the API, every table of the database and the page
cache's stored entries must not hold any of those words, while the standings, the periods
and every match fact are what they were, before and after a full replay.
"""

from __future__ import annotations

import datetime as dt
import pickle
import re
from collections import deque
from decimal import Decimal
from html import unescape
from urllib.parse import urljoin, urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.test import Client
from django.urls import reverse

from league import services
from league.event_store import fact_of
from league.fixtures import FixtureRequest, schedule_fixtures
from league.forgetting import forget_player
from league.invitations import create_player_invitation
from league.models import MATCH_KINDS, Event, Invitation, JoinRequest, Player
from league.player_accounts import claim_player
from league.seasons import create_season
from ratings.models import PlayerPeriod, Standing
from tests.functional.conftest import rate

#: Words of the forgotten person: none may remain anywhere (compared without case).
TRACES = ("zelda", "quintero", "marsh", "zelda@example.org")
DAY = dt.date(2024, 2, 5)


def traces_in(text: str) -> list[str]:
    lowered = unescape(text).lower()
    return [word for word in TRACES if word in lowered]


@pytest.fixture
def person(db):
    return get_user_model().objects.create_user("pat", email="pat@example.org", password="pw-pat-1")


@pytest.fixture
def story(league, organiser, person):
    zelda = services.register_player(league, "Zelda Quintero", recorded_by=organiser)
    bob = services.register_player(league, "Bob Baker", recorded_by=organiser)
    cat = services.register_player(league, "Cat Cooper", recorded_by=organiser)
    create_season(
        league,
        created_by=organiser,
        name="Winter",
        start_date=dt.date(2024, 1, 1),
        end_date=dt.date(2024, 3, 31),
    )
    matches = [
        services.record_match(
            league,
            player_a=zelda,
            player_b=bob,
            score_a=Decimal("1"),
            played_at=DAY,
            note="Zelda Quintero played with a cold",
            recorded_by=organiser,
        ),
        services.record_match(
            league,
            player_a=cat,
            player_b=zelda,
            score_a=Decimal("0.5"),
            played_at=DAY + dt.timedelta(days=7),
            recorded_by=organiser,
        ),
        services.record_match(
            league,
            player_a=bob,
            player_b=cat,
            score_a=Decimal("0"),
            played_at=DAY + dt.timedelta(days=8),
            recorded_by=organiser,
        ),
    ]
    services.void_match(league, matches[2], reason="entered twice by zelda", recorded_by=organiser)
    services.rename_player(
        league, zelda, "Zelda Marsh", reason="married: was Zelda Quintero", recorded_by=organiser
    )
    claim_player(zelda, person, by=organiser)
    schedule_fixtures(
        league,
        [
            FixtureRequest(
                player_a=zelda,
                player_b=cat,
                scheduled_at=dt.datetime(2030, 5, 1, 19, 0, tzinfo=dt.UTC),
                venue="Table 2",
                label="Zelda Marsh's revenge",
            )
        ],
        recorded_by=organiser,
    )
    Invitation.objects.create(
        league=league,
        player=zelda,
        email="zelda@example.org",
        label="for Zelda",
        digest="0" * 64,
        created_by=organiser,
        expires_at=dt.datetime(2030, 1, 1, tzinfo=dt.UTC),
    )
    JoinRequest.objects.create(
        league=league, account=person, name="Zelda Marsh", message="I am Zelda", player=zelda
    )
    rate(league)
    return {"zelda": Player.objects.get(pk=zelda.pk), "bob": bob, "cat": cat}


def numbers() -> tuple[list, list]:
    """The projection's numbers, without row ids and moments."""
    standings = list(
        Standing.objects.order_by("player_id").values_list(
            "player_id", "rating", "rd", "volatility", "last_period", "games", "wins", "draws"
        )
    )
    periods = list(
        PlayerPeriod.objects.order_by("player_id", "period_index").values_list(
            "player_id", "period_index", "rating", "rd", "volatility", "rating_before", "games"
        )
    )
    return standings, periods


def match_facts(league) -> list:
    events = Event.objects.filter(league=league, kind__in=[*MATCH_KINDS, "match_voided"])
    return [(event.seq, fact_of(event)) for event in events.order_by("seq")]


LINK = re.compile(r'(?:href|src)="([^"#]+)"')


def crawl(client: Client, starts: list[str], *, inside: tuple[str, ...], budget: int = 400):
    """Every page reachable from ``starts`` by links under ``inside``: (url, status, text)."""
    seen: set[str] = set()
    queue = deque(starts)
    found = []
    while queue and len(seen) < budget:
        url = queue.popleft()
        if url in seen:
            continue
        seen.add(url)
        response = client.get(url)
        text = (
            b"".join(response.streaming_content).decode("utf-8", "replace")
            if response.streaming
            else response.content.decode("utf-8", "replace")
        )
        found.append((url, response.status_code, text))
        if "html" not in response.get("Content-Type", ""):
            continue
        for href in LINK.findall(text):
            target = unescape(urljoin(url, href))
            parts = urlsplit(target)
            if parts.netloc and parts.netloc != "testserver":
                continue
            path = parts.path + (f"?{parts.query}" if parts.query else "")
            if any(parts.path.startswith(prefix) for prefix in inside) and path not in seen:
                queue.append(path)
    return found


def every_cell() -> list[tuple[str, str]]:
    """(table, cell) for every text cell of every table of the database."""
    cells = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            for row in cursor.fetchall():
                cells.extend((table, str(value)) for value in row if value is not None)
    return cells


def cached_texts() -> list[str]:
    """Every response the page cache stores (the local-memory cache of the suite keeps
    pickled ``(content, content type)`` pairs in ``_cache``), as text."""
    store = caches["pages"]._cache  # type: ignore[attr-defined]
    texts = []
    for raw in list(store.values()):
        content, _content_type = pickle.loads(raw)
        texts.append(content.decode("utf-8", "replace"))
    return texts


def public_urls(league, zelda) -> list[str]:
    slug = league.slug
    return [
        "/",
        f"/{slug}/",
        f"/{slug}/matches/",
        f"/{slug}/events/",
        f"/{slug}/fixtures/",
        f"/{slug}/fixtures.ics",
        f"/{slug}/results.atom",
        f"/{slug}/seasons/",
        f"/{slug}/embed/standings/",
        f"/{slug}/embed/fixtures/",
        f"/{slug}/export/history.csv",
        reverse("pages:player", args=[slug, zelda.slug]),
        f"/api/leagues/{slug}/",
        f"/api/leagues/{slug}/players/",
        f"/api/leagues/{slug}/matches/",
        f"/api/leagues/{slug}/standings/",
        f"/api/leagues/{slug}/fixtures/",
        f"/api/leagues/{slug}/seasons/",
        f"/api/leagues/{slug}/export/results.csv",
    ]


@pytest.mark.django_db(transaction=True)
def test_forgetting_leaves_no_trace_and_the_history_exact(league, organiser, person, story):
    zelda = story["zelda"]
    old_page = reverse("pages:player", args=[league.slug, zelda.slug])
    anonymous = Client()
    before_pages = crawl(anonymous, public_urls(league, zelda), inside=(f"/{league.slug}/",))
    assert any(traces_in(text) for _url, _status, text in before_pages)
    assert any(traces_in(text) for text in cached_texts())
    before_numbers, before_facts = numbers(), match_facts(league)

    event = forget_player(zelda, by=person)

    assert (event.kind, event.player_id) == ("player_forgotten", zelda.pk)
    zelda.refresh_from_db()
    assert zelda.display_name == f"Forgotten player {zelda.pk}"
    assert zelda.account_id is None
    assert numbers() == before_numbers
    after_facts = match_facts(league)
    assert _only_texts_differ(before_facts, after_facts)
    notes = [fact.note for _seq, fact in after_facts if getattr(fact, "note", "")]
    assert notes == [f"Forgotten player {zelda.pk} played with a cold"]

    # Nothing in the page cache, any table, any page, feed, export or API answer.
    assert [text for text in cached_texts() if traces_in(text)] == []
    assert [(table, cell) for table, cell in every_cell() if traces_in(cell)] == []
    assert anonymous.get(old_page).status_code == 404
    after_pages = crawl(
        anonymous,
        [*public_urls(league, zelda), reverse("pages:player", args=[league.slug, zelda.slug])],
        inside=(f"/{league.slug}/",),
    )
    organiser_client = Client()
    organiser_client.force_login(organiser)
    workspace = crawl(
        organiser_client,
        [
            reverse("workspace:hub", args=[league.slug]),
            reverse("workspace:export_download", args=[league.slug, "results"]),
            reverse("workspace:export_download", args=[league.slug, "event-log"]),
        ],
        inside=(f"/{league.slug}/",),
        budget=250,
    )
    pages = after_pages + workspace
    assert len(pages) > 40
    assert [(url, status) for url, status, _text in pages if status >= 500] == []
    assert [(url, traces_in(text)) for url, _status, text in pages if traces_in(text)] == []
    assert any(f"Forgotten player {zelda.pk}" in text for _url, _status, text in after_pages)

    # A full replay of the history gives the same numbers: nothing the ratings read changed.
    rate(league)
    assert numbers() == before_numbers


def _only_texts_differ(before: list, after: list) -> bool:
    """True when the match facts differ at most in their notes and reasons."""
    if [seq for seq, _ in before] != [seq for seq, _ in after]:
        return False
    for (_s, old), (_t, new) in zip(before, after, strict=True):
        if type(old) is not type(new):
            return False
        keep = {
            name: getattr(old, name)
            for name in old.__dataclass_fields__
            if name not in ("note", "reason")
        }
        if keep != {name: getattr(new, name) for name in keep}:
            return False
    return True


def raw_sql(sql: str, params: list, *, erasure_flag: bool = False) -> None:
    """Run ``sql`` in its own transaction (with PostgreSQL's erasure flag on, if asked)."""
    with transaction.atomic(), connection.cursor() as cursor:
        if erasure_flag and connection.vendor == "postgresql":
            cursor.execute("SELECT set_config('league.erasure', 'on', true)")
        cursor.execute(sql, params)


def test_the_database_refuses_any_other_change_of_an_event(league, organiser, story):
    """The erasure path opens only for personal columns right after a forgetting."""
    zelda = story["zelda"]
    match = Event.objects.filter(league=league, kind="match_recorded").first()
    with pytest.raises(IntegrityError, match="append-only"):
        raw_sql("UPDATE league_event SET note = 'x' WHERE id = %s", [match.pk], erasure_flag=True)
    forget_player(zelda, by=organiser)
    for sql in (
        "UPDATE league_event SET score_a = 0 WHERE id = %s",
        "UPDATE league_event SET points = 'x' WHERE id = %s",
        "UPDATE league_event SET display_name = 'Someone' WHERE id = %s",
    ):
        with pytest.raises(IntegrityError, match="append-only"):
            raw_sql(sql, [match.pk], erasure_flag=True)
    with pytest.raises(IntegrityError, match="append-only"):
        raw_sql("DELETE FROM league_event WHERE id = %s", [match.pk], erasure_flag=True)


def test_nobody_else_forgets_a_player_and_twice_is_refused(
    league, organiser, other_organiser, person, story
):
    zelda = story["zelda"]
    stranger = get_user_model().objects.create_user("sam", password="pw-sam-1")
    for by in (stranger, other_organiser):
        with pytest.raises(ValidationError) as caught:
            forget_player(zelda, by=by)
        assert [e.code for e in caught.value.error_dict["player"]] == ["forbidden"]
    assert not Event.objects.filter(kind="player_forgotten").exists()
    forget_player(zelda, by=organiser)
    with pytest.raises(ValidationError) as caught:
        forget_player(Player.objects.get(pk=zelda.pk), by=organiser)
    assert [e.code for e in caught.value.error_dict["player"]] == ["forgotten"]
    assert Event.objects.filter(kind="player_forgotten").count() == 1


def test_a_forgotten_player_cannot_be_claimed_or_invited(league, organiser, person, story):
    zelda = story["zelda"]
    forget_player(zelda, by=organiser)
    zelda.refresh_from_db()
    with pytest.raises(ValidationError) as caught:
        claim_player(zelda, person, by=person)
    assert [e.code for e in caught.value.error_dict["player"]] == ["forgotten"]
    with pytest.raises(ValidationError) as caught:
        create_player_invitation(league, zelda, organiser)
    assert [e.code for e in caught.value.error_dict["player"]] == ["unclaimable"]


def test_a_player_already_called_like_the_forgotten_name_is_named_first(league, organiser, story):
    zelda = story["zelda"]
    services.rename_player(
        league, story["bob"], f"Forgotten player {zelda.pk}", reason="joke", recorded_by=organiser
    )
    before = list(Event.objects.order_by("pk").values())
    with pytest.raises(ValidationError) as caught:
        forget_player(zelda, by=organiser)
    assert [e.code for e in caught.value.error_dict["player"]] == ["name_taken"]
    assert list(Event.objects.order_by("pk").values()) == before
