"""Fixtures on the pages: the public upcoming list, a player's fixtures, the iCalendar feeds,
and the organisers' fixture and pairing pages."""

from __future__ import annotations

import datetime as dt
import threading
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse
from django.utils import timezone
from icalendar import Calendar

from engine.outcomes import outcome_probabilities
from league import fixtures as fixture_services
from league import services
from league.models import Event, Fixture
from ratings.models import Standing
from ratings.selectors.common import ReadClock, rd_now
from ratings.selectors.fixtures import draw_parameter
from tests.functional.conftest import rate, record_results

LONDON = ZoneInfo("Europe/London")


def _today():
    return timezone.localdate(timezone=LONDON)


def _at(days, hour=19):
    return dt.datetime.combine(_today() + dt.timedelta(days=days), dt.time(hour), LONDON)


@pytest.fixture
def club(league, make_player):
    """Four players with a few rated results (draws among them) and a configuration."""
    names = ["Ann", "Bob", "Cem", "Dee"]
    p = {name: make_player(league, name) for name in names}
    day = dt.date(2024, 3, 5)
    record_results(
        league,
        [
            (p["Ann"], p["Bob"], "1", day),
            (p["Cem"], p["Dee"], "0.5", day),
            (p["Ann"], p["Cem"], "1", day),
            (p["Bob"], p["Dee"], "0.5", day),
            (p["Ann"], p["Dee"], "1", day),
        ],
    )
    rate(league)
    return p


def test_upcoming_page_lists_fixtures_with_each_sides_chances(client, league, club):
    fixture_services.schedule_fixture(
        league, player_a=club["Ann"], player_b=club["Bob"], scheduled_at=_at(2), venue="Board 1"
    )
    fixture_services.schedule_fixture(
        league, player_a=club["Cem"], player_b=club["Dee"], scheduled_at=_at(0, 0)
    )
    response = client.get(reverse("pages:fixtures", args=[league.slug]))
    assert response.status_code == 200
    body = response.content.decode()
    upcoming = body.split('id="upcoming"')[1]
    assert upcoming.index("Cem") < upcoming.index("Ann")  # scheduled order
    assert "Board 1" in upcoming
    # The chances are the engine's, from the published ratings and the fitted draw model.
    ann = Standing.objects.get(player=club["Ann"])
    bob = Standing.objects.get(player=club["Bob"])
    nu = draw_parameter(league, ann.config)
    assert nu > 0  # the league has draws
    # RDs grown to today's period (the players have been idle since March 2024).
    period = ReadClock.of(ann.config).period
    rd_a, rd_b = (rd_now(s.config, s.rd, s.volatility, s.last_period, period) for s in (ann, bob))
    assert rd_a > ann.rd
    expected = outcome_probabilities(ann.rating, rd_a, bob.rating, rd_b, nu)
    assert f"Ann wins <strong>{round(expected.win * 100)} %" in upcoming
    assert f"Draw <strong>{round(expected.draw * 100)} %" in upcoming
    assert f"Bob wins <strong>{round(expected.loss * 100)} %" in upcoming


def test_a_league_without_draws_predicts_no_draw(client, league, make_player):
    a, b = make_player(league, "Ann"), make_player(league, "Bob")
    record_results(league, [(a, b, "1", dt.date(2024, 3, 5)), (b, a, "0", dt.date(2024, 3, 6))])
    rate(league)
    fixture_services.schedule_fixture(league, player_a=a, player_b=b, scheduled_at=_at(1))
    body = client.get(reverse("pages:fixtures", args=[league.slug])).content.decode()
    assert "Ann wins" in body
    assert "Draw <strong>" not in body


