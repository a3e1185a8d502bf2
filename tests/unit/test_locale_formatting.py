"""Numbers, dates and times by the active language (web/locale_format.py): one rating, one
interval, one percentage, one date and one time in each of the site's languages, written
out by hand as each language writes them."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import translation

from engine.intervals import ConfidenceLevel
from web import locale_format

LANGUAGES = ["en-gb", "de", "fr", "es"]

#: What each language shows; written from its conventions, not computed.
EXPECTED = {
    "en-gb": {
        "rating": "1523",
        "number": "1523.5",
        "interval": "1480\u20131566",
        "percent": "94.1 %",
        "level": "68.27 %",
        "day": "3 Mar 2024",
        "time": "2:30 p.m.",
        "signed": "-3.5",
    },
    "de": {
        "rating": "1523",
        "number": "1523,5",
        "interval": "1480\u20131566",
        "percent": "94,1 %",
        "level": "68,27 %",
        "day": "3. März 2024",
        "time": "14:30",
        "signed": "-3,5",
    },
    "fr": {
        "rating": "1523",
        "number": "1523,5",
        "interval": "1480\u20131566",
        "percent": "94,1 %",
        "level": "68,27 %",
        "day": "3 mars 2024",
        "time": "14:30",
        "signed": "-3,5",
    },
    "es": {
        "rating": "1523",
        "number": "1523,5",
        "interval": "1480\u20131566",
        "percent": "94,1 %",
        "level": "68,27 %",
        "day": "3 de marzo de 2024",
        "time": "14:30",
        "signed": "-3,5",
    },
}


@pytest.fixture(params=LANGUAGES)
def language(request: pytest.FixtureRequest):
    with translation.override(request.param):
        yield request.param


def test_a_rating(language: str) -> None:
    assert locale_format.rating(1523.46) == EXPECTED[language]["rating"]
    assert locale_format.number(1523.46, 1) == EXPECTED[language]["number"]


def test_an_interval(language: str) -> None:
    assert locale_format.interval(1479.6, 1566.4) == EXPECTED[language]["interval"]


def test_a_percentage(language: str) -> None:
    assert locale_format.percent(0.94123, 1) == EXPECTED[language]["percent"]
    one_z = ConfidenceLevel.from_z(1.0)  # 68.2689… %
    assert locale_format.level_label(one_z) == EXPECTED[language]["level"]


def test_a_date(language: str) -> None:
    assert locale_format.day(dt.date(2024, 3, 3)) == EXPECTED[language]["day"]


def test_a_time(language: str) -> None:
    assert locale_format.time(dt.time(14, 30)) == EXPECTED[language]["time"]


def test_a_signed_change(language: str) -> None:
    assert locale_format.signed_number(-3.46, 1) == EXPECTED[language]["signed"]
    # A change that rounds to zero carries no sign, in any language.
    assert locale_format.signed_number(-0.04, 1) == ("0.0" if language == "en-gb" else "0,0")


def test_a_level_that_rounds_to_100_is_never_100() -> None:
    with translation.override("de"):
        assert locale_format.level_label(ConfidenceLevel.from_z(10.0)) == "> 99,99 %"


def test_the_interval_heading_follows_the_language() -> None:
    level = ConfidenceLevel.from_percent(95)
    with translation.override("en-gb"):
        assert locale_format.interval_heading(level) == "95 % interval"
