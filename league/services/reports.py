"""Results reported by players: submit, confirm, dispute, reject, withdraw.

A signed-in player reports a result they played in (``submit_report``); it is read by the
same parser as an organiser's result (``parse_match``) and checked against the same state
(``check_match_state``), then stored as a ``report_submitted`` fact: it does not count yet.
A player of another side confirms it (``confirm_report``) or disputes it
(``dispute_report``); an organiser confirms or rejects it (``reject_report``); the reporter
may take it back while it is open (``withdraw_report``). A confirmation records the match
through the event store exactly as an organiser's result, in the same transaction as the
``report_confirmed`` fact naming it.

Every step is checked on the server: a player acts only for their own player records
(``league.player_accounts.players_of``), a report is settled once. The settling facts of
one report (confirmed, rejected, withdrawn) share one idempotency key, ``report:<id>:outcome``,
and its match is stored under ``report:<id>:match``: the league lock lets one writer decide
and the unique key makes a second outcome impossible even for a writer that skipped it.

A league's ``PlayerRules`` say whether players may report at all and whether an open report
is accepted after some days without a dispute (``accept_overdue_reports``, run by Celery beat).
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from league import event_store
from league.event_store import Submission
from league.event_store.vocabulary import (
    MatchRecorded,
    ReportConfirmed,
    ReportDisputed,
    ReportRejected,
    ReportSubmitted,
    ReportWithdrawn,
)
from league.models import (
    League,
    Player,
    PlayerRules,
    Report,
    ReportPolicy,
    ReportStatus,
)
from league.player_accounts import players_of
from league.services.matches import ParsedMatch, check_match_state, parse_match
from league.sides import places_of_score
from league.validation import Errors, check_text

logger = logging.getLogger(__name__)

#: The longest reason a dispute, rejection or withdrawal may give.
REASON_MAX = 1000


def rules_of(league: League) -> PlayerRules:
    """The league's rules for players (the defaults, unsaved, when it has none stored)."""
    try:
        return league.player_rules
    except PlayerRules.DoesNotExist:
        return PlayerRules(league=league)


def outcome_key(report_id: int) -> str:
    """The idempotency key every settling fact of report ``report_id`` is stored under."""
    return f"report:{report_id}:outcome"


def match_key(report_id: int) -> str:
    """The idempotency key of the match a confirmation of report ``report_id`` records."""
    return f"report:{report_id}:match"


#: Prefixes of the keys the write side gives the facts settling reports and challenges: a
#: caller's key may not start with them, or a report could be stored under another report's
#: outcome key and block its settlement.
RESERVED_KEY_PREFIXES = ("report:", "challenge:")


def check_key_not_reserved(key: str | None, errors: Errors) -> None:
    """Refuse a caller's idempotency key shaped like one the write side makes itself."""
    if key and key.startswith(RESERVED_KEY_PREFIXES):
        errors.add(
            "idempotency_key",
            _("Idempotency keys starting with %(prefix)s are reserved; use another key."),
            "reserved_key",
            prefix=key.split(":", 1)[0] + ":",
        )


def dispute_key(report_id: int) -> str:
    """The idempotency key of a report's dispute (a report is disputed at most once)."""
    return f"report:{report_id}:dispute"


# --- who acts --------------------------------------------------------------------------------


def own_player(
    league: League, user: Any, player: Player | int | None, errors: Errors, field: str = "player"
) -> Player | None:
    """The player of ``league`` given as ``player`` (or the user's only one when None), when
    it is one of ``user``'s own player records; else None with the reason in ``errors``."""
    mine = list(players_of(user, league)) if getattr(user, "is_authenticated", False) else []
    if player is None or player == "":
        if len(mine) == 1:
            return mine[0]
        if not mine:
            errors.add(
                field, _("You have no player record in %(league)s."), "no_player", league=league
            )
        else:
            errors.add(field, _("Choose which of your players acts."), "required")
        return None
    wanted = player.pk if isinstance(player, Player) else _as_int(player)
    for candidate in mine:
        if candidate.pk == wanted:
            return candidate
    errors.add(
        field,
        _("You may act only for your own player record in %(league)s."),
        "not_your_player",
        league=league,
    )
    return None


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def clean_reason(value: Any, errors: Errors, *, required: bool) -> str:
    """A stripped reason of at most ``REASON_MAX`` characters (required when asked)."""
    reason = "" if value is None else str(value).strip()
    if required and not reason:
        errors.add("reason", _("Give a reason."), "required")
    if len(reason) > REASON_MAX:
        errors.add(
            "reason",
            _("The reason is too long (at most %(max)s characters)."),
            "too_long",
            max=REASON_MAX,
        )
    check_text(reason, errors, "reason")
    return reason


