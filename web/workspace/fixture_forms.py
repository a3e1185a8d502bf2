"""The organiser forms for fixtures: one fixture, a result against one, a generated round."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from django import forms
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from league.calendar import league_zone
from league.idempotency_keys import new_key
from league.models import League, Player
from league.scores import read_entry
from web.workspace.drafts import METHODS, ROUND_ROBIN, SWISS
from web.workspace.entry_forms import score_help, score_label

#: The largest fields a generator takes in one request: a Swiss round is one weighted
#: matching (Edmonds' blossom algorithm, cubic in the field: about 0.4 s for 60 players, 1.9 s
#: for 100, 3.3 s for 120, ``bench/bench_pairings.py``); a round robin of 40 players is
#: already 780 fixtures.
MAX_FIELD = {SWISS: 100, ROUND_ROBIN: 40}
#: Fields up to this size start with every active player ticked.
PRESELECT_UP_TO = 40

DATETIME_WIDGET = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")
DATE_WIDGET = forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")


def next_evening(league: League) -> dt.datetime:
    """Tomorrow at 19:00 in the league's time zone (a naive value for the form)."""
    today = timezone.now().astimezone(league_zone(league)).date()
    return dt.datetime.combine(today + dt.timedelta(days=1), dt.time(19))


def _active_players(league: League) -> forms.ModelMultipleChoiceField:
    return forms.ModelMultipleChoiceField(
        queryset=Player.objects.filter(league=league, active=True).order_by("display_name"),
        widget=forms.CheckboxSelectMultiple,
        label=gettext_lazy("Players"),
    )


class GeneratorForm(forms.Form):
    """Which generator, over whom, and when the round (or the first round) is played."""

    method = forms.ChoiceField(
        choices=METHODS.items(), initial=SWISS, label=gettext_lazy("Pairing")
    )
    series = forms.CharField(
        max_length=80,
        initial="Club night",
        label=gettext_lazy("Series"),
        help_text=gettext_lazy(
            'Rounds are labelled "<series> · round <n>"; a Swiss round reads the '
            "series' earlier rounds."
        ),
    )
    start = forms.DateTimeField(
        widget=DATETIME_WIDGET, label=gettext_lazy("Date and time (first round)")
    )
    days_between = forms.IntegerField(
        min_value=0,
        max_value=60,
        initial=7,
        label=gettext_lazy("Days between rounds (round robin)"),
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
    use_sides = forms.BooleanField(
        required=False, initial=True, label=gettext_lazy("Alternate sides (white/black, home/away)")
    )
    max_distance = forms.IntegerField(
        min_value=1,
        max_value=50,
        initial=2,
        label=gettext_lazy("Ladder: challenge up to this many places"),
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
            raise forms.ValidationError(_("Choose at least two players."))
        return players

    def clean(self):
        data = super().clean()
        limit = MAX_FIELD.get(data.get("method", ""))
        players = data.get("players")
        if limit is not None and players is not None and len(players) > limit:
            self.add_error(
                "players",
                ngettext(
                    "%(method)s pairs at most %(limit)s players at once; %(count)s is chosen.",
                    "%(method)s pairs at most %(limit)s players at once; %(count)s are chosen.",
                    len(players),
                )
                % {"method": METHODS[data["method"]], "limit": limit, "count": len(players)},
            )
        return data


class ScheduleForm(forms.Form):
    """One fixture by hand."""

    player_a = forms.ModelChoiceField(
        queryset=Player.objects.none(), label=gettext_lazy("First-named side")
    )
    player_b = forms.ModelChoiceField(
        queryset=Player.objects.none(), label=gettext_lazy("Second-named side")
    )
    scheduled_at = forms.DateTimeField(widget=DATETIME_WIDGET, label=gettext_lazy("Date and time"))
    deadline = forms.DateField(
        widget=DATE_WIDGET, required=False, label=gettext_lazy("Play by (default: the same day)")
    )
    venue = forms.CharField(
        max_length=120, required=False, label=gettext_lazy("Venue, table or board")
    )
    label = forms.CharField(max_length=120, required=False, label=gettext_lazy("Round"))
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
    """A fixture's result in one box, as on the single-result page (its players are the
    fixture's): the points ("3-1", the result follows from them) in a league that records
    points, the result alone ("1-0", "½-½", "0-1") in one that does not."""

    score = forms.CharField(max_length=40)
    # A fresh key per rendered form: a double click records the result once.
    idempotency_key = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, league: League, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.league = league
        score = self.fields["score"]
        score.label = score_label(league)
        score.help_text = score_help(league)
        score.error_messages["required"] = _("Give the result: %(help)s") % {
            "help": score.help_text
        }

    def clean_score(self) -> tuple[Decimal, str]:
        try:
            return read_entry(self.cleaned_data["score"], records_points=self.league.records_points)
        except ValueError as error:
            raise forms.ValidationError(str(error), code="invalid_entry") from None


class RescheduleForm(forms.Form):
    scheduled_at = forms.DateTimeField(
        widget=DATETIME_WIDGET, label=gettext_lazy("New date and time")
    )
    deadline = forms.DateField(widget=DATE_WIDGET, required=False, label=gettext_lazy("Play by"))
    reason = forms.CharField(max_length=1000, required=False, label=gettext_lazy("Reason"))
    idempotency_key = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, league: League, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.league = league

    def clean_scheduled_at(self) -> dt.datetime:
        value = self.cleaned_data["scheduled_at"]
        naive = timezone.make_naive(value) if timezone.is_aware(value) else value
        return naive.replace(tzinfo=league_zone(self.league))


class CancelForm(forms.Form):
    reason = forms.CharField(max_length=1000, required=False, label=gettext_lazy("Reason"))
    idempotency_key = forms.CharField(widget=forms.HiddenInput, required=False)
