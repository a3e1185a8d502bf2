"""``DataCommand``, the base of the commands that read and write league data, and the
argument checks they share.

Django runs every system check before a command unless the command opts out. The checks
load the URL configuration, and with it every view, the REST framework and the OpenAPI
schema generator: about 0.6 s of a ``replay --sync`` that itself takes under 2 s, spent on
code the command never calls. The checks still run where they belong: ``manage.py check``
(CI runs it with production settings), ``runserver``, ``migrate`` and the test suite.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from league.control_characters import first_control_character
from league.models import League


class DataCommand(BaseCommand):
    """A management command that skips the system checks (see the module docstring)."""

    requires_system_checks: list[str] = []


def league_by_slug(slug: str) -> League:
    """The league with ``slug``, or a ``CommandError`` naming the known ones."""
    refuse_control_characters("league slug", slug)
    league = League.objects.filter(slug=slug).first()
    if league is None:
        known = ", ".join(League.objects.order_by("slug").values_list("slug", flat=True)[:20])
        raise CommandError(
            f"No league with the slug {slug!r}" + (f" (known: {known})." if known else ".")
        )
    return league


def refuse_control_characters(what: str, value: str) -> None:
    """A ``CommandError`` when an argument holds a control character (PostgreSQL refuses
    NUL in a query)."""
    found = first_control_character(value)
    if found is not None:
        raise CommandError(f"The {what} {value!r} contains the control character {found}.")


def recorder(username: str | None) -> Any:
    """The user named by ``--recorded-by`` (None when not given), or a ``CommandError``."""
    if not username:
        return None
    refuse_control_characters("user name", username)
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise CommandError(f"No such user: {username!r}.")
    return user
