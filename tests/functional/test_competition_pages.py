"""The public event pages and the organisers' event pages: every flow through the browser's
forms (Django's client), every bad input answered with a message and nothing stored, and who
may do what."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from league import competitions, services
from league.competition_pairing import propose_round
from league.models import Competition, Entrant, Event, Fixture, RoundBye

pytestmark = pytest.mark.django_db

NAMES = ("Ann", "Bob", "Cem", "Dee", "Eve")


@pytest.fixture
def roster(league, make_player):
    return {name: make_player(league, name) for name in NAMES}


@pytest.fixture
def swiss(league, organiser, roster):
    event = competitions.create_competition(
        league, name="Autumn Swiss", planned_rounds=3, recorded_by=organiser
    )
    for name in NAMES:
        competitions.enter_player(event, roster[name])
    return event


def _url(name, event, *args):
    return reverse(f"workspace:{name}", args=[event.league.slug, event.slug, *args])


def _messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def _pair(event):
    proposal = propose_round(event)
    return competitions.publish_round(
        event, proposal.round_number, list(proposal.pairings), [proposal.bye]
    )


def test_public_pages_show_standings_rounds_and_a_printable_list(client, swiss, roster):
    published = _pair(swiss)
    services.record_fixture_result(swiss.league, published.fixtures[0], score_a="1")
    competitions.record_forfeit(swiss, published.fixtures[1], winner=published.fixtures[1].player_b)
    listing = client.get(reverse("pages:competitions", args=[swiss.league.slug]))
    assert listing.status_code == 200
    assert "Autumn Swiss" in listing.content.decode()
    page = client.get(swiss.get_absolute_url())
    html = page.content.decode()
    assert page.status_code == 200
    table = html[html.index('id="event-standings"') :]
    winner = published.fixtures[0].player_a.display_name
    bye_taker = published.byes[0].player.display_name
    assert 'title="won by forfeit (not rated)">+<' in table
    assert 'title="bye allocated by the pairing">bye 1<' in table
    # Three players on one point: the game's winner, the forfeit's winner, the bye.
    assert table.count('<td class="num">1</td>') >= 3
    assert winner in table
    assert bye_taker in table
    printed = client.get(
        reverse("pages:competition_round", args=[swiss.league.slug, swiss.slug, 1])
    )
    assert printed.status_code == 200
    assert "1–0" in printed.content.decode()
    assert "js/print.js" in printed.content.decode()
    missing = client.get(
        reverse("pages:competition_round", args=[swiss.league.slug, swiss.slug, 2])
    )
    assert missing.status_code == 404
    assert (
        client.get(reverse("pages:competition", args=[swiss.league.slug, "nope"])).status_code
        == 404
    )


def test_anonymous_and_other_organisers_change_nothing(client, swiss, roster, other_organiser):
    before = Event.objects.count()
    response = client.post(_url("competition_enter", swiss), {"player": roster["Ann"].pk})
    assert response.status_code == 302
    assert "/login/" in response["Location"] or "sign" in response["Location"]
    client.force_login(other_organiser)
    assert client.get(_url("competition", swiss)).status_code == 403
    assert (
        client.post(_url("competition_withdraw", swiss), {"player": roster["Ann"].pk}).status_code
        == 403
    )
    assert Event.objects.count() == before


def test_an_organiser_creates_an_event_and_a_bad_one_is_refused(client, league, organiser):
    client.force_login(organiser)
    url = reverse("workspace:competitions", args=[league.slug])
    bad = client.post(url, {"name": "", "format": "swiss", "planned_rounds": "0"}, follow=True)
    lines = _messages(bad)
    assert any(line.startswith("name:") for line in lines)
    assert any(line.startswith("planned_rounds:") for line in lines)
    assert not Competition.objects.exists()
    good = client.post(
        url,
        {"name": "Club Rapid", "format": "round_robin", "planned_rounds": "4",
         "bye_points": "0.5", "tiebreaks": "SB DE", "idempotency_key": "k1"},
    )  # fmt: skip
    created = Competition.objects.get()
    assert good["Location"] == _url("competition", created)
    assert (created.format, created.rated, created.bye_points, created.tiebreaks) == (
        "round_robin",
        False,  # the box was not ticked
        Decimal("0.5"),
        ["SB", "DE"],
    )
    again = client.post(
        url, {"name": "Club Rapid", "format": "swiss", "planned_rounds": "4"}, follow=True
    )
    assert any("already has an event" in line for line in _messages(again))
    assert Competition.objects.count() == 1


def test_an_organiser_runs_a_round_from_the_pages(client, league, organiser, swiss, roster):
    client.force_login(organiser)
    competitions.withdraw_player(swiss, roster["Eve"], from_round=2)
    bye = client.post(
        _url("competition_bye", swiss),
        {"player": roster["Dee"].pk, "round_number": "1", "kind": "requested_half"},
    )
    assert bye.status_code == 302
    assert RoundBye.objects.get().player == roster["Dee"]
    preview = client.get(_url("competition", swiss) + "?preview=1")
    html = preview.content.decode()
    assert 'id="publish-form"' in html
    proposal = propose_round(swiss)
    data = {
        "round_number": "1",
        "first": [a for a, _b in proposal.pairings],
        "second": [b for _a, b in proposal.pairings],
        "bye": [proposal.bye] if proposal.bye else [],
        "idempotency_key": "publish-1",
    }
    published = client.post(_url("competition_publish", swiss), data)
    assert published.status_code == 302
    assert Fixture.objects.filter(competition=swiss, round_number=1).count() == 2
    # A resent form (same key) stores nothing more.
    before = Event.objects.count()
    client.post(_url("competition_publish", swiss), data)
    assert Event.objects.count() == before

    first, second = Fixture.objects.filter(competition=swiss).order_by("board")
    client.post(_url("competition_result", swiss, first.pk), {"score": "1-0"})
    assert Event.objects.live_matches().get(fixture=first).score_a == Decimal("1")
    client.post(_url("competition_forfeit", swiss, second.pk), {"winner": "second"})
    forfeit = Event.objects.get(kind=Event.Kind.FORFEIT_RECORDED)
    assert forfeit.player_id == second.player_b_id

    # Bad inputs: a bye after the pairing, a result for a decided game, a withdrawn player
    # paired by a forged form, a forfeit without a winner: each says why, nothing changes.
    before = Event.objects.count()
    late_bye = client.post(
        _url("competition_bye", swiss),
        {"player": roster["Ann"].pk, "round_number": "1", "kind": "requested_half"},
        follow=True,
    )
    assert any("before its round is paired" in line for line in _messages(late_bye))
    again = client.post(_url("competition_result", swiss, second.pk), {"score": "1-0"}, follow=True)
    assert any("decided by forfeit" in line for line in _messages(again))
    forged = client.post(
        _url("competition_publish", swiss),
        {"round_number": "2", "first": [roster["Eve"].pk], "second": [roster["Ann"].pk]},
        follow=True,
    )
    assert any("Eve withdrew from round 2" in line for line in _messages(forged))
    nobody = client.post(_url("competition_forfeit", swiss, first.pk), {"winner": "x"}, follow=True)
    assert any(line.startswith("Ann v") or "winner" in line for line in _messages(nobody))
    bad_score = client.post(
        _url("competition_result", swiss, first.pk), {"score": "banana"}, follow=True
    )
    assert any("score" in line for line in _messages(bad_score))
    assert Event.objects.count() == before
    assert Entrant.objects.get(player=roster["Eve"]).withdrawn_from_round == 2

    page = client.get(_url("competition", swiss)).content.decode()
    assert "withdrawn" in page
    public = client.get(swiss.get_absolute_url()).content.decode()
    assert "bye ½" in public
