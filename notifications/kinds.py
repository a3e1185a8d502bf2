"""Every kind of message, one entry each: who gets it, under which topic, and what it says.

An entry for a kind of fact (``league.event_store.vocabulary``) is keyed by the fact's
``kind``: ``recipients`` names the players it concerns (their accounts get the e-mail) and
``webhook`` the league webhook call it joins ("results", "fixtures" or none). Kinds that no
fact starts (the deadline reminder, the weekly digest) have no ``recipients``; a sweep in
``notifications.sweeps`` writes them. A new kind of fact plugs in by adding one ``Kind`` to
``KINDS`` and its template under ``templates/notifications/mail/``.

Context builders read the rows when the message is sent: names are as the league shows them
then, numbers are the ones stored with the message (a rating before and after a result).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from league.event_store.vocabulary import (
    FixtureCancelled,
    FixtureRescheduled,
    FixtureScheduled,
    MatchRecorded,
    MatchVoided,
    SideMatchRecorded,
)
from league.models import Event, Fixture, MatchParticipant, Player
from notifications.models import Message, Topic
from notifications.times import local_time

#: The players a stored event concerns, by their ids.
Recipients = Callable[[Event], Iterable[int]]


@dataclass(frozen=True)
class Kind:
    """One kind of message.

    ``subject`` and ``context`` take the message being sent (``context`` returns what its
    template reads besides the common part); ``waits_for_ratings`` holds a result's message
    until the standings that include it are published, so it can tell the rating change.
    """

    key: str
    topic: str
    subject: Callable[[Message, dict[str, Any]], str]
    context: Callable[[Message], dict[str, Any]]
    recipients: Recipients | None = None
    webhook: str | None = None
    waits_for_ratings: bool = False

    @property
    def template(self) -> str:
        return f"notifications/mail/{self.key}.txt"


# --- who an event concerns -----------------------------------------------------------------


def _match_players(event: Event) -> list[int]:
    if event.kind == Event.Kind.SIDE_MATCH_RECORDED:
        return list(
            MatchParticipant.objects.filter(event=event).values_list("player_id", flat=True)
        )
    return [event.player_a_id, event.player_b_id]


def _voided_match_players(event: Event) -> list[int]:
    voided = Event.objects.filter(pk=event.voids_id).first()
    return _match_players(voided) if voided is not None else []


def _fixture_players(event: Event) -> list[int]:
    fixture = Fixture.objects.filter(pk=event.fixture_id).values_list("player_a", "player_b")
    return [player for pair in fixture for player in pair]


# --- what a message says -------------------------------------------------------------------


def _names(player_ids: Iterable[int]) -> dict[int, str]:
    return dict(Player.objects.filter(pk__in=list(player_ids)).values_list("pk", "display_name"))


def _outcome(score: Any) -> str:
    if score is None:
        return ""
    return {1: _("won"), 0: _("lost")}.get(float(score), _("drew"))  # type: ignore[call-overload]


def match_context(message: Message, event: Event | None = None) -> dict[str, Any]:
    """A match from the recipient's side: the others, how it went, the rating change."""
    event = event or message.event
    assert event is not None
    league, me = message.league, message.player_id
    context: dict[str, Any] = {"played_at": local_time(league, event.played_at)}
    context["points"] = event.points
    if event.kind == Event.Kind.SIDE_MATCH_RECORDED:
        rows = list(
            MatchParticipant.objects.filter(event=event).values_list("side", "player_id", "place")
        )
        names = _names(player for _side, player, _place in rows)
        mine = next((side for side, player, _place in rows if player == me), None)
        sides: dict[int, dict[str, Any]] = {}
        for side, player, place in rows:
            entry = sides.setdefault(side, {"names": [], "place": place + 1, "mine": side == mine})
            entry["names"].append(names.get(player, ""))
        context["sides"] = [sides[key] for key in sorted(sides)]
        context["opponents"] = ", ".join(
            " & ".join(side["names"]) for side in context["sides"] if not side["mine"]
        )
        if len(sides) == 2 and mine is not None and event.score_a is not None:
            context["outcome"] = _outcome(event.score_a if mine == 0 else 1 - event.score_a)
    else:
        names = _names([event.player_a_id, event.player_b_id])
        first = me == event.player_a_id
        other = event.player_b_id if first else event.player_a_id
        context["opponents"] = names.get(other, "")
        context["outcome"] = _outcome(event.score_a if first else 1 - event.score_a)
        if event.points:
            # The score read from the recipient's side: "1-3" for the first-named player is
            # "3-1" for the other (written with an en dash, as the pages do).
            parts = event.points.replace("\u2013", "-").split("-")
            if len(parts) == 2:
                context["points"] = "\u2013".join(parts if first else reversed(parts))
    before, after = message.params.get("before"), message.params.get("after")
    if before is not None and after is not None:
        context["rating_before"] = before["rating"]
        context["rating_after"] = after["rating"]
        context["rating_change"] = signed(after["rating"] - before["rating"])
        context["interval_after"] = 1.96 * after["rd"]
    elif after is not None:
        context["rating_after"] = after["rating"]
        context["interval_after"] = 1.96 * after["rd"]
    return context


