"""What the site tells people, and how far each message got.

``Message`` is the outbox of e-mail: a row is written in the transaction that stores the
fact it announces (so a message exists exactly when its fact does), then sent by a Celery
task and marked sent. Rows hold ids and numbers, never names or addresses: the text is
rendered when the message is sent, so erasing a player's name leaves no copy of it here.
``WebhookDelivery`` is the same for a league's webhook. ``Preference`` rows hold what an
account changed from the defaults (``notifications.preferences``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from league.models import Event, League, Player


class Topic(models.TextChoices):
    """What a message is about: the unit of a preference and of an unsubscribe link."""

    FIXTURE = "fixture", _("New fixtures and pairings, and changes to them")
    CONFIRM = "confirm", _("A result waiting for my confirmation")
    RESULT = "result", _("My confirmed results and the rating change they caused")
    CHALLENGE = "challenge", _("Challenges")
    REMINDER = "reminder", _("A reminder before a deadline")
    DIGEST = "digest", _("A weekly digest of my leagues")


class Status(models.TextChoices):
    """Where a message (or a webhook call) is on its way out."""

    HELD = "held", _("waiting for the standings")
    PENDING = "pending", _("waiting to be sent")
    SENT = "sent", _("sent")
    SKIPPED = "skipped", _("not sent (unsubscribed or no address)")
    FAILED = "failed", _("given up")


class Message(models.Model):
    """One e-mail to one account (the outbox).

    ``kind`` names its entry in ``notifications.kinds`` (the template and its context);
    ``params`` the ids and numbers it is rendered from. ``dedupe_key`` makes writing it
    twice (a retried sweep, a redelivered task) write nothing. ``lease_until`` is the claim
    of the task sending it, so that two tasks never send it at once; ``next_attempt_at`` the
    earliest time the sweep sends it again after a failure. A result's message is ``HELD``
    until the standings that include ``awaits_seq`` are published.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="messages_to"
    )
    league = models.ForeignKey(
        League, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    event = models.ForeignKey(
        Event, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    kind = models.CharField(max_length=40)
    topic = models.CharField(max_length=16, choices=Topic.choices)
    params = models.JSONField(default=dict, blank=True)
    dedupe_key = models.CharField(max_length=200, unique=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    awaits_seq = models.PositiveBigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    attempts = models.PositiveIntegerField(default=0)
    lease_until = models.DateTimeField(null=True, blank=True)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    last_error = models.TextField(blank=True)
    message_id = models.CharField(max_length=200, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["status", "next_attempt_at"], name="message_status_due"),
            models.Index(fields=["league", "status", "awaits_seq"], name="message_held"),
        ]

    def __str__(self) -> str:
        return gettext("%(kind)s to user %(user)s (%(status)s)") % {
            "kind": self.kind,
            "user": self.user_id,
            "status": self.get_status_display(),
        }


class Preference(models.Model):
    """An account's choice for one topic: for every league (``league`` empty) or one league.

    A league's row wins over the account's; with neither, the topic's default applies.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="message_preferences"
    )
    league = models.ForeignKey(
        League, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    topic = models.CharField(max_length=16, choices=Topic.choices)
    enabled = models.BooleanField()
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "topic"],
                condition=Q(league__isnull=True),
                name="preference_one_per_account_topic",
            ),
            models.UniqueConstraint(
                fields=["user", "league", "topic"],
                condition=Q(league__isnull=False),
                name="preference_one_per_league_topic",
            ),
            models.CheckConstraint(
                condition=Q(topic__in=Topic.values), name="preference_topic_known"
            ),
        ]

    def __str__(self) -> str:
        if self.enabled:
            text = gettext("user %(user)s, %(topic)s: on")
        else:
            text = gettext("user %(user)s, %(topic)s: off")
        return text % {"user": self.user_id, "topic": self.get_topic_display()}


class Webhook(models.Model):
    """A league's webhook: where its new results and fixtures are posted, and the secret the
    body is signed with (``notifications.webhooks``)."""

    league = models.OneToOneField(
        League, on_delete=models.CASCADE, primary_key=True, related_name="webhook"
    )
    url = models.URLField(max_length=500)
    secret = models.CharField(max_length=200)
    active = models.BooleanField(default=True)
    updated_at = models.DateTimeField(default=timezone.now)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    def __str__(self) -> str:
        return gettext("%(league)s: webhook") % {"league": self.league}


class WebhookDelivery(models.Model):
    """One call of a league's webhook (the outbox of webhooks): the events it announces by
    id, rendered and signed when it is sent."""

    class Kind(models.TextChoices):
        RESULTS = "results", _("new results")
        FIXTURES = "fixtures", _("new fixtures")
        TEST = "test", _("test")

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    event_ids = models.JSONField(default=list, blank=True)
    params = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(default=timezone.now)
    attempts = models.PositiveIntegerField(default=0)
    lease_until = models.DateTimeField(null=True, blank=True)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    last_error = models.TextField(blank=True)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["status", "next_attempt_at"], name="webhook_status_due"),
        ]

    def __str__(self) -> str:
        return f"{self.league}: {self.kind} ({self.status})"
