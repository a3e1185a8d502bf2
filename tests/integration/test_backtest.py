"""Backtesting: sweeps over a synthetic league with known strengths, pages, API, command.

The synthetic league (``bench.synthetic``) has fixed true strengths and players who arrive
late, so rating uncertainty matters: Glicko-2 should beat a tuned Elo there, and with
strengths that never change a small τ (Glickman's 0.3-1.2) should predict better than a
huge one. Expected figures are computed in this file from the fold's per-match start-of-
period ratings with the formulas of docs/glicko2.md, not from the scoring code's aggregates.
"""

from __future__ import annotations

import datetime as dt
import io
import math
from decimal import Decimal

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import transaction
from django.urls import reverse
from rest_framework.test import APIClient

from bench.synthetic import synthetic_league
from engine.fold import fold
from engine.params import Glicko2Params
from league.event_store.bulk import NewMatch, append_matches_bulk
from league.models import League
from ratings import services as rating_services
from ratings.backtest import services, tasks
from ratings.backtest.models import Sweep, SweepRun
from ratings.models import RatingConfig
from ratings.parameters import DEFAULTS

SCALE = 173.7178
N_PLAYERS, N_MATCHES, N_PERIODS, SEED = 24, 1600, 10, 0
#: Glickman's advised range, and the largest τ a configuration takes (2).
SENSIBLE = (0.3, 0.6, 1.2)
GRID = [*SENSIBLE, 2.0]
#: The volatility ceiling every league's configuration has by default (and the sweep's runs).
CEILING = DEFAULTS["volatility_ceiling"]  # every league configuration has one


def _store(league: League, make_player, matches, n_players: int) -> list:
    """Store synthetic matches: period p of 7-day periods from the league's start date."""
    players = [make_player(league, f"Player {i:02d}") for i in range(n_players)]
    rows = [
        NewMatch(
            player_a=players[a],
            player_b=players[b],
            score_a=Decimal(str(s)),
            played=league.start_date + dt.timedelta(days=7 * int(p) + int(p) % 7),
        )
        for p, a, b, s in zip(
            matches.period, matches.player_a, matches.player_b, matches.score_a, strict=True
        )
    ]
    append_matches_bulk(league, rows)
    return players


@pytest.fixture
def known() -> object:
    return synthetic_league(N_PLAYERS, N_MATCHES, N_PERIODS, seed=SEED)


@pytest.fixture
def synthetic(league, make_player, known) -> League:
    _store(league, make_player, known.matches, N_PLAYERS)
    return league


@pytest.fixture
def small(league, make_player) -> League:
    small_league = synthetic_league(6, 60, 4, seed=3)
    _store(league, make_player, small_league.matches, 6)
    return league


def paper_configuration(league: League) -> None:
    """The configuration the sweeps vary: the paper's period updates and volatility 0.06
    (what the direct computations here use; a new league's defaults are instant and 0.10)."""
    rating_services.create_config(league, update_mode="period", initial_volatility=0.06)


# --- direct computation, independent of engine.scoring --------------------------------


def _by_hand(matches, tau: float) -> dict[str, float]:
    """Log-loss, Brier and accuracy from the fold's start-of-period ratings, by the formulas."""
    params = Glicko2Params(tau=tau, volatility_ceiling=CEILING)
    history = fold(matches, N_PLAYERS, params, 0, int(matches.period.max())).history
    before = {
        (int(p), int(i)): (r, rd)
        for p, i, r, rd in zip(
            history.period, history.player, history.rating_before, history.rd_before, strict=True
        )
    }
    losses, briers, correct = [], [], []
    for p, a, b, s in zip(
        matches.period, matches.player_a, matches.player_b, matches.score_a, strict=True
    ):
        (ra, rda), (rb, rdb) = before[(int(p), int(a))], before[(int(p), int(b))]
        phi = math.sqrt((rda / SCALE) ** 2 + (rdb / SCALE) ** 2)
        g = 1 / math.sqrt(1 + 3 * phi**2 / math.pi**2)
        prob = 1 / (1 + math.exp(-g * (ra - rb) / SCALE))
        losses.append(-(s * math.log(prob) + (1 - s) * math.log(1 - prob)))
        briers.append((prob - s) ** 2)
        if s == 0.5 or prob == 0.5:
            correct.append(0.5)
        else:
            correct.append(1.0 if (prob > 0.5) == (s == 1.0) else 0.0)
    n = len(losses)
    return {"log_loss": sum(losses) / n, "brier": sum(briers) / n, "accuracy": sum(correct) / n}


