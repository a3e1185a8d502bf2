"""What each account receives: defaults, its own choices, one-click unsubscribing.

A topic is on or off for an account, and a league's choice wins over the account's (a
player may mute one busy league and keep the others). With no choice stored, ``DEFAULTS``
apply: everything about the player's own games is on, the weekly digest is off.

An unsubscribe link carries a token signed with the site's secret (``django.core.signing``):
the account, the topic and the league the message came from (or none). It needs no sign-in
and does not expire, so a link in an old message still works; it can only ever turn one
topic off for one account.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.core import signing
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from league.models import League
from notifications.models import Preference, Topic

#: What an account receives before it chooses.
DEFAULTS: dict[str, bool] = {
    Topic.FIXTURE: True,
    Topic.CONFIRM: True,
    Topic.RESULT: True,
    Topic.CHALLENGE: True,
    Topic.REMINDER: True,
    Topic.DIGEST: False,
}
#: Topics chosen per league as well as for the account (the digest covers every league).
LEAGUE_TOPICS = (Topic.FIXTURE, Topic.CONFIRM, Topic.RESULT, Topic.CHALLENGE, Topic.REMINDER)
_SALT = "notifications.unsubscribe"


def enabled_for(user_ids: Iterable[int], league: League | None, topic: str) -> set[int]:
    """The accounts among ``user_ids`` that receive ``topic`` from ``league`` (one query)."""
    wanted = set(user_ids)
    if not wanted:
        return set()
    choices: dict[int, dict[bool, bool]] = {}
    rows = Preference.objects.filter(user_id__in=wanted, topic=topic)
    rows = rows.filter(league__isnull=True) | (
        rows.filter(league=league) if league is not None else rows.none()
    )
    for user_id, league_id, enabled in rows.values_list("user_id", "league_id", "enabled"):
        choices.setdefault(user_id, {})[league_id is not None] = enabled
    default = DEFAULTS[topic]
    return {
        user_id
        for user_id in wanted
        if choices.get(user_id, {}).get(True, choices.get(user_id, {}).get(False, default))
    }


def wants(user_id: int, league: League | None, topic: str) -> bool:
    """Whether account ``user_id`` receives ``topic`` from ``league``."""
    return user_id in enabled_for([user_id], league, topic)


@dataclass(frozen=True)
class Choices:
    """An account's stored choices: for every league, and league by league (None: as for
    every league)."""

    account: dict[str, bool]
    leagues: dict[int, dict[str, bool | None]]


def choices_of(user: Any, leagues: Iterable[League]) -> Choices:
    """What ``user`` receives for every league and what they chose for each of ``leagues``."""
    account = dict(DEFAULTS)
    by_league: dict[int, dict[str, bool | None]] = {
        league.pk: dict.fromkeys(LEAGUE_TOPICS) for league in leagues
    }
    for league_id, topic, enabled in Preference.objects.filter(user=user).values_list(
        "league_id", "topic", "enabled"
    ):
        if league_id is None:
            account[topic] = enabled
        elif league_id in by_league and topic in LEAGUE_TOPICS:
            by_league[league_id][topic] = enabled
    return Choices(account=account, leagues=by_league)


def set_choices(
    user: Any,
    account: Mapping[str, bool],
    leagues: Mapping[int, Mapping[str, bool | None]],
) -> None:
    """Store ``user``'s choices: every topic for the account, and per league on, off or
    None (as for every league, which removes the league's row)."""
    now = timezone.now()
    with transaction.atomic():
        for topic in Topic.values:
            if topic in account:
                _store(user, None, topic, account[topic], now)
        for league_id, topics in leagues.items():
            for topic in LEAGUE_TOPICS:
                if topic not in topics:
                    continue
                choice = topics[topic]
                if choice is None:
                    Preference.objects.filter(user=user, league_id=league_id, topic=topic).delete()
                else:
                    _store(user, league_id, topic, choice, now)


def _store(user: Any, league_id: int | None, topic: str, enabled: bool, now: Any) -> None:
    Preference.objects.update_or_create(
        user=user,
        league_id=league_id,
        topic=topic,
        defaults={"enabled": enabled, "updated_at": now},
    )


# --- one-click unsubscribe -----------------------------------------------------------------


@dataclass(frozen=True)
class Unsubscribe:
    """What one unsubscribe link turns off."""

    user_id: int
    topic: str
    league_id: int | None


def unsubscribe_token(user_id: int, topic: str, league_id: int | None) -> str:
    """The signed token of an unsubscribe link."""
    return signing.dumps([user_id, topic, league_id], salt=_SALT, compress=True)


def unsubscribe_path(user_id: int, topic: str, league_id: int | None) -> str:
    """The site-relative address of the unsubscribe link."""
    return reverse("mail:unsubscribe", args=[unsubscribe_token(user_id, topic, league_id)])


def read_unsubscribe_token(token: str) -> Unsubscribe | None:
    """What ``token`` turns off, or None when it was not made by this site (or is mangled)."""
    try:
        value = signing.loads(token, salt=_SALT)
    except signing.BadSignature:
        return None
    if (
        not isinstance(value, list)
        or len(value) != 3
        or not isinstance(value[0], int)
        or value[1] not in Topic.values
        or not (value[2] is None or isinstance(value[2], int))
    ):
        return None
    return Unsubscribe(user_id=value[0], topic=value[1], league_id=value[2])


def unsubscribe(request: Unsubscribe) -> bool:
    """Turn the topic off (for its league when the token names one, and for the account when
    it names none); False when the account or the league no longer exists."""
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.filter(pk=request.user_id).first()
    if user is None:
        return False
    if request.league_id is not None and not League.objects.filter(pk=request.league_id).exists():
        return False
    league_id = request.league_id if request.topic in LEAGUE_TOPICS else None
    _store(user, league_id, request.topic, False, timezone.now())
    return True
