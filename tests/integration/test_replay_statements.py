"""The fixed cost of a one-result incremental replay, counted in SQL statements.

A league taking a stream of results runs one small replay a result: its statements, not its
arithmetic, are what a worker spends (docs/benchmarks.md, "Many clubs"). The bound is the
count measured when it was set; a change that adds statements to this path must say why.
"""

from __future__ import annotations

import datetime as dt

from django.db import connection
from django.test.utils import CaptureQueriesContext

from ratings import services
from ratings.models import Replay
from ratings.time import current_period
from tests.integration.test_replay_catch_up import queue_held, rated, record  # noqa: F401
from tests.replay_support import expected_projection, snapshot

#: Statements of the replay of one new result in the current period, savepoints included
#: (measured on 2026-11-27; SQLite took 53 before its lease's second renewal in a moment was
#: skipped; PostgreSQL's advisory lock has no lease to renew). Then 51 and 39, until the
#: projection's position was written by one UPDATE (not ``update_or_create``: three
#: statements), the pass's last progress save was left to the finalising, the replay's row
#: was no longer read back for its log line, and the latest one-vs-one and side match
#: moments were read by one statement.
MAX_STATEMENTS = {"sqlite": 45, "postgresql": 33}


def test_one_new_result_replays_in_a_bounded_number_of_statements(
    league,
    rated,  # noqa: F811 (the fixture of test_replay_catch_up.py)
    django_capture_on_commit_callbacks,
):
    config, players, kept = rated
    today = dt.date.today()
    with django_capture_on_commit_callbacks(execute=False) as requests:
        record(league, kept, players[0], players[1], "1", today)
    with django_capture_on_commit_callbacks(execute=False):
        replay = queue_held(requests)
    with CaptureQueriesContext(connection) as queries:
        services.run_replay(replay.pk)
    replay.refresh_from_db()
    assert replay.status == Replay.Status.COMPLETE
    assert snapshot(config) == expected_projection(config, kept, current_period(config))
    statements = [query["sql"] for query in queries.captured_queries]
    assert len(statements) <= MAX_STATEMENTS[connection.vendor], "\n".join(statements)
