"""The read side: everything derived from the event store and rebuildable from it.

Rating configurations (``parameters``, ``models``), the replay that folds the events into
rating periods through the pure ``engine`` and writes the projection tables (``replay/``),
its Celery tasks and locks, season tables, the backtest, and the selectors that read the
projections and return numbers (``selectors/``) for the two faces, ``web`` and ``api``.
"""
