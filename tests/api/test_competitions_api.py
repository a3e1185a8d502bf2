"""The events API over real HTTP: everyone reads events, entrants, rounds and standings;
organisers create events, enter and withdraw players, record byes, publish rounds (given or
paired by the league's engine), results through the fixture endpoint, forfeits. Every bad
body is a 400 naming the field, and nothing is stored."""

from __future__ import annotations

import pytest
import requests
from rest_framework.authtoken.models import Token

from league import services as league_services
from league.models import Competition, Event

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 10


@pytest.fixture
def api(live_server, league):
    def make(path: str = "") -> str:
        return f"{live_server.url}/api/leagues/{league.slug}/{path}"

    return make


@pytest.fixture
def five(league, players):
    return [*players, league_services.register_player(league, "Eve")]


def headers(user, key: str | None = None) -> dict[str, str]:
    token, _ = Token.objects.get_or_create(user=user)
    found = {"Authorization": f"Token {token.key}"}
    if key:
        found["Idempotency-Key"] = key
    return found


def test_an_organiser_runs_a_swiss_event_over_http(api, league, five, organiser):
    ann, bob, cat, dan, eve = five
    auth = headers(organiser)
    created = requests.post(
        api("competitions/"),
        json={"name": "Spring Swiss", "format": "swiss", "planned_rounds": 3, "rated": False},
        headers=headers(organiser, "create-1"),
        timeout=TIMEOUT,
    )
    assert created.status_code == 201, created.text
    assert created.json()["slug"] == "spring-swiss"
    assert created.json()["rated"] is False
    event = "competitions/spring-swiss/"
    assert created.headers["Location"].endswith(f"/api/leagues/{league.slug}/{event}")
    for player in five:
        entered = requests.post(
            api(f"{event}entrants/"), json={"player": player.pk}, headers=auth, timeout=TIMEOUT
        )
        assert entered.status_code == 201, entered.text
    bye = requests.post(
        api(f"{event}byes/"),
        json={"player": eve.pk, "round": 1, "kind": "requested_half"},
        headers=auth,
        timeout=TIMEOUT,
    )
    assert bye.status_code == 201
    assert bye.json() == {"player": eve.pk, "kind": "requested_half", "points": 0.5}

    published = requests.post(
        api(f"{event}rounds/"),
        json={"round": 1, "pairings": [[ann.pk, bob.pk], [cat.pk, dan.pk]]},
        headers=headers(organiser, "round-1"),
        timeout=TIMEOUT,
    )
    assert published.status_code == 201, published.text
    body = published.json()
    assert [(g["first"], g["second"], g["board"]) for g in body["games"]] == [
        (ann.pk, bob.pk, 1),
        (cat.pk, dan.pk, 2),
    ]
    assert body["byes"] == [{"player": eve.pk, "kind": "requested_half", "points": 0.5}]
    before = Event.objects.count()
    again = requests.post(
        api(f"{event}rounds/"),
        json={"round": 1, "pairings": [[ann.pk, bob.pk], [cat.pk, dan.pk]]},
        headers=headers(organiser, "round-1"),
        timeout=TIMEOUT,
    )
    assert again.status_code == 201
    assert Event.objects.count() == before

    first, second = (g["fixture"] for g in body["games"])
    result = requests.post(
        api(f"fixtures/{first}/result/"), json={"score_a": 0.5}, headers=auth, timeout=TIMEOUT
    )
    assert result.status_code == 201, result.text
    forfeit = requests.post(
        api(f"{event}games/{second}/forfeit/"),
        json={"winner": dan.pk, "note": "no show"},
        headers=auth,
        timeout=TIMEOUT,
    )
    assert forfeit.status_code == 201, forfeit.text
    withdrawn = requests.post(
        api(f"{event}entrants/{cat.pk}/withdraw/"), json={}, headers=auth, timeout=TIMEOUT
    )
    assert withdrawn.status_code == 200
    assert withdrawn.json()["withdrawn_from_round"] == 2

    paired = requests.post(api(f"{event}rounds/next/"), headers=auth, timeout=TIMEOUT)
    assert paired.status_code == 201, paired.text
    in_round = {p for g in paired.json()["games"] for p in (g["first"], g["second"])}
    assert cat.pk not in in_round
    assert len(in_round) == 4

    standings = requests.get(api(f"{event}standings/"), timeout=TIMEOUT).json()
    by_player = {line["player"]: line for line in standings}
    assert (by_player[dan.pk]["points"], by_player[dan.pk]["games"]) == (1.0, 0)
    assert by_player[dan.pk]["forfeits_won"] == 1
    assert by_player[eve.pk]["points"] == 0.5
    assert by_player[cat.pk]["withdrawn"] is True
    assert standings[0]["player"] == dan.pk
    entrants = requests.get(api(f"{event}entrants/"), timeout=TIMEOUT).json()
    ann_rounds = next(e for e in entrants if e["player"] == ann.pk)["rounds"]
    assert ann_rounds[0] == {
        "round": 1, "outcome": "draw", "points": 0.5, "opponent": bob.pk, "side": "first",
        "fixture": first, "board": 1,
    }  # fmt: skip
    listing = requests.get(api("competitions/"), timeout=TIMEOUT).json()
    assert [c["slug"] for c in listing["results"]] == ["spring-swiss"]
    assert requests.get(api(f"{event}rounds/3/"), timeout=TIMEOUT).status_code == 404
    assert requests.get(api(f"{event}rounds/2/"), timeout=TIMEOUT).status_code == 200


