"""The workspace's entry forms: one box for the score, players completed from a list.

A result is typed as a spreadsheet row is: first player, score, second player. The score box
(``league.scores.read_entry``) holds the points ("3-1", the result follows from them) in a
league that records points, or the result alone ("1-0", "½-½", "0-1") in one that does not,
so the result is never asked for twice. The services check everything else and their errors
are put back on these fields (``league.forms.add_service_errors``).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from django import forms

from league.calendar import league_day
from league.csv_format import FIRST_DAY, LAST_DAY
from league.forms import (
    BaseRoundFormSet,
    LeagueBoundForm,
    PlayerNameInput,
    SideCorrectionForm,
    SideMatchForm,
    SideRoundRowForm,
)
from league.idempotency_keys import new_key
from league.models import Event, League
from league.scores import entry_text, read_entry
from web.workspace.dates import league_today

#: Rows a round page shows at first; ``?rows=N`` shows more (up to the formset's maximum).
ROUND_ROWS = 12
MAX_ROUND_ROWS = 100
#: The same for a round of team matches (a row holds a name box per player).
TEAM_ROUND_ROWS = 4
MAX_TEAM_ROUND_ROWS = 50

DATE_INPUT = forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")


def score_label(league: League) -> str:
    return "Score" if league.records_points else "Result"


def score_help(league: League) -> str:
    if league.records_points:
        return "The first player's points first: 3-1 (w, d or l for a result without points)."
    return "From the first player's side: 1-0, ½-½ (or d) or 0-1."


class ScoreEntryMixin(forms.Form):
    """The one score box; ``clean_score`` turns it into ``score_a`` and ``points``."""

    league: League

    def clean_score(self) -> tuple[Decimal, str]:
        text = self.cleaned_data["score"]
        try:
            return read_entry(text, records_points=self.league.records_points)
        except ValueError as error:
            raise forms.ValidationError(str(error), code="invalid_entry") from None


class ResultForm(ScoreEntryMixin, LeagueBoundForm):
    """One result: first player, score, second player, the day, an optional note."""

    player_fields = ("player_a", "player_b")

    player_a = forms.CharField(
        label="First player", widget=PlayerNameInput({"autofocus": True}), max_length=120
    )
    score = forms.CharField(max_length=40, widget=forms.TextInput(attrs={"size": 8}))
    player_b = forms.CharField(label="Second player", widget=PlayerNameInput(), max_length=120)
    played_on = forms.DateField(label="Played on", widget=DATE_INPUT)
    neutral = forms.BooleanField(
        label="Neutral ground",
        required=False,
        help_text="No home advantage for the first player.",
    )
    note = forms.CharField(required=False, max_length=1000)
    idempotency_key = forms.CharField(widget=forms.HiddenInput, required=False)
    confirmed = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args: Any, league: League, **kwargs: Any) -> None:
        super().__init__(*args, league=league, **kwargs)
        self.fields["score"].label = score_label(league)
        self.fields["score"].help_text = score_help(league)
        if not self.is_bound:
            self.initial.setdefault("played_on", league_today(league))
            self.initial.setdefault("idempotency_key", new_key())

    def service_arguments(self) -> dict[str, Any]:
        data = self.cleaned_data
        score_a, points = data["score"]
        return {
            "player_a": data["player_a"],
            "player_b": data["player_b"],
            "score_a": score_a,
            "points": points,
            "played_at": data["played_on"],
            "neutral": data["neutral"],
            "note": data["note"],
            "idempotency_key": data["idempotency_key"] or None,
        }


class CorrectionForm(ResultForm):
    """A recorded match's corrected result, prefilled with it, and why it changes."""

    reason = forms.CharField(
        max_length=1000, help_text="Shown in the event log.", widget=forms.TextInput()
    )

    def __init__(self, *args: Any, league: League, match: Event, **kwargs: Any) -> None:
        self.match = match
        kwargs.setdefault(
            "initial",
            {
                "player_a": match.player_a.display_name,
                "player_b": match.player_b.display_name,
                "score": entry_text(
                    match.score_a, match.points, records_points=league.records_points
                ),
                "played_on": league_day(league, match.played_at),
                "neutral": match.neutral,
                "note": match.note,
            },
        )
        super().__init__(*args, league=league, **kwargs)
        self.fields["player_a"].widget.attrs.pop("autofocus", None)
        self.fields["reason"].widget.attrs["autofocus"] = True

    def service_arguments(self) -> dict[str, Any]:
        arguments = super().service_arguments()
        score_a, points = self.cleaned_data["score"]
        # Points typed as free text before ("6-4 3-6 7-5") stay when the result is unchanged.
        if not points and score_a == self.match.score_a:
            arguments["points"] = self.match.points
        # An unchanged day keeps the recorded moment (which may not be noon).
        if arguments["played_at"] == league_day(self.league, self.match.played_at):
            arguments["played_at"] = self.match.played_at
        return arguments