# --- reading a report as a match ---------------------------------------------------------


def report_fact(parsed: ParsedMatch, player: Player) -> ReportSubmitted:
    """The ``report_submitted`` fact of a match read by ``parse_match``, reported by
    ``player``."""
    fact = parsed.fact
    if isinstance(fact, MatchRecorded):
        sides: tuple[tuple[int, ...], ...] = ((fact.player_a_id,), (fact.player_b_id,))
        places: tuple[int, ...] = places_of_score(fact.score_a)
        neutral = fact.neutral
    else:
        sides, places, neutral = fact.sides, fact.places, False
    return ReportSubmitted(
        report_id=None,
        player_id=player.pk,
        sides=sides,
        places=places,
        played_at=fact.played_at,
        points=fact.points,
        note=fact.note,
        neutral=neutral,
    )


def report_match(league: League, report: Report, errors: Errors) -> ParsedMatch | None:
    """The match a report records, read again by the one parser of a match (the league's
    format may have changed since it was reported), under its fixed key."""
    row = {
        "sides": report.sides,
        # Finishing positions count from 1; stored places from 0.
        "places": [place + 1 for place in report.places],
        "played_at": report.played_at,
        "points": report.points,
        "note": report.note,
        "neutral": report.neutral,
        "idempotency_key": match_key(report.pk),
    }
    return parse_match(league, row, errors)


# --- services -----------------------------------------------------------------------------


def submit_report(
    league: League,
    *,
    user: Any,
    player: Player | int | None = None,
    played_at: Any,
    player_a: Any = None,
    player_b: Any = None,
    sides: Any = None,
    score_a: Any = None,
    places: Any = None,
    points: Any = "",
    note: Any = "",
    neutral: Any = False,
    idempotency_key: str | None = None,
) -> Report:
    """Report a result ``user``'s ``player`` played in, as ``record_match`` takes it.

    It waits for a player of another side (or an organiser) to confirm it. Refused when
    the league's organisers record every result, when ``player`` is not the user's own or
    did not play in it, and for every input ``record_match`` refuses.
    """
    errors = Errors()
    if rules_of(league).report_policy == ReportPolicy.ORGANISERS:
        errors.add(
            "__all__",
            _("In %(league)s the organisers record every result: players cannot report."),
            "reports_closed",
            league=league,
        )
        errors.raise_if_any()
    acting = own_player(league, user, player, errors)
    row = {
        "player_a": player_a,
        "player_b": player_b,
        "sides": sides,
        "score_a": score_a,
        "places": places,
        "played_at": played_at,
        "points": points,
        "note": note,
        "neutral": neutral,
        "idempotency_key": idempotency_key,
    }
    parsed = parse_match(league, row, errors)
    check_key_not_reserved(idempotency_key, errors)
    if (
        parsed is not None
        and acting is not None
        and acting.pk not in {member.pk for side in parsed.sides for member in side}
    ):
        errors.add(
            parsed.fields[0],
            _("You can report only a result %(player)s played in."),
            "not_a_player_of_match",
            player=acting.display_name,
        )
    errors.raise_if_any()
    assert parsed is not None
    assert acting is not None
    submission = Submission(report_fact(parsed, acting), parsed.submission.idempotency_key)
    with transaction.atomic():
        event_store.lock_league(league)
        if event_store.existing_for(league, submission) is None:
            check_match_state(league, parsed, errors)
            errors.raise_if_any()
        (event,) = event_store.append(league, [submission], recorded_by=user)
    return event.report  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class Outcome:
    """A report after an action, and whether the action stored something new (False for a
    repeat of the action that settled it: the same confirmation twice)."""

    report: Report
    stored: bool


