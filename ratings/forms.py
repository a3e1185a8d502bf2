"""Forms of the pages: the organisers' configuration form and the leaderboard's filters."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import forms

from league.models import League
from ratings.models import RatingConfig
from ratings.parameters import BY_NAME, DEFAULTS
from ratings.selectors.standings import SORT_KEYS


def _parameter_field(name: str, **kwargs: Any) -> forms.Field:
    """The form field of a rating parameter, from the table (``ratings.parameters``).

    Its bounds are checked by the table's validators, with the table's messages: the same
    ones the admin, the API and the commands give.
    """
    parameter = BY_NAME[name]
    noun = parameter.noun
    kind = "a whole number" if parameter.kind is int else "a number"
    field_class = forms.IntegerField if parameter.kind is int else forms.FloatField
    return field_class(
        label=parameter.label,
        help_text=parameter.help_text,
        required=not parameter.optional,
        validators=parameter.validators(),
        error_messages={"required": f"{noun} is required.", "invalid": f"{noun} must be {kind}."},
        **kwargs,
    )


class ConfigForm(forms.Form):
    """A new configuration version. Every rule is checked here with a clear message; the
    engine's own validation (``create_config``) is the last line, reported the same way."""

    tau = _parameter_field("tau")
    initial_rating = _parameter_field("initial_rating")
    initial_rd = _parameter_field("initial_rd")
    initial_volatility = _parameter_field("initial_volatility")
    period_unit = forms.ChoiceField(
        label=BY_NAME["period_unit"].label,
        help_text=BY_NAME["period_unit"].help,
        choices=RatingConfig.PeriodUnit.choices,
    )
    period_length = _parameter_field("period_length")
    period_anchor = forms.DateField(
        label=BY_NAME["period_anchor"].label,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        error_messages={
            "required": "The first day of the first period is required.",
            "invalid": "Enter the first day of the first period as a date (YYYY-MM-DD).",
        },
    )
    max_rd = _parameter_field("max_rd")
    volatility_ceiling = _parameter_field("volatility_ceiling")
    rating_floor = _parameter_field("rating_floor")
    advantage = _parameter_field("advantage")
    margin_scale = _parameter_field("margin_scale")
    note = forms.CharField(
        label="Why this change?", required=False, max_length=200, help_text="Shown in the log."
    )

    def __init__(self, *args: Any, league: League, **kwargs: Any) -> None:
        self.league = league
        super().__init__(*args, **kwargs)

    def clean_period_anchor(self) -> dt.date | None:
        value = self.cleaned_data.get("period_anchor")
        if value is not None and value > self.league.start_date:
            raise forms.ValidationError(
                f"The first period must start on or before the league's first day "
                f"({self.league.start_date:%d %b %Y}), so that every result falls in a period.",
                code="anchor_after_start",
            )
        return value

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        initial_rd, max_rd = data.get("initial_rd"), data.get("max_rd")
        if initial_rd is not None and max_rd is not None and initial_rd > max_rd:
            self.add_error("max_rd", "The RD ceiling must be at least the initial RD.")
        ceiling, volatility = data.get("volatility_ceiling"), data.get("initial_volatility")
        if ceiling is not None and volatility is not None and ceiling < volatility:
            self.add_error(
                "volatility_ceiling",
                "The volatility ceiling must not be below the initial volatility.",
            )
        floor, rating = data.get("rating_floor"), data.get("initial_rating")
        if floor is not None and rating is not None and floor > rating:
            self.add_error("rating_floor", "The rating floor must not be above the initial rating.")
        return data

    @classmethod
    def initial_for(cls, league: League, config: RatingConfig | None) -> dict[str, Any]:
        """The form's starting values: the live version's, or the defaults."""
        if config is None:
            return {**DEFAULTS, "period_anchor": league.start_date}
        return {name: getattr(config, name) for name in cls.base_fields if name != "note"}


# Far above any player's games, and inside the 32-bit column the games are counted in.
MAX_MIN_GAMES = 1_000_000


class LeaderboardFilterForm(forms.Form):
    """The leaderboard's query string; a bad value is reported and ignored."""

    q = forms.CharField(label="Search players", required=False, max_length=120)
    active = forms.BooleanField(label="Active players only", required=False)
    min_games = forms.IntegerField(
        label="Minimum games",
        required=False,
        min_value=0,
        max_value=MAX_MIN_GAMES,
        error_messages={
            "invalid": "Minimum games must be a whole number.",
            "min_value": "Minimum games cannot be negative.",
            "max_value": f"Minimum games cannot be more than {MAX_MIN_GAMES:,}.",
        },
    )
    sort = forms.ChoiceField(
        required=False, choices=[(key, key) for key in SORT_KEYS], widget=forms.HiddenInput
    )
    page = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)
    period = forms.IntegerField(
        label="As of period",
        required=False,
        min_value=0,
        error_messages={
            "invalid": "The period must be a whole number.",
            "min_value": "The period cannot be negative.",
        },
    )
    date = forms.DateField(
        label="As of date",
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        error_messages={"invalid": "Enter the date as YYYY-MM-DD."},
    )

    def value(self, name: str, default: Any) -> Any:
        """The cleaned value of ``name``, or ``default`` when absent or invalid."""
        if not self.is_bound:
            return default
        self.is_valid()
        value = self.cleaned_data.get(name)
        return default if value in (None, "") else value
