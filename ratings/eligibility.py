"""Who is ranked: a league's eligibility rules as plain values, and why a player is not ranked.

An organiser sets the rules (``RankingRules``, on the workspace's ranking page). A league
created now starts with rules of its own that fit a new, small league
(:func:`new_league_rules`): at least one game within the last two years' worth of rating
periods, and no RD limit, so a new club's first evening gives a full table in which the
provisional ratings (RD above ``settings.PROVISIONAL_RD``) are ranked and marked "P". A
league without a rules row (one created before those rules existed) keeps the older
defaults: the same window and an RD at most the provisional threshold, so that no
provisional player is ranked. "Active" means played within the activity window. A player
the organisers withdrew (the player's ``active`` flag off) is never ranked either.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import gettext, ngettext

from league.models import League
from ratings.models import RankingRules, RatingConfig

#: The default activity window, in months, converted to each configuration's periods.
DEFAULT_ACTIVE_MONTHS = 24
DEFAULT_MIN_GAMES = 1


def default_active_periods(config: RatingConfig | None) -> int:
    """Two years of ``config``'s rating periods (24 for calendar months, 105 for weeks)."""
    if config is None:
        return DEFAULT_ACTIVE_MONTHS
    if config.period_unit == RatingConfig.PeriodUnit.MONTHS:
        return max(1, math.ceil(DEFAULT_ACTIVE_MONTHS / config.period_length))
    return max(1, math.ceil(731 / config.period_length))


def _periods_text(count: int, config: RatingConfig | None) -> str:
    if config is None:
        return ngettext("%(n)d period", "%(n)d periods", count) % {"n": count}
    unit = "month" if config.period_unit == RatingConfig.PeriodUnit.MONTHS else "day"
    span = count * config.period_length
    if unit == "day" and span % 7 == 0 and span >= 14:
        unit, span = "week", span // 7
    if unit == "month" and span % 12 == 0:
        unit, span = "year", span // 12
    words = {
        "day": ngettext("%(n)d day", "%(n)d days", span),
        "week": ngettext("%(n)d week", "%(n)d weeks", span),
        "month": ngettext("%(n)d month", "%(n)d months", span),
        "year": ngettext("%(n)d year", "%(n)d years", span),
    }
    return words[unit] % {"n": span}


@dataclass(frozen=True)
class Eligibility:
    """The rules in force for one league under one configuration (None: no such rule)."""

    min_games: int
    active_periods: int | None
    max_rd: float | None
    rank_by: str
    custom: bool
    #: The activity window in words ("2 years", "15 weeks").
    window: str = ""

    @property
    def by_lower_bound(self) -> bool:
        return self.rank_by == RankingRules.RankBy.LOWER_BOUND

    def active_since(self, period: int) -> int:
        """The earliest last period of a player still active at ``period`` (the window's start)."""
        if self.active_periods is None:
            return -(10**9)
        return period - self.active_periods + 1

    def reasons(
        self, *, games: int, last_period: int, rd: float, withdrawn: bool, period: int
    ) -> tuple[str, ...]:
        """Why a player with these numbers is not ranked at ``period`` (empty: ranked)."""
        # In the active language: the pages, the API and the exports read them per request.
        found = []
        if withdrawn:
            found.append(gettext("withdrawn by the organisers"))
        if games < self.min_games:
            found.append(
                ngettext(
                    "%(games)d of %(needed)d game needed",
                    "%(games)d of %(needed)d games needed",
                    self.min_games,
                )
                % {"games": games, "needed": self.min_games}
            )
        if self.active_periods is not None and last_period < self.active_since(period):
            found.append(
                gettext("inactive: no game in the last %(window)s") % {"window": self.window}
            )
        if self.max_rd is not None and rd > self.max_rd:
            found.append(
                gettext("provisional: RD %(rd).0f above %(limit).0f")
                % {"rd": rd, "limit": self.max_rd}
            )
        return tuple(found)

    def describe(self) -> str:
        """The rules in one sentence, for the pages (in the active language)."""
        parts = [
            ngettext("at least %(n)d game", "at least %(n)d games", self.min_games)
            % {"n": self.min_games}
        ]
        if self.active_periods is not None:
            parts.append(gettext("a game in the last %(window)s") % {"window": self.window})
        if self.max_rd is not None:
            parts.append(gettext("an RD of at most %(rd).0f") % {"rd": self.max_rd})
        if self.by_lower_bound:
            return gettext(
                "Ranked: players with %(rules)s; ordered by the lower end of the interval "
                "(95 %%, or the level the reader picks)."
            ) % {"rules": ", ".join(parts)}
        return gettext("Ranked: players with %(rules)s; ordered by rating.") % {
            "rules": ", ".join(parts)
        }


#: "Rank everyone": no rule at all (the API's and the leaderboard's ``everyone`` option).
EVERYONE = Eligibility(
    min_games=0, active_periods=None, max_rd=None, rank_by="rating", custom=False, window=""
)


def eligibility(league: League, config: RatingConfig | None) -> Eligibility:
    """The rules in force for ``league`` (its own, else the defaults) under ``config``."""
    rules = RankingRules.objects.filter(league=league).first()
    if rules is None:
        periods = default_active_periods(config)
        return Eligibility(
            min_games=DEFAULT_MIN_GAMES,
            active_periods=periods,
            max_rd=settings.PROVISIONAL_RD,
            rank_by=RankingRules.RankBy.RATING,
            custom=False,
            window=_periods_text(periods, config),
        )
    return Eligibility(
        min_games=rules.min_games,
        active_periods=rules.active_periods,
        max_rd=rules.max_rd,
        rank_by=rules.rank_by,
        custom=True,
        window=_periods_text(rules.active_periods or 0, config),
    )


def activity_filter(rules: Eligibility, config: RatingConfig | None) -> Eligibility:
    """The window of the leaderboard's "played recently" filter: the rules' own activity
    window, or the default two years when the rules have none (so that the filter always
    removes those idle longer than the window its label names)."""
    if rules.active_periods is not None:
        return rules
    periods = default_active_periods(config)
    return Eligibility(
        min_games=0,
        active_periods=periods,
        max_rd=None,
        rank_by=rules.rank_by,
        custom=False,
        window=_periods_text(periods, config),
    )


def new_league_rules(config: RatingConfig | None) -> dict[str, object]:
    """The ``RankingRules`` fields a league starts with when it is created.

    One game within two years of ``config``'s periods, no RD limit and ranked by rating: a
    club of nine players sees nine ranked on its first evening, each provisional rating
    marked "P" (as chess clubs' lists mark provisional ratings) rather than listed
    separately until its RD falls below the threshold. An organiser who prefers settled
    ratings only sets an RD limit on the ranking page.
    """
    return {
        "min_games": DEFAULT_MIN_GAMES,
        "active_periods": default_active_periods(config),
        "max_rd": None,
        "rank_by": RankingRules.RankBy.RATING,
    }
