"""Sending one outbox message: claim it, render it, hand it to the mail server, mark it.

At most one task sends a message at a time (the claim, ``lease_until``); a message is marked
sent only after the server accepted it, so a worker killed in between sends it again later
with the same ``Message-ID`` (receivers' software drops the copy). A server that cannot be
reached, or answers "try later", leaves the message pending for another attempt; only a
server refusing every recipient for good (5xx) ends it as failed.

Every message carries a one-click unsubscribe link (RFC 8058): ``List-Unsubscribe`` with
the https address of the link and ``List-Unsubscribe-Post: List-Unsubscribe=One-Click``;
the same address is written at the foot of the text.
"""

from __future__ import annotations

import datetime as dt
import email.policy
import smtplib
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.mail import EmailMessage
from django.core.mail.message import make_msgid
from django.db.models import F, Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from league.languages import mail_language
from notifications.kinds import KINDS
from notifications.models import Message, Status
from notifications.preferences import unsubscribe_path, wants

#: How long a sending task holds its claim on a message (longer than a slow server's answer).
LEASE = dt.timedelta(minutes=5)


class Sent(StrEnum):
    """What became of one attempt."""

    SENT = "sent"
    SKIPPED = "skipped"
    FAILED = "failed"
    BUSY = "busy"  # another task holds it, or it is no longer pending


class TransientMailError(Exception):
    """The mail server could not take the message now; it stays pending."""


def backoff(attempts: int) -> dt.timedelta:
    """How long after its ``attempts``-th failure a message is due again: 30 s doubling, at
    most an hour."""
    return dt.timedelta(seconds=min(30 * 2 ** max(attempts - 1, 0), 3600))


def claim(model: type, pk: int) -> bool:
    """Take the sending claim of outbox row ``pk`` of ``model`` (one more attempt)."""
    now = timezone.now()
    return bool(
        model.objects.filter(pk=pk, status=Status.PENDING)
        .filter(Q(lease_until__isnull=True) | Q(lease_until__lt=now))
        .update(lease_until=now + LEASE, attempts=F("attempts") + 1)
    )


def site_url(path: str) -> str:
    """``path`` on the site, absolute (``settings.SITE_URL``)."""
    return f"{settings.SITE_URL}{path}"


class LongHeaderEmail(EmailMessage):
    """An e-mail whose headers are folded at 998 characters (RFC 5322's limit), not 78: the
    ``List-Unsubscribe`` address is one long token, which folding at 78 would turn into
    RFC 2047 encoded words that mail programs do not read as a link."""

    def message(self, *, policy: Any = email.policy.default) -> Any:
        return super().message(policy=policy.clone(max_line_length=998))


def recipient_language(message: Message) -> str:
    """The language ``message`` is written in: its recipient's account language
    (``AccountPreferences.language``), else its league's default language, else the site's."""
    return mail_language([message.user_id], message.league)


def build(message: Message) -> EmailMessage:
    """The e-mail of ``message``: rendered now, in its recipient's language
    (``recipient_language``)."""
    kind = KINDS[message.kind]
    unsubscribe = site_url(unsubscribe_path(message.user_id, message.topic, message.league_id))
    with translation.override(recipient_language(message)):
        context = kind.context(message)
        context.update(
            {
                "message": message,
                "user": message.user,
                "league": message.league,
                "player": message.player,
                "league_url": site_url(message.league.get_absolute_url()) if message.league else "",
                "preferences_url": site_url(reverse("mail:preferences")),
                "unsubscribe_url": unsubscribe,
                "topic": message.get_topic_display(),
            }
        )
        subject = " ".join(kind.subject(message, context).split())
        body = render_to_string(kind.template, context)
    domain = urlsplit(settings.SITE_URL).hostname or "localhost"
    return LongHeaderEmail(
        subject=subject,
        body=body,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[message.user.email],
        headers={
            "Message-ID": message.message_id or make_msgid(domain=domain),
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Auto-Submitted": "auto-generated",
        },
    )


def deliver_message(message_id: int) -> Sent:
    """One attempt at sending outbox message ``message_id``.

    Raises ``TransientMailError`` when the server could not take it (the task retries it);
    the row then says why and when the sweep may try again.
    """
    if not claim(Message, message_id):
        return Sent.BUSY
    message = Message.objects.select_related("user", "league", "player", "event").get(pk=message_id)
    user = message.user
    if not (user.is_active and user.email and wants(user.pk, message.league, message.topic)):
        _finish(message, Status.SKIPPED, error="")
        return Sent.SKIPPED
    email = build(message)
    if not message.message_id:
        message.message_id = email.extra_headers["Message-ID"]
        Message.objects.filter(pk=message.pk).update(message_id=message.message_id)
    try:
        email.send(fail_silently=False)
    except smtplib.SMTPRecipientsRefused as error:
        if all(code >= 500 for code, _text in error.recipients.values()):
            _finish(message, Status.FAILED, error=_refused(error))
            return Sent.FAILED
        _retry_later(message, error)
        raise TransientMailError(str(error)) from error
    except (OSError, smtplib.SMTPException) as error:
        _retry_later(message, error)
        raise TransientMailError(str(error)) from error
    _finish(message, Status.SENT, error="")
    return Sent.SENT


def _refused(error: smtplib.SMTPRecipientsRefused) -> str:
    return "; ".join(
        f"{code} {text.decode(errors='replace') if isinstance(text, bytes) else text}"
        for code, text in error.recipients.values()
    )


def _finish(message: Message, status: str, *, error: str) -> None:
    Message.objects.filter(pk=message.pk).update(
        status=status,
        sent_at=timezone.now() if status == Status.SENT else None,
        lease_until=None,
        last_error=error[:2000],
    )


def _retry_later(message: Message, error: BaseException) -> None:
    attempts = Message.objects.filter(pk=message.pk).values_list("attempts", flat=True).get()
    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    Message.objects.filter(pk=message.pk).update(
        lease_until=None,
        next_attempt_at=timezone.now() + backoff(attempts),
        last_error=_("Attempt %(number)s failed: %(error)s")
        % {"number": attempts, "error": text[:1900]},
    )