def test_bad_requests_name_the_field_and_store_nothing(api, league, five, organiser):
    ann, bob, cat, dan, eve = five
    auth = headers(organiser)
    requests.post(
        api("competitions/"),
        json={"name": "Cup", "format": "swiss", "planned_rounds": 2},
        headers=auth,
        timeout=TIMEOUT,
    )
    event = "competitions/cup/"
    for player in (ann, bob, cat, dan):
        requests.post(
            api(f"{event}entrants/"), json={"player": player.pk}, headers=auth, timeout=TIMEOUT
        )
    requests.post(
        api(f"{event}rounds/"),
        json={"round": 1, "pairings": [[ann.pk, bob.pk], [cat.pk, dan.pk]]},
        headers=auth,
        timeout=TIMEOUT,
    )
    before = Event.objects.count()
    cases = [
        ("competitions/", {"name": "X", "format": "ladder", "planned_rounds": 2}, "format"),
        ("competitions/", {"name": "Cup", "format": "swiss", "planned_rounds": 2}, "slug"),
        (
            "competitions/",
            {"name": "Y", "format": "swiss", "planned_rounds": "2"},
            "planned_rounds",
        ),
        (
            "competitions/",
            {"name": "Z", "format": "swiss", "planned_rounds": 2, "tiebreaks": ["SB", "KOYA"]},
            '"tiebreaks":["\'KOYA\' is not a tie-break this site computes',
        ),
        (f"{event}entrants/", {"player": ann.pk}, "player"),
        (f"{event}entrants/", {"player": eve.pk, "from_round": 1}, "from_round"),
        (f"{event}byes/", {"player": ann.pk, "round": 1, "kind": "requested_half"}, "round_number"),
        (f"{event}byes/", {"player": ann.pk, "round": 2, "kind": "pairing_allocated"}, "kind"),
        (f"{event}rounds/", {"round": 2, "pairings": [[ann.pk, ann.pk]]}, "pairings.0.player_b"),
        (f"{event}rounds/", {"round": 2, "pairings": [[ann.pk, eve.pk]]}, "pairings.0.player_b"),
        (f"{event}rounds/", {"round": 3, "pairings": [[ann.pk, bob.pk]]}, "round_number"),
        (f"{event}rounds/", {"round": 2, "pairings": [[ann.pk]]}, "pairings"),
    ]
    for path, body, field in cases:
        response = requests.post(api(path), json=body, headers=auth, timeout=TIMEOUT)
        assert response.status_code == 400, (path, body, response.text)
        assert field in response.text, (path, body, response.text)
    # A Swiss round waits for the last one's results.
    early = requests.post(api(f"{event}rounds/next/"), headers=auth, timeout=TIMEOUT)
    assert early.status_code == 400
    assert "without a result" in early.text
    assert Event.objects.count() == before
    assert Competition.objects.count() == 1


def test_reads_are_open_and_writes_are_for_this_leagues_organisers(
    api, league, five, organiser, other_organiser
):
    body = {"name": "Open", "format": "swiss", "planned_rounds": 1}
    assert requests.post(api("competitions/"), json=body, timeout=TIMEOUT).status_code == 401
    other = requests.post(
        api("competitions/"), json=body, headers=headers(other_organiser), timeout=TIMEOUT
    )
    assert other.status_code == 403
    assert not Competition.objects.exists()
    assert requests.get(api("competitions/"), timeout=TIMEOUT).status_code == 200
    assert requests.get(api("competitions/none/standings/"), timeout=TIMEOUT).status_code == 404