def _elo_log_loss(matches, k: float) -> float:
    """Plain Elo (base 10, scale 400, from 1500), predictions from start-of-period ratings."""
    ratings = [1500.0] * N_PLAYERS
    total = 0.0
    for period in sorted(set(matches.period.tolist())):
        rows = np.flatnonzero(matches.period == period)
        change = [0.0] * N_PLAYERS
        for row in rows:
            a, b, s = int(matches.player_a[row]), int(matches.player_b[row]), matches.score_a[row]
            e = 1 / (1 + 10 ** ((ratings[b] - ratings[a]) / 400))
            total -= s * math.log(e) + (1 - s) * math.log(1 - e)
            change[a] += k * (s - e)
            change[b] -= k * (s - e)
        ratings = [r + c for r, c in zip(ratings, change, strict=True)]
    return total / len(matches)


# --- the sweep ----------------------------------------------------------------------------------


def test_sync_sweep_ranks_a_sensible_tau_best_and_beats_both_baselines(synthetic):
    paper_configuration(synthetic)
    sweep = services.run_sweep_sync(synthetic, {"tau": GRID})

    assert sweep.status == Sweep.Status.COMPLETE
    # The grid's four τ values, the current configuration (τ 0.5, not in the grid) and a new
    # league's defaults (instant updates, volatility 0.10), scored beside them.
    assert (sweep.runs_done, sweep.runs_total) == (6, 6)
    assert sweep.runs.filter(is_default=True).count() == 1
    assert [run.parameters["tau"] for run in sweep.runs.filter(is_current=True)] == [0.5]
    # Among the period-update runs (the new league's default run, instant, may predict better).
    runs = {run.parameters["tau"]: run for run in sweep.runs.filter(is_default=False)}
    best = min(runs.values(), key=lambda run: run.log_loss)
    assert best.parameters["tau"] in SENSIBLE
    # Strengths never change, so letting volatility swing (the largest τ) predicts worse.
    assert runs[2.0].log_loss > best.log_loss
    assert best.log_loss < best.constant_log_loss
    assert best.log_loss < best.elo_log_loss - 0.005
    assert best.brier < best.elo_brier < best.constant_brier


def test_scores_match_a_direct_computation(synthetic, known):
    paper_configuration(synthetic)
    sweep = services.run_sweep_sync(synthetic, {"tau": [0.6, 2.0]})

    results = known.matches.score_a
    # The period-update runs (the default run is instant: test_instant_backtest's subject).
    for run in sweep.runs.filter(is_default=False):
        expected = _by_hand(known.matches, run.parameters["tau"])
        assert run.n_matches == N_MATCHES
        assert run.log_loss == pytest.approx(expected["log_loss"], rel=1e-12)
        assert run.brier == pytest.approx(expected["brier"], rel=1e-12)
        assert run.accuracy == pytest.approx(expected["accuracy"], rel=1e-12)
        assert run.constant_log_loss == pytest.approx(math.log(2), rel=1e-12)
        assert run.constant_brier == pytest.approx(float(np.mean((0.5 - results) ** 2)))
        assert run.elo_log_loss == pytest.approx(_elo_log_loss(known.matches, run.elo_k), rel=1e-9)
        assert sum(row["count"] for row in run.calibration) == N_MATCHES
        assert len(run.calibration) == 10


