"""The hub's checklist: what a league still needs, each step linking to its page."""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from league.models import League
from ratings.selectors.checklist import LeagueSetup


@dataclass(frozen=True)
class Step:
    """One line of the checklist: done or not, what it says, where to do it."""

    key: str
    done: bool
    text: str
    url: str
    link_text: str


def checklist(league: League, setup: LeagueSetup) -> list[Step]:
    """The steps from an empty league to standings, in the order an organiser takes them."""
    slug = league.slug
    entry = "workspace:record" if league.takes_one_vs_one else "workspace:team_match"
    return [
        Step(
            "players",
            bool(setup.players),
            ngettext("%(count)d player registered.", "%(count)d players registered.", setup.players)
            % {"count": setup.players}
            if setup.players
            else _("No players yet."),
            reverse("workspace:players", args=[slug]),
            _("Add players"),
        ),
        Step(
            "result",
            bool(setup.matches),
            _("A first result is recorded.") if setup.matches else _("No result recorded yet."),
            reverse(entry, args=[slug]),
            _("Record a result"),
        ),
        Step(
            "config",
            bool(setup.configs),
            _("The ratings have a configuration.")
            if setup.configs
            else _("No rating configuration yet: there will be no standings until one is saved."),
            reverse("workspace:config", args=[slug]),
            _("Save a configuration"),
        ),
        Step(
            "organisers",
            setup.organisers > 1,
            ngettext("%(count)d organiser.", "%(count)d organisers.", setup.organisers)
            % {"count": setup.organisers},
            reverse("workspace:organisers", args=[slug]),
            _("Invite a co-organiser (optional)"),
        ),
    ]
