"""The organiser forms for fixtures: one fixture, a result against one, a generated round."""

from __future__ import annotations

import datetime as dt

from django import forms
from django.utils import timezone

from league.calendar import league_zone
from league.idempotency_keys import new_key
from league.models import League, Player
from web.workspace.drafts import METHODS, ROUND_ROBIN, SWISS

#: The largest fields a generator takes in one request: a Swiss round is one weighted
#: matching (Edmonds' blossom algorithm, cubic in the field: about 0.4 s for 60 players, 1.9 s
#: for 100, 3.3 s for 120, ``bench/bench_pairings.py``); a round robin of 40 players is
#: already 780 fixtures.
MAX_FIELD = {SWISS: 100, ROUND_ROBIN: 40}
#: Fields up to this size start with every active player ticked.
PRESELECT_UP_TO = 40

DATETIME_WIDGET = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")
DATE_WIDGET = forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
SCORES = (("1", "first-named side won"), ("0.5", "draw"), ("0", "second-named side won"))


def next_evening(league: League) -> dt.datetime:
    """Tomorrow at 19:00 in the league's time zone (a naive value for the form)."""
    today = timezone.now().astimezone(league_zone(league)).date()
    return dt.datetime.combine(today + dt.timedelta(days=1), dt.time(19))


def _active_players(league: League) -> forms.ModelMultipleChoiceField:
    return forms.ModelMultipleChoiceField(
        queryset=Player.objects.filter(league=league, active=True).order_by("display_name"),
        widget=forms.CheckboxSelectMultiple,
        label="Players",
    )


class GeneratorForm(forms.Form):
    """Which generator, over whom, and when the round (or the first round) is played."""

    method = forms.ChoiceField(choices=METHODS.items(), initial=SWISS, label="Pairing")
    series = forms.CharField(
        max_length=80,
        initial="Club night",
        label="Series",
        help_text='Rounds are labelled "<series> · round <n>"; a Swiss round reads the '
        "series' earlier rounds.",
    )
    start = forms.DateTimeField(widget=DATETIME_WIDGET, label="Date and time (first round)")
    days_between = forms.IntegerField(
        min_value=0, max_value=60, initial=7, label="Days between rounds (round robin)"
    )
    deadline_days = forms.IntegerField(
        min_value=0, max_value=90, initial=0, label="Days allowed after the scheduled day"
    )
    venue = forms.CharField(max_length=120, required=False, label="Venue, table or board")
    double = forms.BooleanField(required=False, label="Double round robin (sides swapped)")
    use_sides = forms.BooleanField(
        required=False, initial=True, label="Alternate sides (white/black, home/away)"
    )
    max_distance = forms.IntegerField(
        min_value=1, max_value=50, initial=2, label="Ladder: challenge up to this many places"
    )

    def __init__(self, league: League, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.league = league
        self.fields["players"] = _active_players(league)
        self.fields["start"].initial = next_evening(league)
        everyone = list(self.fields["players"].queryset)
        self.fields["players"].initial = everyone if len(everyone) <= PRESELECT_UP_TO else []

    def clean_start(self) -> dt.datetime:
        value = self.cleaned_data["start"]
        # The organiser types local time: read it in the league's zone, not the server's.
        naive = timezone.make_naive(value) if timezone.is_aware(value) else value
        return naive.replace(tzinfo=league_zone(self.league))

    def clean_players(self):
        players = self.cleaned_data["players"]
        if len(players) < 2:
            raise forms.ValidationError("Choose at least two players.")
        return players

    def clean(self):
        data = super().clean()
        limit = MAX_FIELD.get(data.get("method", ""))
        players = data.get("players")
        if limit is not None and players is not None and len(players) > limit:
            self.add_error(
                "players",
                f"{METHODS[data['method']]} pairs at most {limit} players at once; "
                f"{len(players)} are chosen.",
            )
        return data


class ScheduleForm(forms.Form):
    """One fixture by hand."""

    player_a = forms.ModelChoiceField(queryset=Player.objects.none(), label="First-named side")
    player_b = forms.ModelChoiceField(queryset=Player.objects.none(), label="Second-named side")
    scheduled_at = forms.DateTimeField(widget=DATETIME_WIDGET, label="Date and time")
    deadline = forms.DateField(
        widget=DATE_WIDGET, required=False, label="Play by (default: the same day)"
    )
    venue = forms.CharField(max_length=120, required=False, label="Venue, table or board")
    label = forms.CharField(max_length=120, required=False, label="Round")
    # A fresh key each time the form is rendered: a double click schedules one fixture.
    idempotency_key = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, league: League, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial.setdefault("idempotency_key", new_key())
        active = Player.objects.filter(league=league, active=True).order_by("display_name")
        self.fields["player_a"].queryset = active
        self.fields["player_b"].queryset = active
        self.fields["scheduled_at"].initial = next_evening(league)
        self.league = league

    def clean_scheduled_at(self) -> dt.datetime:
        value = self.cleaned_data["scheduled_at"]
        naive = timezone.make_naive(value) if timezone.is_aware(value) else value
        return naive.replace(tzinfo=league_zone(self.league))


class ResultForm(forms.Form):
    """The score of one fixture (its players are the fixture's)."""

    score_a = forms.ChoiceField(choices=SCORES, label="Result")
    points = forms.CharField(max_length=120, required=False, label="Score (optional)")


class RescheduleForm(forms.Form):
    scheduled_at = forms.DateTimeField(widget=DATETIME_WIDGET, label="New date and time")
    deadline = forms.DateField(widget=DATE_WIDGET, required=False, label="Play by")
    reason = forms.CharField(max_length=1000, required=False, label="Reason")

    def __init__(self, league: League, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.league = league

    def clean_scheduled_at(self) -> dt.datetime:
        value = self.cleaned_data["scheduled_at"]
        naive = timezone.make_naive(value) if timezone.is_aware(value) else value
        return naive.replace(tzinfo=league_zone(self.league))


class CancelForm(forms.Form):
    reason = forms.CharField(max_length=1000, required=False, label="Reason")