def test_calibration_deciles_match_the_predictions(synthetic, known):
    paper_configuration(synthetic)
    sweep = services.run_sweep_sync(synthetic, {"tau": [0.5]})
    run = sweep.runs.get(is_default=False)
    history = fold(known.matches, N_PLAYERS, Glicko2Params(tau=0.5), 0, N_PERIODS - 1).history
    before = {
        (int(p), int(i)): (r, rd)
        for p, i, r, rd in zip(
            history.period, history.player, history.rating_before, history.rd_before, strict=True
        )
    }
    bins: dict[int, list[tuple[float, float]]] = {}
    m = known.matches
    for p, a, b, s in zip(m.period, m.player_a, m.player_b, m.score_a, strict=True):
        (ra, rda), (rb, rdb) = before[(int(p), int(a))], before[(int(p), int(b))]
        g = 1 / math.sqrt(1 + 3 * ((rda / SCALE) ** 2 + (rdb / SCALE) ** 2) / math.pi**2)
        prob = 1 / (1 + math.exp(-g * (ra - rb) / SCALE))
        bins.setdefault(min(int(prob * 10), 9), []).append((prob, s))
    for index, row in enumerate(run.calibration):
        members = bins.get(index, [])
        assert row["count"] == len(members)
        if members:
            assert row["predicted"] == pytest.approx(sum(p for p, _ in members) / len(members))
            assert row["observed"] == pytest.approx(sum(s for _, s in members) / len(members))


def test_group_sweep_on_the_embedded_default_completes(
    synthetic, organiser, django_capture_on_commit_callbacks
):
    paper_configuration(synthetic)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        sweep = tasks.start_sweep(synthetic, {"tau": [0.3, 2.0]}, requested_by=organiser)
        # Two grid points, the current configuration (τ 0.5) and a new league's defaults.
        assert SweepRun.objects.filter(sweep=sweep, status=SweepRun.Status.QUEUED).count() == 4
    assert len(callbacks) == 1  # one group, sent once the sweep is stored

    sweep.refresh_from_db()
    assert sweep.status == Sweep.Status.COMPLETE
    assert sweep.runs_done == 4
    assert sweep.runs.get(is_default=False, parameters__tau=0.3).log_loss < (
        sweep.runs.get(parameters__tau=2.0).log_loss
    )
    assert sweep.requested_by == organiser
    assert all(run.attempts == 1 for run in sweep.runs.all())


def test_grid_with_more_dimensions_runs_every_combination(small):
    grid = {
        "tau": [0.4, 0.8],
        "initial_rd": [200, 350],
        "period_unit": "days",
        "period_length": [7, 14],
    }
    sweep = services.run_sweep_sync(small, grid)

    combos = {
        (r.parameters["tau"], r.parameters["initial_rd"], r.parameters["period_length"])
        for r in sweep.runs.filter(is_current=False)
    }
    assert combos == {
        (t, rd, length) for t in (0.4, 0.8) for rd in (200.0, 350.0) for length in (7, 14)
    }
    assert sweep.runs_done == 9  # with the current configuration's run
    assert sweep.status == Sweep.Status.COMPLETE
    assert sweep.best_run.log_loss == min(r.log_loss for r in sweep.runs.all())


@pytest.mark.parametrize(
    ("grid", "field"),
    [
        ({"tau": []}, "tau"),
        ({"tau": [0.5, -1]}, "tau"),
        ({"tau": ["abc"]}, "tau"),
        ({"tau": [0.5], "initial_rd": [0]}, "initial_rd"),
        ({"tau": [0.5], "initial_rd": [400]}, "initial_rd"),
        ({"tau": [0.5], "period_length": [1.5]}, "period_length"),
        ({"tau": [0.5], "period_unit": "weeks", "period_length": [1]}, "period_unit"),
        ({"tau": [0.5], "colour": ["red"]}, "grid"),
        ({"tau": [0.1 * i for i in range(1, 12)], "initial_rd": list(range(100, 350, 20))}, "grid"),
        ("tau=0.5", "grid"),
    ],
)
def test_bad_grids_are_refused_and_store_nothing(small, grid, field):
    with pytest.raises(ValidationError) as caught:
        tasks.start_sweep(small, grid)
    assert field in caught.value.message_dict
    assert not Sweep.objects.exists()


def test_a_league_without_matches_is_refused(league):
    with pytest.raises(ValidationError) as caught:
        services.run_sweep_sync(league, {"tau": [0.5]})
    assert "league" in caught.value.message_dict
    assert not Sweep.objects.exists()


def test_a_redelivered_run_is_not_scored_twice(small):
    sweep = services.run_sweep_sync(small, {"tau": [0.5]})
    run = sweep.runs.get()
    finished_at = run.finished_at

    services.score_run(run.pk)

    run.refresh_from_db()
    assert run.attempts == 1
    assert run.finished_at == finished_at
    sweep.refresh_from_db()
    assert sweep.runs_done == 1


