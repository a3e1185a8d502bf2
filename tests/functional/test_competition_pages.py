"""The public event pages and the organisers' event pages: every flow through the browser's
forms (Django's client), every bad input answered with a message and nothing stored, and who
may do what."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
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


def _round_one(swiss):
    """Round 1 paired and played: board 1 won by White, board 2 won by Black by forfeit, and
    the fifth player's pairing bye (1 point)."""
    published = _pair(swiss)
    services.record_fixture_result(swiss.league, published.fixtures[0], score_a="1")
    competitions.record_forfeit(swiss, published.fixtures[1], winner=published.fixtures[1].player_b)
    return published


def test_the_event_page_shows_the_tie_break_table_rounds_and_a_printable_list(
    client, swiss, roster
):
    published = _round_one(swiss)
    listing = client.get(reverse("pages:competitions", args=[swiss.league.slug]))
    assert listing.status_code == 200
    assert "Autumn Swiss" in listing.content.decode()
    page = client.get(swiss.get_absolute_url())
    html = page.content.decode()
    assert page.status_code == 200
    # One table: the tie-break standings (the event's default Swiss order), not a second one
    # by points alone.
    assert html.count('id="event-standings"') == 1
    assert "Standings after round 1" in html
    codes = [c["code"] for c in page.context["columns"]]
    assert codes == ["BH-C1", "BH", "SB", "DE", "WIN"]
    points = {line["name"]: line["points"] for line in page.context["lines"]}
    winner = published.fixtures[0].player_a.display_name
    loser = published.fixtures[0].player_b.display_name
    forfeit_winner = published.fixtures[1].player_b.display_name
    forfeit_loser = published.fixtures[1].player_a.display_name
    bye_taker = published.byes[0].player.display_name
    assert points == {
        winner: "1", forfeit_winner: "1", bye_taker: "1", loser: "0", forfeit_loser: "0"
    }  # fmt: skip
    # The round-by-round table: a bye by its points, a forfeit by + and -.
    cells = {row["name"]: row["cells"] for row in page.context["swiss"]}
    assert cells[bye_taker] == ["bye 1"]
    assert cells[forfeit_winner][0].endswith("+")
    assert cells[forfeit_loser][0].endswith("-")
    assert cells[winner][0].endswith("w1")
    assert 'id="round-table"' in html
    # The printable table is linked from the event page, and links back to it.
    table_url = reverse("pages:competition_table", args=[swiss.league.slug, swiss.slug])
    assert f'href="{table_url}"' in html
    alone = client.get(table_url)
    assert alone.status_code == 200
    assert f'href="{swiss.get_absolute_url()}"' in alone.content.decode()
    assert alone.context["lines"] == page.context["lines"]

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


def _headers_and_results(html: str) -> tuple[list[str], list[str]]:
    table = html[html.index('id="round-1"') :]
    table = table[: table.index("</table>")]
    headers = re.findall(r'<th scope="col"[^>]*>([^<]*)</th>', table)
    results = [r.strip() for r in re.findall(r'<td class="result">(.*?)</td>', table, re.S)]
    return headers, results


def test_a_chess_event_says_white_and_black_and_writes_chess_results(client, swiss, roster):
    _round_one(swiss)
    event_page = client.get(swiss.get_absolute_url()).content.decode()
    printed = client.get(
        reverse("pages:competition_round", args=[swiss.league.slug, swiss.slug, 1])
    ).content.decode()
    for html in (event_page, printed):
        headers, results = _headers_and_results(html)
        assert headers == ["Board", "White", "Pts", "Result", "Black", "Pts"]
        # Board 1 White won; board 2 Black won by forfeit: chess writes it 0-1F (en dash).
        assert results == ["1–0", "0–1F"]


def test_other_sports_keep_first_and_second(client, league, swiss, roster):
    league.sport = "Tennis"
    league.save(update_fields=["sport"])
    _round_one(swiss)
    for url in (
        swiss.get_absolute_url(),
        reverse("pages:competition_round", args=[league.slug, swiss.slug, 1]),
    ):
        headers, results = _headers_and_results(client.get(url).content.decode())
        assert headers == ["Board", "First", "Pts", "Result", "Second", "Pts"]
        assert results == ["1–0", "0–1 forfeit"]


def test_an_event_with_no_entrants_says_so(client, league, organiser):
    event = competitions.create_competition(
        league, name="Empty Cup", planned_rounds=3, recorded_by=organiser
    )
    page = client.get(event.get_absolute_url())
    assert page.status_code == 200
    assert "No entrants yet." in page.content.decode()
    assert 'id="event-standings"' not in page.content.decode()


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


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("BH-C1 XYZ", "tiebreaks: 'XYZ' is not a tie-break this site computes; choose from DE,"),
        ("SB Buchholz", "tiebreaks: 'Buchholz' is not a tie-break this site computes"),
        ("BH-1 BH-C1", "tiebreaks: BH-C1 is listed twice."),
        ("bh/c1 BH1", "tiebreaks: BH1 is listed twice."),
    ],
)
def test_tie_breaks_the_site_does_not_compute_are_refused(
    client, league, organiser, typed, message
):
    client.force_login(organiser)
    url = reverse("workspace:competitions", args=[league.slug])
    before = Event.objects.count()
    response = client.post(
        url, {"name": "Club Rapid", "format": "swiss", "planned_rounds": "4", "tiebreaks": typed},
        follow=True,
    )  # fmt: skip
    lines = _messages(response)
    assert any(line.startswith(message) for line in lines), lines
    assert not Competition.objects.exists()
    assert Event.objects.count() == before


def test_tie_breaks_are_kept_as_spelled_and_read_by_the_table(client, league, organiser):
    client.force_login(organiser)
    url = reverse("workspace:competitions", args=[league.slug])
    client.post(
        url, {"name": "Club Rapid", "format": "swiss", "planned_rounds": "4",
              "tiebreaks": "bh/c1, SB, wins"},
    )  # fmt: skip
    created = Competition.objects.get()
    assert created.tiebreaks == ["bh/c1", "SB", "wins"]
    page = client.get(created.get_absolute_url())
    assert [c["code"] for c in page.context["columns"]] == ["BH-C1", "SB", "WIN"]


def test_the_service_refuses_an_unknown_tie_break_by_field(league, organiser):
    with pytest.raises(ValidationError) as caught:
        competitions.create_competition(
            league, name="Club Rapid", planned_rounds=4, tiebreaks=["SB", "KOYA"],
            recorded_by=organiser,
        )  # fmt: skip
    assert list(caught.value.message_dict) == ["tiebreaks"]
    assert "'KOYA' is not a tie-break" in caught.value.message_dict["tiebreaks"][0]
    assert not Competition.objects.exists()
