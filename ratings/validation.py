"""Validation of rating configuration parameters, with one clear message per field."""

from __future__ import annotations

import contextlib
import datetime as dt
import math
from numbers import Real
from typing import Any

from django.core.exceptions import ValidationError

from ratings.engine.errors import InvalidParameterError
from ratings.engine.params import Glicko2Params

#: Parameters a configuration version holds, with the defaults of a league's first version
#: (the period anchor defaults to the league's start date, see ``ratings.services``).
DEFAULTS: dict[str, Any] = {
    "tau": 0.5,
    "initial_rating": 1500.0,
    "initial_rd": 350.0,
    "initial_volatility": 0.06,
    "period_unit": "days",
    "period_length": 7,
    "max_rd": 350.0,
    "volatility_ceiling": None,
    "rating_floor": None,
}
PARAMETERS = (*DEFAULTS, "period_anchor")
POSITIVE = ("tau", "initial_rd", "initial_volatility", "max_rd")
OPTIONAL = ("volatility_ceiling", "rating_floor")
UNITS = ("days", "months")


def _as_float(errors: dict[str, list[str]], name: str, value: Any) -> float | None:
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            errors.setdefault(name, []).append(f"{name} must be a number, got {value!r}.")
            return None
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        errors.setdefault(name, []).append(f"{name} must be a finite number, got {value!r}.")
        return None
    return float(value)


def clean_config_params(
    params: dict[str, Any], *, start_date: dt.date, first_match_day: dt.date | None
) -> dict[str, Any]:
    """Return ``params`` (every key of ``PARAMETERS``) normalised, or raise ValidationError.

    ``start_date`` is the league's first allowed result date and ``first_match_day`` the local
    date of its earliest match: a period anchor after either would leave a match before the
    first rating period, which the engine refuses.
    """
    errors: dict[str, list[str]] = {}
    unknown = sorted(set(params) - set(PARAMETERS) - {"note"})
    if unknown:
        errors["__all__"] = [f"Unknown rating parameter(s): {', '.join(unknown)}."]
    cleaned: dict[str, Any] = {}
    for name in ("tau", "initial_rating", "initial_rd", "initial_volatility", "max_rd"):
        number = _as_float(errors, name, params.get(name))
        if number is not None and name in POSITIVE and number <= 0:
            errors.setdefault(name, []).append(f"{name} must be greater than 0, got {number:g}.")
        cleaned[name] = number
    for name in OPTIONAL:
        value = params.get(name)
        cleaned[name] = None if value in (None, "") else _as_float(errors, name, value)
    unit = params.get("period_unit")
    if unit not in UNITS:
        errors.setdefault("period_unit", []).append(
            f"period_unit must be 'days' or 'months', got {unit!r}."
        )
    cleaned["period_unit"] = unit
    length = params.get("period_length")
    if isinstance(length, str) and length.strip().isdigit():
        length = int(length)
    if isinstance(length, bool) or not isinstance(length, int) or length < 1:
        errors.setdefault("period_length", []).append(
            f"period_length must be a whole number of at least 1, got {length!r}."
        )
    cleaned["period_length"] = length
    anchor = params.get("period_anchor")
    if isinstance(anchor, str):
        with contextlib.suppress(ValueError):
            anchor = dt.date.fromisoformat(anchor)
    if isinstance(anchor, dt.datetime) or not isinstance(anchor, dt.date):
        errors.setdefault("period_anchor", []).append(
            f"period_anchor must be a date (YYYY-MM-DD), got {anchor!r}."
        )
    else:
        if anchor > start_date:
            errors.setdefault("period_anchor", []).append(
                f"period_anchor ({anchor.isoformat()}) must not be after the league's start "
                f"date ({start_date.isoformat()}): results from the start date on need a period."
            )
        if first_match_day is not None and anchor > first_match_day:
            errors.setdefault("period_anchor", []).append(
                f"period_anchor ({anchor.isoformat()}) is after the league's first match "
                f"({first_match_day.isoformat()}); a match before the first period is an error."
            )
    cleaned["period_anchor"] = anchor
    if not errors:
        _check_with_engine(cleaned, errors)
    if errors:
        raise ValidationError(errors)
    return cleaned


def _check_with_engine(cleaned: dict[str, Any], errors: dict[str, list[str]]) -> None:
    """Let the engine judge the combination (initial RD above the ceiling, guards, ...)."""
    try:
        Glicko2Params(
            tau=cleaned["tau"],
            initial_rating=cleaned["initial_rating"],
            initial_rd=cleaned["initial_rd"],
            initial_volatility=cleaned["initial_volatility"],
            max_rd=cleaned["max_rd"],
            volatility_ceiling=cleaned["volatility_ceiling"],
            rating_floor=cleaned["rating_floor"],
        )
    except InvalidParameterError as error:
        message = str(error)
        field = message.split(" ", 1)[0]
        errors.setdefault(field if field in PARAMETERS else "__all__", []).append(f"{message}.")
