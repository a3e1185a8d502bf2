"""The rating parameters of a configuration version: one table of bounds and defaults.

Each :class:`Parameter` holds a parameter's label, help, default, bounds, type and unit. The
table drives every place that takes parameters: the model's field validators, the
configuration page's form (through :func:`clean_config_params`), the API's serializers, the
backtest grid's value checks and the management commands' options. So every surface refuses
the same values with the same message, :meth:`Parameter.problem`.

The engine (``engine.params.Glicko2Params``) stays the engine's truth about what values are
valid: :func:`clean_config_params` always asks it about the values too. Its defaults are the
paper's and are the table's, except three that a new league takes from the benchmarks:
instant updates and a volatility of 0.10 for weekly periods (the coverage benchmark,
docs/intervals.md; :func:`default_volatility` scales it to other period lengths), and a
volatility ceiling of 0.15 (off in the engine). The table's bounds are narrower than the
engine's guards: they keep a league's parameters where the volatility iteration converges
(it fails with τ = 1e-50, or a volatility of 1e-200), where stored numbers fit their columns,
and where the demo league's ratings, RDs and volatilities stay finite and no played game's RD
update reaches the RD ceiling (``tests/unit/test_safe_parameters.py``; the measurements
behind each bound: ``docs/parameters.md``). Each parameter's ``reason`` says why, on the
configuration page.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
from dataclasses import dataclass
from numbers import Real
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.utils import formats
from django.utils.translation import gettext, gettext_noop, ngettext
from django.utils.translation import gettext_lazy as _

from engine.errors import InvalidParameterError
from engine.params import Glicko2Params

_ENGINE = Glicko2Params()
#: A league's volatility ceiling unless it sets one. The engine's is off (the paper's
#: algorithm); a league's is required, so that no τ makes volatility grow without bound.
VOLATILITY_CEILING = 0.15
UNITS = ("days", "months")
#: How games update ratings: a period's games at once (the paper) or each game when played.
UPDATE_MODES = ("period", "instant")
#: A new league's volatility for weekly periods: with instant updates its 95 % intervals cover
#: 93-97 % of true skills in every cell of ``bench/bench_coverage.py`` (docs/intervals.md).
WEEKLY_VOLATILITY = 0.10
#: The period length, in days, ``WEEKLY_VOLATILITY`` is for.
WEEKLY_DAYS = 7
#: How the default volatility grows with the period's length: (days / 7) to this power.
PERIOD_EXPONENT = 0.25
#: Days of an average calendar month (a month-long period's length in days).
MONTH_DAYS = 365.2425 / 12


@dataclass(frozen=True)
class Bound:
    """One end of a parameter's range."""

    value: float
    inclusive: bool = True


