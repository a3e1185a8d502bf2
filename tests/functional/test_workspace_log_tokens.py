"""The organisers' event log (find, void, correct), API tokens and the export downloads."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from decimal import Decimal

import pytest
from django.urls import reverse

from league import services
from league.api_tokens import digest_of
from league.models import ApiToken, Event


@pytest.fixture
def signed_in(client, organiser):
    client.force_login(organiser)
    return client


@pytest.fixture
def history(league, make_player, organiser):
    ann, bob, cat = (make_player(league, n) for n in ("Ann Archer", "Bob Baker", "Cat Cooper"))
    first = services.record_match(
        league,
        player_a=ann,
        player_b=bob,
        score_a=1,
        points="3-1",
        played_at=dt.date(2024, 3, 2),
        recorded_by=organiser,
    )
    second = services.record_match(
        league,
        player_a=bob,
        player_b=cat,
        score_a=0,
        played_at=dt.date(2024, 3, 9),
        recorded_by=organiser,
    )
    return {"ann": ann, "bob": bob, "cat": cat, "first": first, "second": second}  # fmt: skip


def url(name, league, *args):
    return reverse(f"workspace:{name}", args=[league.slug, *args])


def seqs_on(page: str) -> list[int]:
    return [int(part.split('"')[0]) for part in page.split('id="event-')[1:]]


def test_log_is_newest_first_with_void_and_correct_on_each_live_match(signed_in, league, history):
    page = signed_in.get(url("log", league)).content.decode()
    seqs = seqs_on(page)
    assert seqs == sorted(seqs, reverse=True)
    assert seqs[0] == history["second"].seq
    for match in (history["first"], history["second"]):
        assert url("void", league, match.seq) in page
        assert url("correct", league, match.seq) in page


def test_log_search_by_player_and_by_day(signed_in, league, history):
    by_player = signed_in.get(url("log", league), {"player": "cat"}).content.decode()
    assert history["second"].seq in seqs_on(by_player)
    assert history["first"].seq not in seqs_on(by_player)
    by_day = signed_in.get(url("log", league), {"played_on": "2024-03-02"}).content.decode()
    assert seqs_on(by_day) == [history["first"].seq]


def test_log_highlights_what_was_just_recorded(signed_in, league, history):
    seq = history["second"].seq
    page = signed_in.get(url("log", league), {"highlight": f"{seq}-{seq}"}).content.decode()
    assert page.count("event--new") == 1
    assert f'event--new" id="event-{seq}"' in page


def test_void_from_the_log_asks_a_reason_and_lands_on_the_void(signed_in, league, history):
    match = history["first"]
    refused = signed_in.post(url("void", league, match.seq), {"reason": "", "idempotency_key": ""})
    assert refused.status_code == 200
    assert not Event.objects.filter(voids=match).exists()
    done = signed_in.post(url("void", league, match.seq), {"reason": "entered twice"})
    void = Event.objects.get(voids=match)
    assert void.reason == "entered twice"
    assert f"highlight={void.seq}-{void.seq}" in done["Location"]


def test_correct_from_the_log_voids_and_records_the_correction(signed_in, league, history):
    match = history["first"]
    form = signed_in.get(url("correct", league, match.seq)).content.decode()
    assert 'value="3-1"' in form  # the score box is prefilled with the recorded points
    signed_in.post(
        url("correct", league, match.seq),
        {
            "player_a": "Ann Archer",
            "score": "1-3",
            "player_b": "Bob Baker",
            "played_on": "2024-03-02",
            "note": "",
            "reason": "score reversed",
        },
    )
    corrected = Event.objects.get(replaces=match)
    assert (corrected.score_a, corrected.points) == (Decimal("0"), "1\u20133")
    assert corrected.played_at == match.played_at


def test_public_lists_offer_void_and_correct_to_the_organiser_only(
    client, league, history, organiser
):
    match = history["first"]
    for name in ("pages:matches", "pages:events"):
        anonymous = client.get(reverse(name, args=[league.slug])).content.decode()
        assert url("void", league, match.seq) not in anonymous
    player_page = reverse("pages:player", args=[league.slug, history["ann"].slug])
    assert url("void", league, match.seq) not in client.get(player_page).content.decode()
    client.force_login(organiser)
    for path in (
        reverse("pages:matches", args=[league.slug]),
        reverse("pages:events", args=[league.slug]),
        player_page,
    ):
        page = client.get(path).content.decode()
        assert url("void", league, match.seq) in page
        assert url("correct", league, match.seq) in page


def test_token_created_shown_once_works_and_stops_when_revoked(signed_in, league, organiser):
    response = signed_in.post(url("tokens", league), {"name": "results bot"})
    assert response["Cache-Control"] == "no-store"
    token = ApiToken.objects.get(user=organiser)
    secret = response.context["secret"]
    assert token.digest == digest_of(secret)
    assert secret not in token.digest
    assert "results bot" in response.content.decode()
    api = reverse("api:match-list", args=[league.slug])
    auth = {"HTTP_AUTHORIZATION": f"Token {secret}"}
    from django.test import Client

    fresh = Client()
    body = {"player_a": 1, "player_b": 1}
    # Authenticated: a bad body is a 400/422, not a 401.
    assert fresh.post(api, body, content_type="application/json", **auth).status_code in (400, 422)
    listing = signed_in.get(url("tokens", league)).content.decode()
    assert secret not in listing
    signed_in.post(url("revoke_token", league, token.pk))
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert fresh.post(api, body, content_type="application/json", **auth).status_code == 401


def test_token_needs_a_name_and_nobody_revokes_anothers(client, league, organiser, other_organiser):
    client.force_login(organiser)
    assert client.post(url("tokens", league), {"name": " "}).status_code == 200
    assert not ApiToken.objects.exists()
    client.post(url("tokens", league), {"name": "mine"})
    token = ApiToken.objects.get()
    client.force_login(other_organiser)
    # Another organiser cannot open this league's workspace, nor revoke the token anywhere.
    assert client.post(url("revoke_token", league, token.pk)).status_code == 403
    token.refresh_from_db()
    assert token.revoked_at is None


def test_export_downloads_results_and_full_log(signed_in, league, history, organiser):
    services.void_match(league, history["first"], reason="wrong day", recorded_by=organiser)
    results = b"".join(signed_in.get(url("export_download", league, "results")).streaming_content)
    rows = list(csv.DictReader(io.StringIO(results.decode())))
    # The league plays chess: its export names the first player's column White.
    assert [row["white"] for row in rows] == ["Bob Baker"]
    full = b"".join(signed_in.get(url("export_download", league, "event-log")).streaming_content)
    rows = list(csv.DictReader(io.StringIO(full.decode())))
    assert [(row["white"], row["void_reason"]) for row in rows] == [
        ("Ann Archer", "wrong day"),
        ("Bob Baker", ""),
    ]
    api = reverse("api:export-results", args=[league.slug])
    from_api = b"".join(signed_in.get(api, {"voided": "true"}).streaming_content)
    assert from_api == full


def test_api_export_answers_bad_input_in_the_error_format_even_asked_for_csv(client, league):
    api = reverse("api:export-results", args=[league.slug])
    response = client.get(api, {"voided": "perhaps"}, HTTP_ACCEPT="text/csv")
    assert response.status_code == 400
    assert b'"voided"' in response.content
    missing = reverse("api:export-results", args=["no-such-league"])
    assert client.get(missing, HTTP_ACCEPT="text/csv").status_code == 404


def test_api_export_refuses_a_format_it_does_not_answer(client, league):
    api = reverse("api:export-results", args=[league.slug])
    # DRF reads an empty ``format`` as none given: the view refuses it, naming the parameter.
    empty = client.get(api, {"format": ""})
    assert empty.status_code == 400
    assert b'"format"' in empty.content
    # An unknown format is DRF's own 404 (no renderer for it), never a CSV.
    for value in ("xml", "CSV"):
        response = client.get(api, {"format": value})
        assert response.status_code == 404
        assert not response["Content-Type"].startswith("text/csv")
    assert client.get(api, {"format": "csv"}).status_code == 200


@pytest.mark.parametrize(
    "query",
    [
        {"player": "Ann\x00"},
        {"player": "x" * 500},
        {"played_on": "9999-12-31"},
        {"played_on": "0001-01-01"},
        {"played_on": "2024-02-30"},
        {"page": "99999999999999999999"},
        {"highlight": "5-1"},
        {"highlight": "1-999999999999"},
        {"highlight": "\x00"},
    ],
)
def test_hostile_log_queries_are_answered_without_an_error(signed_in, league, history, query):
    response = signed_in.get(url("log", league), query)
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("name", "query"),
    [
        ("record", {"recorded": "1-9999999"}),
        ("record", {"recorded": "abc"}),
        ("round", {"rows": "100000"}),
        ("round", {"rows": "-3"}),
        ("round", {"recorded": "\x00"}),
    ],
)
def test_hostile_entry_page_queries_are_answered_without_an_error(
    signed_in, league, history, name, query
):
    assert signed_in.get(url(name, league), query).status_code == 200


def _neutral_box(page: str) -> str:
    """The correction form's neutral-ground checkbox tag."""
    (tag,) = re.findall(r'<input[^>]*name="neutral"[^>]*>', page)
    return tag


