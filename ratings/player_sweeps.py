"""The sweep Celery beat runs to settle what players left unanswered.

It accepts the reports nobody disputed in time (in leagues that accept reports that way,
``league.services.reports.accept_overdue_reports``) and records the challenges nobody
answered by their day (``ratings.challenges.expire_challenges``). It lives here, not in
``league``, because challenges read the standings.
"""

from __future__ import annotations

from celery import shared_task

from league.services.reports import accept_overdue_reports
from ratings.challenges import expire_challenges


@shared_task(ignore_result=True)
def settle_overdue() -> dict[str, int]:
    """Accept the overdue reports and record the unanswered challenges; both are idempotent,
    so a sweep that runs twice, or on two workers at once, records each outcome once."""
    return {"reports_accepted": accept_overdue_reports(), "challenges_expired": expire_challenges()}
