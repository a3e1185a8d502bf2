"""Walk-forward backtests: choose a setting on the earlier periods, judge it on the later ones.

The hand-checked league has six matches between twelve newcomers, one match a week: every
prediction is made from two fresh ratings (1500, RD 350), so each is a number computed below
from the formula of docs/glicko2.md (``g(φ)`` and the logistic), with a home advantage of 100
rating points where the match is not on neutral ground. The default cut keeps the last 30 %
of the six weeks (two) out of sample.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import math
from decimal import Decimal

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from bench.synthetic import synthetic_league
from engine.fold import MatchArrays, fold
from engine.params import Glicko2Params
from engine.periods import PeriodSpec
from engine.prediction import log_loss_array
from engine.scoring import match_predictions
from league.event_store.bulk import NewMatch, append_matches_bulk
from league.models import League
from ratings.backtest import services, walk_forward
from ratings.backtest.models import Sweep
from ratings.backtest.presentation import walk_forward_verdicts
from ratings.parameters import DEFAULTS
from ratings.services import create_config

SCALE = 173.7178
ADVANTAGE = 100.0


def _home_probability() -> float:
    """Two fresh ratings (1500, RD 350), the first side 100 points up: Glicko's formula."""
    phi = math.sqrt(2) * 350 / SCALE
    g = 1 / math.sqrt(1 + 3 * phi**2 / math.pi**2)
    return 1 / (1 + math.exp(-g * ADVANTAGE / SCALE))


def _ll(p: float, s: float) -> float:
    return -(s * math.log(p) + (1 - s) * math.log(1 - p))


#: (week, home side's score, neutral ground): four weeks in sample, two out of sample.
IN_SAMPLE = [(0, 1.0, False), (1, 0.0, False), (2, 0.5, True), (3, 1.0, False)]


def _six_matches(league: League, make_player, later: list[float]) -> None:
    """Six matches of twelve newcomers, one a week; ``later``: the home scores of weeks 4, 5."""
    rows = [*IN_SAMPLE, (4, later[0], False), (5, later[1], False)]
    league.sport = "Football"  # home and away (a chess game is never neutral)
    league.save()
    players = [make_player(league, f"Team {i:02d}") for i in range(12)]
    append_matches_bulk(
        league,
        [
            NewMatch(
                player_a=players[2 * i],
                player_b=players[2 * i + 1],
                score_a=Decimal(str(score)),
                played=league.start_date + dt.timedelta(days=7 * week + 2),
                neutral=neutral,
            )
            for i, (week, score, neutral) in enumerate(rows)
        ],
    )


@pytest.fixture
def six(league, make_player) -> League:
    _six_matches(league, make_player, [1.0, 1.0])
    return league