@dataclass(frozen=True)
class Parameter:
    """One rating parameter: how it is shown, its default and the values it may take.

    ``label`` names its form field, ``noun`` names it in messages ("The initial RD must be
    ..."). ``positive`` is the engine's rule (greater than 0), checked before ``minimum``
    so that a zero or negative value is told the rule it breaks.
    """

    name: str
    label: str
    noun: Any  # a lazily translated text
    help: str
    default: Any
    kind: type
    unit: str = ""
    minimum: Bound | None = None
    maximum: Bound | None = None
    positive: bool = False
    optional: bool = False
    choices: tuple[str, ...] = ()
    #: Why the bounds are where they are (shown beside them on the configuration page).
    reason: Any = ""

    @property
    def flag(self) -> str:
        """The management commands' option for it."""
        return "--" + self.name.replace("_", "-")

    def problem(self, value: float) -> str | None:
        """The message refusing ``value`` (a number) as out of range, or None if it is in."""
        return self.low_problem(value) or self.high_problem(value)

    def low_problem(self, value: float) -> str | None:
        """The message refusing ``value`` as too small (or not positive), or None."""
        if self.positive and value <= 0:
            return gettext("%(noun)s must be greater than 0.") % {"noun": self.noun}
        low = self.minimum
        if low is not None and (value < low.value or (value == low.value and not low.inclusive)):
            template = (
                gettext("%(noun)s must be at least %(bound)s.")
                if low.inclusive
                else gettext("%(noun)s must be greater than %(bound)s.")
            )
            return template % {"noun": self.noun, "bound": _number(low.value)}
        return None

    def high_problem(self, value: float) -> str | None:
        """The message refusing ``value`` as too large, or None."""
        high = self.maximum
        if high is not None and (
            value > high.value or (value == high.value and not high.inclusive)
        ):
            template = (
                gettext("%(noun)s must be at most %(bound)s.")
                if high.inclusive
                else gettext("%(noun)s must be less than %(bound)s.")
            )
            return template % {"noun": self.noun, "bound": _number(high.value)}
        return None

    @property
    def range_text(self) -> str:
        """The allowed values in words, e.g. "from 0.01 to 10" (empty when unbounded)."""
        parts = []
        if self.minimum is not None:
            word = "from" if self.minimum.inclusive else "above"
            parts.append(f"{word} {_number(self.minimum.value)}")
        if self.maximum is not None:
            word = "to" if self.maximum.inclusive else "below"
            parts.append(f"{word} {_number(self.maximum.value)}")
        return " ".join(parts)

    def shown_label(self) -> str:
        """The label in the active language, for a page."""
        return gettext(str(self.label))

    def shown_range(self) -> str:
        """The allowed values in words in the active language ("von 1 bis 500")."""
        parts = []
        if self.minimum is not None:
            low = _shown_number(self.minimum.value)
            if self.minimum.inclusive:
                parts.append(gettext("from %(value)s") % {"value": low})
            else:
                parts.append(gettext("above %(value)s") % {"value": low})
        if self.maximum is not None:
            high = _shown_number(self.maximum.value)
            if self.maximum.inclusive:
                parts.append(gettext("to %(value)s") % {"value": high})
            else:
                parts.append(gettext("below %(value)s") % {"value": high})
        return " ".join(parts)

    def shown_help(self) -> str:
        """The help with the allowed range and the unit in the active language, for a page."""
        help_text = gettext(str(self.help))
        allowed = self.shown_range()
        if not allowed:
            return help_text
        if self.unit:
            allowed = f"{allowed} {gettext(self.unit)}"
        return gettext("%(help)s Allowed: %(range)s.") % {"help": help_text, "range": allowed}

    @property
    def help_text(self) -> str:
        """The help with the allowed range and the unit, for forms, the API and commands."""
        allowed = self.range_text
        if allowed and self.unit:
            allowed = f"{allowed} {self.unit}"
        return f"{self.help} Allowed: {allowed}." if allowed else self.help

    def validators(self) -> list[Any]:
        """Validators refusing out-of-range values with :meth:`problem`'s message."""
        found: list[Any] = []
        if self.minimum is not None or self.positive:
            found.append(ParameterMinimum(self.name))
        if self.maximum is not None:
            found.append(ParameterMaximum(self.name))
        return found


def _number(value: float) -> str:
    return f"{value:g}" if not float(value).is_integer() else str(int(value))


def _shown_number(value: float) -> str:
    """A bound as a page writes it: the active language's decimal mark ("0,01")."""
    return _number(value).replace(".", formats.get_format("DECIMAL_SEPARATOR"))