def test_a_failed_run_does_not_block_the_sweep(small, monkeypatch):
    paper_configuration(small)
    real = services.score_fold

    def failing_for_big_tau(matches, n_players, params, *args):
        if params.tau > 1:
            raise ArithmeticError("did not converge")
        return real(matches, n_players, params, *args)

    monkeypatch.setattr(services, "score_fold", failing_for_big_tau)
    sweep = services.run_sweep_sync(small, {"tau": [0.5, 2.0]})

    assert sweep.status == Sweep.Status.COMPLETE
    assert sweep.runs_done == 3  # the two grid points and a new league's defaults
    assert sweep.best_run.parameters["tau"] == 0.5
    failed = sweep.runs.get(parameters__tau=2.0)
    assert failed.status == SweepRun.Status.FAILED
    assert "did not converge" in failed.error
    assert "1 run(s) failed" in sweep.error


def test_adopt_best_creates_a_new_version_with_its_parameters(small, organiser):
    sweep = services.run_sweep_sync(small, {"tau": [0.4, 0.9], "initial_rd": [300]})
    config = services.adopt_best(sweep, user=organiser)

    assert config.version == 1
    best = sweep.best_run.parameters
    assert (config.tau, config.initial_rd) == (best["tau"], best["initial_rd"])
    assert config.created_by == organiser
    assert RatingConfig.objects.filter(league=small).count() == 1


def test_adopting_an_unfinished_sweep_is_refused(small):
    sweep = tasks.start_sweep(small, {"tau": [0.5]})  # not committed: no task sent

    with pytest.raises(ValidationError):
        services.adopt_best(sweep)
    assert not RatingConfig.objects.filter(league=small).exists()


# --- pages --------------------------------------------------------------------------------------


def _urls(league: League, sweep: Sweep | None = None) -> list[str]:
    urls = [reverse("workspace:backtest", kwargs={"league_slug": league.slug})]
    if sweep is not None:
        kwargs = {"league_slug": league.slug, "sweep_id": sweep.pk}
        urls += [
            reverse("workspace:backtest_sweep", kwargs=kwargs),
            reverse("workspace:backtest_progress", kwargs=kwargs),
        ]
    return urls


def test_pages_send_visitors_to_sign_in(client, small):
    sweep = services.run_sweep_sync(small, {"tau": [0.5]})
    for url in _urls(small, sweep):
        response = client.get(url)
        assert response.status_code == 302
        assert reverse("accounts:sign_in") in response["Location"]


def test_pages_refuse_organisers_of_other_leagues(client, small, other_organiser):
    sweep = services.run_sweep_sync(small, {"tau": [0.5]})
    client.force_login(other_organiser)
    for url in _urls(small, sweep):
        assert client.get(url).status_code == 403
    adopt = reverse(
        "workspace:backtest_adopt", kwargs={"league_slug": small.slug, "sweep_id": sweep.pk}
    )
    assert client.post(adopt).status_code == 403
    assert client.post(_urls(small)[0], {"tau": "0.5"}).status_code == 403
    assert Sweep.objects.count() == 1
    assert not RatingConfig.objects.exists()


def test_a_sweep_of_another_league_is_not_found(client, small, other_league, other_organiser):
    sweep = services.run_sweep_sync(small, {"tau": [0.5]})
    client.force_login(other_organiser)
    url = reverse(
        "workspace:backtest_sweep", kwargs={"league_slug": other_league.slug, "sweep_id": sweep.pk}
    )
    assert client.get(url).status_code == 404


