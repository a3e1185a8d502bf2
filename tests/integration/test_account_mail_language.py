"""The sign-in-link and invitation e-mails (``league/tasks.py``) are written in their
recipient's language: the account's language, else the league's default, else the site's."""

from __future__ import annotations

import pytest
from django.core import mail

from league import services
from league.invitations import create_player_invitation
from league.models import AccountPreferences
from league.tasks import send_player_invitation, send_sign_in_links
from tests.messages_support import person

pytestmark = pytest.mark.django_db

BASE = "https://club.example.org/"


def test_a_sign_in_link_is_written_in_the_accounts_language():
    ann = person("ann")
    AccountPreferences.objects.create(user=ann, language="de")
    assert send_sign_in_links("ann@example.org", "", BASE) == 1
    [message] = mail.outbox
    assert message.subject == "Ihr Anmeldelink"
    assert "Hallo ann," in message.body
    assert "Your sign-in link" not in message.body


def test_a_sign_in_link_without_a_chosen_language_is_in_the_sites_language():
    person("bob")
    assert send_sign_in_links("bob@example.org", "", BASE) == 1
    [message] = mail.outbox
    assert message.subject == "Your sign-in link"
    assert message.body.startswith("Hello bob,\n\nOpen this link to sign in to Honest League")


def invite(league, organiser, email):
    player = services.register_player(league, "Cleo Cole")
    invitation, _token = create_player_invitation(league, player, organiser, email=email)
    assert send_player_invitation(invitation.pk, BASE)
    [message] = mail.outbox
    return message


def test_an_invitation_to_a_new_address_is_in_the_leagues_default_language(league, organiser):
    league.default_language = "fr"
    league.save(update_fields=["default_language"])
    message = invite(league, organiser, "cleo@example.org")
    assert message.subject == "Votre place dans Riverside Chess Club"
    assert "Bonjour," in message.body
    assert "invite you" not in message.body


def test_an_invitation_to_an_account_that_chose_a_language_is_in_that_language(league, organiser):
    league.default_language = "fr"
    league.save(update_fields=["default_language"])
    cleo = person("cleo")
    AccountPreferences.objects.create(user=cleo, language="es")
    message = invite(league, organiser, "cleo@example.org")
    assert message.subject == "Su lugar en Riverside Chess Club"
    assert "invite you" not in message.body


def test_an_invitation_without_any_language_is_in_english(league, organiser):
    message = invite(league, organiser, "cleo@example.org")
    assert message.subject == "Your place in Riverside Chess Club"
    assert "invite you to take your place as the player Cleo Cole" in message.body