def test_overdue_fixtures_are_listed_apart(client, league, club):
    fixture = fixture_services.schedule_fixture(
        league, player_a=club["Ann"], player_b=club["Dee"], scheduled_at=_at(0, 0)
    )
    # Time passes: the deadline (the scheduled day) is behind us two days later.
    later = timezone.now() + dt.timedelta(days=2)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(timezone, "now", lambda: later)
        body = client.get(reverse("pages:fixtures", args=[league.slug])).content.decode()
    assert 'id="overdue"' in body
    overdue = body.split('id="overdue"')[1]
    assert f'data-fixture="{fixture.pk}"' in overdue
    assert "Not played" in overdue
    assert "No upcoming fixtures." in body


def test_played_and_cancelled_fixtures_leave_the_upcoming_list(client, league, club):
    played = fixture_services.schedule_fixture(
        league, player_a=club["Ann"], player_b=club["Bob"], scheduled_at=_at(0, 0)
    )
    cancelled = fixture_services.schedule_fixture(
        league, player_a=club["Cem"], player_b=club["Dee"], scheduled_at=_at(1)
    )
    kept = fixture_services.schedule_fixture(
        league, player_a=club["Ann"], player_b=club["Cem"], scheduled_at=_at(3)
    )
    services.record_fixture_result(league, played, score_a=1)
    fixture_services.cancel_fixture(league, cancelled, reason="hall closed")
    body = client.get(reverse("pages:fixtures", args=[league.slug])).content.decode()
    assert f'data-fixture="{kept.pk}"' in body
    assert f'data-fixture="{played.pk}"' not in body
    assert f'data-fixture="{cancelled.pk}"' not in body


def test_player_page_shows_their_own_upcoming_fixtures(client, league, club):
    mine = fixture_services.schedule_fixture(
        league, player_a=club["Bob"], player_b=club["Ann"], scheduled_at=_at(1)
    )
    other = fixture_services.schedule_fixture(
        league, player_a=club["Cem"], player_b=club["Dee"], scheduled_at=_at(1)
    )
    url = reverse("pages:player", args=[league.slug, club["Ann"].slug])
    body = client.get(url).content.decode()
    section = body.split('id="player-fixtures"')[1].split("</ul>")[0]
    assert f'data-fixture="{mine.pk}"' in section
    assert f'data-fixture="{other.pk}"' not in section
    assert reverse("pages:player_fixtures_ics", args=[league.slug, club["Ann"].slug]) in body


def _calendar(client, url):
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/calendar")
    return Calendar.from_ical(response.content)


def test_league_calendar_validates_and_carries_every_fixture(client, league, club, organiser):
    upcoming = fixture_services.schedule_fixture(
        league,
        player_a=club["Ann"],
        player_b=club["Bob"],
        scheduled_at=_at(2, 18),
        venue="Hall",
        label="Club night · round 1",
    )
    moved = fixture_services.schedule_fixture(
        league, player_a=club["Cem"], player_b=club["Dee"], scheduled_at=_at(1)
    )
    fixture_services.reschedule_fixture(league, moved, scheduled_at=_at(4, 20), reason="away")
    cancelled = fixture_services.schedule_fixture(
        league, player_a=club["Ann"], player_b=club["Dee"], scheduled_at=_at(3)
    )
    fixture_services.cancel_fixture(league, cancelled)
    played = fixture_services.schedule_fixture(
        league, player_a=club["Bob"], player_b=club["Cem"], scheduled_at=_at(0, 0)
    )
    services.record_fixture_result(league, played, score_a="0.5", points="2–2")

    calendar = _calendar(client, reverse("pages:fixtures_ics", args=[league.slug]))
    assert str(calendar["VERSION"]) == "2.0"
    assert str(calendar["PRODID"]).startswith("-//Honest League")
    events = {str(e["UID"]): e for e in calendar.walk("VEVENT")}
    assert set(events) == {
        f"fixture-{f.pk}@testserver" for f in (upcoming, moved, cancelled, played)
    }
    first = events[f"fixture-{upcoming.pk}@testserver"]
    assert str(first["SUMMARY"]) == "Ann v Bob (Club night · round 1)"
    assert str(first["LOCATION"]) == "Hall"
    assert first.decoded("DTSTART") == _at(2, 18)
    assert str(first["STATUS"]) == "CONFIRMED"
    assert "Predicted: Ann wins" in str(first["DESCRIPTION"])
    assert int(first["SEQUENCE"]) == 0
    shifted = events[f"fixture-{moved.pk}@testserver"]
    assert shifted.decoded("DTSTART") == _at(4, 20)
    assert int(shifted["SEQUENCE"]) == 1
    assert str(events[f"fixture-{cancelled.pk}@testserver"]["STATUS"]) == "CANCELLED"
    result = str(events[f"fixture-{played.pk}@testserver"]["DESCRIPTION"])
    assert "Result: Bob ½–½ Cem (2–2)." in result


