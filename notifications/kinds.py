"""Every kind of message, one entry each: who gets it, under which topic, and what it says.

An entry for a kind of fact (``league.event_store.vocabulary``) is keyed by the fact's
``kind``: ``recipients`` names the players it concerns (their accounts get the e-mail) and
``webhook`` the league webhook call it joins ("results", "fixtures" or none); ``accounts``
names accounts it concerns as themselves rather than through a player (a league's
organisers, told of a disputed report). Kinds that no fact starts (the deadline reminders,
the weekly digest) have neither; a sweep in ``notifications.sweeps`` writes them. A new
kind of fact plugs in by adding one ``Kind`` to ``KINDS`` and its template under
``templates/notifications/mail/``.

Context builders read the rows when the message is sent: names are as the league shows them
then, numbers are the ones stored with the message (a rating before and after a result).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils import formats
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from league.event_store.vocabulary import (
    ChallengeAccepted,
    ChallengeDeclined,
    ChallengeIssued,
    FixtureCancelled,
    FixtureRescheduled,
    FixtureScheduled,
    MatchRecorded,
    MatchVoided,
    ReportDisputed,
    ReportSubmitted,
    SideMatchRecorded,
)
from league.fixtures import fixture_sides
from league.models import Challenge, Event, Fixture, MatchParticipant, Player, Report
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
    accounts: Recipients | None = None
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
    """Every player of the fixture: its two players, or everyone on its sides."""
    fixture = Fixture.objects.filter(pk=event.fixture_id).first()
    if fixture is None:
        return []
    return [player for side in fixture_sides(fixture) for player in side]


def _report_others(event: Event) -> list[int]:
    """The players of the sides other than the reporter's: theirs is the confirmation."""
    report = Report.objects.filter(pk=event.report_id).first()
    if report is None:
        return []
    mine = report.side_of(report.reporter_id)
    return [player for index, side in enumerate(report.sides) if index != mine for player in side]


def _organisers(event: Event) -> list[int]:
    return list(event.league.organisers.values_list("pk", flat=True))


def _challenge_player(role: str) -> Recipients:
    def recipients(event: Event) -> list[int]:
        found = Challenge.objects.filter(pk=event.challenge_id).values_list(f"{role}_id", flat=True)
        return list(found)

    return recipients


# --- what a message says -------------------------------------------------------------------


def _names(player_ids: Iterable[int]) -> dict[int, str]:
    return dict(Player.objects.filter(pk__in=list(player_ids)).values_list("pk", "display_name"))


def _outcome(score: Any) -> str:
    """How a game went for the recipient: "won", "lost", "drew" (a key, not text: each
    sentence that tells it is written whole for each, so translations read naturally)."""
    if score is None:
        return ""
    return {1: "won", 0: "lost"}.get(float(score), "drew")  # type: ignore[call-overload]


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
    """A rating change as text in the active language, to one decimal with its sign ("+12.5",
    "+12,5" in German); a change that rounds to zero is a plain "0.0" (never "-0.0")."""
    rounded = float(f"{change:.1f}")
    if rounded == 0:
        return formats.number_format(0.0, 1)
    return ("+" if rounded > 0 else "-") + formats.number_format(abs(rounded), 1)


