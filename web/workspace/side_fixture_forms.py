"""The organiser forms for fixtures with sides: one fixture by hand, a round robin of fixed
sides (pairs, teams) given one per line.

The forms read names (``league.player_names.find_player``) and the shape of the input; the
write services (``league.fixtures``) check the rest (the league's format, active players,
a player on one side only) and their messages are put back on these fields.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from django import forms
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from league.calendar import league_day, league_zone
from league.forms import add_side_fields, side_form_shape
from league.idempotency_keys import new_key
from league.models import League, Player
from league.player_names import find_player, unknown_players_message
from league.sides import check_format, side_label
from league.validation import Errors
from pairings.round_robin import round_robin
from web.workspace.fixture_forms import DATE_WIDGET, DATETIME_WIDGET, next_evening

#: A round robin of this many sides is already 190 fixtures per cycle.
MAX_SIDES_IN_ROUND_ROBIN = 20
#: The most characters the sides box takes (20 lines of several long names).
MAX_SIDES_TEXT = 10_000
#: How the players of one side are separated on its line: commas, "&", "+" or " and ".
PLAYER_SEPARATORS = re.compile(r"\s*(?:,|&|\+|;|\band\b)\s*")


def _local(league: League, value: dt.datetime) -> dt.datetime:
    """A typed moment read in the league's zone (the organiser types local time)."""
    naive = timezone.make_naive(value) if timezone.is_aware(value) else value
    return naive.replace(tzinfo=league_zone(league))


class SideFixtureForm(forms.Form):
    """One fixture with sides: a name box per player slot of each side (empty boxes and
    sides left empty at the end are ignored), when, by when, where and which round."""

    scheduled_at = forms.DateTimeField(widget=DATETIME_WIDGET, label=gettext_lazy("Date and time"))
    deadline = forms.DateField(
        widget=DATE_WIDGET, required=False, label=gettext_lazy("Play by (default: the same day)")
    )
    venue = forms.CharField(
        max_length=120, required=False, label=gettext_lazy("Venue, table or board")
    )
    label = forms.CharField(max_length=120, required=False, label=gettext_lazy("Round"))
    idempotency_key = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, league: League, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.league = league
        self.n_sides, self.slots = side_form_shape(league)
        self.slot_names = add_side_fields(self, self.n_sides, self.slots)
        for x in range(self.n_sides):
            # A fixture has no finishing positions yet.
            self.fields.pop(f"place_{x}", None)
        self.order_fields([name for names in self.slot_names for name in names])
        self.fields["scheduled_at"].initial = next_evening(league)
        if not self.is_bound:
            self.initial.setdefault("idempotency_key", new_key())

    def side_rows(self) -> list[dict[str, Any]]:
        """For the template: each side's letter and slot fields."""
        return [
            {"letter": side_label(x), "slots": [self[name] for name in names]}
            for x, names in enumerate(self.slot_names)
        ]

    def clean_scheduled_at(self) -> dt.datetime:
        return _local(self.league, self.cleaned_data["scheduled_at"])

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        sides: list[list[Player]] = []
        for names in self.slot_names:
            side = []
            for name in names:
                typed = (cleaned.get(name) or "").strip()
                if not typed:
                    continue
                player = find_player(self.league, typed)
                if player is None:
                    self.add_error(name, unknown_players_message(self.league, [typed]))
                else:
                    side.append(player)
            sides.append(side)
        while sides and not sides[-1]:
            sides.pop()
        cleaned["sides"] = sides
        return cleaned


