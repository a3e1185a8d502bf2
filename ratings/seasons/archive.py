"""Closing a season (its table archived) and re-deriving an archived table, both recorded.

An archived table is stored rows (``SeasonTable``/``SeasonRow``): a later backdated result,
a void or a new rating configuration changes the live standings but not the archive. Only
an organiser's explicit re-derivation writes a new table, with who, when and why; the older
tables stay, so the season page can show what changed and when.

Both actions refuse to store a table while the standings are behind the event log (a
replay still to run): the archive would freeze numbers that are about to change.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from league import seasons as season_services
from league.calendar import league_day, page_day_text
from league.event_store import store as event_store
from league.models import RATING_KINDS, Event, Season
from league.validation import Errors, check_text
from ratings.models import ProjectionState, SeasonRow, SeasonTable
from ratings.seasons.derive import DerivedTable, derive_table
from ratings.selectors.common import period_info
from ratings.selectors.configurations import live_config

REASON_MAX = 1000


def _ready_config(season: Season, errors: Errors) -> Any:
    """The live configuration when its standings include every rating event, else an error."""
    league = season.league
    config = live_config(league)
    if config is None:
        errors.add(
            "__all__", "The league has no standings yet: nothing to archive.", "no_standings"
        )
        return None
    newest = (
        Event.objects.filter(league=league, kind__in=RATING_KINDS).aggregate(seq=Max("seq"))["seq"]
        or 0
    )
    state = ProjectionState.objects.filter(config=config, complete=True).first()
    if state is None or state.through_seq < newest:
        errors.add(
            "__all__",
            "The standings are still being recomputed; try again when the replay has finished.",
            "standings_behind",
        )
        return None
    return config


def _store(derived: DerivedTable, kind: str, *, by: Any, reason: str) -> SeasonTable:
    season = derived.season
    assert derived.config is not None
    assert derived.start_period is not None
    assert derived.end_period is not None
    table = SeasonTable.objects.create(
        season=season,
        kind=kind,
        config=derived.config,
        through_seq=derived.through_seq,
        start_period=derived.start_period,
        end_period=derived.end_period,
        points_win=season.points_win,
        points_draw=season.points_draw,
        points_loss=season.points_loss,
        tiebreaks=season.tiebreaks,
        derived_by=by if getattr(by, "is_authenticated", False) else None,
        reason=reason,
    )
    SeasonRow.objects.bulk_create(
        SeasonRow(
            table=table,
            player_id=line.player_id,
            position=line.position,
            games=line.games,
            wins=line.wins,
            draws=line.draws,
            losses=line.losses,
            points=line.points,
            rating_start=line.rating_start,
            rank_start=line.rank_start,
            # A player who played only after the last computed period has no rating yet.
            rating_end=line.rating_end if line.rating_end is not None else derived.initial_rating,
            rd_end=line.rd_end if line.rd_end is not None else derived.config.initial_rd,
            rank_end=line.rank_end,
            change=line.change if line.change is not None else 0.0,
            tiebreaks=line.tiebreaks,
        )
        for line in derived.lines
    )
    return table


def close_season(season: Season, *, by: Any = None) -> SeasonTable:
    """Close a finished season: archive its table as the standings stand now."""
    errors = Errors()
    with transaction.atomic():
        event_store.lock_league(season.league)
        season = Season.objects.select_related("league").get(pk=season.pk)
        if season.closed:
            errors.add("__all__", "This season is already closed.", "season_closed")
            errors.raise_if_any()
        today = league_day(season.league, timezone.now())
        if season.end_date >= today:
            errors.add(
                "__all__",
                "The season is still running (its last day is %(end)s); close it after that day.",
                "season_running",
                end=page_day_text(season.end_date),
            )
        config = _ready_config(season, errors)
        errors.raise_if_any()
        derived = derive_table(season, config)
        if derived.end_open:
            # The end-of-season ratings are read after the period holding the last day; while
            # it is open, results after the season in that period still move them.
            errors.add(
                "__all__",
                "The rating period holding the season's last day, %(period)s, is still open; "
                "close the season once it has ended, when its ratings are final.",
                "period_open",
                period=period_info(config, derived.end_period).label,
            )
            errors.raise_if_any()
        table = _store(derived, SeasonTable.Kind.ARCHIVED, by=by, reason="")
        season_services.mark_closed(season, closed_by=by)
        return table


def rederive_season(season: Season, *, by: Any = None, reason: Any = "") -> SeasonTable:
    """Replace a closed season's table by one derived now; ``reason`` is required."""
    errors = Errors()
    text = str(reason or "").strip()
    check_text(text, errors, "reason")
    if not text:
        errors.add(
            "reason",
            "Say why the table is re-derived (it is shown on the season page).",
            "required",
        )
    elif len(text) > REASON_MAX:
        errors.add(
            "reason",
            "The reason is too long (at most %(max)s characters).",
            "too_long",
            max=REASON_MAX,
        )
    errors.raise_if_any()
    with transaction.atomic():
        event_store.lock_league(season.league)
        season = Season.objects.select_related("league").get(pk=season.pk)
        if not season.closed:
            errors.add(
                "__all__",
                "Only a closed season's table is archived; an open season's table is always "
                "derived afresh.",
                "season_open",
            )
            errors.raise_if_any()
        config = _ready_config(season, errors)
        errors.raise_if_any()
        table = _store(derive_table(season, config), SeasonTable.Kind.REDERIVED, by=by, reason=text)
        season_services.touch(season)
        return table