def test_player_calendar_carries_only_their_fixtures(client, league, club):
    mine = fixture_services.schedule_fixture(
        league, player_a=club["Ann"], player_b=club["Bob"], scheduled_at=_at(1)
    )
    fixture_services.schedule_fixture(
        league, player_a=club["Cem"], player_b=club["Dee"], scheduled_at=_at(1)
    )
    calendar = _calendar(
        client, reverse("pages:player_fixtures_ics", args=[league.slug, club["Bob"].slug])
    )
    assert [str(e["UID"]) for e in calendar.walk("VEVENT")] == [f"fixture-{mine.pk}@testserver"]
    assert "Bob" in str(calendar["X-WR-CALNAME"])


def test_an_empty_calendar_is_still_valid(client, league):
    calendar = _calendar(client, reverse("pages:fixtures_ics", args=[league.slug]))
    assert calendar.walk("VEVENT") == []
    assert client.get("/no-such-league/fixtures.ics").status_code == 404


# --- organiser pages -----------------------------------------------------------------------


def test_organiser_pages_are_closed_to_others(client, league, other_organiser):
    for name in ("workspace:fixtures", "workspace:pairings"):
        url = reverse(name, args=[league.slug])
        assert client.get(url).status_code == 302
        client.force_login(other_organiser)
        assert client.get(url).status_code == 403
        client.logout()


def test_organiser_schedules_a_fixture_and_enters_its_result_by_score(
    client, league, club, organiser
):
    client.force_login(organiser)
    url = reverse("workspace:fixtures", args=[league.slug])
    when = _at(0, 0).replace(tzinfo=None)
    response = client.post(
        url,
        {
            "player_a": club["Cem"].pk,
            "player_b": club["Ann"].pk,
            "scheduled_at": when.strftime("%Y-%m-%dT%H:%M"),
            "venue": "Table 2",
        },
        follow=True,
    )
    assert "Scheduled Cem v Ann." in response.content.decode()
    fixture = Fixture.objects.get()
    assert fixture.scheduled_at == _at(0, 0)
    assert Event.objects.get(fixture=fixture).recorded_by == organiser
    page = client.get(url).content.decode()
    result_form = page.split('class="inline-form result-form"')[1].split("</form>")[0]
    # One box, the score: no second question for the result.
    assert "<select" not in result_form
    assert result_form.count('name="score"') == 1
    response = client.post(
        reverse("workspace:fixture_result", args=[league.slug, fixture.pk]),
        {"score": "0-1", "idempotency_key": _hidden(result_form, "idempotency_key")},
    )
    match = Event.objects.get(kind=Event.Kind.MATCH_RECORDED, fixture=fixture)
    assert (match.player_a_id, match.player_b_id, str(match.score_a), match.points) == (
        club["Cem"].pk,
        club["Ann"].pk,
        "0.0",
        "0\u20131",
    )
    # The echo of a single result: what was stored, in words, with an Undo.
    assert response.status_code == 302
    assert response["Location"].endswith(f"?recorded={match.seq}#echo")
    echo = client.get(response["Location"]).content.decode().split('id="echo"')[1]
    assert "Cem 0\u20131 Ann: Ann won" in echo
    assert reverse("workspace:undo", args=[league.slug]) in echo
    assert 'name="page" value="fixtures"' in echo
    rate(league)
    assert Standing.objects.get(player=club["Cem"]).games == 3


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"score": "2"}, "score"),
        ({"score": ""}, "score"),
        ({"score": "1-0 6-4 3-6 " + "x" * 200}, "score"),
    ],
)
def test_bad_results_name_the_field_and_record_nothing(
    client, league, club, organiser, data, message
):
    fixture = fixture_services.schedule_fixture(
        league, player_a=club["Ann"], player_b=club["Bob"], scheduled_at=_at(0, 0)
    )
    client.force_login(organiser)
    before = Event.objects.count()
    response = client.post(
        reverse("workspace:fixture_result", args=[league.slug, fixture.pk]), data, follow=True
    )
    assert response.status_code == 200
    assert message in response.content.decode()
    assert Event.objects.count() == before


