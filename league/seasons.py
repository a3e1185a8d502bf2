"""Seasons: named, non-overlapping date ranges of a league, and their points schemes.

The write side of seasons: creating and editing them (every bad input refused with the field
named, nothing written), marking one closed, and the one question other tasks ask of them,
:func:`season_containing` ("which season holds this day, and is it closed?"). A season's
table is derived on the read side (``ratings.seasons``).

Overlaps are checked under the league lock, so two organisers saving at once cannot both
slip a season into the same dates.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_date
from django.utils.text import slugify

from league.calendar import page_day_text
from league.event_store import store as event_store
from league.models import League, Season
from league.validation import Errors, check_text

NAME_MAX = Season._meta.get_field("name").max_length
SLUG_MAX = Season._meta.get_field("slug").max_length
#: The largest number of points a result may be worth (the column holds 999.9).
POINTS_LIMIT = Decimal("100")
#: Common schemes, offered by the organiser's form.
SCHEMES = {
    "3/1/0": (Decimal("3"), Decimal("1"), Decimal("0")),
    "2/1/0": (Decimal("2"), Decimal("1"), Decimal("0")),
    "1/½/0": (Decimal("1"), Decimal("0.5"), Decimal("0")),
}
#: The season's own criterion: the rating at the season's end (the order before tie-breaks
#: could be chosen, and still the default).
RATING_AT_END = "RTG"
#: The tie-breaks a season table can use, in the order the form lists them: the FIDE ones
#: (``league.tiebreaks``) that make sense without rounds or colours, and the rating at the end.
#: (Games won over the board would equal the number of wins: a season has no forfeits.)
SEASON_TIEBREAKS = (
    "DE", "BH", "BH-C1", "BH-C2", "BH-M1", "SB", "WIN", "ARO", "ARO-C1", RATING_AT_END,
)  # fmt: skip
#: A season's order when its organisers chose none: today's, by rating at the end.
DEFAULT_TIEBREAKS = (RATING_AT_END,)


@dataclass(frozen=True)
class SeasonInput:
    """A season's checked fields."""

    name: str
    start_date: dt.date
    end_date: dt.date
    points_win: Decimal
    points_draw: Decimal
    points_loss: Decimal
    tiebreaks: str = ""


def tiebreak_order(season: Any) -> tuple[str, ...]:
    """The season's tie-breaks in order (the default, by rating at the end, when none)."""
    chosen = tuple(code for code in str(season.tiebreaks or "").split(",") if code)
    return chosen or DEFAULT_TIEBREAKS


def _tiebreaks(value: Any, errors: Errors) -> str:
    """The tie-break codes typed or chosen, checked and joined by commas ("" for none)."""
    if isinstance(value, list | tuple):
        parts = [str(part) for part in value]
    else:
        parts = str(value or "").replace(",", " ").split()
    codes = [part.strip().upper() for part in parts if part.strip()]
    bad = [code for code in codes if code not in SEASON_TIEBREAKS]
    if bad:
        errors.add(
            "tiebreaks",
            "%(value)s is not a season tie-break; choose from %(choices)s.",
            "unknown_tiebreak",
            value=", ".join(bad),
            choices=", ".join(SEASON_TIEBREAKS),
        )
        return ""
    repeated = sorted({code for code in codes if codes.count(code) > 1})
    if repeated:
        errors.add(
            "tiebreaks",
            "Each tie-break may be chosen once (%(value)s is given twice).",
            "repeated_tiebreak",
            value=", ".join(repeated),
        )
        return ""
    return ",".join(codes)


def points_text(value: Decimal) -> str:
    """Points as a reader writes them: 3, 1, ½, 2½ (no trailing ".0")."""
    whole, half = divmod(value.copy_abs(), 1)
    sign = "-" if value < 0 else ""
    if half == 0:
        return f"{sign}{int(whole)}"
    if half == Decimal("0.5"):
        return f"{sign}{int(whole) if whole else ''}½"
    return f"{sign}{value.copy_abs().normalize()}"


def scheme_text(season: Any) -> str:
    """The season's points for a win, a draw and a loss, as "3/1/0"."""
    return "/".join(
        points_text(value) for value in (season.points_win, season.points_draw, season.points_loss)
    )


def _date(value: Any, field: str, errors: Errors) -> dt.date | None:
    if isinstance(value, dt.datetime):
        value = value.date()
    if isinstance(value, dt.date):
        return value
    text = str(value or "").strip()
    if not text:
        errors.add(field, "Give a date (YYYY-MM-DD).", "required")
        return None
    try:
        parsed = parse_date(text)
    except ValueError:
        parsed = None
    if parsed is None:
        errors.add(field, "%(value)r is not a date (YYYY-MM-DD).", "invalid_date", value=text)
    elif parsed.year < 1900 or parsed.year > 9000:
        errors.add(field, "Give a date between the years 1900 and 9000.", "date_out_of_range")
        return None
    return parsed


def _points(value: Any, field: str, errors: Errors) -> Decimal | None:
    text = str(value if value is not None else "").strip().replace("½", ".5")
    try:
        points = Decimal(text)
    except InvalidOperation:
        errors.add(field, "%(value)r is not a number of points.", "invalid_points", value=text)
        return None
    if not points.is_finite() or points.copy_abs() >= POINTS_LIMIT:
        errors.add(field, "Points must be between -99.5 and 99.5.", "points_out_of_range")
        return None
    if points * 2 != (points * 2).to_integral_value():
        errors.add(field, "Points must be whole or half numbers (3, 1, 0.5).", "points_not_half")
        return None
    return points