def test_six_match_league_in_and_out_of_sample_scores_by_hand(six):
    sweep = services.run_sweep_sync(six, {"tau": [0.5], "advantage": [0, ADVANTAGE]})
    assert sweep.status == Sweep.Status.COMPLETE
    # Weekly periods from 2024-01-01: weeks 4 and 5 (the last 30 % of six) are out of sample.
    assert sweep.holdout_from == dt.date(2024, 1, 29)
    flat = sweep.runs.get(parameters__advantage=0)
    home = sweep.runs.get(parameters__advantage=ADVANTAGE)
    # The live configuration is a new league's defaults: one run is both.
    assert flat.is_current
    assert flat.is_default
    assert sweep.default_run == flat

    p = _home_probability()
    assert p == pytest.approx(0.57669, abs=5e-5)  # the formula, evaluated once by hand
    # No advantage: every prediction is 0.5.
    for part, n in ((flat.in_sample, 4), (flat.out_of_sample, 2)):
        assert part["matches"] == n
        assert part["log_loss"] == pytest.approx(math.log(2), abs=1e-12)
        assert part["brier"] == pytest.approx(0.25 if n == 2 else 0.1875, abs=1e-12)
        assert part["accuracy"] == pytest.approx(0.5, abs=1e-12)
    # Advantage 100: home win, away win, a neutral draw (0.5), home win; then two home wins.
    in_ll = (_ll(p, 1) + _ll(p, 0) + _ll(0.5, 0.5) + _ll(p, 1)) / 4
    assert home.in_sample["log_loss"] == pytest.approx(in_ll, abs=1e-12)
    assert home.in_sample["brier"] == pytest.approx(((1 - p) ** 2 + p**2 + 0 + (1 - p) ** 2) / 4)
    assert home.in_sample["accuracy"] == pytest.approx((1 + 0 + 0.5 + 1) / 4)
    assert home.out_of_sample["log_loss"] == pytest.approx(_ll(p, 1), abs=1e-12)
    assert home.out_of_sample["brier"] == pytest.approx((1 - p) ** 2, abs=1e-12)
    assert home.out_of_sample["accuracy"] == pytest.approx(1.0)
    # Every prediction of the in-sample part falls in the 0.5-0.6 decile.
    assert home.in_sample["worst_gap"] == pytest.approx(abs(2.5 / 4 - (3 * p + 0.5) / 4))
    assert home.out_of_sample["worst_gap"] == pytest.approx(1 - p)
    for part in (home.in_sample, home.out_of_sample):
        for name in ("log_loss", "brier", "accuracy"):
            assert part[f"{name}_low"] <= part[name] + 1e-12 <= part[f"{name}_high"] + 2e-12
    # The advantage predicts better in sample, so it is the tuned setting.
    assert in_ll < math.log(2)
    assert sweep.tuned_run == home
    parts = sweep.walk_forward
    assert parts["in_sample"] == {"matches": 4, "periods": 4}
    assert parts["out_of_sample"] == {"matches": 2, "periods": 2}
    for name in ("default", "live"):
        entry = parts["comparisons"][name]
        assert entry["run"] == flat.pk
        # Both out-of-sample weeks gain the same, so every replicate agrees: an interval of
        # one point, below zero.
        expected = _ll(p, 1) - math.log(2)
        assert entry["out_of_sample"]["estimate"] == pytest.approx(expected, abs=1e-12)
        assert entry["out_of_sample"]["high"] == pytest.approx(expected, abs=1e-12)
        assert entry["outcome"] == walk_forward.BETTER


@pytest.mark.parametrize(
    ("later", "outcome", "opening"),
    [
        ([1.0, 1.0], walk_forward.BETTER, "Better than the default configuration out of sample"),
        (
            [1.0, 0.0],
            walk_forward.NOISE,
            "No better than the default configuration within the noise",
        ),
        ([0.0, 0.0], walk_forward.WORSE, "Worse than the default configuration out of sample"),
    ],
)
def test_better_only_when_the_out_of_sample_interval_excludes_zero(
    league, make_player, later, outcome, opening
):
    """The same tuned setting (chosen in sample) judged on three different later parts."""
    _six_matches(league, make_player, later)
    sweep = services.run_sweep_sync(league, {"tau": [0.5], "advantage": [0, ADVANTAGE]})
    assert sweep.tuned_run.parameters["advantage"] == ADVANTAGE
    entry = sweep.walk_forward["comparisons"]["default"]
    assert entry["outcome"] == outcome
    diff = entry["out_of_sample"]
    p = _home_probability()
    gains = [_ll(p, s) - math.log(2) for s in later]
    assert diff["estimate"] == pytest.approx(sum(gains) / 2, abs=1e-12)
    # A two-period bootstrap's replicates are means of the two weeks' gains.
    assert min(gains) - 1e-12 <= diff["low"] <= diff["high"] <= max(gains) + 1e-12
    if outcome == walk_forward.NOISE:
        assert diff["low"] < 0 < diff["high"]
    verdicts = walk_forward_verdicts(sweep)
    assert verdicts[0].startswith(opening)
    assert verdicts[1].startswith(opening.replace("default", "live"))


def test_outcome_rule():
    assert walk_forward.outcome({"estimate": -0.01, "low": -0.02, "high": -0.0001}) == "better"
    assert walk_forward.outcome({"estimate": -0.01, "low": -0.02, "high": 0.0}) == "noise"
    assert walk_forward.outcome({"estimate": -0.00001, "low": -0.002, "high": 0.002}) == "noise"
    assert walk_forward.outcome({"estimate": 0.01, "low": 0.001, "high": 0.02}) == "worse"
    assert walk_forward.outcome(None) == "same"


