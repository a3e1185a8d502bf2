"""The grid of a sweep: validation of the requested values and expansion into points.

A grid is a dict of lists: ``tau`` (required) and optionally ``initial_rd``,
``initial_volatility``, ``advantage`` (the first-named side's, rating points),
``margin_scale`` (points; ``null``, "off" or "none" for plain results), ``period_length``
(with a single ``period_unit``) and ``update_mode`` ("period", "instant"). Every combination
is one point; a point overrides those keys of the base configuration. Values are checked
against the bounds of ``ratings.parameters``, with its messages.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext, ngettext

from ratings.parameters import BY_NAME, UNITS, UPDATE_MODES

#: More points than this would tie up the workers for little insight: refuse the grid.
MAX_POINTS = 120

_FLOAT_KEYS = ("tau", "initial_rd", "initial_volatility", "advantage")
_ALL_KEYS = {*_FLOAT_KEYS, "margin_scale", "period_length", "period_unit", "update_mode"}
#: How a grid says "margins off" among the margin scales.
_OFF = (None, "off", "none", "")


def _as_list(value: Any) -> list[Any]:
    if isinstance(value, list | tuple):
        return list(value)
    return [value]


def _not_numbers(key: str, value: Any) -> str:
    return gettext("%(key)s values must be numbers, got %(value)s") % {
        "key": key,
        "value": repr(value),
    }


def _not_whole(key: str, value: Any) -> str:
    return gettext("%(key)s values must be whole numbers, got %(value)s") % {
        "key": key,
        "value": repr(value),
    }


def _float(key: str, value: Any) -> float:
    """A grid value of a float parameter, checked against the table's bounds."""
    if isinstance(value, bool):
        raise ValueError(_not_numbers(key, value))
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(_not_numbers(key, value)) from None
    if not math.isfinite(number):
        raise ValueError(
            gettext("%(key)s values must be finite numbers, got %(value)s")
            % {"key": key, "value": repr(value)}
        )
    return _in_range(key, number)


def _scale(key: str, value: Any) -> float | None:
    """A margin scale of the grid, or None for plain results (margins off)."""
    if value is None or (isinstance(value, str) and value.strip().lower() in _OFF):
        return None
    return _float(key, value)


def _whole(key: str, value: Any) -> int:
    """A grid value of an integer parameter, checked against the table's bounds."""
    if isinstance(value, bool):
        raise ValueError(_not_whole(key, value))
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(_not_whole(key, value)) from None
    if not number.is_integer():
        raise ValueError(_not_whole(key, value))
    return _in_range(key, int(number))


def _in_range(key: str, number: Any) -> Any:
    message = BY_NAME[key].problem(number)
    if message is not None:
        raise ValueError(
            gettext("%(problem)s (got %(value)s).")
            % {"problem": message.rstrip("."), "value": repr(number)}
        )
    return number


def _dedupe(values: list[Any]) -> list[Any]:
    """Keep the first occurrence of each value, in the order given."""
    return list(dict.fromkeys(values))


def clean_grid(raw: Any) -> dict[str, Any]:
    """Validate a requested grid and return it normalised (numbers, no duplicates).

    Raises ``ValidationError`` with a dict of key -> messages; unknown keys, empty or
    non-positive values and oversized grids are refused.
    """
    if not isinstance(raw, dict):
        raise ValidationError(
            {"grid": [gettext("The grid must be an object of lists, e.g. {'tau': [...]}.")]}
        )
    errors: dict[str, list[str]] = {}
    unknown = sorted(set(raw) - _ALL_KEYS)
    if unknown:
        errors["grid"] = [
            ngettext("Unknown grid key: %(keys)s.", "Unknown grid keys: %(keys)s.", len(unknown))
            % {"keys": ", ".join(unknown)}
        ]
    grid: dict[str, Any] = {}
    for key in (*_FLOAT_KEYS, "margin_scale", "period_length"):
        if key not in raw or raw[key] in (None, "", []):
            if key == "tau":
                errors["tau"] = [gettext("Give at least one τ value.")]
            continue
        convert = {"period_length": _whole, "margin_scale": _scale}.get(key, _float)
        try:
            grid[key] = _dedupe([convert(key, value) for value in _as_list(raw[key])])
        except ValueError as error:
            errors[key] = [str(error)]
    modes = raw.get("update_mode")
    if modes not in (None, "", []):
        wrong = [mode for mode in _as_list(modes) if mode not in UPDATE_MODES]
        if wrong:
            errors["update_mode"] = [
                gettext("update_mode values must be 'period' or 'instant', got %(value)s.")
                % {"value": repr(wrong[0])}
            ]
        else:
            grid["update_mode"] = _dedupe(_as_list(modes))
    unit = raw.get("period_unit")
    if unit not in (None, ""):
        if unit not in UNITS:
            errors["period_unit"] = [
                gettext("period_unit must be 'days' or 'months', got %(value)s.")
                % {"value": repr(unit)}
            ]
        elif "period_length" not in raw or raw["period_length"] in (None, "", []):
            errors["period_unit"] = [gettext("period_unit needs at least one period_length.")]
        else:
            grid["period_unit"] = unit
    if not errors:
        count = math.prod(len(grid[key]) for key in grid if key != "period_unit")
        if count > MAX_POINTS:
            errors["grid"] = [
                gettext("The grid has %(count)d points; at most %(max)d are allowed.")
                % {"count": count, "max": MAX_POINTS}
            ]
    if errors:
        raise ValidationError(errors)
    return grid


def expand(grid: dict[str, Any]) -> list[dict[str, Any]]:
    """Every point of a cleaned grid, τ varying fastest, as overrides of the base."""
    order = (
        "update_mode",
        "period_length",
        "margin_scale",
        "advantage",
        "initial_volatility",
        "initial_rd",
    )
    axes = [key for key in order if key in grid]
    points = []
    for combination in itertools.product(*(grid[key] for key in axes)):
        fixed = dict(zip(axes, combination, strict=True))
        if "period_unit" in grid:
            fixed["period_unit"] = grid["period_unit"]
        for tau in grid["tau"]:
            points.append({"tau": tau, **fixed})
    return points