def check_season(
    league: League,
    *,
    name: Any,
    start_date: Any,
    end_date: Any,
    points_win: Any = "3",
    points_draw: Any = "1",
    points_loss: Any = "0",
    tiebreaks: Any = "",
) -> SeasonInput:
    """The season's fields checked (``ValidationError`` naming each bad field)."""
    errors = Errors()
    clean = " ".join(str(name or "").split())
    check_text(clean, errors, "name")
    if not clean:
        errors.add("name", "Give the season a name.", "required")
    elif len(clean) > NAME_MAX:
        errors.add(
            "name", "The name is too long (at most %(max)s characters).", "too_long", max=NAME_MAX
        )
    elif not slugify(clean):
        errors.add("name", "The name needs at least one letter or digit.", "no_slug")
    start = _date(start_date, "start_date", errors)
    end = _date(end_date, "end_date", errors)
    if start and end and end < start:
        errors.add(
            "end_date", "The season must end on or after its first day.", "ends_before_start"
        )
    if start and start < league.start_date:
        errors.add(
            "start_date",
            "The season starts before the league does (%(start)s).",
            "before_league",
            start=page_day_text(league.start_date),
        )
    order = _tiebreaks(tiebreaks, errors)
    win = _points(points_win, "points_win", errors)
    draw = _points(points_draw, "points_draw", errors)
    loss = _points(points_loss, "points_loss", errors)
    if win is not None and draw is not None and loss is not None and not win >= draw >= loss:
        errors.add(
            "points_draw",
            "A win must be worth at least a draw, and a draw at least a loss.",
            "points_order",
        )
    errors.raise_if_any()
    assert start
    assert end
    assert win is not None
    assert draw is not None
    assert loss is not None
    return SeasonInput(clean, start, end, win, draw, loss, order)


def _check_free(
    league: League, checked: SeasonInput, errors: Errors, *, other_than: int | None
) -> None:
    """No other season of the league overlaps the dates or has the name (under the lock)."""
    seasons = Season.objects.filter(league=league)
    if other_than is not None:
        seasons = seasons.exclude(pk=other_than)
    overlapping = (
        seasons.filter(start_date__lte=checked.end_date, end_date__gte=checked.start_date)
        .order_by("start_date")
        .first()
    )
    if overlapping is not None:
        errors.add(
            "start_date",
            "These dates overlap the season %(other)s (%(start)s to %(end)s); a league's "
            "seasons never overlap.",
            "season_overlap",
            other=f"“{overlapping.name}”",
            start=page_day_text(overlapping.start_date),
            end=page_day_text(overlapping.end_date),
        )
    if seasons.filter(name=checked.name).exists():
        errors.add("name", "Another season of this league has this name.", "name_taken")


def _free_slug(league: League, name: str, *, other_than: int | None) -> str:
    base = slugify(name)[: SLUG_MAX - 6] or "season"
    taken = set(
        Season.objects.filter(league=league, slug__startswith=base)
        .exclude(pk=other_than)
        .values_list("slug", flat=True)
    )
    slug, number = base, 2
    while slug in taken:
        slug, number = f"{base}-{number}", number + 1
    return slug


def create_season(league: League, *, created_by: Any = None, **fields: Any) -> Season:
    """A new season of ``league`` (fields as :func:`check_season` takes them)."""
    checked = check_season(league, **fields)
    with transaction.atomic():
        event_store.lock_league(league)
        errors = Errors()
        _check_free(league, checked, errors, other_than=None)
        errors.raise_if_any()
        return Season.objects.create(
            league=league,
            slug=_free_slug(league, checked.name, other_than=None),
            created_by=created_by if getattr(created_by, "is_authenticated", False) else None,
            **checked.__dict__,
        )


def update_season(season: Season, **fields: Any) -> Season:
    """Change a season's name, dates, points scheme or tie-breaks.

    A closed season's dates, points and tie-breaks are fixed (its archived table was derived from
    them); only its name may change.
    """
    league = season.league
    checked = check_season(league, **fields)
    with transaction.atomic():
        event_store.lock_league(league)
        current = Season.objects.get(pk=season.pk)
        errors = Errors()
        if current.closed and (
            (checked.start_date, checked.end_date) != (current.start_date, current.end_date)
            or (checked.points_win, checked.points_draw, checked.points_loss)
            != (current.points_win, current.points_draw, current.points_loss)
            or checked.tiebreaks != current.tiebreaks
        ):
            errors.add(
                "__all__",
                "This season is closed: its dates, points and tie-breaks are fixed. Only its "
                "name can change.",
                "season_closed",
            )
        _check_free(league, checked, errors, other_than=current.pk)
        errors.raise_if_any()
        for name, value in checked.__dict__.items():
            setattr(current, name, value)
        if checked.name != season.name:
            current.slug = _free_slug(league, checked.name, other_than=current.pk)
        current.updated_at = timezone.now()
        current.save()
        return current


def mark_closed(season: Season, *, closed_by: Any = None) -> Season:
    """Record that ``season`` is closed (called inside the transaction archiving its table)."""
    season.closed_at = timezone.now()
    season.closed_by = closed_by if getattr(closed_by, "is_authenticated", False) else None
    season.updated_at = season.closed_at
    season.save(update_fields=["closed_at", "closed_by", "updated_at"])
    return season


def touch(season: Season) -> None:
    """Move the season's ``updated_at`` (its table was re-derived: cached pages must change)."""
    season.updated_at = timezone.now()
    season.save(update_fields=["updated_at"])


def season_containing(league: League, day: dt.date) -> Season | None:
    """The league's season whose dates hold ``day`` (local date), or None.

    The answer's ``closed`` says whether its table is archived: a result dated in a closed
    season will not show in that table unless an organiser re-derives it.
    """
    return (
        Season.objects.filter(league=league, start_date__lte=day, end_date__gte=day)
        .order_by("start_date")
        .first()
    )