def test_choose_split_default_share_and_requested_days():
    spec = PeriodSpec(unit="days", length=7, anchor=dt.date(2024, 1, 1))
    # Ten played weeks (3 unplayed between): the last 30 % are the last three played.
    played = [0, 1, 2, 3, 4, 8, 9, 10, 11, 12]
    split = walk_forward.choose_split(played, spec)
    assert split == walk_forward.Split(10, dt.date(2024, 3, 11))
    # A day inside a period: that whole period is out of sample.
    split = walk_forward.choose_split(played, spec, dt.date(2024, 2, 28))
    assert split == walk_forward.Split(8, dt.date(2024, 2, 26))
    with pytest.raises(walk_forward.SplitError) as error:
        walk_forward.choose_split(played, spec, dt.date(2024, 3, 25))
    assert error.value.values == {"date": "2024-03-25", "before": 9, "after": 1, "minimum": 2}
    with pytest.raises(walk_forward.SplitError):
        walk_forward.choose_split(played, spec, dt.date(2023, 12, 1))
    # Three played periods are too few for the default cut: no walk-forward.
    assert walk_forward.choose_split([0, 1, 2], spec) is None


def test_out_of_sample_predictions_come_from_ratings_of_the_whole_history(league, make_player):
    """Only the scoring is split: the later matches are predicted with ratings updated by the
    earlier ones (a fold of the whole history), not by a fold restarted at the cut."""
    # The paper's period updates and volatility (a new league's are instant and 0.10), which
    # the direct fold below computes.
    create_config(league, update_mode="period", initial_volatility=0.06)
    known = synthetic_league(8, 120, 6, seed=5)
    players = [make_player(league, f"Player {i}") for i in range(8)]
    append_matches_bulk(
        league,
        [
            NewMatch(
                player_a=players[a],
                player_b=players[b],
                score_a=Decimal(str(s)),
                played=league.start_date + dt.timedelta(days=7 * int(p) + 3),
            )
            for p, a, b, s in zip(
                known.matches.period,
                known.matches.player_a,
                known.matches.player_b,
                known.matches.score_a,
                strict=True,
            )
        ],
    )
    sweep = services.run_sweep_sync(league, {"tau": [0.5]})
    run = sweep.runs.get(is_default=False)  # the grid's one run (the default run is added)
    m = known.matches
    assert sweep.holdout_unit == 4  # six weeks: the last two out of sample
    params = Glicko2Params(tau=0.5, volatility_ceiling=DEFAULTS["volatility_ceiling"])
    whole = fold(m, 8, params, 0, 5).history
    p = match_predictions(m, whole, 8)
    later = m.period >= 4
    loss = log_loss_array(p, m.score_a)
    assert run.out_of_sample["log_loss"] == pytest.approx(loss[later].mean(), rel=1e-12)
    assert run.in_sample["log_loss"] == pytest.approx(loss[~later].mean(), rel=1e-12)
    # A fold restarted at the cut would predict the later matches otherwise.
    tail = _subset(m, later)
    fresh = match_predictions(tail, fold(tail, 8, params, 4, 5).history, 8)
    assert abs(float(log_loss_array(fresh, m.score_a[later]).mean()) - loss[later].mean()) > 1e-3


def _subset(matches, mask):
    return MatchArrays(
        period=matches.period[mask],
        player_a=matches.player_a[mask],
        player_b=matches.player_b[mask],
        score_a=matches.score_a[mask],
    )


def test_a_requested_cut_is_used_and_a_bad_one_refused_storing_nothing(six):
    sweep = services.run_sweep_sync(
        six, {"tau": [0.5]}, holdout_from=dt.date(2024, 1, 24)
    )  # a Wednesday of week 3: weeks 3-5 out of sample
    assert sweep.holdout_from == dt.date(2024, 1, 22)
    assert sweep.walk_forward["out_of_sample"] == {"matches": 3, "periods": 3}
    count = Sweep.objects.count()
    with pytest.raises(ValidationError) as error:
        services.run_sweep_sync(six, {"tau": [0.5]}, holdout_from=dt.date(2024, 2, 12))
    assert "leaves 6 rating period(s) with matches before it and 0" in str(
        error.value.message_dict["holdout_from"]
    )
    assert Sweep.objects.count() == count


