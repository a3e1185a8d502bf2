"""Signals sent by the read side.

``standings_published`` is sent by the replay runner (``ratings.replay.runner``) inside the
transaction that makes a configuration's projection the league's live standings through
``through_seq`` (every event of the league up to that sequence number is in them), with
``sender=RatingConfig``, ``league`` and ``config``. Receivers that start work must defer it
with ``transaction.on_commit``.
"""

from django.dispatch import Signal

standings_published = Signal()
