"""Celery tasks of the notifications app: sending, and the sweeps beat runs.

``send_message`` and ``send_webhook`` take one outbox row's id and retry with exponential
back-off when the server or receiver does not take it (``autoretry_for``); after
``NOTIFY_TASK_RETRIES`` the row waits for ``resend_waiting``, which beat runs every
``NOTIFY_RESEND_SECONDS``: it sends every row that is due (its task lost with a broker
outage, a killed worker, retries spent), releases results that waited too long for their
standings, and gives up rows older than ``NOTIFY_GIVE_UP_HOURS``.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable

from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from notifications import sweeps
from notifications.deliveries import TransientWebhookError, deliver_webhook
from notifications.mail import TransientMailError, deliver_message
from notifications.models import Message, Status, WebhookDelivery

logger = logging.getLogger(__name__)

#: Seconds a new row is left to the task its commit sent before the sweep sends it too.
GRACE = dt.timedelta(seconds=30)
#: Most rows one sweep sends (the rest are due at the next).
SWEEP_BATCH = 500

_RETRYING = {
    "acks_late": True,
    "ignore_result": True,
    "retry_backoff": 5,
    "retry_backoff_max": 600,
    "retry_jitter": True,
    "max_retries": settings.NOTIFY_TASK_RETRIES,
}


@shared_task(autoretry_for=(TransientMailError,), **_RETRYING)
def send_message(*, message_id: int) -> str:
    """Send outbox message ``message_id`` (``notifications.mail.deliver_message``)."""
    return str(deliver_message(message_id))


@shared_task(autoretry_for=(TransientWebhookError,), **_RETRYING)
def send_webhook(*, delivery_id: int) -> str:
    """Make webhook call ``delivery_id`` (``notifications.deliveries.deliver_webhook``)."""
    return str(deliver_webhook(delivery_id))


def queue_messages(dedupe_keys: Iterable[str]) -> None:
    """Send the tasks of the pending messages among ``dedupe_keys`` (after the commit)."""
    pending = Message.objects.filter(dedupe_key__in=list(dedupe_keys), status=Status.PENDING)
    _queue(send_message, "message_id", pending.values_list("pk", flat=True))


def queue_deliveries(delivery_ids: Iterable[int]) -> None:
    """Send the tasks of webhook calls ``delivery_ids`` (after the commit)."""
    _queue(send_webhook, "delivery_id", delivery_ids)


def _queue(task, name: str, ids: Iterable[int]) -> None:  # type: ignore[no-untyped-def]
    for pk in ids:
        try:
            task.apply_async(kwargs={name: pk})
        except Exception:
            # The row waits for the sweep; one failed send must not hold back the others
            # (nor, with eager tasks, a mail server's failure the writer that committed).
            logger.exception("Could not send %s %s now; the sweep sends it later.", name, pk)


def release(held: list[Message], after: dict[int, dict]) -> None:
    """Make ``held`` messages pending, with the ratings in ``after`` (by player) stored."""
    now = timezone.now()
    for message in held:
        if message.player_id in after:
            message.params = {**message.params, "after": after[message.player_id]}
        message.status = Status.PENDING
        message.next_attempt_at = now
    Message.objects.bulk_update(held, ["params", "status", "next_attempt_at"])
    keys = [message.dedupe_key for message in held]
    transaction.on_commit(lambda: queue_messages(keys), robust=True)


def _due(model: type, now: dt.datetime) -> list[int]:
    return list(
        model.objects.filter(
            status=Status.PENDING, next_attempt_at__lte=now, created_at__lte=now - GRACE
        )
        .filter(Q(lease_until__isnull=True) | Q(lease_until__lt=now))
        .order_by("next_attempt_at", "pk")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )


@shared_task(ignore_result=True)
def resend_waiting() -> dict[str, int]:
    """Release results held too long, give up what is too old, send what is due."""
    now = timezone.now()
    wait = dt.timedelta(seconds=settings.NOTIFY_RATING_WAIT_SECONDS)
    with transaction.atomic():
        held = list(
            Message.objects.select_for_update().filter(
                status=Status.HELD, created_at__lt=now - wait
            )[:SWEEP_BATCH]
        )
        if held:
            release(held, {})
    too_old = now - dt.timedelta(hours=settings.NOTIFY_GIVE_UP_HOURS)
    given_up = _("Not sent within %(hours)s hours: given up.") % {
        "hours": settings.NOTIFY_GIVE_UP_HOURS
    }
    expired = 0
    for model in (Message, WebhookDelivery):
        expired += model.objects.filter(status=Status.PENDING, created_at__lt=too_old).update(
            status=Status.FAILED, last_error=given_up, lease_until=None
        )
    messages = _due(Message, now)
    deliveries = _due(WebhookDelivery, now)
    _queue(send_message, "message_id", messages)
    _queue(send_webhook, "delivery_id", deliveries)
    if messages or deliveries or expired:
        logger.info(
            "Sweep: %s message(s) and %s webhook call(s) sent again, %s given up.",
            len(messages),
            len(deliveries),
            expired,
        )
    return {"released": len(held), "messages": len(messages), "webhooks": len(deliveries)}


@shared_task(ignore_result=True)
def write_reminders() -> int:
    """Write and send the reminders due now (``notifications.sweeps``)."""
    keys = sweeps.write_reminders(timezone.now())
    queue_messages(keys)
    return len(keys)


@shared_task(ignore_result=True)
def write_digests() -> int:
    """Write and send this week's digests once they are due (``notifications.sweeps``)."""
    keys = sweeps.write_digests(timezone.now())
    queue_messages(keys)
    return len(keys)
