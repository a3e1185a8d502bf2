"""Forms of the pages: the organisers' configuration form and the leaderboard's filters."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from django import forms
from django.utils import formats
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from engine.errors import InvalidParameterError
from engine.intervals import ConfidenceLevel
from league.calendar import page_day_text
from league.models import League
from ratings.models import RankingRules, RatingConfig
from ratings.parameters import BY_NAME, DEFAULTS, advantage_label
from ratings.selectors.standings import DEFAULT_LEVEL, LISTS, SORT_KEYS
from web import locale_format


def _later(build: Callable[[], str]) -> Any:
    """Text built each time it is shown, in the language active then (a form's messages
    are made once, at import, when no request has chosen a language yet)."""
    return lazy(build, str)()


def _grouped(value: int) -> str:
    """A large whole number with the active language's thousands separator ("1,000,000")."""
    return formats.number_format(value, force_grouping=True)


def _parameter_field(name: str, **kwargs: Any) -> forms.Field:
    """The form field of a rating parameter, from the table (``ratings.parameters``).

    Its bounds are checked by the table's validators, with the table's messages: the same
    ones the admin, the API and the commands give.
    """
    parameter = BY_NAME[name]
    noun = parameter.noun
    whole = parameter.kind is int
    field_class = forms.IntegerField if parameter.kind is int else forms.FloatField
    field = field_class(
        label=_later(parameter.shown_label),
        help_text=_later(parameter.shown_help),
        required=not parameter.optional,
        validators=parameter.validators(),
        error_messages={
            "required": _later(lambda: gettext("%(noun)s is required.") % {"noun": noun}),
            "invalid": _later(
                lambda: (
                    (
                        gettext("%(noun)s must be a whole number.")
                        if whole
                        else gettext("%(noun)s must be a number.")
                    )
                    % {"noun": noun}
                )
            ),
        },
        **kwargs,
    )
    # Why the bounds are where they are: the page shows it under the allowed range.
    field.reason = parameter.reason  # type: ignore[attr-defined]
    return field


class ConfigForm(forms.Form):
    """A new configuration version. Every rule is checked here with a clear message; the
    engine's own validation (``create_config``) is the last line, reported the same way."""

    tau = _parameter_field("tau")
    initial_rating = _parameter_field("initial_rating")
    initial_rd = _parameter_field("initial_rd")
    initial_volatility = _parameter_field("initial_volatility")
    period_unit = forms.ChoiceField(
        label=_later(BY_NAME["period_unit"].shown_label),
        help_text=_later(BY_NAME["period_unit"].shown_help),
        choices=RatingConfig.PeriodUnit.choices,
    )
    period_length = _parameter_field("period_length")
    period_anchor = forms.DateField(
        label=_later(BY_NAME["period_anchor"].shown_label),
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        error_messages={
            "required": _("The first day of the first period is required."),
            "invalid": _("Enter the first day of the first period as a date (YYYY-MM-DD)."),
        },
    )
    max_rd = _parameter_field("max_rd")
    volatility_ceiling = _parameter_field("volatility_ceiling")
    rating_floor = _parameter_field("rating_floor")
    advantage = _parameter_field("advantage")
    margin_scale = _parameter_field("margin_scale")
    # Not required: a form posted without it keeps the newest version's mode.
    update_mode = forms.ChoiceField(
        label=_later(BY_NAME["update_mode"].shown_label),
        help_text=_later(BY_NAME["update_mode"].shown_help),
        choices=RatingConfig.UpdateMode.choices,
        required=False,
    )
    note = forms.CharField(
        label=_("Why this change?"),
        required=False,
        max_length=200,
        help_text=_("Shown in the log."),
    )
    # The version the form was filled from: a save refused if another came since (stale form).
    based_on = forms.IntegerField(required=False, min_value=0, widget=forms.HiddenInput)

    def __init__(self, *args: Any, league: League, **kwargs: Any) -> None:
        self.league = league
        super().__init__(*args, **kwargs)
        self.fields["advantage"].label = advantage_label(league)
        if league.is_chess:
            self.fields["advantage"].help_text = gettext(
                "Rating points added to White in the expected score of every game: the "
                "first-move advantage; 0 for none."
            )

    def clean_period_anchor(self) -> dt.date | None:
        value = self.cleaned_data.get("period_anchor")
        if value is not None and value > self.league.start_date:
            raise forms.ValidationError(
                gettext(
                    "The first period must start on or before the league's first day "
                    "(%(day)s), so that every result falls in a period."
                )
                % {"day": page_day_text(self.league.start_date)},
                code="anchor_after_start",
            )
        return value

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        initial_rd, max_rd = data.get("initial_rd"), data.get("max_rd")
        if initial_rd is not None and max_rd is not None and initial_rd > max_rd:
            self.add_error("max_rd", gettext("The RD ceiling must be at least the initial RD."))
        ceiling, volatility = data.get("volatility_ceiling"), data.get("initial_volatility")
        if ceiling is not None and volatility is not None and ceiling < volatility:
            self.add_error(
                "volatility_ceiling",
                gettext("The volatility ceiling must not be below the initial volatility."),
            )
        floor, rating = data.get("rating_floor"), data.get("initial_rating")
        if floor is not None and rating is not None and floor > rating:
            self.add_error(
                "rating_floor", gettext("The rating floor must not be above the initial rating.")
            )
        if not data.get("update_mode"):
            # create_config inherits what it is not given.
            data.pop("update_mode", None)
        return data

    @classmethod
    def initial_for(cls, league: League, config: RatingConfig | None) -> dict[str, Any]:
        """The form's starting values: those of ``config`` (the newest version, which may still
        be replaying), or the defaults before the first one."""
        if config is None:
            return {**DEFAULTS, "period_anchor": league.start_date, "based_on": 0}
        values = {
            name: getattr(config, name)
            for name in cls.base_fields
            if name not in ("note", "based_on")
        }
        return {**values, "based_on": config.version}