def _locked_report(league: League, report: Report | int) -> Report:
    """The report read again under the league lock (its status is stable until commit)."""
    pk = report.pk if isinstance(report, Report) else report
    found = Report.objects.filter(league=league, pk=pk).first()
    if found is None:
        raise ValidationError(
            {"report": ValidationError(_("This league has no such report."), code="unknown")}
        )
    return found


def _settled_error(report: Report) -> ValidationError:
    return ValidationError(
        {
            "report": ValidationError(
                _("This report is already settled: %(status)s."),
                code="already_settled",
                params={"status": report.get_status_display()},
            )
        }
    )


def confirm_report(
    league: League,
    report: Report | int,
    *,
    user: Any,
    player: Player | int | None = None,
    as_organiser: bool = False,
    reason: Any = "",
) -> Outcome:
    """Confirm a report: the match is recorded and the report counts.

    A player confirms for their own player record on another side than the reporter's,
    while the report is pending; an organiser (``as_organiser``) also while it is
    disputed. Confirming a report already confirmed stores nothing (``stored`` False).
    """
    errors = Errors()
    acting = None
    if as_organiser:
        if not league.is_organiser(user):
            errors.add("__all__", _("Only an organiser of this league may do this."), "forbidden")
    else:
        acting = own_player(league, user, player, errors)
    text = clean_reason(reason, errors, required=False)
    errors.raise_if_any()
    with transaction.atomic():
        event_store.lock_league(league)
        current = _locked_report(league, report)
        if current.status == ReportStatus.CONFIRMED:
            return Outcome(current, False)
        if not current.open:
            raise _settled_error(current)
        if acting is not None:
            _check_other_side(current, acting, errors)
            if current.status == ReportStatus.DISPUTED:
                errors.add(
                    "report", _("This report is disputed: an organiser decides."), "disputed"
                )
        errors.raise_if_any()
        _record_confirmation(
            league,
            current,
            recorded_by=user,
            player_id=acting.pk if acting is not None else None,
            reason=text,
            errors=errors,
        )
    current.refresh_from_db()
    return Outcome(current, True)


def _record_confirmation(
    league: League,
    report: Report,
    *,
    recorded_by: Any,
    player_id: int | None,
    reason: str,
    errors: Errors,
) -> None:
    """Record the report's match and the ``report_confirmed`` fact naming it (under the lock)."""
    parsed = report_match(league, report, errors)
    if parsed is not None:
        check_match_state(league, parsed, errors)
    if errors:
        # The report still describes a result the league cannot take (a player deactivated
        # since, a changed format): say so on the report's field.
        found = Errors()
        for text in ValidationError(errors.by_field).messages:
            found.add("report", text, "cannot_record")
        found.raise_if_any()
    assert parsed is not None
    (match,) = event_store.append(league, [parsed.submission], recorded_by=recorded_by)
    fact = ReportConfirmed(
        report_id=report.pk, match_id=match.pk, player_id=player_id, reason=reason
    )
    event_store.append(league, [Submission(fact, outcome_key(report.pk))], recorded_by=recorded_by)


def _check_other_side(report: Report, acting: Player, errors: Errors) -> None:
    """Only a player of a side other than the reporter's answers a report."""
    side = report.side_of(acting.pk)
    if side is None:
        errors.add("player", _("%(player)s did not play in this result."), "not_in_match",
                   player=acting.display_name)  # fmt: skip
    elif side == report.side_of(report.reporter_id):
        errors.add(
            "player",
            _("A player of another side answers this report, not the reporter's side."),
            "own_side",
        )


def dispute_report(
    league: League, report: Report | int, *, user: Any, player: Player | int | None = None,
    reason: Any,
) -> Outcome:  # fmt: skip
    """A player of another side says a pending report is wrong: an organiser decides."""
    errors = Errors()
    acting = own_player(league, user, player, errors)
    text = clean_reason(reason, errors, required=True)
    errors.raise_if_any()
    assert acting is not None
    with transaction.atomic():
        event_store.lock_league(league)
        current = _locked_report(league, report)
        if current.status == ReportStatus.DISPUTED:
            return Outcome(current, False)
        if not current.open:
            raise _settled_error(current)
        _check_other_side(current, acting, errors)
        errors.raise_if_any()
        fact = ReportDisputed(report_id=current.pk, player_id=acting.pk, reason=text)
        event_store.append(league, [Submission(fact, dispute_key(current.pk))], recorded_by=user)
    current.refresh_from_db()
    return Outcome(current, True)


