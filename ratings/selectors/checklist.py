"""What a league still needs before its standings mean something, as counts.

The hub shows it as a checklist (``web.workspace.views.hub``): players, a first result, a
rating configuration, and (optional) a second organiser.
"""

from __future__ import annotations

from dataclasses import dataclass

from league.models import MATCH_KINDS, League, Player
from ratings.models import RatingConfig


@dataclass(frozen=True)
class LeagueSetup:
    """How far a league has got: players, matches, configurations, organisers."""

    players: int
    matches: int
    configs: int
    organisers: int

    @property
    def complete(self) -> bool:
        """Players, a result and a configuration: the league needs nothing more to run."""
        return bool(self.players and self.matches and self.configs)


def league_setup(league: League) -> LeagueSetup:
    """The counts the hub's checklist reads (matches include voided ones: a first result
    has been recorded either way)."""
    return LeagueSetup(
        players=Player.objects.filter(league=league).count(),
        matches=league.events.filter(kind__in=MATCH_KINDS).count(),
        configs=RatingConfig.objects.filter(league=league).count(),
        organisers=league.organisers.count(),
    )
