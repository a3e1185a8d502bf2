"""Monte Carlo forecasts (ratings/forecasts.py): hand-worked chances, determinism, and
calibration against leagues played out from known skills."""

from __future__ import annotations

import math
import random

import pytest

from engine.outcomes import outcome_probabilities
from ratings.forecasts import Remaining, simulate_places


def test_one_fixture_left_between_the_leaders():
    # A and B level on 3; A wins with 0.5, draws with 0.2, loses with 0.3 (3/1/0).
    # A is first after a win (0.5) and shares first after a draw (0.2 / 2): 0.6.
    # The share per simulation is 1, ½ or 0 with those chances: variance 0.55 - 0.36 = 0.19.
    n = 20_000
    forecast = simulate_places(
        {"A": 3, "B": 3, "C": 0}, [Remaining("A", "B", 0.5, 0.2, 0.3)], (3, 1, 0), simulations=n
    )
    a, b, c = (forecast.chances[k] for k in "ABC")
    error = math.sqrt(0.19 / n)
    assert a.probability == pytest.approx(0.6, abs=4 * error)
    assert b.probability == pytest.approx(0.4, abs=4 * error)
    assert c.probability == 0
    assert a.standard_error == pytest.approx(error, rel=0.05)
    assert forecast.simulations == n
    assert forecast.remaining == 1


def test_top_two_places_shared_at_the_edge():
    # A 6, B 4, C 4, D 0 and nothing left: A first; B and C share second place: ½ each of
    # the top two's second seat, so 0.5 each; D never.
    forecast = simulate_places({"A": 6, "B": 4, "C": 4, "D": 0}, [], places=2, simulations=10)
    assert {k: c.probability for k, c in forecast.chances.items()} == {
        "A": 1.0,
        "B": 0.5,
        "C": 0.5,
        "D": 0.0,
    }


def test_one_seed_one_forecast():
    fixtures = [Remaining("A", "B", 0.4, 0.3, 0.3), Remaining("B", "C", 0.2, 0.3, 0.5)]
    table = {"A": 1, "B": 1, "C": 1}
    first = simulate_places(table, fixtures, seed=7)
    assert simulate_places(table, fixtures, seed=7) == first
    assert simulate_places(table, fixtures, seed=8) != first


@pytest.mark.parametrize("bad", [{"simulations": 0}, {"simulations": 10**6}, {"places": 0}])
def test_bad_arguments_are_refused(bad):
    with pytest.raises(ValueError, match="Give"):
        simulate_places({"A": 0}, [], **bad)


def _play_out(rng: random.Random, table: dict, fixtures: list[Remaining]) -> str:
    """One season played out by hand: each result drawn, the leader found, a tie for first
    settled by lot (which gives each level leader the same chance as sharing)."""
    points = dict(table)
    for f in fixtures:
        u = rng.random()
        if u < f.win:
            points[f.first] += 3
        elif u < f.win + f.draw:
            points[f.first] += 1
            points[f.second] += 1
        else:
            points[f.second] += 3
    best = max(points.values())
    return rng.choice(sorted(k for k, v in points.items() if v == best))


@pytest.mark.slow
def test_forecasts_are_calibrated_on_leagues_with_known_skills():
    """400 leagues of 6 players with known skills, half their double round robin played:
    the forecast's chance of winning the league against who did win it, in played-out
    leagues (a different generator, and a plain loop instead of the simulation's arrays).

    Over all 2,400 (league, player) pairs the sum of (won - chance) has variance
    sum p (1 - p) (plus the forecasts' own Monte Carlo variance): it must lie within 4
    standard deviations of 0, and so must each band of chances.
    """
    rng = random.Random(2024)
    pairs: list[tuple[float, int]] = []
    mc_variance = 0.0
    for league in range(400):
        players = [f"p{i}" for i in range(6)]
        skill = {p: rng.gauss(1500, 200) for p in players}
        games = [(a, b) for a in players for b in players if a != b]
        rng.shuffle(games)
        played, left = games[:15], games[15:]

        def chances(a: str, b: str, skill: dict[str, float] = skill) -> Remaining:
            o = outcome_probabilities(skill[a], 30.0, skill[b], 30.0, 0.6)
            return Remaining(a, b, o.win, o.draw, o.loss)

        table = dict.fromkeys(players, 0)
        for a, b in played:
            f = chances(a, b)
            u = rng.random()
            if u < f.win:
                table[a] += 3
            elif u < f.win + f.draw:
                table[a] += 1
                table[b] += 1
            else:
                table[b] += 3
        remaining = [chances(a, b) for a, b in left]
        forecast = simulate_places(table, remaining, (3, 1, 0), simulations=2000, seed=league)
        winner = _play_out(rng, table, remaining)
        for p in players:
            chance = forecast.chances[p]
            pairs.append((chance.probability, int(p == winner)))
            mc_variance += chance.standard_error**2
    residual = sum(won - p for p, won in pairs)
    sd = math.sqrt(sum(p * (1 - p) for p, _ in pairs) + mc_variance)
    assert abs(residual) < 4 * sd, (residual, sd)
    for low, high in [(0.0, 0.1), (0.1, 0.3), (0.3, 0.6), (0.6, 0.9), (0.9, 1.01)]:
        band = [(p, won) for p, won in pairs if low <= p < high]
        assert len(band) >= 30, (low, high, len(band))
        observed = sum(won for _, won in band)
        expected = sum(p for p, _ in band)
        sd = math.sqrt(sum(p * (1 - p) for p, _ in band) + 1e-9)
        assert abs(observed - expected) < 4 * sd + 1, (low, high, observed, expected, sd)