#: ``gettext_noop`` marks a label, help or unit for the catalogues and leaves it English: the
#: models' fields and migrations, the API's schema and the commands use it as it is; pages
#: translate it when they show it (``Parameter.shown_label`` / ``shown_help``).
PARAMETER_TABLE: tuple[Parameter, ...] = (
    Parameter(
        "tau",
        label=gettext_noop("System constant τ"),
        noun="τ",
        help=gettext_noop("How much a player's volatility may change; 0.3–1.2 is usual."),
        default=_ENGINE.tau,
        kind=float,
        minimum=Bound(0.01),
        maximum=Bound(2.0),
        positive=True,
        reason=_(
            "Below 0.01 the volatility iteration may not converge. Above 2 volatility "
            "swings without bound: on the demo league ratings reached ±10⁴⁵ from τ = 8 "
            "without a volatility ceiling; Glickman advises 0.3–1.2."
        ),
    ),
    Parameter(
        "initial_rating",
        label=gettext_noop("Initial rating"),
        noun=_("The initial rating"),
        help=gettext_noop("Rating of a player before their first game."),
        default=_ENGINE.initial_rating,
        kind=float,
        unit=gettext_noop("rating points"),
        minimum=Bound(-10000.0),
        maximum=Bound(10000.0),
        reason=_(
            "Ratings only compare with each other: any start works; these bounds keep "
            "stored numbers in their columns."
        ),
    ),
    Parameter(
        "initial_rd",
        label=gettext_noop("Initial RD"),
        noun=_("The initial RD"),
        help=gettext_noop("Rating deviation of a player before their first game."),
        default=_ENGINE.initial_rd,
        kind=float,
        unit=gettext_noop("rating points"),
        minimum=Bound(1.0),
        maximum=Bound(500.0),
        positive=True,
        reason=_(
            "At most the RD ceiling. Above 500 a newcomer's interval spans the whole scale "
            "and their first results move ratings by hundreds of points."
        ),
    ),
    Parameter(
        "initial_volatility",
        label=gettext_noop("Initial volatility σ"),
        noun=_("The initial volatility"),
        help=gettext_noop(
            "Volatility of a player before their first game: how far a skill is believed to "
            "move in one period. A new league has 0.1 for weekly periods, 0.06 for daily ones "
            "and 0.14 for monthly ones (0.06 is the paper's for any period)."
        ),
        default=WEEKLY_VOLATILITY,
        kind=float,
        minimum=Bound(0.0001),
        maximum=Bound(0.15),
        positive=True,
        reason=_(
            "At most the volatility ceiling (0.15 at most): with 1 and no ceiling the demo "
            "league's ratings became astronomically large even at τ = 2."
        ),
    ),
    Parameter(
        "period_unit",
        label=gettext_noop("Period unit"),
        noun=_("The period unit"),
        help=gettext_noop("Rating periods last days or calendar months."),
        default="days",
        kind=str,
        choices=UNITS,
    ),
    Parameter(
        "period_length",
        label=gettext_noop("Period length"),
        noun=_("The period length"),
        help=gettext_noop("How many days or months one rating period lasts."),
        default=7,
        kind=int,
        minimum=Bound(1),
        maximum=Bound(366),
    ),
    Parameter(
        "max_rd",
        label=gettext_noop("RD ceiling"),
        noun=_("The RD ceiling"),
        help=gettext_noop("Applied after every period: no RD grows above it."),
        default=_ENGINE.max_rd,
        kind=float,
        unit=gettext_noop("rating points"),
        minimum=Bound(350.0),
        maximum=Bound(500.0),
        positive=True,
        reason=_(
            "At least the initial RD. At 200–300 some played games' RDs ended at the "
            "ceiling on the demo league (up to 15), so the ceiling, not the results, set "
            "them; from 350 none did within the other bounds. Above 500 an interval spans "
            "the whole scale."
        ),
    ),
    Parameter(
        "volatility_ceiling",
        label=gettext_noop("Volatility ceiling"),
        noun=_("The volatility ceiling"),
        help=gettext_noop("No volatility grows above it."),
        default=VOLATILITY_CEILING,
        kind=float,
        minimum=Bound(0.0001),
        maximum=Bound(0.15),
        positive=True,
        reason=_(
            "Required: without it τ = 8 made the demo league's volatility 4·10⁴³. At most "
            "0.15: with 0.2, τ = 2 and an RD ceiling of 350 a game's RD update hit the RD "
            "ceiling on the demo league; a new league's volatility (0.06–0.14 by its period "
            "length) stays under it, with room to grow for a weekly league's 0.1."
        ),
    ),
    Parameter(
        "rating_floor",
        label=gettext_noop("Rating floor (optional)"),
        noun=_("The rating floor"),
        help=gettext_noop("No rating falls below it; empty for none."),
        default=_ENGINE.rating_floor,
        kind=float,
        unit=gettext_noop("rating points"),
        minimum=Bound(-10000.0),
        maximum=Bound(10000.0),
        optional=True,
        reason=_("At most the initial rating."),
    ),
    Parameter(
        "advantage",
        label=gettext_noop("First-named side's advantage"),
        noun=_("The advantage"),
        help=gettext_noop(
            "Rating points added to the first-named side (home team, white, first player) "
            "in the expected score of every match not marked neutral; 0 for none."
        ),
        default=_ENGINE.advantage,
        kind=float,
        unit=gettext_noop("rating points"),
        minimum=Bound(-200.0),
        maximum=Bound(200.0),
        reason=_(
            "Real advantages are far smaller (home sides in football: about 70 points); "
            "with ±500, lopsided expected scores left some played games' RDs at the RD "
            "ceiling on the demo league; ±200 keeps a margin from that."
        ),
    ),
    Parameter(
        "margin_scale",
        label=gettext_noop("Margin scale (optional)"),
        noun=_("The margin scale"),
        help=gettext_noop(
            "Counts how much a match was won by: a win by m points scores "
            "0.5 + 0.5·tanh(m / scale) instead of 1 (the loser the rest); empty to count "
            "wins, draws and losses only. An experiment: adopt it when the backtest says so."
        ),
        default=_ENGINE.margin_scale,
        kind=float,
        unit=gettext_noop("points"),
        minimum=Bound(0.1),
        maximum=Bound(1000.0),
        positive=True,
        optional=True,
        reason=_("Below 0.1 it counts results only; above 1000 every win scores nearly a draw."),
    ),
    Parameter(
        "update_mode",
        label=_("Updates"),
        noun=_("The update mode"),
        help=_(
            "“period”: the games of a rating period count as simultaneous, as in Glickman's "
            "paper. “instant”: each game updates its players when it is played, their RD "
            "growing with the time since their last game (as Lichess does); its intervals "
            "cover their level better when players play several games a period."
        ),
        default="instant",
        kind=str,
        choices=UPDATE_MODES,
    ),
    Parameter(
        "period_anchor",
        label=gettext_noop("First period starts on"),
        noun=_("The first day of the first period"),
        help=gettext_noop(
            "First day of period 0; on or before the league's start date (its default)."
        ),
        default=None,
        kind=dt.date,
    ),
)

