"""A new league with its first rating configuration: the one path every way of starting a
league takes (``manage.py create_league``, the workspace's "Start a league" page, a league
added in the admin).

A league is created with its organisers and, in the same transaction, configuration
version 1 (the parameters given, else the defaults) and the ranking rules of a new club
(``ratings.eligibility.new_league_rules``: provisional players ranked and marked P), so its
hub and standings work from the first result on. The read side owns this module because the
configuration is derived-side state; ``league/`` never refers to ``ratings``.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from league.models import League, MatchFormat
from league.organisers import add_organisers
from league.validation import Errors, check_text
from ratings.models import RatingConfig
from ratings.services import create_config

#: First path segments the site itself uses: a league there would be unreachable.
RESERVED_SLUGS = frozenset({"accounts", "admin", "api", "i18n", "sign-out", "static", "media"})


def leagues_left(user: Any) -> int | None:
    """How many more leagues ``user`` may start from the browser (None: no cap applies)."""
    if getattr(user, "is_superuser", False):
        return None
    used = League.objects.filter(created_by=user).count()
    return max(0, settings.MAX_LEAGUES_PER_ACCOUNT - used)


def create_league(
    *,
    name: str,
    slug: str,
    sport: str = "",
    description: str = "",
    time_zone: str = "UTC",
    start_date: dt.date | None = None,
    records_points: bool = True,
    match_format: str = MatchFormat.SINGLES,
    side_size: int = 2,
    organisers: Iterable[Any] = (),
    created_by: Any = None,
    **params: Any,
) -> tuple[League, RatingConfig]:
    """Create a league, its organisers and its first configuration; nothing on bad input.

    ``params`` are rating parameters (``period_unit``, ``tau``…) for version 1. Calendar-month
    periods start on the 1st of the start month unless ``period_anchor`` says otherwise; the
    start date defaults to the period anchor, else today in the league's time zone.
    ``created_by`` is the account starting it from the browser: it becomes an organiser, and
    unless a superuser it may start at most ``settings.MAX_LEAGUES_PER_ACCOUNT`` leagues.
    Organisers are made staff, since they sign in at the admin's sign-in page (which admits
    staff only; the admin shows a non-superuser only the leagues they organise).
    Raises ``ValidationError`` (field -> messages) and stores nothing on bad input.
    """
    errors = Errors()
    name = " ".join((name or "").split())
    slug = (slug or "").strip()
    if not name:
        errors.add("name", _("Give the league a name."), "required")
    for field, text in (("name", name), ("sport", sport or ""), ("description", description or "")):
        check_text(text, errors, field)
    try:
        validate_slug(slug)
    except ValidationError:
        errors.add(
            "slug",
            _(
                "“%(slug)s” is not a valid slug: use letters, digits, hyphens and underscores "
                "(it becomes the league's address)."
            ),
            "invalid",
            slug=slug,
        )
    else:
        if slug.lower() in RESERVED_SLUGS:
            errors.add(
                "slug",
                _("“%(slug)s” is an address the site itself uses: choose another."),
                "reserved",
                slug=slug,
            )
        elif League.objects.filter(slug=slug).exists():
            errors.add(
                "slug",
                _("A league with the slug “%(slug)s” already exists."),
                "taken",
                slug=slug,
            )
    try:
        zone = zoneinfo.ZoneInfo(time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        errors.add(
            "time_zone", _("Unknown time zone “%(zone)s”."), "invalid", zone=str(time_zone)[:64]
        )
        zone = zoneinfo.ZoneInfo("UTC")
    errors.raise_if_any()

    if params.get("period_unit") == "months" and "period_anchor" not in params:
        # Calendar months start on the 1st unless told otherwise.
        start = start_date or timezone.now().astimezone(zone).date()
        params["period_anchor"] = start.replace(day=1)
    start_date = start_date or params.get("period_anchor") or timezone.now().astimezone(zone).date()
    league = League(
        name=name,
        slug=slug,
        sport=" ".join((sport or "").split()),
        description=description or "",
        time_zone=time_zone,
        start_date=start_date,
        records_points=records_points,
        match_format=match_format,
        side_size=side_size,
        created_by=created_by,
    )
    league.full_clean()
    people = list(organisers)
    if created_by is not None and created_by not in people:
        people.append(created_by)
    with transaction.atomic():
        if created_by is not None and not created_by.is_superuser:
            # The row lock makes two simultaneous requests of one account count each other.
            get_user_model().objects.select_for_update().filter(pk=created_by.pk).first()
            left = leagues_left(created_by)
            if not left:
                cap = settings.MAX_LEAGUES_PER_ACCOUNT
                raise ValidationError(
                    ngettext(
                        "An account may start at most %(cap)d league, and yours has. Ask the "
                        "site's operator if your club needs another.",
                        "An account may start at most %(cap)d leagues, and yours has. Ask the "
                        "site's operator if your club needs another.",
                        cap,
                    ),
                    code="cap",
                    params={"cap": cap},
                )
        league.save()
        add_organisers(league, people)
        config = create_config(league, created_by=created_by, start_rules=True, **params)
    return league, config


def start_ratings(league: League, created_by: Any = None) -> RatingConfig | None:
    """Give a league without a configuration its first one (defaults, new-club ranking
    rules), as :func:`create_league` would have; None when it has one already."""
    if RatingConfig.objects.filter(league=league).exists():
        return None
    return create_config(league, created_by=created_by, start_rules=True)
