"""Challenges between players: issue, accept, decline, expire (a write service).

It lives with the read side because its rule reads the standings (the write side,
``league``, never imports ``ratings``); its facts go through ``league.event_store`` as
every other write.

In a league whose ``PlayerRules`` allow them, a signed-in player challenges another active
player at most ``challenge_places`` places away on the ranking the standings show
(``ratings.selectors.standings.leaderboard_ranks``: the one definition of a rank). The
challenged player accepts (the challenge becomes a fixture, a ``fixture_scheduled`` fact
like any other, followed by ``challenge_accepted`` naming it) or declines by the local day
``respond_by``; a challenge left unanswered past it is recorded by ``expire_challenges``
(Celery beat, ``ratings.player_sweeps``) as the league's rules say: expired, or won by
forfeit by the challenger. A forfeit is a fact about the challenge, never a rated match.

The facts answering one challenge (accepted, declined, expired) share one idempotency key,
``challenge:<id>:answer``: a challenge is answered once.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from league import event_store
from league.calendar import league_day, league_zone
from league.event_store import Submission
from league.event_store.vocabulary import (
    ChallengeAccepted,
    ChallengeDeclined,
    ChallengeExpired,
    ChallengeIssued,
)
from league.fixtures import FixtureRequest, _check_players_active, _parse_request
from league.models import (
    Challenge,
    ChallengeStatus,
    IgnoredChallenge,
    League,
    Player,
    PlayerRules,
)
from league.services.reports import (
    check_key_not_reserved,
    clean_reason,
    own_player,
    rules_of,
)
from league.validation import Errors, clean_key, resolve_player
from ratings.selectors.configurations import live_config
from ratings.selectors.standings import leaderboard_ranks


@dataclass(frozen=True, slots=True)
class Answer:
    """A challenge after an answer, and whether the answer stored something new (False for
    a repeat of the answer it already has)."""

    challenge: Challenge
    stored: bool


def answer_key(challenge_id: int) -> str:
    """The idempotency key every fact answering challenge ``challenge_id`` is stored under."""
    return f"challenge:{challenge_id}:answer"


def fixture_key(challenge_id: int) -> str:
    """The idempotency key of the fixture an accepted challenge schedules."""
    return f"challenge:{challenge_id}:fixture"


def ranks_of(league: League, player_ids: list[int]) -> dict[int, int | None]:
    """Each player's rank on the league's live standings (None: not ranked)."""
    config = live_config(league)
    if config is None:
        return dict.fromkeys(player_ids)
    found = leaderboard_ranks(league, config, player_ids)
    return {pid: found[pid].rank if pid in found else None for pid in player_ids}


def _check_distance(
    league: League, rules: PlayerRules, a: Player, b: Player, errors: Errors
) -> None:
    ranks = ranks_of(league, [a.pk, b.pk])
    for player in (a, b):
        if ranks[player.pk] is None:
            errors.add(
                "challenged" if player is b else "player",
                _("%(player)s has no place in the ranking yet: challenges are between ranked "
                  "players."),
                "unranked",
                player=player.display_name,
            )  # fmt: skip
    if errors:
        return
    distance = abs(ranks[a.pk] - ranks[b.pk])  # type: ignore[operator]
    if distance > rules.challenge_places:
        errors.add(
            "challenged",
            _("%(player)s is %(distance)s places away; this league allows challenges within "
              "%(places)s places."),
            "too_far",
            player=b.display_name,
            distance=distance,
            places=rules.challenge_places,
        )  # fmt: skip


def issue_challenge(
    league: League,
    *,
    user: Any,
    challenged: Player | int | None,
    player: Player | int | None = None,
    idempotency_key: str | None = None,
) -> Challenge:
    """``user``'s ``player`` challenges ``challenged`` within the league's rules."""
    errors = Errors()
    rules = rules_of(league)
    if not rules.challenges:
        errors.add("__all__", _("%(league)s does not use challenges."), "no_challenges",
                   league=league)  # fmt: skip
        errors.raise_if_any()
    acting = own_player(league, user, player, errors)
    target = resolve_player(league, challenged, "challenged", errors)
    key = clean_key(idempotency_key, errors)
    check_key_not_reserved(key, errors)
    if acting is not None and target is not None and acting.pk == target.pk:
        errors.add("challenged", _("Choose another player than yourself."), "same_player")
    errors.raise_if_any()
    assert acting is not None
    assert target is not None
    today = league_day(league, timezone.now())
    fact = ChallengeIssued(
        challenge_id=None,
        challenger_id=acting.pk,
        challenged_id=target.pk,
        respond_by=today + dt.timedelta(days=rules.challenge_days),
    )
    submission = Submission(fact, key)
    with transaction.atomic():
        event_store.lock_league(league)
        existing = event_store.find_by_key(league, key) if key else None
        if existing is not None and existing.kind == ChallengeIssued.kind:
            # A retry on another day would carry another answer day: the key decides.
            return existing.challenge  # type: ignore[return-value]
        players = Player.objects.in_bulk([acting.pk, target.pk])
        for field, current in (("player", players[acting.pk]), ("challenged", players[target.pk])):
            if not current.active or current.merged_into_id is not None:
                errors.add(field, _("%(player)s is not an active player."), "inactive_player",
                           player=current.display_name)  # fmt: skip
        open_pair = Challenge.objects.filter(
            league=league,
            status=ChallengeStatus.ISSUED,
            challenger_id__in=[acting.pk, target.pk],
            challenged_id__in=[acting.pk, target.pk],
        )
        if open_pair.exists():
            errors.add("challenged", _("There is already an open challenge between you two."),
                       "already_challenged")  # fmt: skip
        errors.raise_if_any()
        _check_distance(league, rules, acting, target, errors)
        errors.raise_if_any()
        (event,) = event_store.append(league, [submission], recorded_by=user)
    return event.challenge  # type: ignore[return-value]


def _locked_challenge(league: League, challenge: Challenge | int) -> Challenge:
    pk = challenge.pk if isinstance(challenge, Challenge) else challenge
    found = Challenge.objects.filter(league=league, pk=pk).first()
    if found is None:
        raise ValidationError(
            {"challenge": ValidationError(_("This league has no such challenge."), code="unknown")}
        )
    return found


def _answered_error(challenge: Challenge) -> ValidationError:
    return ValidationError(
        {
            "challenge": ValidationError(
                _("This challenge was already answered: %(status)s."),
                code="already_answered",
                params={"status": challenge.get_status_display()},
            )
        }
    )


def _check_answerer(league: League, challenge: Challenge, acting: Player, errors: Errors) -> None:
    if acting.pk != challenge.challenged_id:
        errors.add("player", _("Only the challenged player answers a challenge."),
                   "not_challenged")  # fmt: skip
    if league_day(league, timezone.now()) > challenge.respond_by:
        errors.add("challenge", _("The day to answer this challenge (%(day)s) has passed."),
                   "too_late", day=challenge.respond_by.isoformat())  # fmt: skip


def accept_challenge(
    league: League,
    challenge: Challenge | int,
    *,
    user: Any,
    player: Player | int | None = None,
    scheduled_at: Any = None,
    venue: Any = "",
) -> Answer:
    """The challenged player accepts: the challenge is scheduled as a fixture (challenger
    first) at ``scheduled_at`` (default: the answer day, midday), by the fixture rules."""
    errors = Errors()
    acting = own_player(league, user, player, errors)
    errors.raise_if_any()
    assert acting is not None
    with transaction.atomic():
        event_store.lock_league(league)
        current = _locked_challenge(league, challenge)
        if current.status == ChallengeStatus.ACCEPTED:
            return Answer(current, False)
        if current.status != ChallengeStatus.ISSUED:
            raise _answered_error(current)
        _check_answerer(league, current, acting, errors)
        errors.raise_if_any()
        when = scheduled_at
        if when is None or when == "":
            when = dt.datetime.combine(current.respond_by, dt.time(12), league_zone(league))
        request = FixtureRequest(
            current.challenger_id,
            current.challenged_id,
            when,
            venue=venue or "",
            label=str(_("Challenge")),
            idempotency_key=fixture_key(current.pk),
        )
        submission = _parse_request(league, request, errors)
        errors.raise_if_any()
        assert submission is not None
        _check_players_active(league, submission.fact, errors)  # type: ignore[arg-type]
        errors.raise_if_any()
        (scheduled,) = event_store.append(league, [submission], recorded_by=user)
        fact = ChallengeAccepted(challenge_id=current.pk, fixture_id=scheduled.fixture_id)  # type: ignore[arg-type]
        event_store.append(league, [Submission(fact, answer_key(current.pk))], recorded_by=user)
    current.refresh_from_db()
    return Answer(current, True)


def decline_challenge(
    league: League,
    challenge: Challenge | int,
    *,
    user: Any,
    player: Player | int | None = None,
    reason: Any = "",
) -> Answer:
    """The challenged player declines (a reason is optional)."""
    errors = Errors()
    acting = own_player(league, user, player, errors)
    text = clean_reason(reason, errors, required=False)
    errors.raise_if_any()
    assert acting is not None
    with transaction.atomic():
        event_store.lock_league(league)
        current = _locked_challenge(league, challenge)
        if current.status == ChallengeStatus.DECLINED:
            return Answer(current, False)
        if current.status != ChallengeStatus.ISSUED:
            raise _answered_error(current)
        _check_answerer(league, current, acting, errors)
        errors.raise_if_any()
        fact = ChallengeDeclined(challenge_id=current.pk, reason=text)
        event_store.append(league, [Submission(fact, answer_key(current.pk))], recorded_by=user)
    current.refresh_from_db()
    return Answer(current, True)


def expire_challenges(now: dt.datetime | None = None) -> int:
    """Record every unanswered challenge whose answer day has passed, as its league's rules
    say (expired, or won by forfeit). Returns how many were recorded."""
    now = now or timezone.now()
    done = 0
    open_ = Challenge.objects.filter(status=ChallengeStatus.ISSUED).select_related("league")
    for challenge in open_.order_by("pk"):
        league = challenge.league
        if league_day(league, now) <= challenge.respond_by:
            continue
        forfeit = rules_of(league).ignored_challenge == IgnoredChallenge.FORFEIT
        with transaction.atomic():
            event_store.lock_league(league)
            current = _locked_challenge(league, challenge)
            if current.status != ChallengeStatus.ISSUED:
                continue
            fact = ChallengeExpired(challenge_id=current.pk, forfeit=forfeit)
            event_store.append(league, [Submission(fact, answer_key(current.pk))])
        done += 1
    return done
