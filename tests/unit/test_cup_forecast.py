"""The cup forecast (``ratings.forecasts.simulate_cup``) against the exact chances of a
bracket, computed round by round: within four stated standard errors."""

from __future__ import annotations

import pytest

from pairings import brackets
from ratings.forecasts import simulate_cup


def _exact(slots, beats):
    """Each player's chance of winning the cup: per slot, the chance of each player being
    there, round after round."""
    reach = [{p: 1.0} if p is not None else {} for p in slots]
    while len(reach) > 1:
        nxt = []
        for i in range(0, len(reach), 2):
            left, right = reach[i], reach[i + 1]
            here = {}
            for a, pa in left.items():
                here[a] = here.get(a, 0.0) + pa * (
                    sum(pb * beats[(a, b)] for b, pb in right.items()) if right else 1.0
                )
            for b, pb in right.items():
                here[b] = here.get(b, 0.0) + pb * (
                    sum(pa * beats[(b, a)] for a, pa in left.items()) if left else 1.0
                )
            nxt.append(here)
        reach = nxt
    return reach[0]


def _beats(players):
    strength = {p: 1.0 + i * 0.35 for i, p in enumerate(reversed(players))}
    return {
        (a, b): strength[a] / (strength[a] + strength[b])
        for a in players
        for b in players
        if a != b
    }


@pytest.mark.parametrize("entrants", [8, 6])
def test_the_simulated_chances_match_the_exact_ones(entrants):
    players = [f"p{n}" for n in range(1, entrants + 1)]
    slots = [side for tie in brackets.first_round(players, 8) for side in tie]
    beats = _beats(players)
    forecast = simulate_cup(slots, {}, beats, simulations=20_000, seed=7)
    exact = _exact(slots, beats)
    assert forecast.simulations == 20_000
    assert sum(c.probability for c in forecast.chances.values()) == pytest.approx(1.0, abs=1e-9)
    for player in players:
        chance = forecast.chances[player]
        assert chance.standard_error > 0
        assert abs(chance.probability - exact[player]) <= 4 * chance.standard_error + 1e-9
    # The best seed is the favourite.
    assert max(forecast.chances, key=lambda p: forecast.chances[p].probability) == "p1"


def test_decided_ties_and_withdrawals_are_respected():
    players = ["a", "b", "c", "d"]
    slots = [side for tie in brackets.first_round(players) for side in tie]  # a d | b c
    beats = _beats(players)
    # a lost round 1 to d; c has withdrawn: b goes through to the final without a game.
    forecast = simulate_cup(
        slots, {(1, 1): "d"}, beats, out=frozenset({"c"}), simulations=4000, seed=1
    )
    assert forecast.chances["a"].probability == 0.0
    assert forecast.chances["c"].probability == 0.0
    assert forecast.chances["d"].probability == pytest.approx(
        beats[("d", "b")], abs=4 * forecast.chances["d"].standard_error
    )
    done = simulate_cup(slots, {(1, 1): "a", (1, 2): "b", (2, 1): "b"}, beats, simulations=10)
    assert done.chances["b"].probability == 1.0
    assert done.remaining == 0