def test_organiser_starts_a_sweep_and_sees_results_chart_data_and_table(
    client, small, organiser, django_capture_on_commit_callbacks
):
    client.force_login(organiser)
    assert client.get(_urls(small)[0]).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(_urls(small)[0], {"tau": "0.3, 0.9 1.5", "initial_rd": ""})
    sweep = Sweep.objects.get()
    assert response.status_code == 302
    assert response["Location"] == _urls(small, sweep)[1]

    page = client.get(_urls(small, sweep)[1])
    html = page.content.decode()
    assert page.status_code == 200
    assert 'id="backtest-chart-data"' in html
    assert "js/backtest.js" in html
    assert "<script>" not in html  # no inline scripts: data comes through json_script
    assert page.context["chart"]["series"][0]["points"] == [
        {"x": r.parameters["tau"], "y": r.log_loss}
        for r in sorted(sweep.runs.all(), key=lambda r: r.parameters["tau"])
    ]
    assert f"{sweep.best_run.log_loss:.4f}" in html
    assert "Adopt this configuration" in html
    # Brier, accuracy and each decile's observed score come with their 95 % intervals.
    best = sweep.best_run
    assert f"{best.brier_low:.4f}–{best.brier_high:.4f}" in html
    assert f"{best.accuracy_low:.3f}–{best.accuracy_high:.3f}" in html
    decile = next(row for row in best.calibration if row["count"])
    assert f"{decile['observed_low']:.3f}–{decile['observed_high']:.3f}" in html
    assert "Observed 95&nbsp;% interval" in html


def test_bad_form_input_shows_errors_and_starts_nothing(client, small, organiser):
    client.force_login(organiser)
    response = client.post(_urls(small)[0], {"tau": "0.5 -2"})
    assert response.status_code == 400
    assert "greater than 0" in response.content.decode()
    assert not Sweep.objects.exists()


def test_progress_polls_until_done_then_refreshes(client, small, organiser):
    sweep = tasks.start_sweep(small, {"tau": [0.5]})  # tasks not sent: stays queued
    client.force_login(organiser)
    progress = _urls(small, sweep)[2]

    polling = client.get(progress, headers={"HX-Request": "true"})
    assert polling.status_code == 200
    assert 'hx-trigger="every 2s"' in polling.content.decode()

    services.score_run(sweep.runs.get().pk)
    done = client.get(progress, headers={"HX-Request": "true"})
    assert done.headers.get("HX-Refresh") == "true"


def test_adopt_button_creates_a_version(client, small, organiser):
    sweep = services.run_sweep_sync(small, {"tau": [0.5, 1.0]})
    client.force_login(organiser)
    url = reverse(
        "workspace:backtest_adopt", kwargs={"league_slug": small.slug, "sweep_id": sweep.pk}
    )
    assert client.get(url).status_code == 405
    response = client.post(url)
    assert response.status_code == 302
    config = RatingConfig.objects.get(league=small)
    assert config.tau == sweep.best_run.parameters["tau"]


# --- API ----------------------------------------------------------------------------------------


def _api_urls(league: League, sweep: Sweep) -> list[tuple[str, str]]:
    kwargs = {"league_slug": league.slug, "sweep_id": sweep.pk}
    return [
        ("get", reverse("api:backtest-sweeps", kwargs={"league_slug": league.slug})),
        ("post", reverse("api:backtest-sweeps", kwargs={"league_slug": league.slug})),
        ("get", reverse("api:backtest-sweep", kwargs=kwargs)),
        ("post", reverse("api:backtest-adopt", kwargs=kwargs)),
    ]


def test_api_refuses_visitors_and_other_organisers(small, other_organiser):
    sweep = services.run_sweep_sync(small, {"tau": [0.5]})
    api = APIClient()
    for method, url in _api_urls(small, sweep):
        assert getattr(api, method)(url, {"tau": [0.5]}, format="json").status_code == 401
    api.force_authenticate(other_organiser)
    for method, url in _api_urls(small, sweep):
        assert getattr(api, method)(url, {"tau": [0.5]}, format="json").status_code == 403
    assert Sweep.objects.count() == 1
    assert not RatingConfig.objects.exists()


