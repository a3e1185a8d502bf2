"""The organiser tasks the hub lists, in the order an organiser meets them.

To add a task, add a :class:`Section` here (its URL name must take ``league_slug`` only).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.utils.translation import gettext_lazy
from django.utils.translation import gettext_lazy as _

from league.models import League


@dataclass(frozen=True)
class Section:
    """One organiser task: its title, the URL name of its page and one line saying what it is;
    ``shown_for`` says which leagues have it (all when None)."""

    key: str
    title: str
    url_name: str
    blurb: str
    shown_for: Callable[[League], bool] | None = None

    def is_shown_for(self, league: League) -> bool:
        return self.shown_for is None or self.shown_for(league)


SECTIONS: tuple[Section, ...] = (
    Section(
        "record",
        _("Record a result"),
        "workspace:record",
        _("First player, score, second player, day: the result follows from the score."),
        shown_for=lambda league: league.takes_one_vs_one,
    ),
    Section(
        "round",
        _("Record a round"),
        "workspace:round",
        _("A whole club night on one screen, one row per game, typed like a spreadsheet."),
        shown_for=lambda league: league.takes_one_vs_one,
    ),
    Section(
        "team_match",
        _("Record a team match"),
        "workspace:team_match",
        _(
            "Doubles, team matches and games of three or more sides: each side's players, then "
            "the result or the finishing order."
        ),
        shown_for=lambda league: league.takes_sides,
    ),
    Section(
        "team_round",
        _("Record a round of team matches"),
        "workspace:team_round",
        _(
            "A club night of doubles or team matches on one screen, a block per match, saved "
            "whole or not at all."
        ),
        shown_for=lambda league: league.takes_sides,
    ),
    Section(
        "log",
        _("Event log"),
        "workspace:log",
        _("Everything recorded, newest first; search by player or day, void or correct a match."),
    ),
    Section(
        "import",
        _("Import a CSV file"),
        "workspace:import",
        _("Upload results, preview every row, then record them all or none."),
    ),
    Section(
        "export",
        _("Export"),
        "workspace:export",
        _("The results (or the full log) as CSV in the import format: a backup, or a move."),
    ),
    Section(
        "players",
        _("Players"),
        "workspace:players",
        _(
            "Register, rename, deactivate or reactivate players; merge two records of one player "
            "(and undo it). Each change is an event with its reason."
        ),
    ),
    Section(
        "configuration",
        _("Rating configuration"),
        "workspace:config",
        _(
            "τ, initial rating, RD and volatility, the rating-period length; every change is a "
            "new version, replayed in the background."
        ),
    ),
    Section(
        "ranking",
        _("Who is ranked"),
        "workspace:ranking",
        _(
            "Eligibility rules: minimum games, played recently, RD at most a limit; the others "
            "are listed separately with the reason."
        ),
    ),
    Section(
        "backtest",
        _("Backtest"),
        "workspace:backtest",
        _("How well each configuration would have predicted the league's own results."),
    ),
    Section(
        "tokens",
        _("API tokens"),
        "workspace:tokens",
        _("Create, name and revoke your tokens for scripts and apps using the API."),
    ),
    Section(
        "organisers",
        _("Organisers"),
        "workspace:organisers",
        _(
            "Who organises the league; invite a co-organiser by a one-time link, revoke a link "
            "not yet used."
        ),
    ),
    Section(
        "seasons",
        _("Seasons"),
        "workspace:seasons",
        _(
            "Name the league's seasons and their points; close a finished season to archive its "
            "table, or re-derive an archived table (recorded with your reason)."
        ),
    ),
    Section(
        "website",
        _("On the club website"),
        "workspace:website",
        _(
            "Let your club's site show the standings in a frame or read the API from its pages; "
            "the Atom feed of results."
        ),
    ),
    Section(
        "webhook",
        gettext_lazy("Webhook"),
        "workspace:webhook",
        gettext_lazy(
            "Post new results and fixtures to Slack, Discord or your own receiver, signed; "
            "send a test and see what the receiver answered."
        ),
    ),
    Section(
        "fixtures",
        _("Fixtures and results"),
        "workspace:fixtures",
        _(
            "Schedule fixtures, enter results against them by score, move or cancel them; "
            "fixtures not played by their deadline are listed."
        ),
    ),
    Section(
        "competitions",
        _("Events"),
        "workspace:competitions",
        _(
            "Round robins and Swiss events inside the league: entries (late ones too), "
            "withdrawals, requested byes, pairing each round, results and forfeits."
        ),
        shown_for=lambda league: league.takes_one_vs_one,
    ),
    Section(
        "clubs",
        _("Club matches"),
        "workspace:clubs",
        _(
            "Teams of the league's players meet over several boards: teams and rosters, "
            "scheduling, board orders, each match's board results and the team table."
        ),
        shown_for=lambda league: league.takes_one_vs_one,
    ),
    Section(
        "pairings",
        _("Pairings"),
        "workspace:pairings",
        _(
            "Generate a Swiss round, a round robin or ladder challenges from the ratings, see each "
            "pairing's prediction, adjust it and publish it as fixtures."
        ),
    ),
    Section(
        "reports",
        _("Reported results and challenges"),
        "workspace:reports",
        _(
            "Results players reported, waiting or disputed: confirm or reject them; whether "
            "players may report and challenge each other."
        ),
    ),
)


def sections_for(league: League) -> list[Section]:
    """The sections ``league``'s organisers see, in order."""
    return [section for section in SECTIONS if section.is_shown_for(league)]
