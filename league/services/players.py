"""Players: registering, renaming, deactivating, reactivating, merging and unmerging, and
their FIDE details (id, federation, title).

Each service validates its input, then, under the league lock, replays an idempotent retry
or runs the checks that depend on the player's stored state, and appends the fact through
``league.event_store.append``, which also keeps the ``Player`` rows (the current state of
the players) in line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from league import event_store
from league.event_store import Submission
from league.event_store.vocabulary import (
    Fact,
    PlayerDeactivated,
    PlayerIdentified,
    PlayerMerged,
    PlayerReactivated,
    PlayerRegistered,
    PlayerRenamed,
    PlayerUnmerged,
)
from league.models import Event, League, Player
from league.player_names import check_name, check_name_shape, clean_name
from league.validation import (
    Errors,
    check_reason,
    check_recorder,
    check_text,
    clean_key,
    resolve_player,
)

REASON_MAX = 1000
#: FIDE's titles (the TRF-2026 spelling, ``league.chess.trf.TITLES``).
FIDE_TITLES = ("GM", "IM", "FM", "CM", "WGM", "WIM", "WFM", "WCM")
_FIDE_ID = re.compile(r"^[0-9]{1,11}$")
_FEDERATION = re.compile(r"^[A-Z]{3}$")


def register_player(
    league: League,
    display_name: str,
    *,
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> Player:
    """Add a player to ``league`` (a ``player_registered`` event creates the player)."""
    errors = Errors()
    name = clean_name(display_name)
    shape = Errors()
    check_name_shape(name, shape)
    if [error.code for error in shape.by_field.get("display_name", [])] != ["invisible_character"]:
        # Else ``check_name`` says it again below, with the existing player it may match.
        errors.merge(shape)
    key = clean_key(idempotency_key, errors)
    check_recorder(league, recorded_by, errors)
    errors.raise_if_any()

    submission = Submission(PlayerRegistered(player_id=None, display_name=name), key)
    with transaction.atomic():
        event_store.lock_league(league)
        existing = event_store.existing_for(league, submission)
        if existing is not None:
            return existing.player
        check_name(league, name, errors)
        errors.raise_if_any()
        (event,) = event_store.append(league, [submission], recorded_by=recorded_by)
    return event.player


def rename_player(
    league: League,
    player: Player | int,
    new_name: str,
    *,
    reason: str,
    recorded_by: Any,
    idempotency_key: str | None = None,
) -> Event:
    """Append a ``player_renamed`` event: the player is known as ``new_name`` from now on."""
    name = clean_name(new_name)

    def fact(current: Player) -> Fact:
        return PlayerRenamed(player_id=current.pk, display_name=name, reason=_reason(reason))

    def check(current: Player, errors: Errors) -> None:
        if name and name == current.display_name:
            errors.add(
                "display_name",
                _("%(player)s is already called %(name)s: give a new name."),
                "unchanged",
                player=current.display_name,
                name=name,
            )
        else:
            check_name(league, name, errors, player=current)

    return _change_player(league, player, fact, check, reason, recorded_by, idempotency_key)


def deactivate_player(
    league: League,
    player: Player | int,
    *,
    reason: str,
    recorded_by: Any,
    idempotency_key: str | None = None,
) -> Event:
    """Append a ``player_deactivated`` event: no new result may be recorded for the player."""

    def fact(current: Player) -> Fact:
        return PlayerDeactivated(player_id=current.pk, reason=_reason(reason))

    def check(current: Player, errors: Errors) -> None:
        if not current.active:
            errors.add(
                "active",
                _("%(player)s is already inactive."),
                "already_inactive",
                player=current.display_name,
            )

    return _change_player(league, player, fact, check, reason, recorded_by, idempotency_key)


def reactivate_player(
    league: League,
    player: Player | int,
    *,
    reason: str,
    recorded_by: Any,
    idempotency_key: str | None = None,
) -> Event:
    """Append a ``player_reactivated`` event: results may be recorded for the player again."""

    def fact(current: Player) -> Fact:
        return PlayerReactivated(player_id=current.pk, reason=_reason(reason))

    def check(current: Player, errors: Errors) -> None:
        if current.active:
            errors.add(
                "active",
                _("%(player)s is already active."),
                "already_active",
                player=current.display_name,
            )

    return _change_player(league, player, fact, check, reason, recorded_by, idempotency_key)


def merge_player(
    league: League,
    player: Player | int,
    into: Player | int,
    *,
    reason: str,
    recorded_by: Any,
    idempotency_key: str | None = None,
) -> Event:
    """Append a ``player_merged`` event: ``player``'s matches count as ``into``'s from now
    on, in every replay (their earlier matches too), and no new result may name ``player``.

    Refused: merging a player into themselves or into a player of another league; chains
    (``into`` is itself merged away, or others were merged into ``player``: merge them
    directly); merging a player already merged; and merging two players who played each
    other in a match that counts (it would become a match against oneself: void those
    matches first).
    """
    errors = Errors()
    survivor = resolve_player(league, into, "into", errors)

    def fact(current: Player) -> Fact:
        return PlayerMerged(player_id=current.pk, into_id=survivor.pk, reason=_reason(reason))  # type: ignore[union-attr]

    def check(current: Player, errors: Errors) -> None:
        assert survivor is not None
        target = Player.objects.get(pk=survivor.pk)
        _check_merge(league, current, target, errors)

    check_reason(reason, errors)
    if errors:
        check_recorder(league, recorded_by, errors)
        resolve_player(league, player, "player", errors)
        errors.raise_if_any()
    return _change_player(league, player, fact, check, reason, recorded_by, idempotency_key)


def _check_merge(league: League, current: Player, target: Player, errors: Errors) -> None:
    """The refusals of ``merge_player`` (run under the league lock)."""
    if current.pk == target.pk:
        errors.add("into", _("A player cannot be merged into themselves."), "self_merge")
        return
    if current.merged_into_id is not None:
        errors.add(
            "player",
            _("%(player)s is already merged into %(survivor)s; unmerge them first."),
            "already_merged",
            player=current.display_name,
            survivor=Player.objects.get(pk=current.merged_into_id).display_name,
        )
    if target.merged_into_id is not None:
        survivor = Player.objects.get(pk=target.merged_into_id)
        errors.add(
            "into",
            _("%(target)s was merged into %(survivor)s; merge into %(survivor)s instead."),
            "merged_target",
            target=target.display_name,
            survivor=survivor.display_name,
        )
    absorbed = list(
        Player.objects.filter(merged_into=current).values_list("display_name", flat=True)
    )
    if absorbed:
        errors.add(
            "player",
            ngettext_lazy(
                "%(names)s was merged into %(player)s; unmerge them or merge them "
                "into %(target)s directly before merging %(player)s.",
                "%(names)s were merged into %(player)s; unmerge them or merge them "
                "into %(target)s directly before merging %(player)s.",
                "count",
            ),
            "merge_chain",
            names=", ".join(absorbed),
            count=len(absorbed),
            player=current.display_name,
            target=target.display_name,
        )
    if errors:
        return
    group = [target.pk, *Player.objects.filter(merged_into=target).values_list("pk", flat=True)]
    between = (
        Event.objects.live_matches()
        .filter(league=league)
        .filter(
            Q(player_a=current, player_b_id__in=group) | Q(player_b=current, player_a_id__in=group)
        )
    )
    # Matches with sides count too: the two in one match, on either side.
    together = (
        Event.objects.side_matches()
        .filter(league=league, voided_by__isnull=True, participants__player=current)
        .filter(participants__player_id__in=group)
        .values_list("seq", flat=True)
        .distinct()
    )
    seqs = sorted({*between.values_list("seq", flat=True), *together})
    count = len(seqs)
    if count:
        first = seqs[0]
        errors.add(
            "into",
            ngettext_lazy(
                "%(player)s and %(target)s played each other (%(count)s counted match, "
                "first #%(seq)s): merged, those would be matches against oneself. Void them "
                "first if the records are one player.",
                "%(player)s and %(target)s played each other (%(count)s counted matches, "
                "first #%(seq)s): merged, those would be matches against oneself. Void them "
                "first if the records are one player.",
                "count",
            ),
            "played_each_other",
            player=current.display_name,
            target=target.display_name,
            count=count,
            seq=first,
        )


def unmerge_player(
    league: League,
    player: Player | int,
    *,
    reason: str,
    recorded_by: Any,
    idempotency_key: str | None = None,
) -> Event:
    """Append a ``player_unmerged`` event: ``player``'s matches count as their own again."""
    errors = Errors()
    check_reason(reason, errors)
    if errors:
        check_recorder(league, recorded_by, errors)
        resolve_player(league, player, "player", errors)
        errors.raise_if_any()

    def fact(current: Player) -> Fact:
        # A retried unmerge finds the player unmerged already: it names the last merge's
        # survivor, as the stored event does.
        from_id = current.merged_into_id or _last_merged_into(league, current)
        return PlayerUnmerged(player_id=current.pk, from_id=from_id, reason=_reason(reason))  # type: ignore[arg-type]

    def check(current: Player, errors: Errors) -> None:
        if current.merged_into_id is None:
            errors.add(
                "player",
                _("%(player)s is not merged into anyone."),
                "not_merged",
                player=current.display_name,
            )

    return _change_player(league, player, fact, check, reason, recorded_by, idempotency_key)