def test_api_starts_a_sweep_reads_it_and_adopts_the_best(
    small, organiser, django_capture_on_commit_callbacks
):
    api = APIClient()
    api.force_authenticate(organiser)
    url = reverse("api:backtest-sweeps", kwargs={"league_slug": small.slug})
    with django_capture_on_commit_callbacks(execute=True):
        started = api.post(url, {"tau": [0.3, 0.7]}, format="json")
    assert started.status_code == 202
    assert started.json()["runs_total"] == 3  # and the current configuration

    detail = reverse(
        "api:backtest-sweep", kwargs={"league_slug": small.slug, "sweep_id": started.json()["id"]}
    )
    body = api.get(detail).json()
    assert body["status"] == "complete"
    assert body["runs_done"] == 3
    assert [run["parameters"]["tau"] for run in body["runs"] if run["is_current"]] == [0.5]
    assert body["current_run"] is not None
    assert body["verdict"]
    best = min(body["runs"], key=lambda run: run["log_loss"])
    assert body["best_run"] == best["id"]
    assert {"elo_log_loss", "constant_log_loss", "calibration", "brier"} <= set(best)
    for name in ("brier", "accuracy"):
        assert best[f"{name}_low"] < best[name] < best[f"{name}_high"]
    deciles = [row for row in best["calibration"] if row["count"]]
    assert deciles
    for row in deciles:
        assert row["observed_low"] <= row["observed"] <= row["observed_high"]

    adopted = api.post(detail + "adopt/")
    assert adopted.status_code == 201
    assert adopted.json()["tau"] == best["parameters"]["tau"]
    assert api.get(url).json()["count"] == 1


def test_api_refuses_a_bad_grid_with_field_errors(small, organiser):
    api = APIClient()
    api.force_authenticate(organiser)
    url = reverse("api:backtest-sweeps", kwargs={"league_slug": small.slug})
    response = api.post(url, {"tau": [0.5], "initial_rd": [-3]}, format="json")
    assert response.status_code == 400
    assert "initial_rd" in str(response.json())
    assert api.post(url, {}, format="json").status_code == 400
    assert not Sweep.objects.exists()


@pytest.mark.parametrize(
    "grid",
    [
        {"tau": [True]},  # a boolean is not τ = 1
        {"tau": ["0.5"]},  # numbers, not strings
        {"tau": [0.5], "period_length": ["7"]},
        {"tau": [0.5], "period_length": [7.5]},
    ],
)
def test_api_refuses_loosely_typed_grid_values(small, organiser, grid):
    api = APIClient()
    api.force_authenticate(organiser)
    url = reverse("api:backtest-sweeps", kwargs={"league_slug": small.slug})
    response = api.post(url, grid, format="json")
    assert response.status_code == 400
    assert not Sweep.objects.exists()


def test_api_refuses_to_adopt_an_unfinished_sweep_in_the_error_format(small, organiser):
    with transaction.atomic():
        sweep, _ = services.create_sweep(small, {"tau": [0.5]})  # queued: nothing scored
    api = APIClient()
    api.force_authenticate(organiser)
    kwargs = {"league_slug": small.slug, "sweep_id": sweep.pk}
    response = api.post(reverse("api:backtest-adopt", kwargs=kwargs))
    assert response.status_code == 400
    assert response.json() == {
        "detail": "Invalid input.",
        "code": "invalid",
        "errors": {"sweep": ["The sweep has no best run to adopt yet."]},
    }
    missing = api.get(reverse("api:backtest-sweep", kwargs={**kwargs, "sweep_id": sweep.pk + 1}))
    assert missing.status_code == 404
    assert set(missing.json()) == {"detail", "code", "errors"}
    assert not RatingConfig.objects.exists()


# --- command ------------------------------------------------------------------------------------


def test_command_prints_the_table_and_adopts(small, organiser):
    out = io.StringIO()
    call_command(
        "backtest",
        small.slug,
        "--tau",
        "0.3",
        "0.8",
        "--period-days",
        "7",
        "14",
        "--adopt",
        "--user",
        organiser.username,
        stdout=out,
    )
    text = out.getvalue()
    sweep = Sweep.objects.get()
    assert sweep.runs_total == 5  # and the current configuration
    assert "<- best" in text
    assert f"{sweep.best_run.log_loss:.4f}" in text
    config = RatingConfig.objects.get(league=small)
    assert config.tau == sweep.best_run.parameters["tau"]
    assert config.period_length == sweep.best_run.parameters["period_length"]


@pytest.mark.parametrize(
    "args",
    [
        ["nowhere", "--tau", "0.5"],
        ["riverside", "--tau", "-0.5"],
        ["riverside", "--tau", "0.5", "--user", "nobody"],
    ],
)
def test_command_refuses_bad_input(small, args):
    with pytest.raises(CommandError):
        call_command("backtest", *args, stdout=io.StringIO())
    assert not Sweep.objects.exists()