def test_a_fixture_of_another_league_is_not_found(client, league, other_league, club, organiser):
    olga = services.register_player(other_league, "Olga")
    oleg = services.register_player(other_league, "Oleg")
    theirs = fixture_services.schedule_fixture(
        other_league, player_a=olga, player_b=oleg, scheduled_at=_at(1)
    )
    client.force_login(organiser)
    url = reverse("workspace:fixture_cancel", args=[league.slug, theirs.pk])
    assert client.post(url, {"reason": "mine now"}).status_code == 404
    assert not Fixture.objects.get(pk=theirs.pk).cancelled


def _generator(club, method="swiss", **extra):
    data = {
        "method": method,
        "series": "Club night",
        "start": _at(1).replace(tzinfo=None).strftime("%Y-%m-%dT%H:%M"),
        "days_between": "7",
        "deadline_days": "0",
        "venue": "",
        "use_sides": "on",
        "max_distance": "2",
        "players": [p.pk for p in club.values()],
    }
    data.update(extra)
    return data


def test_a_generated_swiss_round_shows_predictions_and_publishes_as_fixtures(
    client, league, club, organiser
):
    client.force_login(organiser)
    url = reverse("workspace:pairings", args=[league.slug])
    response = client.post(url, {**_generator(club), "action": "generate"})
    body = response.content.decode()
    assert response.status_code == 200
    codes = [chunk.split('"')[0] for chunk in body.split('name="pairing" value="')[1:]]
    assert len(codes) == 2
    assert body.count(" wins <strong>") == 4  # both sides' chances of both pairings
    # All on 0 points: by rating, the top half meets the bottom half (1 v 3, 2 v 4).
    order = [
        str(pid) for pid in Standing.objects.order_by("-rating").values_list("player_id", flat=True)
    ]
    pairs = {frozenset(code.split("|")[1:3]) for code in codes}
    assert pairs == {frozenset((order[0], order[2])), frozenset((order[1], order[3]))}
    response = client.post(url, {**_generator(club), "action": "publish", "pairing": codes})
    assert response.status_code == 302
    made = Fixture.objects.order_by("pk")
    assert [f.label for f in made] == ["Club night · round 1"] * 2
    # The next round reads the first: no repeat, and round 2.
    response = client.post(url, {**_generator(club), "action": "generate"})
    body = response.content.decode()
    codes2 = [chunk.split('"')[0] for chunk in body.split('name="pairing" value="')[1:]]
    assert [code.split("|")[0] for code in codes2] == ["2", "2"]  # two pairings of round 2
    assert not {frozenset(c.split("|")[1:3]) for c in codes2} & pairs