def parse_side_lines(league: League, text: str, errors: Errors, field: str) -> list[list[Player]]:
    """Sides given one per line ("Ann, Bob"): every line's players, found by name.

    Refused, naming the line: an unknown name, a side of a size the league's format does
    not take, a player on two lines; and fewer than two sides or more than
    ``MAX_SIDES_IN_ROUND_ROBIN``.
    """
    sides: list[list[Player]] = []
    seen: dict[int, int] = {}
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) > MAX_SIDES_IN_ROUND_ROBIN:
        # Counted before any name is looked up: a long paste costs no queries.
        errors.add(
            field,
            _("Give 2 to %(max)s sides, one per line; %(count)s given."),
            "side_count",
            max=MAX_SIDES_IN_ROUND_ROBIN,
            count=len(lines),
        )
        return []
    for number, line in enumerate(lines, start=1):
        names = [name for name in PLAYER_SEPARATORS.split(line) if name]
        side: list[Player] = []
        unknown = []
        for name in names:
            player = find_player(league, name)
            if player is None:
                unknown.append(name)
                continue
            if player.pk in seen:
                errors.add(
                    field,
                    _("Line %(line)s: %(player)s is already on line %(first)s."),
                    "player_twice",
                    line=number,
                    player=player.display_name,
                    first=seen[player.pk],
                )
            seen.setdefault(player.pk, number)
            side.append(player)
        if unknown:
            errors.add(
                field,
                _("Line %(line)s: %(problem)s"),
                "unknown_player",
                line=number,
                problem=unknown_players_message(league, unknown),
            )
        found = Errors()
        check_format(league, [len(names), len(names)], found, field)
        if found:
            errors.add(
                field,
                _("Line %(line)s: %(problem)s"),
                "format_refused",
                line=number,
                problem=" ".join(error.messages[0] for error in found.by_field[field]),
            )
        sides.append(side)
    if not 2 <= len(sides) <= MAX_SIDES_IN_ROUND_ROBIN:
        errors.add(
            field,
            _("Give 2 to %(max)s sides, one per line; %(count)s given."),
            "side_count",
            max=MAX_SIDES_IN_ROUND_ROBIN,
            count=len(sides),
        )
    return sides


class SideRoundRobinForm(forms.Form):
    """A round robin of fixed sides: every side meets every other once (twice in a double
    round robin, sides swapped), one round every ``days_between`` days."""

    teams = forms.CharField(
        max_length=MAX_SIDES_TEXT,
        widget=forms.Textarea(attrs={"rows": 6, "cols": 40}),
        label=gettext_lazy("Sides, one per line"),
        help_text=gettext_lazy('Players of a side separated by commas: "Ann, Bob".'),
    )
    series = forms.CharField(
        max_length=80,
        initial="Doubles",
        label=gettext_lazy("Series"),
        help_text=gettext_lazy('Rounds are labelled "<series> · round <n>".'),
    )
    start = forms.DateTimeField(
        widget=DATETIME_WIDGET, label=gettext_lazy("Date and time (first round)")
    )
    days_between = forms.IntegerField(
        min_value=0, max_value=60, initial=7, label=gettext_lazy("Days between rounds")
    )
    deadline_days = forms.IntegerField(
        min_value=0,
        max_value=90,
        initial=0,
        label=gettext_lazy("Days allowed after the scheduled day"),
    )
    venue = forms.CharField(
        max_length=120, required=False, label=gettext_lazy("Venue, table or board")
    )
    double = forms.BooleanField(
        required=False, label=gettext_lazy("Double round robin (sides swapped)")
    )

    def __init__(self, league: League, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.league = league
        self.fields["start"].initial = next_evening(league)

    def clean_start(self) -> dt.datetime:
        return _local(self.league, self.cleaned_data["start"])

    def clean_teams(self) -> list[list[Player]]:
        errors = Errors()
        sides = parse_side_lines(self.league, self.cleaned_data["teams"], errors, "teams")
        if errors:
            raise forms.ValidationError(
                [message for error in errors.by_field["teams"] for message in error.messages]
            )
        return sides

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        start, teams = cleaned.get("start"), cleaned.get("teams")
        between, deadline = cleaned.get("days_between"), cleaned.get("deadline_days")
        if start is None or not teams or between is None or deadline is None:
            return cleaned
        rounds = len(round_robin(list(range(len(teams))), double=bool(cleaned.get("double"))))
        try:
            # The last round's day and its deadline, as the round robin computes them.
            last = start + dt.timedelta(days=between * (rounds - 1))
            last.astimezone(dt.UTC)
            league_day(self.league, last) + dt.timedelta(days=deadline)
        except (OverflowError, ValueError):
            self.add_error(
                "start",
                _("The last round or its deadline would fall after the calendar's end: "
                  "choose an earlier first day."),
            )  # fmt: skip
        return cleaned
