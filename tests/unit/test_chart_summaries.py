"""The sentences that say what the rating and rank charts show (their text alternative)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from web.public.chart_summaries import (
    loss_chart_summary,
    rank_chart_summary,
    rating_chart_summary,
)

TODAY = dt.date(2024, 3, 20)


@dataclass(frozen=True)
class Rated:
    end: dt.date
    rating: float


@dataclass(frozen=True)
class Ranked:
    end: dt.date
    rank: int | None
    players: int


def test_the_rating_sentence_names_the_first_last_highest_and_lowest_points():
    history = [
        Rated(dt.date(2024, 1, 7), 1500.4),
        Rated(dt.date(2024, 1, 14), 1562.6),
        Rated(dt.date(2024, 1, 21), 1441.2),
        Rated(dt.date(2024, 1, 28), 1562.6),
        Rated(dt.date(2024, 3, 31), 1530.0),  # the current period: drawn today
    ]
    assert rating_chart_summary("Ann", history, TODAY) == (
        "Ann's rating over 5 periods played: 1500 on 7 Jan 2024, 1530 on 20 Mar 2024; "
        "highest 1563 on 14 Jan 2024, lowest 1441 on 21 Jan 2024."
    )


def test_one_period_and_none():
    assert rating_chart_summary("Bo", [Rated(dt.date(2024, 2, 4), 1499.5)], TODAY) == (
        "Bo has one rated period: rating 1500 on 4 Feb 2024."
    )
    assert rating_chart_summary("Bo", [], TODAY) == ""


def test_the_rank_sentence_names_now_the_best_rank_and_the_periods_ranked():
    ranks = [
        Ranked(dt.date(2024, 1, 7), None, 4),
        Ranked(dt.date(2024, 1, 14), 3, 5),
        Ranked(dt.date(2024, 1, 21), 2, 6),
        Ranked(dt.date(2024, 1, 28), 2, 7),
        Ranked(dt.date(2024, 3, 31), 4, 8),
    ]
    assert rank_chart_summary("Cem", ranks, TODAY) == (
        "Cem over 5 periods: rank 4 of 8 on 20 Mar 2024; best rank 2 of 6 on 21 Jan 2024; "
        "ranked in 4 of the 5 periods."
    )


def test_a_player_never_ranked():
    ranks = [Ranked(dt.date(2024, 1, 7), None, 4), Ranked(dt.date(2024, 1, 14), None, 5)]
    assert rank_chart_summary("Dee", ranks, TODAY) == (
        "Dee over 2 periods: never ranked; not ranked on 14 Jan 2024."
    )
    assert rank_chart_summary("Dee", [], TODAY) == ""


def test_the_log_loss_sentence_names_each_settings_lowest_and_highest_tau():
    chart = {
        "series": [
            {
                "label": "monthly",
                "points": [
                    {"x": 0.3, "y": 0.61234},
                    {"x": 0.5, "y": 0.60011},
                    {"x": 0.9, "y": 0.63499},
                ],
            },
            {"label": "weekly", "points": []},
        ],
        "baselines": [{"label": "monthly", "constant": 0.69312, "elo": 0.6205, "elo_k": 24}],
    }
    assert loss_chart_summary(chart) == (
        "monthly: log-loss lowest at τ = 0.5 (0.6001), highest at τ = 0.9 (0.6350); "
        "the constant baseline 0.6931, Elo 0.6205."
    )
    assert loss_chart_summary({"series": [], "baselines": []}) == ""
