"""Write-side services of the ratings app: configuration versions and replay requests.

A league's first configuration (used when results arrive before any was chosen) is defined in
one place, :func:`default_params`: weekly periods anchored at the league's start date and the
defaults of ``ratings.parameters.DEFAULTS`` (instant updates, volatility 0.10); a first
version given another period length and no volatility gets the weekly volatility scaled to
it (``ratings.parameters.default_volatility``).

Every queued replay leaves for the workers through :func:`send_replay`, once the transaction
that queued it commits. Tests that need a replay to stay queued either never commit (the
test's transaction; ``django_capture_on_commit_callbacks`` without executing) or, when they
must commit (a live server), replace ``send_replay`` for the duration.

Sending happens after the commit, so it can fail with the write already stored: the failure
is logged, never raised into the request, and the replay is sent again later (see
``ratings.stranded``): by the next request it would absorb, or by the beat sweep.
"""

from __future__ import annotations

import contextlib
import logging
import time
from functools import partial
from typing import Any

from django.core.exceptions import ValidationError
from django.db import DatabaseError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from league.event_store import lock_league
from league.models import League
from league.prepared_queries import PreparedQuery, model_fields
from ratings.eligibility import new_league_rules
from ratings.models import ProjectionState, Publication, RankingRules, RatingConfig, Replay
from ratings.parameters import DEFAULTS, PARAMETERS, clean_config_params, default_volatility
from ratings.replay.runner import Outcome, execute
from ratings.stranded import claim_resend, is_stranded, release_resend
from ratings.tasks import replay_league
from ratings.time import first_match_day

logger = logging.getLogger(__name__)

#: Seconds between two tries to take a league's replay lock in :func:`run_replay`.
LOCK_POLL_SECONDS = 0.2


def default_params(league: League) -> dict[str, Any]:
    """The parameters of a league's first configuration version."""
    return {**DEFAULTS, "period_anchor": league.start_date}


def send_replay(replay: Replay) -> None:
    """Send ``replay`` to the workers (the ``replay_league`` task) once the transaction commits.

    The one place a queued replay leaves this process: what a test replaces to keep replays
    queued while its transactions commit.
    """
    transaction.on_commit(partial(_publish, replay.pk))


def _publish(replay_id: int) -> None:
    """Hand replay ``replay_id`` to the broker; log, not raise, when it cannot be reached."""
    try:
        replay_league.delay(replay_id=replay_id)
    except Exception:
        # The write that queued the replay is committed: the request must still succeed,
        # whatever the broker (or an eager run) raised. The sweeps send it again, and the
        # re-send claim of a message that never left must not hold them back.
        logger.exception(
            "Could not send replay %s to the broker; it will be sent again once the broker "
            "is reachable (next request for its league, or the periodic sweep)",
            replay_id,
        )
        # Without a database either, the claim simply runs out (``stranded.resend_cooldown``).
        with contextlib.suppress(DatabaseError):
            release_resend(replay_id)


def create_config(
    league: League,
    *,
    created_by=None,
    based_on: int | None = None,
    start_rules: bool = False,
    **params: Any,
) -> RatingConfig:
    """Store a new configuration version of ``league`` and start its full replay.

    Parameters not given are inherited from the latest version (or :func:`default_params`).
    ``based_on`` is the version a form showed (0 for none): when another version was saved
    since, nothing is stored, so a form opened before that save cannot silently undo it.
    With ``start_rules`` (the paths where a league's ratings are set up: every new league,
    ``ratings.new_league`` for ``create_league``, the workspace's "Start a league" and the
    admin; and the workspace's, the API's and ``set_config``'s first version), a league's
    first version also gives it the ranking rules a new league starts with
    (``ratings.eligibility.new_league_rules``), unless it has rules already. The version
    made by a league's first result (``request_catch_up``) does not: a league from before
    this rule keeps the older defaults until an organiser saves rules.
    Raises ``ValidationError`` (field -> messages; code ``stale`` for that case) and stores
    nothing on bad input.
    """
    note = params.pop("note", "")
    with transaction.atomic():
        lock_league(league)
        latest = latest_config(league)
        newest = 0 if latest is None else latest.version
        if based_on is not None and based_on != newest:
            raise ValidationError(
                _(
                    "Version %(newest)d was saved after this form was opened. The form now "
                    "shows it: make your change again and save."
                ),
                code="stale",
                params={"newest": newest},
            )
        if latest is None:
            base = default_params(league)
            if "initial_volatility" not in params:
                # The default volatility is a drift per week: scale it to the chosen period.
                period = {**base, **params}
                unit, length = period["period_unit"], period["period_length"]
                if unit in ("days", "months") and type(length) is int and length >= 1:
                    base["initial_volatility"] = default_volatility(unit, length)
        else:
            base = {name: getattr(latest, name) for name in PARAMETERS}
        cleaned = clean_config_params(
            {**base, **params},
            start_date=league.start_date,
            first_match_day=first_match_day(league),
        )
        config = RatingConfig.objects.create(
            league=league,
            version=1 if latest is None else latest.version + 1,
            created_by=created_by,
            note=str(note)[:200],
            **cleaned,
        )
        # Full replays of older versions that have not started can never go live now.
        Replay.objects.filter(
            config__league=league,
            kind=Replay.Kind.FULL,
            status=Replay.Status.QUEUED,
            config__version__lt=config.version,
        ).update(status=Replay.Status.SUPERSEDED, finished_at=timezone.now())
        if start_rules and config.version == 1:
            RankingRules.objects.get_or_create(
                league=league,
                defaults={**new_league_rules(config), "updated_by": created_by},
            )
        replay = Replay.objects.create(
            config=config, kind=Replay.Kind.FULL, requested_by=created_by
        )
        send_replay(replay)
    return config


