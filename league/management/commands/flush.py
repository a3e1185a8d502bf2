"""Django's ``flush``, aware of the append-only event store.

Everywhere but a test database this is exactly Django's command, and the database triggers
refuse to empty ``league_event`` (the command fails with that message). On a test database
with ``settings.LEAGUE_ALLOW_EVENT_MUTATION_FOR_TESTS`` (pytest-django runs ``flush`` after
every ``transactional_db`` test) it lifts the triggers for the flush transaction only; see
``league.testing``.
"""

from typing import Any

from django.core.management.base import CommandError
from django.core.management.commands import flush
from django.db import connections

from league import testing


class Command(flush.Command):
    def handle(self, **options: Any) -> None:
        database = options["database"]
        if not testing.is_allowed(connections[database]):
            try:
                super().handle(**options)
            except CommandError as error:
                cause = error.__cause__
                if cause is None or "append-only" not in str(cause):
                    raise
                raise CommandError(
                    f"{str(cause).splitlines()[0]}. The event history is never deleted: to start "
                    "from scratch, create a new database."
                ) from cause
            return
        with testing.unguarded_event_table(database, reason="flush of the test database"):
            super().handle(**options)
