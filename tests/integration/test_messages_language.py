"""E-mails are written in their recipient's language: the account's language, else the
league's default language, else the site's (British English)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core import mail
from django.utils import timezone, translation

from league.fixtures import FixtureRequest, schedule_fixtures
from league.models import AccountPreferences
from notifications.kinds import signed
from tests.messages_support import holder

pytestmark = pytest.mark.django_db

WHEN = dt.datetime(2030, 3, 5, 18, 30, tzinfo=dt.UTC)


def mail_to(address: str):
    [message] = [message for message in mail.outbox if message.to == [address]]
    return message


def test_each_recipient_reads_the_fixture_in_their_own_language(
    league, django_capture_on_commit_callbacks
):
    league.default_language = "fr"
    league.save(update_fields=["default_language"])
    ann = holder(league, "Ann Archer", "ann")
    bob = holder(league, "Bob Baker", "bob")
    AccountPreferences.objects.create(user=ann.account, language="de")
    with django_capture_on_commit_callbacks(execute=True):
        schedule_fixtures(league, [FixtureRequest(ann, bob, scheduled_at=WHEN)])

    german = mail_to("ann@example.org")
    assert german.subject == ("Neue Ansetzung in Riverside Chess Club: Sie spielen gegen Bob Baker")
    assert "Hallo Ann Archer," in german.body
    assert "Sie haben eine neue Ansetzung in Riverside Chess Club." in german.body
    assert "Dienstag 5 März 2030" in german.body  # the date in German too
    assert "Diese Nachrichten abbestellen (ein Klick):" in german.body
    assert "You have a new fixture" not in german.body

    # Bob chose no language: the league's default, French.
    french = mail_to("bob@example.org")
    assert french.subject == (
        "Nouvelle rencontre dans Riverside Chess Club : vous jouez contre Ann Archer"
    )
    assert "Vous avez une nouvelle rencontre dans Riverside Chess Club." in french.body
    assert "mars 2030" in french.body


def test_the_site_language_when_nobody_chose_one(league, django_capture_on_commit_callbacks):
    ann = holder(league, "Ann Archer", "ann")
    bob = holder(league, "Bob Baker", "bob")
    AccountPreferences.objects.create(user=ann.account, language="")
    with django_capture_on_commit_callbacks(execute=True):
        schedule_fixtures(
            league, [FixtureRequest(ann, bob, scheduled_at=timezone.now() + dt.timedelta(days=3))]
        )
    english = mail_to("ann@example.org")
    assert english.subject == "New fixture in Riverside Chess Club: you play Bob Baker"
    assert "You have a new fixture in Riverside Chess Club." in english.body


@pytest.mark.parametrize(
    ("language", "expected"),
    [("en-gb", ["+12.3", "-3.0", "0.0"]), ("de", ["+12,3", "-3,0", "0,0"])],
)
def test_a_rating_change_is_written_with_the_recipients_decimal_mark(language, expected):
    with translation.override(language):
        assert [signed(12.34), signed(-3.04), signed(-0.04)] == expected