def test_organiser_adjusts_a_draft_before_publishing(client, league, club, organiser):
    client.force_login(organiser)
    url = reverse("workspace:pairings", args=[league.slug])
    body = client.post(url, {**_generator(club), "action": "generate"}).content.decode()
    codes = [chunk.split('"')[0] for chunk in body.split('name="pairing" value="')[1:]]
    first = codes[0].split("|")
    response = client.post(
        url,
        {
            **_generator(club),
            "action": "publish",
            "pairing": codes,
            "swap": ["0"],
            "remove": ["1"],
        },
    )
    assert response.status_code == 302
    (fixture,) = Fixture.objects.all()
    assert (str(fixture.player_a_id), str(fixture.player_b_id)) == (first[2], first[1])


def test_a_damaged_draft_or_bad_adjustment_is_refused_with_a_message(
    client, league, club, organiser
):
    client.force_login(organiser)
    url = reverse("workspace:pairings", args=[league.slug])
    body = client.post(
        url, {**_generator(club), "action": "publish", "pairing": ["1|2|x|y"]}
    ).content.decode()
    assert "pairing: the draft was damaged" in body
    body = client.post(
        url,
        {**_generator(club), "action": "adjust", "pairing": [], "add_a": "1", "add_b": "1"},
    ).content.decode()
    assert "add: choose two different players" in body
    body = client.post(url, {**_generator(club, players=[]), "action": "generate"}).content.decode()
    assert "players:" in body
    assert not Fixture.objects.exists()


def test_a_round_robin_publishes_every_round(client, league, club, organiser):
    client.force_login(organiser)
    url = reverse("workspace:pairings", args=[league.slug])
    body = client.post(
        url, {**_generator(club, method="round_robin"), "action": "generate"}
    ).content.decode()
    codes = [chunk.split('"')[0] for chunk in body.split('name="pairing" value="')[1:]]
    assert len(codes) == 6
    response = client.post(
        url, {**_generator(club, method="round_robin"), "action": "publish", "pairing": codes}
    )
    assert response.status_code == 302
    days = sorted({f.scheduled_at for f in Fixture.objects.all()})
    assert [d - days[0] for d in days] == [dt.timedelta(days=7 * i) for i in range(3)]


def test_a_field_too_large_for_one_request_is_refused_with_a_message(
    client, league, make_player, organiser
):
    field = [make_player(league, f"Player {i:03d}") for i in range(41)]
    client.force_login(organiser)
    url = reverse("workspace:pairings", args=[league.slug])
    page = client.get(url).content.decode()
    assert "checked" not in page.split("<legend>Players</legend>")[1].split("</fieldset>")[0]
    body = client.post(
        url,
        {
            **_generator({p.display_name: p for p in field}, method="round_robin"),
            "action": "generate",
        },
    ).content.decode()
    assert "players: Round robin (Berger tables) pairs at most 40 players at once" in body
    assert "draft-pairing" not in body


def _hidden(body: str, name: str) -> str:
    """The value of the page's one hidden input called ``name``."""
    (chunk,) = [c for c in body.split("<input ")[1:] if f'name="{name}"' in c.split(">")[0]]
    tag = chunk.split(">")[0]
    assert 'type="hidden"' in tag
    return tag.split('value="')[1].split('"')[0]


def _schedule_data(club, key):
    return {
        "player_a": club["Cem"].pk,
        "player_b": club["Ann"].pk,
        "scheduled_at": _at(1).replace(tzinfo=None).strftime("%Y-%m-%dT%H:%M"),
        "venue": "Table 2",
        "idempotency_key": key,
    }


def test_the_schedule_form_posted_five_times_schedules_one_fixture(client, league, club, organiser):
    client.force_login(organiser)
    url = reverse("workspace:fixtures", args=[league.slug])
    key = _hidden(client.get(url).content.decode(), "idempotency_key")
    for _ in range(5):
        response = client.post(url, _schedule_data(club, key))
        assert response.status_code == 302
    assert Fixture.objects.count() == 1
    # A fresh page is a fresh form: the same pairing scheduled again is a second fixture.
    fresh = _hidden(
        client.get(url).content.decode().split('id="schedule-form"')[1], "idempotency_key"
    )
    assert fresh != key
    client.post(url, _schedule_data(club, fresh))
    assert Fixture.objects.count() == 2


