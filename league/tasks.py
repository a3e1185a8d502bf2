"""Celery tasks of the write side: the sweep that settles what players left unanswered."""

from __future__ import annotations

from celery import shared_task

from league.services.challenges import expire_challenges
from league.services.reports import accept_overdue_reports


@shared_task(ignore_result=True)
def settle_overdue() -> dict[str, int]:
    """Accept the reports no one disputed in time (in leagues that accept them so) and record
    the challenges no one answered by their day; both are idempotent, so a sweep that runs
    twice, or on two workers at once, records each outcome once."""
    return {"reports_accepted": accept_overdue_reports(), "challenges_expired": expire_challenges()}