def test_without_holdout_nothing_is_split(six):
    sweep = services.run_sweep_sync(six, {"tau": [0.5]}, holdout=False)
    assert sweep.tuned_run is None
    assert sweep.walk_forward == {}
    assert sweep.runs.get().out_of_sample == {}


def test_default_run_is_added_when_the_live_configuration_differs(six):
    from ratings import services as rating_services

    rating_services.create_config(six, tau=1.0, advantage=60.0)
    sweep = services.run_sweep_sync(six, {"tau": [0.3]})
    runs = list(sweep.runs.order_by("position"))
    # The grid point, the live configuration, the defaults (on the live periods).
    assert [(r.parameters["tau"], r.parameters["advantage"]) for r in runs] == [
        (0.3, 60.0),
        (1.0, 60.0),
        (0.5, 0.0),
    ]
    assert [(r.is_current, r.is_default) for r in runs] == [
        (False, False),
        (True, False),
        (False, True),
    ]
    assert sweep.default_run == runs[2]
    assert sweep.current_run == runs[1]
    assert set(sweep.walk_forward["comparisons"]) == {"default", "live"}


# --- the command and the API ---------------------------------------------------------------


def test_command_prints_in_and_out_of_sample_figures_and_the_verdict(six):
    out = io.StringIO()
    call_command("backtest", six.slug, "--tau", "0.5", "--advantage", "0", "100", stdout=out)
    text = out.getvalue()
    assert "Whole history (in sample" in text
    assert "Walk-forward: in sample (used to choose) before 2024-01-29, 4 matches" in text
    assert "out of sample (used to judge) from 2024-01-29 on, 2 matches in 2 periods" in text
    lines = text.splitlines()
    tuned_out = next(line for line in lines if line.startswith("tuned") and " out " in line)
    assert f"{_ll(_home_probability(), 1):.5f}" in tuned_out
    assert "Better than the default configuration out of sample" in text

    out = io.StringIO()
    call_command("backtest", six.slug, "--tau", "0.5", "--no-holdout", stdout=out)
    assert "Walk-forward" not in out.getvalue()

    out = io.StringIO()
    call_command("backtest", six.slug, "--tau", "0.5", "--split", "2024-01-15", stdout=out)
    assert "before 2024-01-15, 2 matches in 2 periods" in out.getvalue()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--holdout-from", "2024-02-12"], "holdout_from: A cut on 2024-02-12 leaves 6"),
        (["--holdout-from", "2023-01-01"], "must start on or after 2024-01-01"),
        (["--holdout-share", "1.5"], "--holdout-share must be between 0 and 1"),
    ],
)
def test_command_refuses_a_bad_cut(six, args, message):
    with pytest.raises(CommandError, match=message):
        call_command("backtest", six.slug, "--tau", "0.5", *args, stdout=io.StringIO())
    assert not Sweep.objects.exists()


def _api(organiser) -> APIClient:
    client = APIClient()
    client.force_authenticate(organiser)
    return client


