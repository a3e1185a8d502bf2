"""The coverage benchmark's simulation: leagues as documented, measured as documented."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.bench_coverage import TRUE_DRIFT, Task, pair_log_loss, run, simulate
from engine import Glicko2Params
from engine.sides import SideMatches


def task(fmt: str, rate: int = 3, seed: int = 0, **changes: object) -> Task:
    values: dict[str, object] = {
        "format": fmt,
        "rate": rate,
        "seed": seed,
        "players": 60,
        "periods": 4,
        "days": 7,
        "params": Glicko2Params(),
        "spread": None,
        "drift": TRUE_DRIFT,
    }
    values.update(changes)
    return Task(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize(("fmt", "per_match"), [("1v1", 2), ("2v2", 4), ("5v5", 10), ("ffa6", 6)])
def test_every_player_plays_once_a_round_in_matches_of_the_format(fmt: str, per_match: int) -> None:
    league = simulate(task(fmt))
    matches = league.matches
    assert len(matches) == 4 * 3 * 60 // per_match
    rows = np.bincount(matches.match)
    assert np.all(rows == per_match)
    # In every round (60 / per_match consecutive matches) each player appears once.
    per_round = 60 // per_match
    for start in range(0, len(matches), per_round):
        players = matches.player[np.isin(matches.match, np.arange(start, start + per_round))]
        assert sorted(players.tolist()) == list(range(60))
    # Three rounds over seven days: days 0, 2 and 4 of each period, at their ends.
    np.testing.assert_allclose(np.unique(league.moment), [1 / 7, 3 / 7, 5 / 7])


def test_true_skills_are_centred_on_the_initial_rating_and_spread_like_the_prior() -> None:
    skills = np.concatenate([simulate(task("1v1", seed=s)).skill_at_end[0] for s in range(20)])
    for period_skills in np.split(skills, 20):
        assert period_skills.mean() == pytest.approx(1500.0, abs=1e-9)
    assert skills.std() == pytest.approx(350.0, rel=0.05)
    narrow = simulate(task("1v1", spread=100.0)).skill_at_end[0]
    assert narrow.std() == pytest.approx(100.0, rel=0.25)


def test_a_free_for_all_pair_finishes_in_the_logistic_models_order() -> None:
    """Gumbel performances: P(i ahead of j) = 1 / (1 + exp(-(skill_i - skill_j)))."""
    league = simulate(task("ffa6", rate=30, periods=10, spread=300.0, drift=0.0))
    matches = league.matches
    skill = (league.skill_at_end[0] - 1500.0) / 173.7178
    first, second = matches.player[0::6], matches.player[1::6]
    ahead = matches.place[0::6] < matches.place[1::6]
    expected = 1.0 / (1.0 + np.exp(-(skill[first] - skill[second])))
    # Observed wins against the model's sum, within four standard deviations.
    spread = math.sqrt(float(np.sum(expected * (1.0 - expected))))
    assert abs(ahead.sum() - expected.sum()) < 4.0 * spread


def test_pair_log_loss_is_the_engines_win_probability_for_single_players() -> None:
    matches = SideMatches.from_lists([0, 0], [[[0], [1]], [[2], [3]]], [[0, 1], [1, 0]])
    rating = np.array([1600.0, 1500.0, 1500.0, 1500.0])
    rd = np.array([50.0, 80.0, 350.0, 350.0])
    total, pairs = pair_log_loss(matches, rating, rd)
    phi = math.hypot(50.0, 80.0) / 173.7178
    g = 1.0 / math.sqrt(1.0 + 3.0 * phi**2 / math.pi**2)
    p = 1.0 / (1.0 + math.exp(-g * 100.0 / 173.7178))
    assert pairs == 2
    assert total == pytest.approx(-math.log(p) + math.log(2.0), rel=1e-12)


def test_a_run_reports_both_modes() -> None:
    outcome = run(task("2v2", rate=10))
    for mode in ("period", "instant"):
        assert 0.0 < outcome.coverage[mode] <= 1.0
        assert 0.2 < outcome.log_loss[mode] < 0.8
        assert outcome.mean_rd[mode] > 0.0