#: The interval levels the pages offer (any other percent or z can be typed in the URL).
LEVEL_CHOICES = (68, 90, 95, 99)


def parse_level(text: str | None) -> ConfidenceLevel | None:
    """``?level=`` as a confidence level (None when absent); refuses a bad one with a message.

    Accepts a percent (``95``, ``99.9``) or a number of deviations (``z2``), as
    ``ConfidenceLevel.parse`` does.
    """
    if text is None or not str(text).strip():
        return None
    try:
        level = ConfidenceLevel.parse(str(text))
    except InvalidParameterError as error:
        raise forms.ValidationError(
            gettext("Interval level: %(error)s (for example 68, 95, 99 or z2).") % {"error": error},
            code="level",
        ) from None
    # "95" is the project's usual ± 1.96 RD, so that every 95 % interval on the site agrees.
    return DEFAULT_LEVEL if level.percent == 95.0 else level


def level_of_percent(percent: float) -> ConfidenceLevel:
    """The level of ``percent`` as the site shows it: 95 is the usual ± 1.96 RD."""
    return DEFAULT_LEVEL if percent == 95.0 else ConfidenceLevel.from_percent(percent)


def _level_value(level: ConfidenceLevel) -> str:
    """The level as ``?level=`` takes it back: its percent to at most two decimals ("68.27";
    the machine form, whatever the language)."""
    return f"{level.percent:.2f}".rstrip("0").rstrip(".")


def level_choices(level: ConfidenceLevel) -> list[dict[str, Any]]:
    """The level picker's options, with ``level`` selected (added when it is not offered).

    The 95 % option is the site's ± 1.96 RD, the level a page shows by default, so that the
    default is selected in the list rather than added to it a second time.
    """
    options = [level_of_percent(percent) for percent in LEVEL_CHOICES]
    if not any(abs(option.z - level.z) < 1e-9 for option in options):
        options.append(level)
        options.sort(key=lambda option: option.z)
    return [
        {
            "value": "95" if option == DEFAULT_LEVEL else _level_value(option),
            "label": locale_format.level_label(option),
            "selected": abs(option.z - level.z) < 1e-9,
        }
        for option in options
    ]


