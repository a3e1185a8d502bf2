"""Celery tasks of the ratings app: thin wrappers taking ids as keyword arguments."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.signals import worker_ready

from ratings.coverage_jobs import measure_config_coverage
from ratings.models import Replay
from ratings.replay.runner import Outcome, execute
from ratings.stranded import release_resend, stranded_replays

logger = logging.getLogger(__name__)

#: Tasks defined beside what they run, listed here so the worker's autodiscovery finds them.
__all__ = ["measure_config_coverage", "replay_league", "resend_stranded_replays"]

#: Seconds before a replay that found its league locked tries again.
LOCK_RETRY_SECONDS = 2


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def replay_league(*, replay_id: int) -> str:
    """Run replay ``replay_id`` (see ``ratings.replay.runner.execute``); re-queue it while locked.

    Attempts are counted on the replay row, so a redelivered message (whose task id may
    differ) counts too, and a finished replay's duplicate message does nothing.
    """
    outcome = execute(replay_id)
    if outcome is Outcome.BUSY and not replay_league.app.conf.task_always_eager:
        # The lock holder runs the league's queued replays before it lets go and looks
        # again just after (``runner.execute``), so this one normally runs there and its
        # retry finds it finished. The retry covers a holder that lost its lease (SQLite)
        # or died before looking.
        replay_league.apply_async(kwargs={"replay_id": replay_id}, countdown=LOCK_RETRY_SECONDS)
    return str(outcome)


def recover_unfinished_replays() -> int:
    """Send again every replay still queued or running; return how many.

    A worker killed mid-replay leaves its message unacknowledged: the filesystem broker never
    redelivers it and Redis waits for the visibility timeout. Duplicates are harmless: a
    replay runs under its league's lock and a finished one is skipped.
    """
    pending = list(
        Replay.objects.filter(status__in=[Replay.Status.QUEUED, Replay.Status.RUNNING])
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    _send_again(pending)
    return len(pending)


@shared_task(ignore_result=True)
def resend_stranded_replays() -> int:
    """Send again each league's stranded replay (``ratings.stranded``); return how many.

    Run by Celery beat every ``REPLAY_RESEND_SECONDS``: what the start-up recovery does for
    a worker's restart, done while workers keep running, for the replays whose message was
    never sent (broker unreachable, web process killed between its commits) or is held by a
    dead worker.
    """
    pending = stranded_replays()
    _send_again(pending)
    if pending:
        logger.warning("Re-sent %s stranded replay(s): %s", len(pending), pending)
    return len(pending)


def _send_again(replay_ids: list[int]) -> None:
    """Send each replay; when the broker fails one, give its re-send claim back and raise."""
    for index, pk in enumerate(replay_ids):
        try:
            replay_league.apply_async(kwargs={"replay_id": pk})
        except Exception:
            # None of the rest left either: their claims must not hold back the next sweep.
            for unsent in replay_ids[index:]:
                release_resend(unsent)
            raise


@worker_ready.connect
def _recover_on_worker_start(**_: object) -> None:
    try:
        count = recover_unfinished_replays()
    except Exception:  # a worker must start even if the database is not migrated yet
        logger.exception("Could not look for unfinished replays")
        return
    if count:
        logger.info("Re-sent %s unfinished replay(s)", count)
