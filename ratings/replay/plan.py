"""The plan of one replay pass: what to fold, from which snapshot, over which periods.

A pass is one read -> compute -> write of a configuration's projection (a replay makes one,
then one more per catch-up with events stored meanwhile). :func:`plan_pass` derives
everything the later stages need once, from the configuration and the event store's and
projection's positions, into a frozen :class:`ReplayPlan`; no stage derives it again.

Where an incremental pass starts comes from the projection's own tracking position (the seq
and period it has been computed through), not from whoever asked for the replay:

- the earliest period touched by a match event newer than that seq (a recorded match's
  ``played_at``; a void's voided match's ``played_at``);
- otherwise, when the current period moved since, the first period past the stored one;
- otherwise nothing: the stored projection already is this snapshot's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

import numpy as np
import numpy.typing as npt

from engine.params import Glicko2Params
from engine.periods import PeriodSpec
from league.calendar import league_zone, local_day
from ratings.models import RatingConfig
from ratings.replay.positions import (
    StoredPosition,
    earliest_touched_moment,
    latest_match_moment,
    league_player_ids,
    max_seq,
    stored_position,
)
from ratings.replay.seeds import seeds_of
from ratings.time import engine_params, period_containing_today, period_spec


@dataclass(frozen=True)
class ReplayPlan:
    """One pass of a replay, fixed before anything is read beyond positions and players.

    ``player_ids`` are the league's players in ascending id order: a player's position is
    its dense engine index. ``from_period`` is None for a fold from scratch (the whole
    projection is rewritten); an incremental pass folds ``from_period..through_period``
    from the stored checkpoint before ``from_period``.
    """

    league_id: int
    config: RatingConfig
    spec: PeriodSpec
    params: Glicko2Params
    zone: ZoneInfo
    through_seq: int
    from_period: int | None
    through_period: int
    player_ids: npt.NDArray[np.int64]
    #: Player id -> (rating, RD) the seeded players start from (``ratings.replay.seeds``).
    seeds: dict[int, tuple[float, float]] = field(default_factory=dict)

    @property
    def from_scratch(self) -> bool:
        return self.from_period is None

    @property
    def first_period(self) -> int:
        """The first period folded (0 from scratch)."""
        return 0 if self.from_period is None else self.from_period

    @property
    def periods_total(self) -> int:
        return self.through_period - self.first_period + 1

    @property
    def up_to_date(self) -> bool:
        """True when there is nothing to fold: the stored projection is this snapshot's."""
        return self.periods_total <= 0

    @property
    def n_players(self) -> int:
        return int(self.player_ids.size)


def plan_pass(config: RatingConfig, *, from_scratch: bool) -> ReplayPlan:
    """Plan a pass of ``config``'s projection over the league's events as they are now.

    ``from_scratch`` folds every period; otherwise the pass is incremental when a complete
    projection is stored (and from scratch when none is).
    """
    league = config.league
    spec, zone = period_spec(config), league_zone(league)
    through_seq = max_seq(league.pk)
    latest = latest_match_moment(league.pk, through_seq)
    through_period = period_containing_today(
        spec, zone, None if latest is None else local_day(latest, zone)
    )
    stored = None if from_scratch else stored_position(config)
    from_period = (
        None
        if stored is None
        else _start_period(spec, zone, league.pk, stored, through_seq, through_period)
    )
    return ReplayPlan(
        league_id=league.pk,
        config=config,
        spec=spec,
        params=engine_params(config),
        zone=zone,
        through_seq=through_seq,
        from_period=from_period,
        through_period=through_period,
        player_ids=league_player_ids(league),
        seeds=seeds_of(league.pk, through_seq),
    )


def _start_period(
    spec: PeriodSpec,
    zone: ZoneInfo,
    league_id: int,
    stored: StoredPosition,
    through_seq: int,
    through_period: int,
) -> int:
    """The first period an incremental pass folds (past ``through_period``: nothing to do)."""
    moment = earliest_touched_moment(league_id, stored.through_seq, through_seq)
    if moment is not None:
        touched = max(0, spec.index_of(max(spec.anchor, local_day(moment, zone))))
        return min(touched, through_period)
    if stored.through_period != through_period:
        # The current period moved (or, with a clock set back, receded): the periods past
        # the stored one are folded (they hold no match, only the projection's reach).
        return min(stored.through_period + 1, through_period)
    return through_period + 1