BY_NAME: dict[str, Parameter] = {parameter.name: parameter for parameter in PARAMETER_TABLE}
#: Parameters a configuration version holds, in the table's order.
PARAMETERS: tuple[str, ...] = tuple(BY_NAME)


def advantage_label(league: Any) -> str:
    """The name of the ``advantage`` parameter for ``league``: in chess it is White's (the
    first-move advantage: the first-named player is White, and no chess game is played on
    neutral ground), elsewhere the first-named (home) side's."""
    if getattr(league, "is_chess", False):
        return str(_("White's advantage"))
    return BY_NAME["advantage"].shown_label()


#: The defaults of a league's first version; the period anchor defaults to the league's start
#: date (see ``ratings.services.default_params``).
DEFAULTS: dict[str, Any] = {
    parameter.name: parameter.default
    for parameter in PARAMETER_TABLE
    if parameter.name != "period_anchor"
}


def period_days(unit: str, length: int) -> float:
    """A period of ``length`` days or calendar months, in days (a month: its average)."""
    return float(length) * (MONTH_DAYS if unit == "months" else 1.0)


def default_volatility(unit: str, length: int) -> float:
    """A new league's initial volatility for periods of ``length`` ``unit``.

    0.10 * (days / 7) ** (1/4), within the table's bounds: 0.0615 for one-day periods,
    0.1414 for 28 days, 0.1444 for calendar months. A skill's drift per period grows with the
    square root of its length, but the volatility must also make up for the instant update's
    approximation, which does not grow with the period: on the coverage benchmark the square
    root left one-day periods at 90-93 % and 28-day ones at up to 98 %, the fourth root kept
    both within 92.4-95.5 % (docs/intervals.md, "Other period lengths").
    """
    volatility = WEEKLY_VOLATILITY * (period_days(unit, length) / WEEKLY_DAYS) ** PERIOD_EXPONENT
    bounds = BY_NAME["initial_volatility"]
    low = bounds.minimum.value if bounds.minimum is not None else volatility
    high = bounds.maximum.value if bounds.maximum is not None else volatility
    return round(min(max(volatility, low), high), 4)


