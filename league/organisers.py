"""Adding organisers to a league (``League.organisers``), the one way every path does it.

An organiser signs in at the admin's sign-in page, which admits staff accounts only, so an
account becomes staff as it becomes an organiser; the admin itself shows a non-superuser
only the leagues they organise (``league.admin_scope``), and no model permissions.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth import get_user_model

from league.models import League


def add_organisers(league: League, users: Iterable[Any]) -> None:
    """Make ``users`` organisers of ``league`` (and staff, so that they can sign in)."""
    people = list(users)
    if not people:
        return
    league.organisers.add(*people)
    get_user_model().objects.filter(pk__in=[u.pk for u in people], is_staff=False).update(
        is_staff=True
    )
    for person in people:
        person.is_staff = True