def reject_report(league: League, report: Report | int, *, user: Any, reason: Any) -> Outcome:
    """An organiser rejects an open report, for a reason: it never counts."""
    errors = Errors()
    if not league.is_organiser(user):
        errors.add("__all__", _("Only an organiser of this league may do this."), "forbidden")
    text = clean_reason(reason, errors, required=True)
    errors.raise_if_any()
    with transaction.atomic():
        event_store.lock_league(league)
        current = _locked_report(league, report)
        if current.status == ReportStatus.REJECTED:
            return Outcome(current, False)
        if not current.open:
            raise _settled_error(current)
        fact = ReportRejected(report_id=current.pk, reason=text)
        event_store.append(league, [Submission(fact, outcome_key(current.pk))], recorded_by=user)
    current.refresh_from_db()
    return Outcome(current, True)


def withdraw_report(
    league: League, report: Report | int, *, user: Any, player: Player | int | None = None,
    reason: Any = "",
) -> Outcome:  # fmt: skip
    """The reporter takes back an open report: it never counts."""
    errors = Errors()
    acting = own_player(league, user, player, errors)
    text = clean_reason(reason, errors, required=False)
    errors.raise_if_any()
    assert acting is not None
    with transaction.atomic():
        event_store.lock_league(league)
        current = _locked_report(league, report)
        if current.status == ReportStatus.WITHDRAWN:
            return Outcome(current, False)
        if not current.open:
            raise _settled_error(current)
        if current.reporter_id != acting.pk:
            errors.add("player", _("Only the player who reported it may withdraw it."),
                       "not_reporter")  # fmt: skip
            errors.raise_if_any()
        fact = ReportWithdrawn(report_id=current.pk, player_id=acting.pk, reason=text)
        event_store.append(league, [Submission(fact, outcome_key(current.pk))], recorded_by=user)
    current.refresh_from_db()
    return Outcome(current, True)


def accept_overdue_reports(now: dt.datetime | None = None) -> int:
    """Confirm every pending report older than its league's days without a dispute, in the
    leagues that accept reports that way. Returns how many were confirmed.

    A report that the league can no longer take (a player deactivated since) stays pending
    for an organiser; the others are not held up by it.
    """
    now = now or timezone.now()
    confirmed = 0
    for rules in PlayerRules.objects.filter(report_policy=ReportPolicy.AUTO).select_related(
        "league"
    ):
        cutoff = now - dt.timedelta(days=rules.accept_after_days)
        due = Report.objects.filter(
            league=rules.league, status=ReportStatus.PENDING, created_at__lte=cutoff
        ).order_by("created_at", "pk")
        for report in due:
            try:
                with transaction.atomic():
                    event_store.lock_league(rules.league)
                    current = _locked_report(rules.league, report)
                    if current.status != ReportStatus.PENDING:
                        continue
                    _record_confirmation(
                        rules.league,
                        current,
                        recorded_by=None,
                        player_id=None,
                        reason=f"No dispute within {rules.accept_after_days} days",
                        errors=Errors(),
                    )
            except ValidationError as error:
                logger.warning("Report %s left for an organiser: %s", report.pk, error.messages)
                continue
            confirmed += 1
    return confirmed


def open_reports_for(user: Any, league: League) -> dict[str, list[Report]]:
    """The open reports of ``user``'s players in ``league``: those they reported, and those
    waiting for their answer (a pending report naming them on another side)."""
    mine = {player.pk for player in players_of(user, league)}
    if not mine:
        return {"reported": [], "waiting": []}
    reported, waiting = [], []
    for report in Report.objects.filter(
        league=league, status__in=[ReportStatus.PENDING, ReportStatus.DISPUTED]
    ).order_by("-created_at", "-pk"):
        if report.reporter_id in mine:
            reported.append(report)
            continue
        reporter_side = report.side_of(report.reporter_id)
        if (
            any(report.side_of(pid) not in (None, reporter_side) for pid in mine)
            and report.status == ReportStatus.PENDING
        ):
            waiting.append(report)
    return {"reported": reported, "waiting": waiting}
