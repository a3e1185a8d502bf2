"""Moments as a league's members read them."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils import timezone

from league.calendar import league_zone


def local_time(league: Any, moment: dt.datetime | None) -> dt.datetime | None:
    """``moment`` in the league's time zone, for the templates' date filters."""
    return None if moment is None else timezone.localtime(moment, league_zone(league))
