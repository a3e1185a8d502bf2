"""Password reset through Django's own views under /accounts/: linked from the sign-in
page, the same answer for a known and an unknown address, a one-time link mailed by the
Celery mail task (eager in the suite) that sets a new password."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client, override_settings
from django.urls import reverse

pytestmark = pytest.mark.django_db

LINK = re.compile(r"http://testserver(/accounts/password-reset/\S+)")
NONCE = re.compile(r' nonce="[^"]*"')


@pytest.fixture
def person(db):
    return get_user_model().objects.create_user("pat", email="pat@example.org", password="old-1")


@pytest.fixture
def ask_reset(django_capture_on_commit_callbacks):
    """Ask for a reset link as the page does; the mail task runs once the request commits."""

    def ask(client: Client, email: str):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(reverse("accounts:password_reset"), {"email": email})

    return ask


def test_the_sign_in_page_links_to_the_reset_page(client):
    page = client.get(reverse("accounts:sign_in")).text
    assert 'href="/accounts/password-reset/"' in page
    form = client.get("/accounts/password-reset/")
    assert form.status_code == 200
    assert 'name="email"' in form.text
    assert "csrfmiddlewaretoken" in form.text


def test_a_mailed_link_sets_a_new_password_once(person, ask_reset):
    # Each test asks from an address of its own: requests are counted per client address.
    client = Client(REMOTE_ADDR="192.0.2.1")
    response = ask_reset(client, "PAT@example.org")
    assert response.status_code == 302
    assert response["Location"] == reverse("accounts:password_reset_done")
    (message,) = mail.outbox
    assert message.to == ["pat@example.org"]
    assert message.subject == "Reset your Honest League password"
    assert "Hello pat," in message.body
    (path,) = LINK.findall(message.body)

    # Django swaps the token in the address for one kept in the session, then shows the form.
    opened = client.get(path, follow=True)
    assert 'id="set-password"' in opened.text
    form_path = opened.redirect_chain[-1][0]
    mismatch = client.post(
        form_path, {"new_password1": "Fresh-pass-29", "new_password2": "other-pass-29"}
    )
    assert mismatch.status_code == 200
    assert 'name="new_password2"' in mismatch.text
    person.refresh_from_db()
    assert person.check_password("old-1")

    done = client.post(
        form_path, {"new_password1": "Fresh-pass-29", "new_password2": "Fresh-pass-29"}
    )
    assert done.status_code == 302
    assert done["Location"] == reverse("accounts:password_reset_complete")
    person.refresh_from_db()
    assert person.check_password("Fresh-pass-29")
    assert not person.check_password("old-1")

    # The link was signed with the old password: it no longer works.
    again = Client().get(path, follow=True)
    assert 'id="reset-refused"' in again.text
    assert 'id="set-password"' not in again.text


def test_the_answer_is_the_same_for_a_known_and_an_unknown_address(person, ask_reset):
    known = ask_reset(Client(REMOTE_ADDR="192.0.2.2"), "pat@example.org")
    unknown = ask_reset(Client(REMOTE_ADDR="192.0.2.3"), "nobody@example.org")
    assert (known.status_code, known["Location"]) == (unknown.status_code, unknown["Location"])
    assert [message.to for message in mail.outbox] == [["pat@example.org"]]
    sent_known = NONCE.sub("", Client().get(known["Location"]).text)
    sent_unknown = NONCE.sub("", Client().get(unknown["Location"]).text)
    assert sent_known == sent_unknown
    assert 'id="reset-sent"' in sent_known


def test_a_bad_address_names_the_field_and_sends_nothing(person, ask_reset):
    response = ask_reset(Client(), "not an address")
    assert response.status_code == 200
    assert "email" in response.text
    assert "Enter a valid email address." in response.text
    assert mail.outbox == []


def test_a_made_up_link_is_refused(person):
    page = Client().get("/accounts/password-reset/MQ/made-up-token/", follow=True)
    assert page.status_code == 200
    assert 'id="reset-refused"' in page.text


@override_settings(SIGN_IN_LINK_RATE="2/hour")
def test_reset_requests_are_limited_per_client_address(person, ask_reset):
    client = Client(REMOTE_ADDR="203.0.113.29")
    for email in ("pat@example.org", "nobody@example.org"):
        assert ask_reset(client, email).status_code == 302
    paused = ask_reset(client, "pat@example.org")
    assert paused.status_code == 429
    assert int(paused["Retry-After"]) > 0
    assert 'id="reset-paused"' in paused.text
    assert len(mail.outbox) == 1
    # Another address is not held back, and sign-in links are counted apart.
    assert ask_reset(Client(REMOTE_ADDR="198.51.100.29"), "pat@example.org").status_code == 302
    link = client.post(reverse("accounts:request_link"), {"email": "pat@example.org"})
    assert link.status_code == 302
