"""One call of a league's webhook: the body (built when it is sent, from the events it
names), the signature, the attempt and its record.

A receiver that answers 2xx has the call; any other answer, a timeout or a refused
connection leaves it pending for another attempt (the task's back-off, then the sweep); an
address that has become unsafe, or a webhook switched off or removed, ends it as failed.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.conf import settings
from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _

from league.fixtures import fixture_sides
from league.models import Event, Fixture, FixtureSide, MatchParticipant, Player
from notifications.mail import Sent, backoff, claim
from notifications.models import Status, Webhook, WebhookDelivery
from notifications.times import local_time
from notifications.webhooks import (
    UnsafeAddress,
    clip,
    encode,
    now_timestamp,
    post,
    signed_headers,
)


class TransientWebhookError(Exception):
    """The receiver did not take the call now; it stays pending."""


_SCORES = {Decimal("1"): "1\u20130", Decimal("0.5"): "\u00bd\u2013\u00bd", Decimal("0"): "0\u20131"}


def _when(league: Any, moment: Any) -> str:
    local = local_time(league, moment)
    return formats.date_format(local, "D j M Y H:i") if local else ""


def describe(event: Event, names: dict[int, str]) -> tuple[dict[str, Any], str]:
    """An event as structured fields and as one line of text."""
    league = event.league
    item: dict[str, Any] = {"seq": event.seq, "kind": event.kind}
    if event.kind == Event.Kind.MATCH_RECORDED:
        a, b = names.get(event.player_a_id, ""), names.get(event.player_b_id, "")
        score = event.points or _SCORES.get(event.score_a, "")
        item.update(
            played_at=event.played_at.isoformat(),
            sides=[
                {"players": [a], "score": float(event.score_a)},
                {"players": [b], "score": float(1 - event.score_a)},
            ],
            points=event.points,
        )
        return item, f"{a} {score} {b}"
    if event.kind == Event.Kind.SIDE_MATCH_RECORDED:
        sides: dict[int, dict[str, Any]] = {}
        for side, player, place in MatchParticipant.objects.filter(event=event).values_list(
            "side", "player_id", "place"
        ):
            entry = sides.setdefault(side, {"players": [], "place": place + 1})
            entry["players"].append(names.get(player, ""))
        ordered = [sides[key] for key in sorted(sides)]
        item.update(played_at=event.played_at.isoformat(), sides=ordered, points=event.points)
        teams = [" & ".join(side["players"]) for side in ordered]
        if len(ordered) == 2:
            score = event.points or _SCORES.get(event.score_a, "")
            return item, f"{teams[0]} {score} {teams[1]}"
        ranking = sorted(zip(ordered, teams, strict=True), key=lambda pair: pair[0]["place"])
        return item, ", ".join(f"{side['place']}. {team}" for side, team in ranking)
    if event.kind == Event.Kind.MATCH_VOIDED:
        voided = Event.objects.select_related("league").filter(pk=event.voids_id).first()
        inner, text = describe(voided, names) if voided is not None else ({}, "")
        item.update(voided=inner, reason=event.reason)
        return item, _("voided: %(match)s (%(reason)s)") % {"match": text, "reason": event.reason}
    fixture = Fixture.objects.filter(pk=event.fixture_id).first()
    if fixture is None:
        return item, ""
    sides = fixture_sides(fixture)
    teams = [" & ".join(names.get(player, "") for player in side) for side in sides]
    a, b = teams[0], " v ".join(teams[1:])
    item.update(
        fixture_id=fixture.pk,
        players=[a, b] if len(sides) == 2 else teams,
        scheduled_at=fixture.scheduled_at.isoformat(),
        deadline=fixture.deadline.isoformat(),
        venue=fixture.venue,
        label=fixture.label,
    )
    if teams != [names.get(fixture.player_a_id, ""), names.get(fixture.player_b_id, "")]:
        # A fixture with sides: each side's players too ("players" holds the sides' names).
        item["sides"] = [[names.get(player, "") for player in side] for side in sides]
    text = _("%(a)s v %(b)s, %(when)s") % {
        "a": a,
        "b": b,
        "when": _when(league, fixture.scheduled_at),
    }
    if fixture.venue:
        text += f", {fixture.venue}"
    if fixture.label:
        text += f" ({fixture.label})"
    if event.kind == Event.Kind.FIXTURE_RESCHEDULED:
        text = _("moved: %(fixture)s") % {"fixture": text}
    elif event.kind == Event.Kind.FIXTURE_CANCELLED:
        text = _("cancelled: %(fixture)s") % {"fixture": text}
    return item, text


def _player_ids(events: list[Event]) -> set[int]:
    ids: set[int] = set()
    voided = [event.voids_id for event in events if event.voids_id]
    all_events = events + list(Event.objects.filter(pk__in=voided))
    for event in all_events:
        ids.update(pk for pk in (event.player_a_id, event.player_b_id) if pk)
    ids.update(
        MatchParticipant.objects.filter(event__in=all_events).values_list("player_id", flat=True)
    )
    fixtures = [event.fixture_id for event in events if event.fixture_id]
    for pair in Fixture.objects.filter(pk__in=fixtures).values_list("player_a", "player_b"):
        ids.update(pair)
    ids.update(
        FixtureSide.objects.filter(fixture_id__in=fixtures).values_list("player_id", flat=True)
    )
    return ids


def payload(delivery: WebhookDelivery, timestamp: int) -> dict[str, Any]:
    """The JSON body of ``delivery``, as of now."""
    league = delivery.league
    url = f"{settings.SITE_URL}{league.get_absolute_url()}"
    events = list(
        Event.objects.select_related("league").filter(pk__in=delivery.event_ids).order_by("seq")
    )
    names = dict(
        Player.objects.filter(pk__in=_player_ids(events)).values_list("pk", "display_name")
    )
    described = [describe(event, names) for event in events]
    with translation.override(settings.LANGUAGE_CODE):
        if delivery.kind == WebhookDelivery.Kind.TEST:
            heading = _("Test from %(league)s: the webhook works.") % {"league": league.name}
        elif delivery.kind == WebhookDelivery.Kind.FIXTURES:
            heading = _("New fixtures in %(league)s:") % {"league": league.name}
        elif "count" in delivery.params:
            heading = _("%(count)s results recorded in %(league)s.") % {
                "count": delivery.params["count"],
                "league": league.name,
            }
        else:
            heading = _("New results in %(league)s:") % {"league": league.name}
        lines = [heading, *(f"\u2022 {text}" for _item, text in described if text), url]
    text = clip("\n".join(lines))
    return {
        "text": text,
        "content": text,
        "kind": delivery.kind,
        "league": {"slug": league.slug, "name": league.name, "url": url},
        "events": [item for item, _text in described],
        "count": delivery.params.get("count", len(described)),
        "delivery": delivery.pk,
        "timestamp": timestamp,
    }


def deliver_webhook(delivery_id: int) -> Sent:
    """One attempt at webhook call ``delivery_id``; raises ``TransientWebhookError`` when
    the receiver did not take it (the row says why and when it is due again)."""
    if not claim(WebhookDelivery, delivery_id):
        return Sent.BUSY
    delivery = WebhookDelivery.objects.select_related("league").get(pk=delivery_id)
    webhook = Webhook.objects.filter(league_id=delivery.league_id).first()
    if webhook is None or (not webhook.active and delivery.kind != WebhookDelivery.Kind.TEST):
        _finish(delivery, Status.SKIPPED, error=_("The webhook is off or removed."))
        return Sent.SKIPPED
    timestamp = now_timestamp()
    body = encode(payload(delivery, timestamp))
    try:
        answer = post(webhook.url, body, signed_headers(webhook.secret, body, timestamp))
    except UnsafeAddress as error:
        _finish(delivery, Status.FAILED, error=str(error))
        return Sent.FAILED
    except OSError as error:
        _retry_later(delivery, f"{type(error).__name__}: {error}", None)
        raise TransientWebhookError(str(error)) from error
    if not 200 <= answer.status < 300:
        _retry_later(
            delivery,
            _("The receiver answered %(status)s.") % {"status": answer.status},
            answer.status,
        )
        raise TransientWebhookError(f"HTTP {answer.status}")
    _finish(delivery, Status.SENT, error="", status=answer.status)
    return Sent.SENT


def _finish(
    delivery: WebhookDelivery, state: str, *, error: str, status: int | None = None
) -> None:
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status=state,
        sent_at=timezone.now() if state == Status.SENT else None,
        lease_until=None,
        last_error=error[:2000],
        response_status=status,
    )


def _retry_later(delivery: WebhookDelivery, error: str, status: int | None) -> None:
    attempts = (
        WebhookDelivery.objects.filter(pk=delivery.pk).values_list("attempts", flat=True).get()
    )
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        lease_until=None,
        next_attempt_at=timezone.now() + backoff(attempts),
        last_error=error[:2000],
        response_status=status,
    )
