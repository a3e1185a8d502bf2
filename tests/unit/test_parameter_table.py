"""The table of rating parameters: defaults, bounds, messages and the engine's agreement."""

from __future__ import annotations

import dataclasses
import datetime as dt
import math

import pytest
from django.core.exceptions import ValidationError

from engine.params import Glicko2Params
from ratings.parameters import (
    BY_NAME,
    DEFAULTS,
    NUMBERS,
    PARAMETER_TABLE,
    PARAMETERS,
    Bound,
    Parameter,
    ParameterMaximum,
    ParameterMinimum,
    clean_config_params,
    default_volatility,
    stored_problems,
)

START = dt.date(2024, 1, 1)


def _clean(**changes: object) -> dict:
    return clean_config_params(
        {**DEFAULTS, "period_anchor": START, **changes}, start_date=START, first_match_day=None
    )


def test_the_defaults_are_the_engines_but_the_benchmarks_update_mode_and_volatility() -> None:
    engine = Glicko2Params()
    for name in ("tau", "initial_rating", "initial_rd", "max_rd"):
        assert DEFAULTS[name] == getattr(engine, name)
    # The engine's volatility ceiling is off (the paper); a league's is on and required.
    assert (engine.volatility_ceiling, DEFAULTS["volatility_ceiling"]) == (None, 0.15)
    assert DEFAULTS["rating_floor"] is None
    # A new league: instant updates and volatility 0.10 for weekly periods (docs/intervals.md); the
    # engine keeps the paper's volatility 0.06.
    assert (DEFAULTS["update_mode"], DEFAULTS["initial_volatility"]) == ("instant", 0.10)
    assert engine.initial_volatility == 0.06
    assert (DEFAULTS["period_unit"], DEFAULTS["period_length"]) == ("days", 7)
    assert PARAMETERS[-1] == "period_anchor"
    assert set(DEFAULTS) == set(PARAMETERS[:-1])


@pytest.mark.parametrize("parameter", NUMBERS, ids=lambda parameter: parameter.name)
def test_defaults_are_in_range_and_every_number_has_both_bounds(parameter: Parameter) -> None:
    assert parameter.minimum is not None
    assert parameter.maximum is not None
    assert parameter.minimum.value < parameter.maximum.value
    if parameter.default is not None:
        assert parameter.problem(parameter.default) is None
    if parameter.positive:
        assert parameter.minimum.value > 0


@pytest.mark.parametrize("parameter", NUMBERS, ids=lambda parameter: parameter.name)
def test_the_engine_takes_every_end_of_every_range(parameter: Parameter) -> None:
    for bound in (parameter.minimum, parameter.maximum):
        assert bound is not None
        value = int(bound.value) if parameter.kind is int else bound.value
        changes: dict[str, object] = {parameter.name: value}
        if parameter.name == "initial_rd":
            changes["max_rd"] = max(value, 350.0)
        if parameter.name == "max_rd":
            changes["initial_rd"] = min(value, 350.0)
        if parameter.name == "volatility_ceiling":
            changes["initial_volatility"] = min(value, 0.06)
        if parameter.name == "rating_floor":
            changes["initial_rating"] = max(value, 1500.0)
        assert _clean(**changes)[parameter.name] == value


def test_messages_name_the_parameter_and_the_bound_it_breaks() -> None:
    tau = BY_NAME["tau"]
    assert tau.problem(0) == "τ must be greater than 0."
    assert tau.problem(-3) == "τ must be greater than 0."
    assert tau.problem(0.001) == "τ must be at least 0.01."
    assert tau.problem(0.01) is None
    assert tau.problem(2) is None
    assert tau.problem(2.01) == "τ must be at most 2."
    assert tau.problem(1e308) == "τ must be at most 2."
    length = BY_NAME["period_length"]
    assert length.problem(0) == "The period length must be at least 1."
    assert length.problem(3_000_000_000) == "The period length must be at most 366."


def test_exclusive_bounds_refuse_the_bound_itself() -> None:
    open_range = Parameter(
        "x", label="X", noun="X", help="", default=1.0, kind=float,
        minimum=Bound(0.0, inclusive=False), maximum=Bound(2.0, inclusive=False),
    )  # fmt: skip
    assert open_range.problem(0.0) == "X must be greater than 0."
    assert open_range.problem(2.0) == "X must be less than 2."
    assert open_range.problem(1.0) is None
    assert open_range.range_text == "above 0 below 2"


def test_help_states_the_range_and_the_unit() -> None:
    assert BY_NAME["initial_rd"].help_text.endswith("Allowed: from 1 to 500 rating points.")
    assert BY_NAME["period_anchor"].help_text == BY_NAME["period_anchor"].help