def latest_config(league: League) -> RatingConfig | None:
    return RatingConfig.objects.filter(league=league).order_by("-version").first()


def request_full_replay(league: League, *, requested_by=None, send: bool = True) -> Replay:
    """Queue a full replay of the league's newest configuration (creating the first if none).

    ``send=False`` queues it without a message to the workers, for a caller that runs it
    itself at once (``manage.py replay --sync``); should that process die first, the replay
    looks stranded and the periodic sweep sends it (``ratings.stranded``).
    """
    with transaction.atomic():
        lock_league(league)
        config = latest_config(league)
        if config is None:
            config = create_config(league, created_by=requested_by)
            return Replay.objects.filter(config=config).latest("pk")
        replay = Replay.objects.create(
            config=config, kind=Replay.Kind.FULL, requested_by=requested_by
        )
        if send:
            send_replay(replay)
    return replay


_LATEST_CONFIG = PreparedQuery(
    lambda league_id: (
        RatingConfig.objects.filter(league_id=league_id).order_by("-version").values_list("pk")[:1]
    )
)
_PUBLISHED_CONFIG = PreparedQuery(
    lambda league_id: Publication.objects.filter(league_id=league_id).values_list("config_id")
)
_COMPLETE = PreparedQuery(
    lambda config_id: (
        ProjectionState.objects.filter(config_id=config_id, complete=True)
        .order_by()
        .values_list("pk")[:1]
    )
)
#: The fields of a queued replay that :func:`request_catch_up` and ``is_stranded`` read.
_QUEUED_FIELDS = model_fields(Replay, "id", "config_id", "kind", "status", "queued_at")


def _queued_replay_query(kind: str, *order: str) -> PreparedQuery:
    return PreparedQuery(
        lambda config_id: (
            Replay.objects.filter(config_id=config_id, status=Replay.Status.QUEUED, kind=kind)
            .order_by(*order)
            .values_list(*_QUEUED_FIELDS)[:1]
        )
    )


#: A queued full replay: the newest (the model's order); an incremental one: the oldest.
_QUEUED = {
    Replay.Kind.FULL: _queued_replay_query(Replay.Kind.FULL, "-queued_at", "-pk"),
    Replay.Kind.INCREMENTAL: _queued_replay_query(Replay.Kind.INCREMENTAL, "pk"),
}


def _queued(config_id: int, kind: str) -> Replay | None:
    """The configuration's queued replay of ``kind`` (its other fields deferred)."""
    found = _QUEUED[kind].instances(Replay, *_QUEUED_FIELDS, config_id=config_id)
    return found[0] if found else None


def request_catch_up(league: League) -> list[Replay]:
    """Queue replays bringing the projections readers rely on up to the league's events.

    The targets are the published configuration and the newest one when its projection is
    complete. A queued full replay of a target, or a queued incremental one, already covers
    the request (it reads the events when it runs); otherwise an incremental replay is
    queued. Where it starts is the replay's to find out, from the projection's own position.
    A queued replay that absorbs the request but looks stranded (``ratings.stranded``: its
    message may never have been sent) is sent again, at most once per grace period.
    """
    # Every result runs this: its reads are prepared queries (``league.prepared_queries``),
    # and a queued replay is loaded with the few fields used here (the rest on access).
    with transaction.atomic():
        lock_league(league)  # two first results at once must not make two first versions
        latest = _LATEST_CONFIG.value(league_id=league.pk)
        if latest is None:
            config = create_config(league)
            return list(Replay.objects.filter(config=config))
        targets: list[int] = []
        published = _PUBLISHED_CONFIG.value(league_id=league.pk)
        if published is not None:
            targets.append(published)
        if latest not in targets and _COMPLETE.exists(config_id=latest):
            targets.append(latest)
        replays = []
        for config_id in targets:
            queued = _queued(config_id, Replay.Kind.FULL) or _queued(
                config_id, Replay.Kind.INCREMENTAL
            )
            if queued is None:
                queued = Replay.objects.create(config_id=config_id, kind=Replay.Kind.INCREMENTAL)
                send_replay(queued)
            elif is_stranded(queued) and claim_resend(queued.pk, queued.queued_at):
                send_replay(queued)
            replays.append(queued)
    return replays


def run_replay(replay_id: int) -> None:
    """Run a replay now, in this process, waiting for the league's lock if another holds it.

    What ``manage.py replay --sync`` and ``load_demo`` call (the Celery task runs
    ``ratings.replay.runner.execute`` and sends itself again when the league is busy).
    Failures are recorded on the replay row (and retried up to ``REPLAY_MAX_ATTEMPTS``), not
    raised.
    """
    while execute(replay_id) is Outcome.BUSY:
        time.sleep(LOCK_POLL_SECONDS)
