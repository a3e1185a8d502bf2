"""The API's validation messages follow Accept-Language (docs/languages.md): the write
services' messages are translated, with their values filled in, and English stays the
default."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from league.models import Event

pytestmark = pytest.mark.django_db

#: Two days ahead: in the future in every time zone, so the write services refuse it.
LATER = (dt.date.today() + dt.timedelta(days=2)).isoformat()


def _post(org, league, players, language: str):
    url = reverse("api:match-list", kwargs={"league_slug": league.slug})
    body = {
        "player_a": players[0].pk,
        "player_b": players[1].pk,
        "score_a": 1,
        "played_on": LATER,
    }
    return org.post(url, body, format="json", HTTP_ACCEPT_LANGUAGE=language)


def test_a_validation_error_comes_back_in_german(org, league, players):
    before = Event.objects.filter(league=league).count()
    response = _post(org, league, players, "de")
    assert response.status_code == 400
    assert response["Content-Language"] == "de"
    assert response.json()["errors"]["played_on"] == [
        f"{LATER} liegt in der Zukunft: erfassen Sie eine Partie, wenn sie gespielt ist."
    ]
    assert Event.objects.filter(league=league).count() == before


def test_the_same_error_stays_english_by_default(org, league, players):
    response = _post(org, league, players, "en")
    assert response.status_code == 400
    assert response.json()["errors"]["played_on"] == [
        f"{LATER} is in the future: record a match once it has been played."
    ]
