"""A chess game has no neutral ground: every entry path refuses a result marked so in a chess
league, names the field (or the file's line) and stores nothing; other sports keep it."""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from league import services
from league.forms import LeagueForm
from league.models import Event
from league.player_accounts import claim_player
from league.services.reports import submit_report
from league.validation import CHESS_NEUTRAL
from tests.api.support import token_client
from tests.integration.test_commands import state
from web.workspace.dates import league_today

pytestmark = pytest.mark.django_db

DAY = dt.date(2024, 3, 5)
REFUSED = str(CHESS_NEUTRAL)


@pytest.fixture
def pair(league):
    return services.register_player(league, "Ann"), services.register_player(league, "Bob")


def matches(league) -> list[tuple]:
    return list(Event.objects.matches().filter(league=league).values_list("pk", "neutral"))


def test_the_service_refuses_neutral_ground_in_chess_naming_the_field(league, pair):
    ann, bob = pair
    before = state()
    with pytest.raises(ValidationError) as refused:
        services.record_match(
            league, player_a=ann, player_b=bob, score_a="1", played_at=DAY, neutral="yes"
        )
    assert refused.value.message_dict == {"neutral": [REFUSED]}
    assert state() == before
    stored = services.record_match(
        league, player_a=ann, player_b=bob, score_a="1", played_at=DAY, neutral=False
    )
    assert stored.neutral is False


def test_other_sports_keep_neutral_ground(other_league, make_player):
    cat, dan = make_player(other_league, "Cat"), make_player(other_league, "Dan")
    stored = services.record_match(
        other_league, player_a=cat, player_b=dan, score_a="1", played_at=DAY, neutral=True
    )
    assert stored.neutral is True


def test_a_correction_in_chess_drops_a_neutral_flag_stored_before_the_league_played_chess(
    league, pair
):
    ann, bob = pair
    league.sport = "Football"
    league.save()
    old = services.record_match(
        league, player_a=ann, player_b=bob, score_a="1", played_at=DAY, neutral=True
    )
    league.sport = "Chess"
    league.save()
    _void, corrected = services.correct_match(
        league, old, score_a="0.5", reason="a draw, not a win"
    )
    assert (corrected.neutral, corrected.score_a) == (False, 0.5)
    with pytest.raises(ValidationError) as refused:
        services.correct_match(league, corrected, neutral=True, reason="neutral after all")
    assert refused.value.message_dict == {"neutral": [REFUSED]}


def test_the_csv_command_names_the_line_and_records_nothing(league, pair, tmp_path):
    path = tmp_path / "results.csv"
    path.write_text(
        "date,white,black,score_a,neutral\n2024-03-05,Ann,Bob,1,\n2024-03-06,Bob,Ann,0,yes\n"
    )
    before = state()
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 bad row"):
        call_command("import_results", league.slug, str(path), stdout=io.StringIO(), stderr=err)
    assert f"{path}: line 3: neutral: {REFUSED}" in err.getvalue()
    assert state() == before


def test_the_workspace_upload_shows_the_line_and_records_nothing(
    client, organiser, league, pair, settings, tmp_path
):
    settings.VAR_DIR = tmp_path
    client.force_login(organiser)
    data = b"date,player_a,player_b,score_a,neutral\n2024-03-05,Ann,Bob,1,true\n"
    response = client.post(
        reverse("workspace:import", args=[league.slug]),
        {"file": SimpleUploadedFile("results.csv", data, "text/csv")},
    )
    html = client.get(response["Location"]).content.decode()
    assert "1 bad row (of 1): nothing was recorded." in html
    assert "A chess game has no neutral ground" in html
    assert 'name="confirm"' not in html
    client.post(response["Location"], {"confirm": "1"})
    assert matches(league) == []


def test_the_result_page_has_no_neutral_box_and_a_posted_one_stores_a_game_with_colours(
    client, organiser, league, pair
):
    client.force_login(organiser)
    page = reverse("workspace:record", args=[league.slug])
    assert 'name="neutral"' not in client.get(page).content.decode()
    client.post(
        page,
        {
            "player_a": "Ann",
            "score": "1-0",
            "player_b": "Bob",
            "played_on": league_today(league).isoformat(),
            "neutral": "on",  # no such box on a chess page: not read
            "idempotency_key": "k-1",
        },
    )
    assert [flag for _pk, flag in matches(league)] == [False]


def test_the_api_refuses_a_neutral_chess_game_naming_the_field(organiser, league, pair):
    ann, bob = pair
    client = token_client(organiser)
    body = {
        "player_a": ann.pk,
        "player_b": bob.pk,
        "score_a": 1,
        "played_on": "2024-03-05",
        "neutral": True,
    }
    url = reverse("api:match-list", kwargs={"league_slug": league.slug})
    response = client.post(url, body, format="json")
    assert response.status_code == 400, response.data
    assert response.data["errors"] == {"neutral": [REFUSED]}
    rounds = reverse("api:round", kwargs={"league_slug": league.slug})
    response = client.post(rounds, {"results": [{**body, "neutral": False}, body]}, format="json")
    assert response.status_code == 400, response.data
    assert response.data["errors"] == {"results.1.neutral": [REFUSED]}
    assert matches(league) == []


def test_a_players_report_of_a_neutral_chess_game_is_refused(organiser, league, pair):
    # The report pages and the reports API have no such field; the service refuses it too.
    ann, bob = pair
    user = get_user_model().objects.create_user("ann", password="pw-player-1")
    claim_player(ann, user, by=organiser)
    with pytest.raises(ValidationError) as refused:
        submit_report(
            league, user=user, player=ann, player_a=ann, player_b=bob, score_a="1",
            played_at=DAY, neutral=True,
        )  # fmt: skip
    assert refused.value.message_dict == {"neutral": [REFUSED]}
    assert not league.reports.exists()


def _league_form(league, sport: str) -> LeagueForm:
    data = {
        "name": league.name,
        "slug": league.slug,
        "description": league.description,
        "sport": sport,
        "time_zone": league.time_zone,
        "start_date": league.start_date.isoformat(),
        "default_language": league.default_language,
        "organisers": list(league.organisers.values_list("pk", flat=True)),
    }
    return LeagueForm(data, instance=league)


def test_the_admin_does_not_turn_a_league_with_neutral_games_into_a_chess_league(
    other_league, make_player
):
    cat, dan = make_player(other_league, "Cat"), make_player(other_league, "Dan")
    neutral = services.record_match(
        other_league, player_a=cat, player_b=dan, score_a="1", played_at=DAY, neutral=True
    )
    form = _league_form(other_league, "Chess")
    assert not form.is_valid()
    assert form.errors["sport"] == [
        "1 live result of this league is marked as played on neutral ground, and a chess game "
        "has none: correct it (without neutral ground) or void it before the league plays chess."
    ]
    other_league.refresh_from_db()
    assert other_league.sport == "Table tennis"
    services.void_match(other_league, neutral, reason="entered on the wrong day")
    assert _league_form(other_league, "Chess").is_valid()
    assert _league_form(other_league, "Table tennis (club)").is_valid()
