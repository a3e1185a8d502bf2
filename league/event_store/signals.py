"""Signals sent by the write side.

``events_appended`` is sent by ``league.event_store.append`` inside the transaction that
stored the events, once per call, with ``sender=League``, ``league`` and ``events`` (the
newly stored events in ``seq`` order; a retried call that stores nothing sends nothing).
Receivers that start work on the stored facts (the ratings replay) must defer it with
``transaction.on_commit`` so that a rolled-back transaction starts nothing.
"""

from django.dispatch import Signal

events_appended = Signal()