class RankingRulesForm(forms.ModelForm):
    """The organisers' eligibility rules (``ratings.eligibility``)."""

    class Meta:
        model = RankingRules
        fields = ["min_games", "active_periods", "max_rd", "rank_by"]
        labels = {
            "min_games": _("Minimum games"),
            "active_periods": _("Played within the last … periods"),
            "max_rd": _("Largest RD"),
            "rank_by": _("Rank by"),
        }
        error_messages = {
            "min_games": {
                "invalid": _("Minimum games must be a whole number."),
                "min_value": _("Minimum games cannot be negative."),
                "max_value": _("Minimum games is too large."),
            },
            "active_periods": {
                "invalid": _("The activity window must be a whole number of periods."),
                "min_value": _("The activity window must be at least 1 period (or blank)."),
            },
            "max_rd": {"invalid": _("The largest RD must be a number.")},
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["min_games"].widget.attrs.update(max=str(MAX_MIN_GAMES))
        self.fields["active_periods"].widget.attrs.update(min="1", max=str(MAX_ACTIVE_PERIODS))
        self.fields["max_rd"].widget.attrs.update(min="1", max=f"{MAX_RULE_RD:g}", step="any")

    def clean_min_games(self) -> int:
        value = self.cleaned_data["min_games"]
        if value is None or value < 0:
            raise forms.ValidationError(gettext("Minimum games cannot be negative."))
        if value > MAX_MIN_GAMES:
            raise forms.ValidationError(_too_many_games())
        return value

    def clean_active_periods(self) -> int | None:
        value = self.cleaned_data.get("active_periods")
        if value is not None and not 1 <= value <= MAX_ACTIVE_PERIODS:
            raise forms.ValidationError(
                gettext(
                    "The activity window must be from 1 to %(max)s periods (or blank for no rule)."
                )
                % {"max": _grouped(MAX_ACTIVE_PERIODS)}
            )
        return value

    def clean_max_rd(self) -> float | None:
        value = self.cleaned_data.get("max_rd")
        if value is not None and not (value == value and 0 < value <= MAX_RULE_RD):
            raise forms.ValidationError(
                gettext(
                    "The largest RD must be above 0 and at most %(max)s (or blank for no rule)."
                )
                % {"max": locale_format.number(MAX_RULE_RD)}
            )
        return value


#: The largest RD limit an organiser can set (the RD ceiling's own upper bound).
MAX_RULE_RD = 1000.0
#: The longest activity window an organiser can set (a day-period league over 100 years).
MAX_ACTIVE_PERIODS = 36_600

# Far above any player's games, and inside the 32-bit column the games are counted in.
MAX_MIN_GAMES = 1_000_000


def _too_many_games() -> str:
    return gettext("Minimum games cannot be more than %(max)s.") % {"max": _grouped(MAX_MIN_GAMES)}


class LeaderboardFilterForm(forms.Form):
    """The leaderboard's query string; a bad value is reported and ignored."""

    q = forms.CharField(label=_("Search players"), required=False, max_length=120)
    active = forms.BooleanField(label=_("Players who played recently only"), required=False)
    everyone = forms.BooleanField(
        label=_("Rank everyone (provisional and inactive players too)"), required=False
    )
    listed = forms.ChoiceField(
        required=False, choices=[(key, key) for key in LISTS], widget=forms.HiddenInput
    )
    level = forms.CharField(label=_("Interval"), required=False, max_length=40)
    min_games = forms.IntegerField(
        label=_("Minimum games"),
        required=False,
        min_value=0,
        max_value=MAX_MIN_GAMES,
        error_messages={
            "invalid": _("Minimum games must be a whole number."),
            "min_value": _("Minimum games cannot be negative."),
            "max_value": _later(_too_many_games),
        },
    )
    sort = forms.ChoiceField(
        required=False, choices=[(key, key) for key in SORT_KEYS], widget=forms.HiddenInput
    )
    page = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)
    period = forms.IntegerField(
        label=_("As of period"),
        required=False,
        min_value=0,
        error_messages={
            "invalid": _("The period must be a whole number."),
            "min_value": _("The period cannot be negative."),
        },
    )
    date = forms.DateField(
        label=_("As of date"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        error_messages={"invalid": _("Enter the date as YYYY-MM-DD.")},
    )

    def clean_level(self) -> ConfidenceLevel | None:
        return parse_level(self.cleaned_data.get("level"))

    def value(self, name: str, default: Any) -> Any:
        """The cleaned value of ``name``, or ``default`` when absent or invalid."""
        if not self.is_bound:
            return default
        self.is_valid()
        value = self.cleaned_data.get(name)
        return default if value in (None, "") else value
