"""``DataCommand``: the base of the commands that read and write league data.

Django runs every system check before a command unless the command opts out. The checks
load the URL configuration, and with it every view, the REST framework and the OpenAPI
schema generator: about 0.6 s of a ``replay --sync`` that itself takes under 2 s, spent on
code the command never calls. The checks still run where they belong: ``manage.py check``
(CI runs it with production settings), ``runserver``, ``migrate`` and the test suite.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand


class DataCommand(BaseCommand):
    """A management command that skips the system checks (see the module docstring)."""

    requires_system_checks: list[str] = []