def test_api_reports_the_walk_forward(six, organiser, django_capture_on_commit_callbacks):
    client = _api(organiser)
    url = reverse("api:backtest-sweeps", kwargs={"league_slug": six.slug})
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            url,
            {"tau": [0.5], "advantage": [0, 100], "holdout_from": "2024-01-29"},
            format="json",
        )
    assert response.status_code == 202, response.content
    sweep_id = response.json()["id"]
    data = client.get(
        reverse("api:backtest-sweep", kwargs={"league_slug": six.slug, "sweep_id": sweep_id})
    ).json()
    assert data["holdout"] is True
    assert data["holdout_from"] == "2024-01-29"
    assert data["tuned_parameters"]["advantage"] == 100
    runs = {run["id"]: run for run in data["runs"]}
    tuned = runs[data["tuned_run"]]
    assert tuned["out_of_sample"]["log_loss"] == pytest.approx(_ll(_home_probability(), 1))
    assert runs[data["default_run"]]["is_default"] is True
    assert data["walk_forward"]["comparisons"]["default"]["outcome"] == "better"
    assert data["walk_forward_verdicts"][0].startswith("Better than the default configuration")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"tau": [0.5], "holdout_from": "2024-02-12"}, "holdout_from"),
        ({"tau": [0.5], "holdout_from": "next week"}, "holdout_from"),
        ({"tau": [0.5], "holdout_share": 1.5}, "holdout_share"),
        ({"tau": [0.5], "holdout": "yes"}, "holdout"),
        ({"tau": [0.5], "holdout": False, "holdout_from": "2024-01-29"}, "holdout"),
        ({"tau": [0.5], "holdout_from": "2024-01-29", "holdout_share": 0.2}, "holdout_share"),
    ],
)
def test_api_refuses_a_bad_cut_with_the_field_named(six, organiser, body, field):
    response = _api(organiser).post(
        reverse("api:backtest-sweeps", kwargs={"league_slug": six.slug}),
        json.dumps(body),
        content_type="application/json",
    )
    assert response.status_code == 400, response.content
    assert field in json.dumps(response.json())
    assert not Sweep.objects.exists()


def test_page_shows_both_parts_and_the_verdict(client, six, organiser):
    sweep = services.run_sweep_sync(six, {"tau": [0.5], "advantage": [0, 100]})
    client.force_login(organiser)
    page = client.get(
        reverse("workspace:backtest_sweep", kwargs={"league_slug": six.slug, "sweep_id": sweep.pk})
    ).content.decode()
    assert "Out of sample (walk-forward)" in page
    assert "the 4 matches before 2024-01-29 (4 rating periods)" in page
    assert "Better than the default configuration out of sample" in page
    assert page.count('class="walk-out"') == 2  # the tuned run, and the default = live run
    assert f"{_ll(_home_probability(), 1):.5f}" in page


def test_page_form_takes_a_cut_and_refuses_a_bad_one(client, six, organiser):
    client.force_login(organiser)
    url = reverse("workspace:backtest", kwargs={"league_slug": six.slug})
    response = client.post(url, {"tau": "0.5", "holdout_from": "2024-02-12"})
    assert response.status_code == 400
    assert "A cut on 2024-02-12 leaves 6 rating period(s)" in response.content.decode()
    response = client.post(url, {"tau": "0.5", "holdout_from": "2024-01-10", "no_holdout": "on"})
    assert response.status_code == 400
    assert not Sweep.objects.exists()
    response = client.post(url, {"tau": "0.5", "holdout_from": "2024-01-17"})
    assert response.status_code == 302
    assert Sweep.objects.get().holdout_from == dt.date(2024, 1, 15)


def test_period_sums_split_exactly(six):
    """The two parts' sums add up to the whole history's scores."""
    sweep = services.run_sweep_sync(six, {"tau": [0.5], "advantage": [100]})
    run = sweep.runs.get(parameters__advantage=100)
    n_in, n_out = run.in_sample["matches"], run.out_of_sample["matches"]
    whole = (n_in * run.in_sample["log_loss"] + n_out * run.out_of_sample["log_loss"]) / 6
    assert whole == pytest.approx(run.log_loss, abs=1e-12)
    assert np.isclose(
        (n_in * run.in_sample["brier"] + n_out * run.out_of_sample["brier"]) / 6, run.brier
    )


def test_the_demos_parameters_are_the_benchs_live_configuration():
    """The walk-forward table of docs/backtests.md scores the demo's live configuration as
    ``bench.football_walkforward.LIVE``: the two must not drift apart."""
    from bench.football_walkforward import DEFAULT, LIVE
    from ratings.management.commands.load_demo import DEMO_PARAMETERS

    assert LIVE == {**DEFAULT, **DEMO_PARAMETERS}
    assert LIVE != DEFAULT