def signed(change: float) -> str:
    """A rating change as text, to one decimal with its sign; a change that rounds to zero
    is a plain "0.0" (never "-0.0")."""
    text = f"{change:+.1f}"
    return "0.0" if float(text) == 0 else text


def _match_subject(message: Message, context: dict[str, Any]) -> str:
    return _("Result in %(league)s: you %(outcome)s against %(opponents)s") % {
        "league": message.league.name if message.league else "",
        "outcome": context.get("outcome") or _("played"),
        "opponents": context.get("opponents", ""),
    }


def _void_context(message: Message) -> dict[str, Any]:
    assert message.event is not None
    voided = Event.objects.filter(pk=message.event.voids_id).first()
    context = match_context(message, voided) if voided is not None else {}
    context["reason"] = message.event.reason
    return context


def _void_subject(message: Message, context: dict[str, Any]) -> str:
    return _("Result voided in %(league)s: your match against %(opponents)s") % {
        "league": message.league.name if message.league else "",
        "opponents": context.get("opponents", ""),
    }


def fixture_context(message: Message, fixture_id: int | None = None) -> dict[str, Any]:
    """A fixture from the recipient's side: the opponent, when, where, by when."""
    fixture_id = fixture_id or (message.event.fixture_id if message.event else None)
    fixture = Fixture.objects.filter(pk=fixture_id).first()
    if fixture is None:
        return {}
    other = fixture.player_b_id if message.player_id == fixture.player_a_id else fixture.player_a_id
    return {
        "fixture": fixture,
        "opponents": _names([other]).get(other, ""),
        "scheduled_at": local_time(message.league, fixture.scheduled_at),
        "reason": message.event.reason if message.event else "",
    }


def _fixture_subject(text: Any) -> Callable[[Message, dict[str, Any]], str]:
    def subject(message: Message, context: dict[str, Any]) -> str:
        return str(text) % {
            "league": message.league.name if message.league else "",
            "opponents": context.get("opponents", ""),
        }

    return subject


def _reminder_context(message: Message) -> dict[str, Any]:
    return fixture_context(message, message.params.get("fixture_id"))


def _digest_context(message: Message) -> dict[str, Any]:
    from notifications.digest import digest_context

    return digest_context(message)


KINDS: dict[str, Kind] = {
    kind.key: kind
    for kind in (
        Kind(
            MatchRecorded.kind,
            Topic.RESULT,
            _match_subject,
            match_context,
            recipients=_match_players,
            webhook="results",
            waits_for_ratings=True,
        ),
        Kind(
            SideMatchRecorded.kind,
            Topic.RESULT,
            _match_subject,
            match_context,
            recipients=_match_players,
            webhook="results",
            waits_for_ratings=True,
        ),
        Kind(
            MatchVoided.kind,
            Topic.RESULT,
            _void_subject,
            _void_context,
            recipients=_voided_match_players,
            webhook="results",
            waits_for_ratings=True,
        ),
        Kind(
            FixtureScheduled.kind,
            Topic.FIXTURE,
            _fixture_subject(gettext_lazy("New fixture in %(league)s: you play %(opponents)s")),
            fixture_context,
            recipients=_fixture_players,
            webhook="fixtures",
        ),
        Kind(
            FixtureRescheduled.kind,
            Topic.FIXTURE,
            _fixture_subject(gettext_lazy("Fixture moved in %(league)s: you play %(opponents)s")),
            fixture_context,
            recipients=_fixture_players,
            webhook="fixtures",
        ),
        Kind(
            FixtureCancelled.kind,
            Topic.FIXTURE,
            _fixture_subject(
                gettext_lazy("Fixture cancelled in %(league)s: against %(opponents)s")
            ),
            fixture_context,
            recipients=_fixture_players,
            webhook="fixtures",
        ),
        Kind(
            "fixture_reminder",
            Topic.REMINDER,
            _fixture_subject(
                gettext_lazy("Reminder from %(league)s: your game against %(opponents)s")
            ),
            _reminder_context,
        ),
        Kind(
            "weekly_digest",
            Topic.DIGEST,
            lambda message, context: _("Your week in your leagues"),
            _digest_context,
        ),
    )
}
