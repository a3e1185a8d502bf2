"""The division forecast's chances of first place, promotion and relegation
(ratings.seasons.divisions.zone_chances): calibrated against a division of known skills
played out by hand, and hand-worked edges."""

from __future__ import annotations

import math
import random

import pytest

from engine.outcomes import outcome_probabilities
from ratings.forecasts import Remaining
from ratings.seasons.divisions import zone_chances


def _play_out(rng: random.Random, table: dict[str, int], games: list[Remaining]) -> list[str]:
    """One season played out by a plain loop; the final order, ties broken by lot."""
    points = dict(table)
    for game in games:
        u = rng.random()
        if u < game.win:
            points[game.first] += 3
        elif u < game.win + game.draw:
            points[game.first] += 1
            points[game.second] += 1
        else:
            points[game.second] += 3
    players = list(points)
    rng.shuffle(players)
    return sorted(players, key=lambda p: -points[p])


def test_zone_chances_match_the_frequencies_of_a_division_played_out():
    """Six players of known skills, half their double round robin left: each chance (first,
    promoted in the top two, relegated in the bottom two) against its frequency in 20,000
    seasons played out by hand, within 4 of the two standard errors combined (the
    forecast's own, as stated, and the frequency's)."""
    skill = {"p0": 1800, "p1": 1700, "p2": 1600, "p3": 1500, "p4": 1450, "p5": 1300}
    players = list(skill)
    rng = random.Random(7)
    games = [(a, b) for a in players for b in players if a != b]
    rng.shuffle(games)

    def chances(a: str, b: str) -> Remaining:
        o = outcome_probabilities(skill[a], 40.0, skill[b], 40.0, 0.6)
        return Remaining(a, b, o.win, o.draw, o.loss)

    left = [chances(a, b) for a, b in games[15:]]
    table = {"p0": 9, "p1": 12, "p2": 6, "p3": 10, "p4": 4, "p5": 3}
    first, up, down = zone_chances(
        table, left, (3, 1, 0), promotion=2, top=False, bottom=False, simulations=20_000, seed=3
    )
    assert up is not None
    assert down is not None
    runs = 20_000
    counts = {kind: dict.fromkeys(players, 0) for kind in ("first", "up", "down")}
    for _ in range(runs):
        order = _play_out(rng, table, left)
        counts["first"][order[0]] += 1
        for p in order[:2]:
            counts["up"][p] += 1
        for p in order[-2:]:
            counts["down"][p] += 1
    for kind, forecast in (("first", first.chances), ("up", up), ("down", down)):
        assert math.fsum(c.probability for c in forecast.values()) == pytest.approx(
            {"first": 1, "up": 2, "down": 2}[kind], abs=1e-9
        )
        for p in players:
            chance = forecast[p]
            frequency = counts[kind][p] / runs
            spread = math.sqrt(
                chance.standard_error**2 + frequency * (1 - frequency) / runs + 1e-12
            )
            assert abs(chance.probability - frequency) <= 4 * spread + 1e-9, (
                kind,
                p,
                chance,
                frequency,
            )


def test_nothing_left_to_play_gives_the_table_edges_shared():
    # 7, 4, 4, 1 with nothing left, one up and one down: the leader is promoted for sure,
    # the last relegated for sure, and the two level on 4 are neither.
    first, up, down = zone_chances(
        {"A": 7, "B": 4, "C": 4, "D": 1}, [], (3, 1, 0), promotion=1, top=False, bottom=False
    )
    assert {k: c.probability for k, c in up.items()} == {"A": 1, "B": 0, "C": 0, "D": 0}
    assert {k: c.probability for k, c in down.items()} == {"A": 0, "B": 0, "C": 0, "D": 1}
    assert first.chances["A"].probability == 1


def test_the_top_division_has_no_promotion_and_the_bottom_no_relegation():
    _first, up, down = zone_chances(
        {"A": 1, "B": 0}, [], (3, 1, 0), promotion=1, top=True, bottom=True
    )
    assert up is None
    assert down is None
