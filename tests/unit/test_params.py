"""Invalid Glicko-2 parameters are refused, each with a message naming the parameter."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine import Glicko2Params, InvalidParameterError


def test_defaults_are_the_papers() -> None:
    params = Glicko2Params()
    assert (params.tau, params.initial_rating, params.initial_rd, params.initial_volatility) == (
        0.5,
        1500.0,
        350.0,
        0.06,
    )
    assert (params.max_rd, params.volatility_ceiling, params.rating_floor) == (350.0, None, None)
    assert (params.epsilon, params.max_iterations) == (1e-6, 1000)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"tau": 0}, "tau must be greater than 0"),
        ({"tau": -0.5}, "tau must be greater than 0"),
        ({"tau": math.nan}, "tau must be finite"),
        ({"tau": "0.5"}, "tau must be a number"),
        ({"tau": True}, "tau must be a number"),
        ({"initial_rating": math.inf}, "initial_rating must be finite"),
        ({"initial_rd": 0}, "initial_rd must be greater than 0"),
        ({"initial_rd": -1}, "initial_rd must be greater than 0"),
        ({"initial_volatility": 0}, "initial_volatility must be greater than 0"),
        ({"initial_volatility": -0.06}, "initial_volatility must be greater than 0"),
        ({"max_rd": 0}, "max_rd must be greater than 0"),
        ({"max_rd": 300}, r"initial_rd \(350.0\) must not exceed max_rd \(300\)"),
        ({"epsilon": 0}, "epsilon must be greater than 0"),
        ({"epsilon": -1e-6}, "epsilon must be greater than 0"),
        ({"volatility_ceiling": 0}, "volatility_ceiling must be greater than 0"),
        (
            {"volatility_ceiling": 0.05},
            "volatility_ceiling .* must not be below initial_volatility",
        ),
        ({"rating_floor": math.nan}, "rating_floor must be finite"),
        ({"rating_floor": 1600}, "rating_floor .* must not be above initial_rating"),
        ({"max_iterations": 0}, "max_iterations must be at least 1"),
        ({"max_iterations": 10.5}, "max_iterations must be an integer"),
        ({"max_iterations": None}, "max_iterations must be an integer"),
    ],
)
def test_invalid_parameter_is_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        Glicko2Params(**kwargs)  # type: ignore[arg-type]


def test_invalid_parameter_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="tau"):
        Glicko2Params(tau=0)


def test_valid_guards_and_numpy_numbers_are_accepted() -> None:
    params = Glicko2Params(
        tau=np.float64(1.2),
        volatility_ceiling=0.1,
        rating_floor=100,
        max_iterations=np.int64(50),  # type: ignore[arg-type]
        max_rd=500,
    )
    assert (params.volatility_ceiling, params.rating_floor, params.max_iterations) == (0.1, 100, 50)


def test_params_are_immutable() -> None:
    params = Glicko2Params()
    with pytest.raises(AttributeError):
        params.tau = 1.0  # type: ignore[misc]
