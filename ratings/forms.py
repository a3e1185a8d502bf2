"""Forms of the pages: the organisers' configuration form and the leaderboard's filters."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import forms

from league.models import League
from ratings.models import RatingConfig
from ratings.selectors.standings import SORT_KEYS


def _positive(label: str, hint: str = "") -> dict[str, Any]:
    """A float field refusing zero and negatives with a message naming the parameter."""
    return {
        "min_value": None,
        "error_messages": {
            "required": f"{label} is required.",
            "invalid": f"{label} must be a number.",
        },
        "help_text": hint,
    }


class ConfigForm(forms.Form):
    """A new configuration version. Every rule is checked here with a clear message; the
    engine's own validation (``create_config``) is the last line, reported the same way."""

    tau = forms.FloatField(label="System constant τ", **_positive("τ", "0.3–1.2 is usual."))
    initial_rating = forms.FloatField(
        label="Initial rating",
        error_messages={
            "required": "The initial rating is required.",
            "invalid": "The initial rating must be a number.",
        },
    )
    initial_rd = forms.FloatField(label="Initial RD", **_positive("The initial RD"))
    initial_volatility = forms.FloatField(
        label="Initial volatility σ",
        **_positive("The initial volatility", "0.06 is usual."),
    )
    period_unit = forms.ChoiceField(label="Period unit", choices=RatingConfig.PeriodUnit.choices)
    period_length = forms.IntegerField(
        label="Period length",
        error_messages={
            "required": "The period length is required.",
            "invalid": "The period length must be a whole number.",
        },
        help_text="How many days or months one rating period lasts.",
    )
    period_anchor = forms.DateField(
        label="First period starts on",
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        error_messages={
            "required": "The first day of the first period is required.",
            "invalid": "Enter the first day of the first period as a date (YYYY-MM-DD).",
        },
    )
    max_rd = forms.FloatField(
        label="RD ceiling", **_positive("The RD ceiling", "Applied after every period.")
    )
    volatility_ceiling = forms.FloatField(
        label="Volatility ceiling (optional)",
        required=False,
        error_messages={"invalid": "The volatility ceiling must be a number."},
    )
    rating_floor = forms.FloatField(
        label="Rating floor (optional)",
        required=False,
        error_messages={"invalid": "The rating floor must be a number."},
    )
    note = forms.CharField(
        label="Why this change?", required=False, max_length=200, help_text="Shown in the log."
    )

    def __init__(self, *args: Any, league: League, **kwargs: Any) -> None:
        self.league = league
        super().__init__(*args, **kwargs)

    def _positive(self, name: str, label: str) -> float | None:
        value = self.cleaned_data.get(name)
        if value is not None and value <= 0:
            raise forms.ValidationError(f"{label} must be greater than 0.", code="not_positive")
        return value

    def clean_tau(self) -> float | None:
        return self._positive("tau", "τ")

    def clean_initial_rd(self) -> float | None:
        return self._positive("initial_rd", "The initial RD")

    def clean_initial_volatility(self) -> float | None:
        return self._positive("initial_volatility", "The initial volatility")

    def clean_max_rd(self) -> float | None:
        return self._positive("max_rd", "The RD ceiling")

    def clean_volatility_ceiling(self) -> float | None:
        return self._positive("volatility_ceiling", "The volatility ceiling")

    def clean_period_length(self) -> int | None:
        value = self.cleaned_data.get("period_length")
        if value is not None and value < 1:
            raise forms.ValidationError("The period length must be at least 1.", code="too_short")
        return value

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
            return {
                "tau": 0.5,
                "initial_rating": 1500.0,
                "initial_rd": 350.0,
                "initial_volatility": 0.06,
                "period_unit": RatingConfig.PeriodUnit.DAYS,
                "period_length": 7,
                "period_anchor": league.start_date,
                "max_rd": 350.0,
            }
        return {name: getattr(config, name) for name in cls.base_fields if name != "note"}


class LeaderboardFilterForm(forms.Form):
    """The leaderboard's query string; a bad value is reported and ignored."""

    q = forms.CharField(label="Search players", required=False, max_length=120)
    active = forms.BooleanField(label="Active players only", required=False)
    min_games = forms.IntegerField(
        label="Minimum games",
        required=False,
        min_value=0,
        error_messages={
            "invalid": "Minimum games must be a whole number.",
            "min_value": "Minimum games cannot be negative.",
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