def identify_player(
    league: League,
    player: Player | int,
    *,
    fide_id: Any = "",
    federation: Any = "",
    title: Any = "",
    recorded_by: Any,
    idempotency_key: str | None = None,
) -> Event:
    """Append a ``player_identified`` event: the player's FIDE id (digits), federation (three
    letters) and title (GM, IM, FM, CM, WGM, WIM, WFM, WCM), each blank when unknown.

    A FIDE id names one player of a league: another player holding it is an error.
    """
    errors = Errors()
    fide = "" if fide_id is None else str(fide_id).strip()
    nation = "" if federation is None else str(federation).strip().upper()
    rank = "" if title is None else str(title).strip().upper()
    if fide and not _FIDE_ID.match(fide):
        errors.add(
            "fide_id",
            _("A FIDE id is up to 11 digits; got %(value)r."),
            "invalid_fide_id",
            value=fide,
        )
    if nation and not _FEDERATION.match(nation):
        errors.add(
            "federation",
            _("A federation is three letters (ENG, FRA, …); got %(value)r."),
            "invalid_federation",
            value=nation,
        )
    if rank and rank not in FIDE_TITLES:
        errors.add(
            "title",
            _("A title is one of %(titles)s; got %(value)r."),
            "invalid_title",
            titles=", ".join(FIDE_TITLES),
            value=rank,
        )

    def fact(current: Player) -> Fact:
        return PlayerIdentified(player_id=current.pk, fide_id=fide, federation=nation, title=rank)

    def check(current: Player, errors: Errors) -> None:
        if (current.fide_id, current.federation, current.title) == (fide, nation, rank):
            errors.add(
                "fide_id",
                _("%(player)s already has these FIDE details."),
                "unchanged",
                player=current.display_name,
            )
        holder = (
            Player.objects.filter(league=league, fide_id=fide).exclude(pk=current.pk).first()
            if fide
            else None
        )
        if holder is not None:
            errors.add(
                "fide_id",
                _("FIDE id %(fide_id)s is %(holder)s's already."),
                "duplicate_fide_id",
                fide_id=fide,
                holder=holder.display_name,
            )

    errors.raise_if_any()
    return _change_player(league, player, fact, check, "", recorded_by, idempotency_key)


