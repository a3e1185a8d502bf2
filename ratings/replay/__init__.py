"""The replay: a league's event history -> rating periods -> the engine's fold -> projection rows.

One replay, in the order its modules run (and read):

1. ``runner``: the Celery task's entry (``execute``): the league's replay lock, claiming
   the replay, its passes, catching up with events stored meanwhile, finalising (publishing
   the configuration or superseding the replay) and failures.
2. ``plan``: one frozen ``ReplayPlan`` per pass, derived once: the configuration's
   periods, engine parameters and time zone, the snapshot's highest seq, the players' dense
   indices, and the periods to fold (from scratch, or from where the stored projection's
   tracking position says events touched it), from the positions ``positions`` reads (the
   log's highest seq, the projection's position, the players).
3. ``snapshot``: reading the event store at that seq into NumPy arrays (and, for an
   incremental pass, the stored checkpoint before its first period).
4. ``compute``: the engine's fold of those arrays into a ``Projection`` (pure).
5. ``store``: writing the projection's rows and position in one transaction.

Each module is imported from where it lives; this package re-exports nothing.
"""
