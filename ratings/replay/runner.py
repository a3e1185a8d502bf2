"""Running a replay: the lock, claiming, passes, catch-up, finalising, failures.

:func:`execute` takes the league's replay lock (or reports BUSY), claims the replay (one
more attempt) and runs passes: plan (``plan.py``), read (``snapshot.py``), compute
(``compute.py``), write (``store.py``; a pass from scratch of a large league writes its
history as the fold produces it: on PostgreSQL ``store.write_full_partition``, on SQLite
``store.write_full_table`` with the fold in a process of its own). The first pass folds from scratch
for a full replay; every other pass is incremental from the projection's own position. After
a pass, the replay finalises in one transaction holding the league's write lock: if no event
was stored meanwhile, the projection is current and the configuration is published when it
is the newest version (a full replay of an older one is superseded); otherwise another pass
catches up first, or, once a result's replay has run ``settings.REPLAY_CATCH_UP_SECONDS``,
it completes through what it folded and hands over to the league's queued replay (which
its own message brings to a worker, behind the other leagues'; never with eager tasks,
whose message is not sent again). Otherwise the lock holder
runs the league's replays queued meanwhile, and looks once more after releasing the lock
(a replay queued in that moment found the lock held and would otherwise wait for its
message's countdown). A completed replay sends its
configuration's coverage measurement once it commits (``ratings.coverage_jobs``).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from enum import StrEnum

from celery import current_app
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from league.event_store import lock_league
from league.prepared_queries import PreparedQuery
from ratings.coverage_jobs import schedule_coverage
from ratings.locks import LeagueReplayLock, LockLost
from ratings.models import PlayerPeriod, ProjectionState, Publication, RatingConfig, Replay
from ratings.replay.compute import Projection, RowsSink, compute, compute_full
from ratings.replay.partitions import partitioned
from ratings.replay.plan import ReplayPlan, plan_pass
from ratings.replay.positions import max_seq
from ratings.replay.snapshot import Matches, read_checkpoint, read_pass_matches
from ratings.replay.store import write_full_partition, write_full_table, write_projection
from ratings.replay.table_swap import swap_pays
from ratings.signals import standings_published

logger = logging.getLogger(__name__)

FINISHED = (Replay.Status.COMPLETE, Replay.Status.FAILED, Replay.Status.SUPERSEDED)
#: Seconds between two progress saves (and lease renewals, and staleness checks).
PROGRESS_INTERVAL = 0.5


class Outcome(StrEnum):
    """What became of a request to run a replay."""

    COMPLETE = "complete"
    FAILED = "failed"
    SUPERSEDED = "superseded"
    SKIPPED = "skipped"  # already finished (a redelivered or duplicate message)
    BUSY = "busy"  # another replay of the league holds the lock
    #: Complete through what it folded; the league's queued replay carries on from there,
    #: on the worker that takes its message (``settings.REPLAY_CATCH_UP_SECONDS``).
    HANDED_OVER = "handed over"


class Superseded(Exception):
    """A newer configuration version exists: this full replay must never go live."""


def execute(replay_id: int) -> Outcome:
    """Run replay ``replay_id`` if the league's lock is free, then any replay queued meanwhile.

    Returns BUSY (nothing done) when another replay of the league holds the lock.
    """
    found = _STATUS_AND_LEAGUE.first(replay_id=replay_id)
    if found is None or found[0] in FINISHED:
        return Outcome.SKIPPED
    league_id = found[1]
    lock = LeagueReplayLock(league_id)
    if not lock.acquire():
        return Outcome.BUSY
    try:
        outcome = run_claimable(replay_id, lock)
        # After a hand-over, the league's queued replay is its own message's to run.
        if outcome is Outcome.HANDED_OVER or _run_queued(league_id, lock):
            return outcome
    except LockLost:
        # The lease expired under us (SQLite) and the replay went back to the queue: the
        # caller re-sends it, to run after whoever holds the lease now.
        return Outcome.BUSY
    finally:
        lock.release()
    # A replay queued after the last look but before the release found the lock held and
    # was sent again with a countdown (``ratings.tasks.LOCK_RETRY_SECONDS``). Look once
    # more now that the lock is free, and run it at once rather than after the countdown;
    # its own message then finds it finished. A replay queued from here on takes the free
    # lock itself, and one that finds another holder is that holder's to run.
    while _next_queued(league_id) is not None and lock.acquire():
        try:
            if _run_queued(league_id, lock):
                break
        except LockLost:
            break
        finally:
            lock.release()
    return outcome


_STATUS_AND_LEAGUE = PreparedQuery(
    lambda replay_id: (
        Replay.objects.filter(pk=replay_id).order_by().values_list("status", "config__league_id")
    )
)
_NEXT_QUEUED = PreparedQuery(
    lambda league_id: (
        Replay.objects.filter(
            config__league_id=league_id,
            status__in=[Replay.Status.QUEUED, Replay.Status.RUNNING],
        )
        .order_by("pk")
        .values_list("pk")[:1]
    )
)
_IS_PUBLISHED = PreparedQuery(
    lambda league_id, config_id: Publication.objects.filter(
        league_id=league_id, config_id=config_id
    ).values_list("pk")[:1]
)
_NEWER_CONFIG = PreparedQuery(
    lambda league_id, version: (
        RatingConfig.objects.filter(league_id=league_id, version__gt=version)
        .order_by()
        .values_list("pk")[:1]
    )
)


def _next_queued(league_id: int) -> int | None:
    """The league's oldest replay waiting to run (holding the lock, a "running" replay of
    the league is one whose worker died)."""
    return _NEXT_QUEUED.value(league_id=league_id)


def _run_queued(league_id: int, lock: LeagueReplayLock) -> bool:
    """Run the league's queued replays, oldest first, until none is left or one hands
    over (then return True); the lock is held."""
    while (queued := _next_queued(league_id)) is not None:
        if run_claimable(queued, lock) is Outcome.HANDED_OVER:
            return True
    return False


def run_claimable(replay_id: int, lock: LeagueReplayLock) -> Outcome:
    """Claim replay ``replay_id`` (one more attempt) and run it; the lock must be held."""
    claimed = Replay.objects.filter(
        pk=replay_id, status__in=[Replay.Status.QUEUED, Replay.Status.RUNNING]
    ).update(status=Replay.Status.RUNNING, attempts=F("attempts") + 1, started_at=timezone.now())
    if not claimed:
        return Outcome.SKIPPED
    replay = Replay.objects.select_related("config__league").get(pk=replay_id)
    if replay.attempts > settings.REPLAY_MAX_ATTEMPTS:
        _mark(replay, Replay.Status.FAILED, error=_gave_up(replay))
        return Outcome.FAILED
    if replay.kind == Replay.Kind.FULL and newer_config_exists(replay.config):
        _mark(replay, Replay.Status.SUPERSEDED)
        return Outcome.SUPERSEDED
    try:
        return _run_claimed(replay, lock)
    except Superseded:
        _mark(replay, Replay.Status.SUPERSEDED)
        return Outcome.SUPERSEDED
    except LockLost:
        Replay.objects.filter(pk=replay_id).update(status=Replay.Status.QUEUED)
        raise
    except Exception as error:
        logger.exception("Replay %s failed (attempt %s)", replay_id, replay.attempts)
        message = f"{type(error).__name__}: {error}"
        if replay.attempts >= settings.REPLAY_MAX_ATTEMPTS:
            _mark(replay, Replay.Status.FAILED, error=message)
            return Outcome.FAILED
        Replay.objects.filter(pk=replay_id).update(status=Replay.Status.QUEUED, error=message)
        return run_claimable(replay_id, lock)


def _run_claimed(replay: Replay, lock: LeagueReplayLock) -> Outcome:
    """Run a claimed replay to its end (catching up with new events), under the lock."""
    timer = Timer()
    through_seq = _run_pass(replay, lock, timer, from_scratch=replay.kind == Replay.Kind.FULL)
    # Only a result's replay hands over: a full one must reach the log's end to publish.
    budget = (
        settings.REPLAY_CATCH_UP_SECONDS if replay.kind == Replay.Kind.INCREMENTAL else float("inf")
    )
    while (outcome := _finalise(replay, through_seq, lock, timer, budget=budget)) is None:
        through_seq = _run_pass(replay, lock, timer, from_scratch=False)
    logger.info(
        "Replay %s (%s, v%s, attempt %s) %s: from period %s through seq %s",
        replay.pk,
        replay.kind,
        replay.config.version,
        replay.attempts,
        outcome,
        replay.from_period,
        through_seq,
    )
    return outcome


def _run_pass(replay: Replay, lock: LeagueReplayLock, timer: Timer, *, from_scratch: bool) -> int:
    """Plan, read, fold and write one pass; return the seq its snapshot reaches.

    ``replay.from_period`` follows the row (the log line names it without reading it back).
    """
    plan = plan_pass(replay.config, from_scratch=from_scratch)
    if plan.up_to_date:
        timer.lap("reading")
        return plan.through_seq
    replay.from_period = plan.first_period
    Replay.objects.filter(pk=replay.pk).update(
        from_period=plan.first_period,
        periods_total=plan.periods_total,
        periods_done=0,
        through_seq=plan.through_seq,
    )
    matches = read_pass_matches(plan)
    checkpoint = None if plan.from_scratch else read_checkpoint(plan, matches)
    timer.lap("reading")
    progress = Progress(replay, lock, check_stale=replay.kind == Replay.Kind.FULL)
    if checkpoint is None and (
        (partitioned() and _builds_beside(matches)) or _streams_into_swapped_table(plan, matches)
    ):
        _stream_full_pass(plan, matches, progress, lock, timer)
        return plan.through_seq
    projection = compute(plan, matches, checkpoint, progress)
    # The snapshot is not needed to write: let its arrays go (half a GiB at 10,000,000).
    del matches, checkpoint
    timer.lap("computing")
    lock.renew()
    write_projection(plan, projection, lock)
    timer.lap("writing")
    return plan.through_seq


def _builds_beside(matches: Matches) -> bool:
    """Whether a full pass over ``matches`` builds its partition beside the live one
    (PostgreSQL), rather than deleting and inserting rows: ``REPLAY_SWAP_MIN_MATCHES``."""
    return _match_count(matches) >= settings.REPLAY_SWAP_MIN_MATCHES


def _match_count(matches: Matches) -> int:
    return len(matches.seq) + (len(matches.sides) if matches.sides is not None else 0)


def _streams_into_swapped_table(plan: ReplayPlan, matches: Matches) -> bool:
    """Whether a full pass on SQLite writes its history as the fold produces it: a league
    of ``REPLAY_STREAM_MIN_MATCHES`` matches or more whose table is swapped."""
    return (
        not partitioned()
        and _match_count(matches) >= settings.REPLAY_STREAM_MIN_MATCHES
        and swap_pays(PlayerPeriod._meta.db_table, plan.config.pk)
    )


def _stream_full_pass(
    plan: ReplayPlan, matches: Matches, progress: Progress, lock: LeagueReplayLock, timer: Timer
) -> None:
    """A pass from scratch whose history is built beside the live one: on PostgreSQL the
    configuration's partition (``store.write_full_partition``; a large league's history
    written as the fold produces it), on SQLite the swapped table
    (``store.write_full_table``, the fold computed in a process of its own)."""
    if not partitioned():

        def compute_elsewhere(sink: RowsSink | None) -> Projection:
            return compute_full(plan, matches, progress, on_rows=sink, elsewhere=True)

        lock.renew()
        _projection, writing = write_full_table(plan, compute_elsewhere, lock)
    else:

        def compute_into(sink: RowsSink | None) -> Projection:
            return compute_full(plan, matches, progress, on_rows=sink)

        count = _match_count(matches)
        _projection, writing = write_full_partition(plan, compute_into, lock, matches=count)
    timer.split("computing", "writing", writing)


def _finalise(
    replay: Replay, through_seq: int, lock: LeagueReplayLock, timer: Timer, *, budget: float
) -> Outcome | None:
    """Publish/complete in one transaction holding the league's write lock; return the
    replay's outcome.

    Returns None (nothing done) when events were stored after ``through_seq``, unless the
    replay has run ``budget`` seconds or more and may hand over (:func:`_may_hand_over`):
    then it completes through ``through_seq`` (HANDED_OVER).
    """
    config = replay.config
    league = config.league
    with transaction.atomic():
        lock_league(league)
        handed_over = False
        if max_seq(league.pk) != through_seq:
            if timer.elapsed() < budget or not _may_hand_over(replay):
                return None
            handed_over = True
        lock.check_in_transaction()
        newest = not newer_config_exists(config)
        if newest:
            if not _IS_PUBLISHED.exists(league_id=league.pk, config_id=config.pk):
                Publication.objects.update_or_create(
                    league=league, defaults={"config": config, "published_at": timezone.now()}
                )
            status = Replay.Status.COMPLETE
        else:
            status = (
                Replay.Status.SUPERSEDED
                if replay.kind == Replay.Kind.FULL
                else Replay.Status.COMPLETE
            )
        ProjectionState.objects.filter(config=config).update(through_seq=through_seq)
        Replay.objects.filter(pk=replay.pk).update(
            status=status,
            through_seq=through_seq,
            periods_done=F("periods_total"),
            finished_at=timezone.now(),
            timings=timer.as_dict(),
            error="",
        )
        if status == Replay.Status.COMPLETE:
            # After the commit, in its own task: the replay never waits for the simulation.
            # A result's replay has it checked once a window, not once a result.
            schedule_coverage(config.pk, at_once=replay.kind == Replay.Kind.FULL)
        if newest:
            standings_published.send(
                sender=RatingConfig, league=league, config=config, through_seq=through_seq
            )
    return Outcome.HANDED_OVER if handed_over else Outcome(status)


def _may_hand_over(replay: Replay) -> bool:
    """Whether ``replay`` (a result's) may stop short of the log's end: its configuration
    is the published one (readers see each pass) and a replay of it is queued, with its
    own message, for the events after (``services.request_catch_up`` queues one for every
    result stored while this one runs). In the finalising transaction.

    Only a queued replay that will fold counts: :func:`run_claimable` closes one past
    ``REPLAY_MAX_ATTEMPTS`` (FAILED) and a full one of a configuration with a newer version
    (SUPERSEDED) without folding anything, which would leave the newer results unpublished.
    With eager tasks (``CELERY_TASK_ALWAYS_EAGER``, the tests) the queued replay's message
    ran when it was sent, found the lock held and was dropped (``ratings.tasks``): nothing
    would bring it to a worker again.
    """
    if current_app.conf.task_always_eager:
        return False
    config = replay.config
    if not _IS_PUBLISHED.exists(league_id=config.league_id, config_id=config.pk):
        return False
    queued = Replay.objects.filter(
        config=config,
        status=Replay.Status.QUEUED,
        attempts__lt=settings.REPLAY_MAX_ATTEMPTS,
    )
    if newer_config_exists(config):
        queued = queued.filter(kind=Replay.Kind.INCREMENTAL)
    return queued.exists()


def newer_config_exists(config: RatingConfig) -> bool:
    return _NEWER_CONFIG.exists(league_id=config.league_id, version=config.version)


class Progress:
    """The fold's progress callback: throttled saves, lease renewal, staleness checks."""

    def __init__(self, replay: Replay, lock: LeagueReplayLock, *, check_stale: bool) -> None:
        self.replay = replay
        self.lock = lock
        self.check_stale = check_stale
        # The pass has just stored its start (periods done: 0): the first save is due a
        # PROGRESS_INTERVAL later, so a result's replay shorter than that saves no
        # progress at all (its finalising stores "all periods done"). A full replay still
        # saves and looks for a newer version at its pass's end, before it writes.
        self.saved_at = time.monotonic()
        self.slept_for = 0

    def __call__(self, done: int, total: int) -> None:
        delay = settings.REPLAY_PERIOD_DELAY
        if delay > 0:
            time.sleep(delay * (done - self.slept_for))
            self.slept_for = done
        now = time.monotonic()
        if now - self.saved_at < PROGRESS_INTERVAL and (done < total or not self.check_stale):
            return
        self.saved_at = now
        _save_progress(self.replay.pk, done, total)
        self.lock.renew()
        if self.check_stale and newer_config_exists(self.replay.config):
            raise Superseded()


def _save_progress(replay_id: int, done: int, total: int) -> None:
    """Store how far replay ``replay_id``'s fold is.

    PostgreSQL: committed without waiting for the WAL to reach the disk (this statement's
    transaction only: one query of two statements is one transaction), in one round trip.
    The fold waits for each save, and on a busy server a flush can take 50 ms (a third of a
    second per demo replay); a figure lost to a crash of the server only shows an older
    progress, which the replay's next save or its end replaces.
    """
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        # Inside a transaction (a caller's) SET LOCAL would last until its commit and let
        # the projection's own commit skip the flush too: a plain update there.
        Replay.objects.filter(pk=replay_id).update(periods_done=done, periods_total=total)
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SET LOCAL synchronous_commit TO OFF; "
            f"UPDATE {Replay._meta.db_table} SET periods_done = %s, periods_total = %s "
            "WHERE id = %s",
            [done, total, replay_id],
        )