def _last_merged_into(league: League, player: Player) -> int | None:
    """The player ``player`` was last merged into (None if never)."""
    return (
        Event.objects.filter(league=league, kind=Event.Kind.PLAYER_MERGED, player=player)
        .order_by("-seq")
        .values_list("other_player_id", flat=True)
        .first()
    )


def _change_player(
    league: League,
    player: Player | int,
    fact_for: Callable[[Player], Fact],
    check_state: Callable[[Player, Errors], None],
    reason: str,
    recorded_by: Any,
    idempotency_key: str | None,
) -> Event:
    """Append the fact ``fact_for(player)`` once ``check_state`` passes under the lock.

    The player's state is read again under the league lock: a result recorded at the same
    moment sees the player either before or after the change, never in between.
    """
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    target = resolve_player(league, player, "player", errors)
    _check_reason_length(reason, errors)
    key = clean_key(idempotency_key, errors)
    errors.raise_if_any()
    assert target is not None

    with transaction.atomic():
        event_store.lock_league(league)
        current = Player.objects.get(pk=target.pk)
        submission = Submission(fact_for(current), key)
        if event_store.existing_for(league, submission) is None:
            check_state(current, errors)
            errors.raise_if_any()
        (event,) = event_store.append(league, [submission], recorded_by=recorded_by)
    if isinstance(player, Player):
        player.refresh_from_db(fields=["display_name", "active", "merged_into"])
    return event


def _reason(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _check_reason_length(value: Any, errors: Errors) -> None:
    check_text(_reason(value), errors, "reason")
    if len(_reason(value)) > REASON_MAX:
        errors.add(
            "reason",
            _("The reason is too long (at most %(max)s characters)."),
            "reason_too_long",
            max=REASON_MAX,
        )
