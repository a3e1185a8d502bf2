"""Win / draw / loss probabilities (engine/outcomes.py) and the fit of the draw parameter.

Recovery tolerance: with 20,000 games and a true draw rate between equals of 0.25, the fitted
rate's standard error is about 0.004; the fixed-seed test allows 0.02 (five standard errors),
the property over seeds (5,000 games, standard error about 0.008) allows 0.04.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Glicko2Params, MatchArrays, fold
from engine.errors import InvalidParameterError
from engine.outcomes import (
    MAX_DRAW_RATE,
    DrawModel,
    draw_rate_for_nu,
    fit_draw_model,
    fit_draw_model_from_history,
    log_likelihood,
    nu_for_draw_rate,
    outcome_log_loss_array,
    outcome_probabilities,
    outcome_probabilities_array,
)
from engine.prediction import win_probability, win_probability_array
from engine.scoring import match_predictions

EXPECTED = np.array([0.0, 1e-300, 1e-9, 0.02, 0.1, 0.3, 0.5, 0.7, 0.9, 0.98, 1 - 1e-9, 1.0])
NUS = [0.0, 1e-6, 0.1, 0.5, 1.0, 2.0, 10.0, 1e6]


def synthetic(
    seed: int, n: int, draw_rate: float, spread: float = 1.2
) -> tuple[np.ndarray, np.ndarray]:
    """Expected scores (logistic in a normal rating gap) and results drawn from the model."""
    rng = np.random.default_rng(seed)
    expected = 1.0 / (1.0 + np.exp(-rng.normal(0.0, spread, n)))
    win, draw, _ = outcome_probabilities_array(expected, nu_for_draw_rate(draw_rate))
    u = rng.random(n)
    score = np.where(u < win, 1.0, np.where(u < win + draw, 0.5, 0.0))
    return expected, score


@pytest.mark.parametrize("nu", NUS)
def test_probabilities_sum_to_one_and_keep_the_expected_score(nu: float) -> None:
    win, draw, loss = outcome_probabilities_array(EXPECTED, nu)
    assert np.all((win >= 0) & (draw >= 0) & (loss >= 0))
    assert win + draw + loss == pytest.approx(np.ones_like(EXPECTED), abs=4e-16)
    assert win + draw / 2 == pytest.approx(EXPECTED, abs=4e-16)


@pytest.mark.parametrize("nu", NUS)
def test_swapping_the_players_mirrors_win_and_loss(nu: float) -> None:
    win, draw, loss = outcome_probabilities_array(EXPECTED, nu)
    win_m, draw_m, loss_m = outcome_probabilities_array(1.0 - EXPECTED, nu)
    # 1 - E is exact for these values except 1e-300 and 1e-9 (rounded): compare loosely there
    assert win_m == pytest.approx(loss, abs=1e-15)
    assert loss_m == pytest.approx(win, abs=1e-15)
    assert draw_m == pytest.approx(draw, abs=1e-15)


def test_swapping_players_in_the_pairing_function_mirrors_exactly() -> None:
    ab = outcome_probabilities(1650, 80, 1500, 120, 0.7)
    ba = outcome_probabilities(1500, 120, 1650, 80, 0.7)
    assert ab.win == pytest.approx(ba.loss, rel=1e-14)
    assert ab.loss == pytest.approx(ba.win, rel=1e-14)
    assert ab.draw == pytest.approx(ba.draw, rel=1e-14)
    assert ab.expected_score == pytest.approx(win_probability(1650, 80, 1500, 120), abs=1e-15)
    assert ab.win > ab.loss


def test_no_draw_parameter_gives_the_glicko_expected_score_as_win() -> None:
    win, draw, loss = outcome_probabilities_array(EXPECTED, 0.0)
    assert np.all(draw == 0.0)
    assert win == pytest.approx(EXPECTED, abs=4e-16)  # 1 - (1 - E): two ulps at 1
    assert loss == pytest.approx(1.0 - EXPECTED, abs=4e-16)


def test_equal_players_draw_at_the_draw_rate() -> None:
    for rate in (0.0, 0.1, 0.25, 0.5, 0.9):
        win, draw, loss = outcome_probabilities_array([0.5], nu_for_draw_rate(rate))
        assert draw[0] == pytest.approx(rate, abs=1e-15)
        assert win[0] == pytest.approx(loss[0], abs=1e-16)
        assert draw_rate_for_nu(nu_for_draw_rate(rate)) == pytest.approx(rate, abs=1e-15)


def test_matches_davidson_with_explicit_strengths() -> None:
    """P(win) = u / (u + 1/u + nu) etc., u the positive root of the expected-score equation."""
    nu = 0.8
    for e in (0.05, 0.3, 0.5, 0.8, 0.99):
        a, b, c = 1 - e, nu * (0.5 - e), -e
        u = (-b + math.sqrt(b * b - 4 * a * c)) / (2 * a)
        d = u + 1 / u + nu
        win, draw, loss = outcome_probabilities_array([e], nu)
        assert win[0] == pytest.approx(u / d, rel=1e-12)
        assert draw[0] == pytest.approx(nu / d, rel=1e-12)
        assert loss[0] == pytest.approx(1 / u / d, rel=1e-12)


def test_draws_grow_with_nu_towards_what_the_expected_score_allows() -> None:
    e = np.linspace(0.01, 0.99, 23)
    draws = np.array([outcome_probabilities_array(e, nu)[1] for nu in np.geomspace(1e-3, 1e4, 60)])
    assert np.all(np.diff(draws, axis=0) >= 0)
    assert draws[-1] == pytest.approx(2 * np.minimum(e, 1 - e), abs=1e-3)


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(InvalidParameterError):
        outcome_probabilities_array([0.5], -0.1)
    with pytest.raises(InvalidParameterError):
        outcome_probabilities_array([0.5], math.inf)
    with pytest.raises(InvalidParameterError):
        outcome_probabilities_array([1.5], 0.5)
    with pytest.raises(InvalidParameterError):
        outcome_probabilities_array([math.nan], 0.5)
    with pytest.raises(InvalidParameterError):
        fit_draw_model([0.5], [0.7])
    with pytest.raises(InvalidParameterError):
        fit_draw_model([0.5, 0.5], [1.0])
    with pytest.raises(InvalidParameterError):
        fit_draw_model([], [])
    with pytest.raises(InvalidParameterError):
        nu_for_draw_rate(1.0)


def test_fit_recovers_the_draw_rate_fixed_seed() -> None:
    expected, score = synthetic(seed=20261123, n=20_000, draw_rate=0.25)
    model = fit_draw_model(expected, score)
    assert model.draw_rate == pytest.approx(0.25, abs=0.02)
    assert model.nu == pytest.approx(nu_for_draw_rate(model.draw_rate), rel=1e-12)
    assert model.games == 20_000
    assert model.draws == int(np.count_nonzero(score == 0.5))
    # it is a maximum: nearby values of nu are no more likely
    for factor in (0.9, 0.99, 1.01, 1.1):
        assert log_likelihood(expected, score, model.nu * factor) <= model.log_likelihood + 1e-9
    assert model.log_likelihood == pytest.approx(log_likelihood(expected, score, model.nu))


@pytest.mark.property
@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    draw_rate=st.sampled_from([0.05, 0.15, 0.3, 0.5, 0.7]),
)
def test_fit_recovers_the_draw_rate_over_seeds(seed: int, draw_rate: float) -> None:
    expected, score = synthetic(seed=seed, n=5_000, draw_rate=draw_rate)
    assert fit_draw_model(expected, score).draw_rate == pytest.approx(draw_rate, abs=0.04)


def test_league_without_draws_gets_zero() -> None:
    expected, score = synthetic(seed=7, n=3_000, draw_rate=0.0)
    assert not np.any(score == 0.5)
    model = fit_draw_model(expected, score)
    assert model.nu == 0.0
    assert model.draw_rate == 0.0
    assert model.draws == 0
    # and 0 is indeed the maximum
    assert log_likelihood(expected, score, 1e-3) < model.log_likelihood


def test_league_of_draws_only_stays_bounded() -> None:
    model = fit_draw_model(np.full(50, 0.5), np.full(50, 0.5))
    assert model.draw_rate == pytest.approx(MAX_DRAW_RATE, abs=1e-6)
    assert math.isfinite(model.nu)


def test_one_draw_among_lopsided_games_is_finite() -> None:
    expected = np.array([0.999999, 0.000001, 0.5, 0.9])
    model = fit_draw_model(expected, np.array([1.0, 0.0, 0.5, 1.0]))
    assert isinstance(model, DrawModel)
    assert 0.0 < model.draw_rate <= MAX_DRAW_RATE
    assert math.isfinite(model.log_likelihood)


def test_log_loss_picks_the_observed_outcome() -> None:
    loss = outcome_log_loss_array([0.5, 0.5, 0.5], [0.3, 0.3, 0.3], [0.2, 0.2, 0.2], [1, 0.5, 0])
    assert loss == pytest.approx(-np.log([0.5, 0.3, 0.2]), rel=1e-15)
    assert outcome_log_loss_array([1.0], [0.0], [0.0], [0.0])[0] == pytest.approx(-math.log(1e-15))


def test_fit_from_a_fold_uses_start_of_period_ratings() -> None:
    rng = np.random.default_rng(3)
    n_players, n_games, periods = 40, 3_000, 30
    skill = rng.normal(1500, 200, n_players)
    a = rng.integers(0, n_players, n_games)
    b = (a + rng.integers(1, n_players, n_games)) % n_players
    period = np.sort(rng.integers(0, periods, n_games))
    e_true = win_probability_array(skill[a], 0.0, skill[b], 0.0)
    win, draw, _ = outcome_probabilities_array(e_true, nu_for_draw_rate(0.3))
    u = rng.random(n_games)
    score = np.where(u < win, 1.0, np.where(u < win + draw, 0.5, 0.0))
    matches = MatchArrays(period, a, b, score)
    result = fold(matches, n_players, Glicko2Params(), 0, periods - 1)
    model = fit_draw_model_from_history(matches, result.history, n_players)
    direct = fit_draw_model(match_predictions(matches, result.history, n_players), score)
    assert model == direct
    # early games are predicted from uncertain ratings, so the fit is only roughly the truth
    assert model.draw_rate == pytest.approx(0.3, abs=0.08)
