"""Reactions of the ratings app to the write side's signals."""

from __future__ import annotations

from functools import partial

from django.db import transaction

from ratings.replay.partitions import drop_partition, ensure_partition
from ratings.services import request_catch_up


def on_events_appended(sender, *, league, events, **kwargs) -> None:
    """Queue a catch-up replay of ``league`` once committed, if a fact can change a rating.

    The request carries nothing from the writer: the replay finds where to start from its
    projection's own position.
    """
    if not any(event.affects_ratings for event in events):
        return
    # robust: the events are stored whatever happens here; a failure is logged, not raised
    # into the writer that committed them.
    transaction.on_commit(partial(request_catch_up, league), robust=True)


def on_config_created(sender, *, instance, created, **kwargs) -> None:
    """Give a new configuration version its own history partition (PostgreSQL).

    In the creating transaction: the version and its partition exist together or not at all.
    """
    if created:
        ensure_partition(instance.pk)


def on_config_deleted(sender, *, instance, **kwargs) -> None:
    """Drop a deleted configuration's history partition with it (PostgreSQL)."""
    drop_partition(instance.pk)