def test_validators_use_the_tables_messages_and_deconstruct_by_name() -> None:
    low, high = BY_NAME["initial_volatility"].validators()
    assert isinstance(low, ParameterMinimum)
    assert isinstance(high, ParameterMaximum)
    assert (low.limit_value, high.limit_value) == (0.0001, 0.15)
    with pytest.raises(ValidationError) as refused:
        high(1e10)
    assert refused.value.messages == ["The initial volatility must be at most 0.15."]
    with pytest.raises(ValidationError) as refused:
        low(0)
    assert refused.value.messages == ["The initial volatility must be greater than 0."]
    low(0.05)
    high(0.05)
    path, args, kwargs = low.deconstruct()
    assert (path, args, kwargs) == (
        "ratings.parameters.ParameterMinimum",
        ("initial_volatility",),
        {},
    )
    assert low == ParameterMinimum("initial_volatility") != ParameterMinimum("tau")


def test_clean_config_params_reports_the_table_and_the_engine() -> None:
    with pytest.raises(ValidationError) as refused:
        _clean(tau=1e308, period_length=3_000_000_000)
    assert refused.value.message_dict == {
        "tau": ["τ must be at most 2."],
        "period_length": ["The period length must be at most 366."],
    }
    with pytest.raises(ValidationError) as refused:
        _clean(tau=0)
    # The engine's own verdict, in its own words, comes with the table's.
    assert refused.value.message_dict["tau"] == [
        "τ must be greater than 0.",
        "tau must be greater than 0, got 0.0.",
    ]
    with pytest.raises(ValidationError) as refused:
        _clean(initial_rd=400.0)
    assert "initial_rd" in refused.value.message_dict


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"tau": "abc"}, "tau"),
        ({"tau": math.inf}, "tau"),
        ({"tau": True}, "tau"),
        ({"period_length": 1.5}, "period_length"),
        ({"period_length": "x"}, "period_length"),
        ({"period_unit": "weeks"}, "period_unit"),
        ({"period_anchor": "2024-02-01"}, "period_anchor"),
        ({"colour": "blue"}, "__all__"),
    ],
)
def test_values_of_the_wrong_kind_are_refused(changes: dict, field: str) -> None:
    with pytest.raises(ValidationError) as refused:
        _clean(**changes)
    assert field in refused.value.message_dict


def test_clean_config_params_normalises_text_input() -> None:
    cleaned = _clean(tau="0.7", period_length="14", rating_floor="", period_anchor="2023-12-01")
    assert (cleaned["tau"], cleaned["period_length"], cleaned["rating_floor"]) == (0.7, 14, None)
    assert cleaned["period_anchor"] == dt.date(2023, 12, 1)


def test_the_table_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        PARAMETER_TABLE[0].default = 1.0  # type: ignore[misc]


def test_the_volatility_ceiling_is_required() -> None:
    for empty in (None, ""):
        with pytest.raises(ValidationError) as refused:
            _clean(volatility_ceiling=empty)
        assert refused.value.message_dict == {
            "volatility_ceiling": ["The volatility ceiling is required."]
        }


def test_every_bound_that_keeps_ratings_safe_says_why() -> None:
    for name in ("tau", "initial_rd", "initial_volatility", "max_rd", "volatility_ceiling"):
        assert str(BY_NAME[name].reason), name
    assert str(BY_NAME["advantage"].reason)


def test_stored_versions_outside_the_bounds_are_named_not_refused() -> None:
    stored = {**DEFAULTS, "tau": 10.0, "volatility_ceiling": None, "max_rd": 200.0}
    assert stored_problems(stored) == {
        "tau": "τ must be at most 2.",
        "max_rd": "The RD ceiling must be at least 350.",
        "volatility_ceiling": "The volatility ceiling is required.",
    }
    assert stored_problems(DEFAULTS) == {}


@pytest.mark.parametrize(
    ("unit", "length", "volatility"),
    [
        ("days", 7, 0.1),
        ("days", 1, 0.0615),  # 0.1 * (1 / 7) ** 0.25
        ("days", 28, 0.1414),
        ("months", 1, 0.1444),  # 30.44 days
        ("days", 366, 0.15),  # 0.2689, held at the bound
        ("months", 366, 0.15),
    ],
)
def test_the_default_volatility_grows_with_the_fourth_root_of_the_period(
    unit: str, length: int, volatility: float
) -> None:
    assert default_volatility(unit, length) == pytest.approx(volatility, abs=1e-9)
