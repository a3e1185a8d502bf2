"""Signals sent by the write side.

``events_appended`` is sent by the event store (``league.event_store.append`` and the bulk
path) inside the transaction that stored the events, once per call, with one shape:
``sender=League``, ``league`` (the ``League``) and ``events``, the newly stored facts
(``league.event_store.vocabulary`` objects) in ``seq`` order. For a bulk append ``events``
is a lazy sequence that streams them from the database (it has ``len`` and can be
iterated more than once). A retried call that stores nothing sends nothing.

Receivers that start work on the stored facts (the read side's replay) must defer it with
``transaction.on_commit`` so that a rolled-back transaction starts nothing; a receiver that
only needs to know whether a rating can change asks ``event.affects_ratings``.

``player_erased`` is sent once a forgotten player's names are erased from every table, after
the transaction commits (``sender=League``, ``league``): whatever keeps copies of rendered
text (the web layer's page and API cache) drops them. The write side knows no cache.
"""

from django.dispatch import Signal

events_appended = Signal()
player_erased = Signal()
