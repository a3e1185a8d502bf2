"""The CSV exports stay machine-readable whatever the reader's language: dot decimals and
ISO dates in German, French and Spanish as in English, while the page itself is localised."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}")


def rows(response) -> list[dict[str, str]]:
    text = b"".join(response.streaming_content).decode()
    return list(csv.DictReader(io.StringIO(text)))


@pytest.mark.parametrize("language", ["de", "fr", "es"])
def test_standings_and_history_keep_dots_and_iso_dates(client, club, language):
    league = club["league"]
    client.cookies["django_language"] = language
    page = client.get(reverse("pages:league", args=[league.slug]))
    assert page["Content-Language"] == language
    english = rows(
        client.get(
            reverse("pages:export_standings", args=[league.slug]),
            HTTP_ACCEPT_LANGUAGE="en",
            HTTP_COOKIE="django_language=en-gb",
        )
    )
    standings = rows(client.get(reverse("pages:export_standings", args=[league.slug])))
    history = rows(client.get(reverse("pages:export_history", args=[league.slug])))
    assert standings
    assert history
    numeric = ["rating", "rd", "volatility"]
    for row in standings:
        for key in numeric:
            assert "," not in row[key], (key, row[key])
            float(row[key])  # a number Python reads, so a dot decimal
    # The numbers are the English export's, character for character.
    assert [[row[key] for key in numeric] for row in standings] == [
        [row[key] for key in numeric] for row in english
    ]
    for row in history:
        for key in ("period_start", "period_end"):
            assert ISO_DAY.match(row[key]), (key, row[key])
        for key in numeric:
            float(row[key])