class TeamMatchForm(SideMatchForm):
    """A match with sides (doubles, teams, games of three or more): ``SideMatchForm``, with
    the confirmation of a day the date checks object to."""

    confirmed = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args: Any, league: League, **kwargs: Any) -> None:
        super().__init__(*args, league=league, **kwargs)
        self.fields["side_0_0"].widget.attrs["autofocus"] = True


class TeamCorrectionForm(SideCorrectionForm):
    """A recorded match with sides' corrected result, prefilled with it, and why."""

    def __init__(self, *args: Any, league: League, match: Event, **kwargs: Any) -> None:
        super().__init__(*args, league=league, match=match, **kwargs)
        self.fields["reason"].widget.attrs["autofocus"] = True


class RoundForm(forms.Form):
    """The shared part of a round: its day, and the submission key."""

    played_on = forms.DateField(label="Played on", widget=DATE_INPUT)
    idempotency_key = forms.CharField(widget=forms.HiddenInput, required=False)
    confirmed = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args: Any, league: League, **kwargs: Any) -> None:
        self.league = league
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial.setdefault("played_on", league_today(league))
            self.initial.setdefault("idempotency_key", new_key())


class RoundRowForm(ScoreEntryMixin, LeagueBoundForm):
    """One row of a round; a row left empty is ignored."""

    player_fields = ("player_a", "player_b")

    player_a = forms.CharField(
        label="First player", max_length=120, widget=PlayerNameInput({"aria-label": "First player"})
    )
    score = forms.CharField(max_length=40, widget=forms.TextInput(attrs={"size": 6}))
    player_b = forms.CharField(
        label="Second player",
        max_length=120,
        widget=PlayerNameInput({"aria-label": "Second player"}),
    )
    neutral = forms.BooleanField(
        label="Neutral ground",
        required=False,
        widget=forms.CheckboxInput(attrs={"aria-label": "Neutral ground"}),
    )

    def __init__(self, *args: Any, league: League, **kwargs: Any) -> None:
        super().__init__(*args, league=league, **kwargs)
        self.fields["score"].label = score_label(league)
        self.fields["score"].widget.attrs["aria-label"] = score_label(league)


def round_formset(data: Any, *, league: League, rows: int = ROUND_ROWS) -> forms.BaseFormSet:
    """The round's rows: ``rows`` empty ones on a fresh page, as many as posted otherwise."""
    return _rows(RoundRowForm, data, league, rows, MAX_ROUND_ROWS, first="player_a")


def team_round_formset(
    data: Any, *, league: League, rows: int = TEAM_ROUND_ROWS
) -> forms.BaseFormSet:
    """A round of team matches: a row per match (``league.forms.SideRoundRowForm``: each
    side's players, side A's result or the positions, points), ``rows`` empty ones on a fresh
    page, as many as posted otherwise."""
    return _rows(SideRoundRowForm, data, league, rows, MAX_TEAM_ROUND_ROWS, first="side_0_0")


def _rows(
    form: type[forms.Form], data: Any, league: League, rows: int, most: int, *, first: str
) -> forms.BaseFormSet:
    factory = forms.formset_factory(
        form,
        formset=BaseRoundFormSet,
        extra=max(1, min(rows, most)),
        max_num=most,
        absolute_max=most,
        validate_max=True,
    )
    formset = factory(data, league=league, prefix="results")
    if formset.forms:
        # The day defaults to today: the keyboard starts in the first row's first cell.
        formset.forms[0].fields[first].widget.attrs["autofocus"] = True
    return formset


class VoidForm(forms.Form):
    """Why a match no longer counts."""

    reason = forms.CharField(
        max_length=1000,
        help_text="Shown in the event log.",
        widget=forms.TextInput(attrs={"autofocus": True}),
    )
    idempotency_key = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial.setdefault("idempotency_key", new_key())


class LogSearchForm(forms.Form):
    """The event log's filters: a player's name (part of it) and the day a match was played."""

    player = forms.CharField(required=False, max_length=120, widget=PlayerNameInput())
    played_on = forms.DateField(required=False, label="Played on", widget=DATE_INPUT)

    def clean_played_on(self) -> dt.date | None:
        day = self.cleaned_data.get("played_on")
        # The day's local midnights are computed: the calendar's last days have no next one.
        if day is not None and not FIRST_DAY <= day <= LAST_DAY:
            raise forms.ValidationError(
                f"Choose a day from {FIRST_DAY.isoformat()} to {LAST_DAY.isoformat()}.",
                code="out_of_range",
            )
        return day