@dataclass
class Timer:
    """Seconds spent reading, computing and writing (summed over catch-up passes)."""

    seconds: dict[str, float] = field(
        default_factory=lambda: {"reading": 0.0, "computing": 0.0, "writing": 0.0}
    )
    mark: float = field(default_factory=time.perf_counter)

    def elapsed(self) -> float:
        """Seconds since the timer started (every pass so far)."""
        return sum(self.seconds.values()) + time.perf_counter() - self.mark

    def lap(self, phase: str) -> None:
        now = time.perf_counter()
        self.seconds[phase] += now - self.mark
        self.mark = now

    def split(self, phase: str, other: str, other_seconds: float) -> None:
        """A lap of two interleaved phases: ``other_seconds`` of it to ``other``, the rest to
        ``phase``."""
        now = time.perf_counter()
        self.seconds[other] += other_seconds
        self.seconds[phase] += now - self.mark - other_seconds
        self.mark = now

    def as_dict(self) -> dict[str, float]:
        result = {k: round(v, 4) for k, v in self.seconds.items()}
        result["total"] = round(sum(self.seconds.values()), 4)
        return result


def _gave_up(replay: Replay) -> str:
    last = f" Last error: {replay.error}" if replay.error else " The worker running it stopped."
    return f"Gave up after {settings.REPLAY_MAX_ATTEMPTS} attempts.{last}"


def _mark(replay: Replay, status: str, *, error: str | None = None) -> None:
    changes = {"status": status, "finished_at": timezone.now()}
    if error is not None:
        changes["error"] = error
    Replay.objects.filter(pk=replay.pk).update(**changes)
