"""The replay: a league's event history -> rating periods -> the engine's fold -> projection rows.

One replay, in the order its modules run (and read):

1. ``runner``: the Celery task's entry (:func:`execute`): the league's replay lock, claiming
   the replay, its passes, catching up with events stored meanwhile, finalising (publishing
   the configuration or superseding the replay) and failures.
2. ``plan``: one frozen :class:`ReplayPlan` per pass, derived once: the configuration's
   periods, engine parameters and time zone, the snapshot's highest seq, the players' dense
   indices, and the periods to fold (from scratch, or from where the stored projection's
   tracking position says events touched it).
3. ``snapshot``: reading the event store at that seq into NumPy arrays (and, for an
   incremental pass, the stored checkpoint before its first period).
4. ``compute``: the engine's fold of those arrays into a :class:`Projection` (pure).
5. ``store``: writing the projection's rows and position in one transaction.
"""

from ratings.replay.compute import Projection, engine_matches
from ratings.replay.plan import ReplayPlan
from ratings.replay.runner import Outcome, execute
from ratings.replay.snapshot import league_player_ids, read_matches

__all__ = [
    "Outcome",
    "Projection",
    "ReplayPlan",
    "engine_matches",
    "execute",
    "league_player_ids",
    "read_matches",
]
