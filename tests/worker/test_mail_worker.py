"""Sign-in links mailed by a real Celery worker, through Django's file e-mail backend.

The request only queues the task (after its transaction commits) and answers at once; the
worker, a separate process, looks the address up, makes the link and writes the mail as a
file in the mail directory, as ``bin/run`` does on the embedded default. The link read from
that file signs in once.
"""

from __future__ import annotations

import email
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from tests.worker.conftest import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

LINK = re.compile(r"http://testserver(/accounts/sign-in/link/[^/\s]+/)")


def mails(directory: Path) -> list[str]:
    """Each mail the file backend wrote (one file per connection, each message followed by
    a line of dashes), as headers and decoded body."""
    if not directory.exists():
        return []
    found = []
    for path in sorted(directory.iterdir()):
        for raw in path.read_text(errors="replace").split("-" * 79):
            if raw.strip():
                message = email.message_from_string(raw.strip())
                body = message.get_payload(decode=True).decode("utf-8", "replace")
                found.append(f"To: {message['To']}\n\n{body}")
    return found


def test_a_worker_mails_the_link_to_a_file_and_it_signs_in_once(worker_factory, tmp_path):
    directory = tmp_path / "mail"
    worker_factory(env={"LEAGUE_EMAIL_BACKEND": "file", "LEAGUE_MAIL_DIR": str(directory)})
    get_user_model().objects.create_user("pat", email="pat@example.org", password=None)
    client = Client()

    unknown = client.post(reverse("accounts:request_link"), {"email": "nobody@example.org"})
    known = client.post(reverse("accounts:request_link"), {"email": "pat@example.org"})
    assert (unknown.status_code, unknown["Location"]) == (known.status_code, known["Location"])

    (message,) = wait_for(lambda: mails(directory), 60, "the worker writes the mail")
    assert "To: pat@example.org" in message
    (path,) = LINK.findall(message)
    assert client.post(path).status_code == 302
    assert client.get(reverse("api:me")).json()["username"] == "pat"
    assert Client().post(path).status_code == 410
    # The unknown address got nothing: one mail in all.
    assert len(mails(directory)) == 1