def _match_subject(message: Message, context: dict[str, Any]) -> str:
    texts = {
        "won": _("Result in %(league)s: you won against %(opponents)s"),
        "lost": _("Result in %(league)s: you lost against %(opponents)s"),
        "drew": _("Result in %(league)s: you drew against %(opponents)s"),
    }
    text = texts.get(
        context.get("outcome", ""), _("Result in %(league)s: you played %(opponents)s")
    )
    return text % {
        "league": message.league.name if message.league else "",
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
    # The recipient's opponents: the other player, or the players of the other sides.
    sides = fixture_sides(fixture)
    others = [side for side in sides if message.player_id not in side]
    names = _names(player for side in others for player in side)
    return {
        "fixture": fixture,
        "opponents": ", ".join(
            " & ".join(names.get(player, "") for player in side) for side in others
        ),
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


def _sides_text(sides: list[list[int]], names: dict[int, str]) -> list[str]:
    return [" & ".join(names.get(player, "") for player in side) for side in sides]


def report_context(message: Message, report: Report | None = None) -> dict[str, Any]:
    """A reported result: who reported it, the sides in their places, the score, when,
    and where to confirm or dispute it (or, for organisers, to decide it)."""
    if report is None:
        event = message.event
        report = Report.objects.filter(pk=event.report_id).first() if event else None
    if report is None:
        return {}
    names = _names([*report.player_ids, report.reporter_id])
    sides = _sides_text(report.sides, names)
    places = [place + 1 for place in report.places]
    mine = report.side_of(message.player_id) if message.player_id else None
    context: dict[str, Any] = {
        "report": report,
        "reporter": names.get(report.reporter_id, ""),
        "standings": [
            {"place": place, "names": side}
            for place, side in sorted(zip(places, sides, strict=True), key=lambda row: row[0])
        ],
        "opponents": ", ".join(side for index, side in enumerate(sides) if index != mine),
        "played_at": local_time(message.league, report.played_at),
        "points": report.points,
        "note": report.note,
        "my_games_url": site_path("workspace:my_games", message.league),
        "reports_url": site_path("workspace:reports", message.league),
    }
    return context


def _dispute_context(message: Message) -> dict[str, Any]:
    event = message.event
    assert event is not None
    context = report_context(message, Report.objects.filter(pk=event.report_id).first())
    disputer = event.player_id
    context["disputer"] = _names([disputer]).get(disputer, "") if disputer else ""
    context["reason"] = event.reason
    return context


def challenge_context(message: Message, challenge: Challenge | None = None) -> dict[str, Any]:
    """A challenge: who challenged whom, the day to answer by, and the fixture an
    acceptance scheduled."""
    if challenge is None:
        challenge_id = message.event.challenge_id if message.event else None
        challenge_id = challenge_id or message.params.get("challenge_id")
        challenge = Challenge.objects.filter(pk=challenge_id).first()
    if challenge is None:
        return {}
    names = _names([challenge.challenger_id, challenge.challenged_id])
    context: dict[str, Any] = {
        "challenge": challenge,
        "challenger": names.get(challenge.challenger_id, ""),
        "challenged": names.get(challenge.challenged_id, ""),
        "respond_by": challenge.respond_by,
        "reason": message.event.reason if message.event else "",
        "my_games_url": site_path("workspace:my_games", message.league),
    }
    if challenge.fixture_id is not None:
        fixture = Fixture.objects.filter(pk=challenge.fixture_id).first()
        context["fixture"] = fixture
        context["scheduled_at"] = (
            local_time(message.league, fixture.scheduled_at) if fixture else None
        )
    return context


def site_path(name: str, league: Any) -> str:
    """The full address of the league's page ``name`` (empty without a league)."""
    if league is None:
        return ""
    return f"{settings.SITE_URL}{reverse(name, args=[league.slug])}"


def _league_subject(text: Any, who: str) -> Callable[[Message, dict[str, Any]], str]:
    """A subject naming the league and the person ``who`` names in the context."""

    def subject(message: Message, context: dict[str, Any]) -> str:
        return str(text) % {
            "league": message.league.name if message.league else "",
            "name": context.get(who, ""),
        }

    return subject


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
            ReportSubmitted.kind,
            Topic.CONFIRM,
            _league_subject(
                gettext_lazy("Result to confirm in %(league)s: reported by %(name)s"), "reporter"
            ),
            report_context,
            recipients=_report_others,
        ),
        Kind(
            ReportDisputed.kind,
            Topic.CONFIRM,
            _league_subject(
                gettext_lazy("Reported result disputed in %(league)s by %(name)s"), "disputer"
            ),
            _dispute_context,
            accounts=_organisers,
        ),
        Kind(
            ChallengeIssued.kind,
            Topic.CHALLENGE,
            _league_subject(
                gettext_lazy("Challenge in %(league)s: %(name)s challenges you"), "challenger"
            ),
            challenge_context,
            recipients=_challenge_player("challenged"),
        ),
        Kind(
            ChallengeAccepted.kind,
            Topic.CHALLENGE,
            _league_subject(
                gettext_lazy("Challenge accepted in %(league)s: %(name)s plays you"), "challenged"
            ),
            challenge_context,
            recipients=_challenge_player("challenger"),
        ),
        Kind(
            ChallengeDeclined.kind,
            Topic.CHALLENGE,
            _league_subject(
                gettext_lazy("Challenge declined in %(league)s by %(name)s"), "challenged"
            ),
            challenge_context,
            recipients=_challenge_player("challenger"),
        ),
        Kind(
            "challenge_reminder",
            Topic.REMINDER,
            _league_subject(
                gettext_lazy("Reminder from %(league)s: answer %(name)s's challenge"), "challenger"
            ),
            challenge_context,
        ),
        Kind(
            "weekly_digest",
            Topic.DIGEST,
            lambda message, context: _("Your week in your leagues"),
            _digest_context,
        ),
    )
}