#: The numbers, checked against their bounds.
NUMBERS: tuple[Parameter, ...] = tuple(p for p in PARAMETER_TABLE if p.kind in (float, int))


class ParameterMinimum(MinValueValidator):
    """Refuses a value below the parameter's lower bound, with the table's message.

    A ``MinValueValidator`` so that the OpenAPI schema shows the bound as ``minimum``; it is
    deconstructed by name, so a migration does not copy the bound.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        low = BY_NAME[name].minimum
        super().__init__(0 if low is None else low.value)

    def __call__(self, value: Any) -> None:
        message = BY_NAME[self.name].low_problem(float(value))
        if message is not None:
            raise ValidationError(message, code="out_of_range")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.name == self.name  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), self.name))


class ParameterMaximum(MaxValueValidator):
    """Refuses a value above the parameter's upper bound, with the table's message."""

    def __init__(self, name: str) -> None:
        self.name = name
        high = BY_NAME[name].maximum
        super().__init__(math.inf if high is None else high.value)

    def __call__(self, value: Any) -> None:
        message = BY_NAME[self.name].high_problem(float(value))
        if message is not None:
            raise ValidationError(message, code="out_of_range")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.name == self.name  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), self.name))


def _as_number(errors: dict[str, list[str]], parameter: Parameter, value: Any) -> Any:
    """``value`` as a finite float (an int for an integer parameter), or None with an error."""
    name = parameter.name
    if parameter.kind is int:
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            errors.setdefault(name, []).append(
                gettext("%(name)s must be a whole number, got %(value)r.")
                % {"name": name, "value": value}
            )
            return None
        return value
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            errors.setdefault(name, []).append(
                gettext("%(name)s must be a number, got %(value)r.")
                % {"name": name, "value": value}
            )
            return None
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        errors.setdefault(name, []).append(
            gettext("%(name)s must be a finite number, got %(value)r.")
            % {"name": name, "value": value}
        )
        return None
    return float(value)


def clean_config_params(
    params: dict[str, Any], *, start_date: dt.date, first_match_day: dt.date | None
) -> dict[str, Any]:
    """Return ``params`` (every key of ``PARAMETERS``) normalised, or raise ValidationError.

    Every number is checked against the table (:meth:`Parameter.problem`), and the engine is
    asked about every set of finite numbers: its verdict (its guards, and rules across
    parameters such as the initial RD above the ceiling) is reported with the table's.
    ``start_date`` is the league's first allowed result date and ``first_match_day`` the
    local date of its earliest match: a period anchor after either would leave a match
    before the first rating period, which the engine refuses.
    """
    errors: dict[str, list[str]] = {}
    unknown = sorted(set(params) - set(PARAMETERS) - {"note"})
    if unknown:
        errors["__all__"] = [
            ngettext(
                "Unknown rating parameter: %(names)s.",
                "Unknown rating parameters: %(names)s.",
                len(unknown),
            )
            % {"names": ", ".join(unknown)}
        ]
    cleaned: dict[str, Any] = {}
    for parameter in NUMBERS:
        value = params.get(parameter.name)
        if value in (None, ""):
            cleaned[parameter.name] = None
            if not parameter.optional:
                errors.setdefault(parameter.name, []).append(
                    gettext("%(noun)s is required.") % {"noun": parameter.noun}
                )
            continue
        number = _as_number(errors, parameter, value)
        if number is not None:
            message = parameter.problem(number)
            if message is not None:
                errors.setdefault(parameter.name, []).append(message)
        cleaned[parameter.name] = number
    unit = params.get("period_unit")
    if unit not in UNITS:
        errors.setdefault("period_unit", []).append(
            gettext("period_unit must be 'days' or 'months', got %(value)r.") % {"value": unit}
        )
    cleaned["period_unit"] = unit
    mode = params.get("update_mode")
    if mode not in UPDATE_MODES:
        errors.setdefault("update_mode", []).append(
            gettext("update_mode must be 'period' or 'instant', got %(value)r.") % {"value": mode}
        )
    cleaned["update_mode"] = mode
    cleaned["period_anchor"] = _clean_anchor(
        errors, params.get("period_anchor"), start_date, first_match_day
    )
    if all(cleaned[p.name] is not None or p.optional for p in NUMBERS if p.kind is float):
        _check_with_engine(cleaned, errors)
    if errors:
        raise ValidationError(errors)
    return cleaned


def stored_problems(values: dict[str, Any]) -> dict[str, str]:
    """Parameter name -> why a stored version's value is outside today's bounds.

    Versions stored before the bounds narrowed (τ up to 10, no volatility ceiling, ...) stay
    as they are: a version is immutable and its standings replay as stored. The
    configuration page flags them with these messages; a new version must be inside.
    """
    found: dict[str, str] = {}
    for parameter in NUMBERS:
        value = values.get(parameter.name)
        if value is None:
            if not parameter.optional:
                found[parameter.name] = gettext("%(noun)s is required.") % {"noun": parameter.noun}
            continue
        message = parameter.problem(float(value))
        if message is not None:
            found[parameter.name] = message
    return found


def _clean_anchor(
    errors: dict[str, list[str]],
    anchor: Any,
    start_date: dt.date,
    first_match_day: dt.date | None,
) -> Any:
    if isinstance(anchor, str):
        with contextlib.suppress(ValueError):
            anchor = dt.date.fromisoformat(anchor)
    if isinstance(anchor, dt.datetime) or not isinstance(anchor, dt.date):
        errors.setdefault("period_anchor", []).append(
            gettext("period_anchor must be a date (YYYY-MM-DD), got %(value)r.") % {"value": anchor}
        )
        return anchor
    if anchor > start_date:
        errors.setdefault("period_anchor", []).append(
            gettext(
                "period_anchor (%(anchor)s) must not be after the league's start "
                "date (%(start)s): results from the start date on need a period."
            )
            % {"anchor": anchor.isoformat(), "start": start_date.isoformat()}
        )
    if first_match_day is not None and anchor > first_match_day:
        errors.setdefault("period_anchor", []).append(
            gettext(
                "period_anchor (%(anchor)s) is after the league's first match "
                "(%(first)s); a match before the first period is an error."
            )
            % {"anchor": anchor.isoformat(), "first": first_match_day.isoformat()}
        )
    return anchor


def _check_with_engine(cleaned: dict[str, Any], errors: dict[str, list[str]]) -> None:
    """Let the engine judge the values (its guards, initial RD above the ceiling, ...)."""
    try:
        Glicko2Params(
            tau=cleaned["tau"],
            initial_rating=cleaned["initial_rating"],
            initial_rd=cleaned["initial_rd"],
            initial_volatility=cleaned["initial_volatility"],
            max_rd=cleaned["max_rd"],
            volatility_ceiling=cleaned["volatility_ceiling"],
            rating_floor=cleaned["rating_floor"],
            advantage=cleaned["advantage"],
            margin_scale=cleaned["margin_scale"],
        )
    except InvalidParameterError as error:
        message = str(error)
        field_name = message.split(" ", 1)[0]
        key = field_name if field_name in PARAMETERS else "__all__"
        errors.setdefault(key, []).append(f"{message}.")