def test_a_draft_published_five_times_publishes_its_fixtures_once(client, league, club, organiser):
    client.force_login(organiser)
    url = reverse("workspace:pairings", args=[league.slug])
    body = client.post(url, {**_generator(club), "action": "generate"}).content.decode()
    codes = [chunk.split('"')[0] for chunk in body.split('name="pairing" value="')[1:]]
    assert len(codes) == 2
    key = _hidden(body, "publish_key")
    data = {**_generator(club), "action": "publish", "pairing": codes, "publish_key": key}
    for _ in range(5):
        assert client.post(url, data).status_code == 302
    assert Fixture.objects.count() == 2


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_posts_of_one_schedule_form_or_draft_store_it_once(league, club, organiser):
    from django.db import connection
    from django.test import Client

    signed_in = Client()
    signed_in.force_login(organiser)
    cookies = signed_in.cookies
    fixtures_url = reverse("workspace:fixtures", args=[league.slug])
    pairings_url = reverse("workspace:pairings", args=[league.slug])
    key = _hidden(signed_in.get(fixtures_url).content.decode(), "idempotency_key")
    body = signed_in.post(pairings_url, {**_generator(club), "action": "generate"})
    body = body.content.decode()
    codes = [chunk.split('"')[0] for chunk in body.split('name="pairing" value="')[1:]]
    publish = {
        **_generator(club),
        "action": "publish",
        "pairing": codes,
        "publish_key": _hidden(body, "publish_key"),
    }

    def post_five_at_once(url: str, data: dict) -> list[int]:
        barrier = threading.Barrier(5)
        statuses: list[int] = []
        failures: list[BaseException] = []

        def post() -> None:
            try:
                browser = Client()
                browser.cookies = cookies
                barrier.wait()
                statuses.append(browser.post(url, data).status_code)
            except BaseException as error:  # reported by the main thread
                failures.append(error)
            finally:
                connection.close()

        threads = [threading.Thread(target=post) for _ in range(5)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []
        return statuses

    assert post_five_at_once(fixtures_url, _schedule_data(club, key)) == [302] * 5
    assert Fixture.objects.count() == 1
    assert post_five_at_once(pairings_url, publish) == [302] * 5
    assert Fixture.objects.count() == 1 + len(codes)


def _result_form(client, league, fixture):
    page = client.get(reverse("workspace:fixtures", args=[league.slug])).content.decode()
    item = page.split(f'data-fixture="{fixture.pk}"')[1]
    return item.split('class="inline-form result-form"')[1].split("</form>")[0]


def test_a_results_only_league_takes_a_fixtures_result_alone_and_undo_reopens_it(
    client, league, club, organiser
):
    league.records_points = False
    league.save()
    fixture = fixture_services.schedule_fixture(
        league, player_a=club["Ann"], player_b=club["Bob"], scheduled_at=_at(0, 0)
    )
    client.force_login(organiser)
    form = _result_form(client, league, fixture)
    assert "<select" not in form
    assert "1-0" in form  # the box says what it takes: a result, not points
    response = client.post(
        reverse("workspace:fixture_result", args=[league.slug, fixture.pk]),
        {"score": "½-½", "idempotency_key": _hidden(form, "idempotency_key")},
    )
    match = Event.objects.get(kind=Event.Kind.MATCH_RECORDED, fixture=fixture)
    assert (str(match.score_a), match.points) == ("0.5", "")
    echo = client.get(response["Location"]).content.decode().split('id="echo"')[1]
    assert "Ann ½–½ Bob: a draw" in echo
    # Undo is the single-result page's: a void, back on the fixtures page, which is open again.
    response = client.post(
        reverse("workspace:undo", args=[league.slug]),
        {"recorded": f"{match.seq}-{match.seq}", "page": "fixtures"},
    )
    assert response["Location"].startswith(reverse("workspace:fixtures", args=[league.slug]))
    assert Event.objects.live_matches().filter(fixture=fixture).count() == 0
    assert f'data-fixture="{fixture.pk}"' in client.get(response["Location"]).content.decode()


def test_a_fixture_result_posted_five_times_records_one_match(client, league, club, organiser):
    fixture = fixture_services.schedule_fixture(
        league, player_a=club["Ann"], player_b=club["Bob"], scheduled_at=_at(0, 0)
    )
    client.force_login(organiser)
    key = _hidden(_result_form(client, league, fixture), "idempotency_key")
    url = reverse("workspace:fixture_result", args=[league.slug, fixture.pk])
    for _ in range(5):
        assert client.post(url, {"score": "2-1", "idempotency_key": key}).status_code == 302
    assert Event.objects.filter(kind=Event.Kind.MATCH_RECORDED, fixture=fixture).count() == 1


def test_a_move_or_cancel_posted_five_times_is_stored_once(client, league, club, organiser):
    fixture = fixture_services.schedule_fixture(
        league, player_a=club["Ann"], player_b=club["Bob"], scheduled_at=_at(1)
    )
    client.force_login(organiser)
    page = client.get(reverse("workspace:fixtures", args=[league.slug])).content.decode()
    item = page.split(f'data-fixture="{fixture.pk}"')[1]
    move = item.split("/reschedule/")[1].split("</form>")[0]
    cancel = item.split("/cancel/")[1].split("</form>")[0]
    moved_to = _at(3).replace(tzinfo=None).strftime("%Y-%m-%dT%H:%M")
    for _ in range(5):
        response = client.post(
            reverse("workspace:fixture_reschedule", args=[league.slug, fixture.pk]),
            {"scheduled_at": moved_to, "idempotency_key": _hidden(move, "idempotency_key")},
            follow=True,
        )
        assert "already at that time" not in response.content.decode()
    assert Event.objects.filter(kind=Event.Kind.FIXTURE_RESCHEDULED).count() == 1
    for _ in range(5):
        response = client.post(
            reverse("workspace:fixture_cancel", args=[league.slug, fixture.pk]),
            {"reason": "rain", "idempotency_key": _hidden(cancel, "idempotency_key")},
            follow=True,
        )
        assert "was cancelled" not in response.content.decode()
    assert Event.objects.filter(kind=Event.Kind.FIXTURE_CANCELLED).count() == 1


def test_the_schedule_form_refuses_31_december_9999_with_the_reason(
    client, league, club, organiser
):
    client.force_login(organiser)
    url = reverse("workspace:fixtures", args=[league.slug])
    data = {"player_a": club["Ann"].pk, "player_b": club["Bob"].pk, "idempotency_key": "k"}
    response = client.post(url, {**data, "scheduled_at": "9999-12-31T19:00"}, follow=True)
    assert "years ahead" in response.content.decode()
    assert not Fixture.objects.exists()


def test_calendar_events_last_the_usual_match_length(client, league, club, settings):
    # Without DTEND or DURATION a calendar shows a fixture as a moment of no length.
    fixture_services.schedule_fixture(
        league, player_a=club["Ann"], player_b=club["Bob"], scheduled_at=_at(2, 18)
    )
    url = reverse("pages:fixtures_ics", args=[league.slug])
    (event,) = _calendar(client, url).walk("VEVENT")
    assert event.decoded("DURATION") == dt.timedelta(minutes=settings.FIXTURE_MINUTES)
    assert event.end == _at(2, 18) + dt.timedelta(minutes=settings.FIXTURE_MINUTES)
    settings.FIXTURE_MINUTES = 45
    settings.PAGE_CACHE = False
    (event,) = _calendar(client, url).walk("VEVENT")
    assert event.end - event.start == dt.timedelta(minutes=45)