def test_correcting_keeps_or_changes_the_neutral_ground_box(signed_in, league, history):
    league.sport = "Football"  # a sport with home grounds (the fixture's league plays chess)
    league.save()
    match = history["first"]
    form = signed_in.get(url("correct", league, match.seq)).content.decode()
    assert "checked" not in _neutral_box(form)  # recorded as not neutral
    signed_in.post(
        url("correct", league, match.seq),
        {
            "player_a": "Ann Archer",
            "score": "3-1",
            "player_b": "Bob Baker",
            "played_on": "2024-03-02",
            "neutral": "on",
            "note": "",
            "reason": "played at the county hall",
        },
    )
    corrected = Event.objects.get(replaces=match)
    assert corrected.neutral is True
    assert corrected.score_a == match.score_a
    again = signed_in.get(url("correct", league, corrected.seq)).content.decode()
    assert "checked" in _neutral_box(again)  # prefilled from the stored match


def test_correcting_a_chess_match_keeps_its_stored_neutral_flag(signed_in, league, history):
    # A chess league's correction form has no neutral box; what was stored stays.
    match = history["first"]
    form = signed_in.get(url("correct", league, match.seq)).content.decode()
    assert 'name="neutral"' not in form
    signed_in.post(
        url("correct", league, match.seq),
        {
            "player_a": "Ann Archer",
            "score": "1-3",
            "player_b": "Bob Baker",
            "played_on": "2024-03-02",
            "neutral": "on",  # ignored: the page has no such box
            "note": "",
            "reason": "result the other way round",
        },
    )
    corrected = Event.objects.get(replaces=match)
    assert corrected.neutral is match.neutral is False
