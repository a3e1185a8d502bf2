"""Control characters and moments at the calendar's ends, through the services and the API:
refused with a message naming the field, nothing stored, never a 5xx (PostgreSQL refuses a
NUL byte in any text column, and converting 0001-01-01 east of UTC overflows)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.exceptions import ValidationError

from league import services
from league.models import Event, Player

NUL = "\x00"


@pytest.fixture
def pair(league, make_player):
    return make_player(league, "Ann"), make_player(league, "Bo")


def refused(call, field: str, code: str) -> None:
    before = (Event.objects.count(), Player.objects.count())
    with pytest.raises(ValidationError) as caught:
        call()
    assert code in {e.code for e in caught.value.error_dict[field]}, caught.value.message_dict
    assert (Event.objects.count(), Player.objects.count()) == before


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"note": f"board{NUL}1"}, "note"),
        ({"points": f"3{NUL}-1"}, "points"),
        ({"idempotency_key": f"k{NUL}"}, "idempotency_key"),
        ({"note": "bell\x07"}, "note"),
    ],
)
def test_a_result_with_a_control_character_is_refused(league, pair, extra, field):
    ann, bo = pair
    refused(
        lambda: services.record_match(
            league, player_a=ann, player_b=bo, score_a="1", played_at=dt.date(2024, 3, 2), **extra
        ),
        field,
        "control_character",
    )


def test_tabs_and_line_breaks_in_a_note_are_ordinary_text(league, pair):
    ann, bo = pair
    event = services.record_match(
        league,
        player_a=ann,
        player_b=bo,
        score_a="1",
        played_at=dt.date(2024, 3, 2),
        note="board 1\tround 2\nlate start",
    )
    assert event.note == "board 1\tround 2\nlate start"


def test_names_and_reasons_with_a_control_character_are_refused(league, pair, organiser):
    ann, bo = pair
    refused(
        lambda: services.register_player(league, f"Cy{NUL}"), "display_name", "control_character"
    )
    refused(
        lambda: services.rename_player(league, ann, "An\x1bn", reason="", recorded_by=organiser),
        "display_name",
        "control_character",
    )
    match = services.record_match(
        league, player_a=ann, player_b=bo, score_a="1", played_at=dt.date(2024, 3, 2)
    )
    refused(
        lambda: services.void_match(league, match, reason=f"typo{NUL}", recorded_by=organiser),
        "reason",
        "control_character",
    )


@pytest.mark.parametrize(
    "played_at",
    [
        "0001-01-01T00:00:00+14:00",
        "9999-12-31T23:59:59-14:00",
        dt.datetime(1, 1, 1, 0, 30, tzinfo=dt.timezone(dt.timedelta(hours=14))),
    ],
)
def test_a_moment_at_the_calendars_end_is_refused(league, pair, played_at):
    ann, bo = pair
    refused(
        lambda: services.record_match(
            league, player_a=ann, player_b=bo, score_a="1", played_at=played_at
        ),
        "played_at",
        "out_of_range",
    )


def test_the_api_answers_400_for_a_nul_note_and_a_far_moment(league, pair, organiser):
    from django.urls import reverse

    from tests.api.support import token_client

    ann, bo = pair
    client = token_client(organiser)
    path = reverse("api:match-list", kwargs={"league_slug": league.slug})
    body = {"player_a": ann.pk, "player_b": bo.pk, "score_a": 1, "played_on": "2024-03-02"}
    before = Event.objects.count()

    nul = client.post(path, {**body, "note": f"a{NUL}b"}, format="json")
    far = client.post(
        path,
        {k: v for k, v in body.items() if k != "played_on"}
        | {"played_at": "0001-01-01T00:00:00+14:00"},
        format="json",
    )

    assert nul.status_code == 400, nul.data
    assert "note" in nul.data["errors"]
    assert far.status_code == 400, far.data
    assert "played_at" in far.data["errors"]
    assert Event.objects.count() == before
