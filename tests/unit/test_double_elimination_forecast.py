"""The double-elimination forecast (``ratings.forecasts.simulate_double_elimination``)
against chances worked by hand, within four stated standard errors."""

from __future__ import annotations

import pytest

from pairings import double_elimination as de
from ratings.forecasts import simulate_double_elimination

P = 0.7  # a beats b in any tie
BEATS = {("a", "b"): P, ("b", "a"): 1 - P}


def _chance(reset, decided=None, simulations=20_000):
    specs = de.layout(1, reset)
    forecast = simulate_double_elimination(
        specs, ["a", "b"], decided or {}, BEATS, simulations=simulations, seed=7
    )
    return forecast.chances["a"], forecast


@pytest.mark.parametrize(
    ("reset", "expected"),
    [
        # Without a reset: a wins the first tie and the final (0.7 * 0.7), or loses the
        # first and wins the final (0.3 * 0.7): 0.7.
        (False, 0.7),
        # With a reset: 0.49, plus a winning the first tie, losing the final and winning
        # the reset (0.7 * 0.3 * 0.7 = 0.147), plus a losing the first tie and winning the
        # final and the reset (0.3 * 0.7 * 0.7 = 0.147): 0.784.
        (True, 0.784),
    ],
)
def test_two_players_against_the_hand_count(reset, expected):
    chance, forecast = _chance(reset)
    assert chance.probability == pytest.approx(expected, abs=4 * chance.standard_error)
    assert chance.standard_error == pytest.approx(
        (expected * (1 - expected) / 20_000) ** 0.5, rel=0.05
    )
    assert sum(c.probability for c in forecast.chances.values()) == pytest.approx(1, abs=1e-9)


def test_a_decided_first_tie_is_kept():
    # a has won the winners' final; with a reset, a wins the grand final (0.7) or loses
    # it and wins the reset (0.3 * 0.7): 0.91.
    chance, _ = _chance(True, decided={0: ("a", "b")})
    assert chance.probability == pytest.approx(0.91, abs=4 * chance.standard_error)
    # b has won the winners' final: a must win the grand final and the reset (0.49).
    chance, _ = _chance(True, decided={0: ("b", "a")})
    assert chance.probability == pytest.approx(0.49, abs=4 * chance.standard_error)


def test_a_withdrawn_player_cannot_win():
    specs = de.layout(2, reset=True)
    slots = de.seeded_slots(["a", "b", "c", "d"], 2)
    beats = {(x, y): 0.5 for x in "abcd" for y in "abcd" if x != y}
    forecast = simulate_double_elimination(
        specs, slots, {}, beats, out=frozenset({"a"}), simulations=4000, seed=1
    )
    assert forecast.chances["a"].probability == 0.0
    assert sum(c.probability for c in forecast.chances.values()) == pytest.approx(1, abs=1e-9)
