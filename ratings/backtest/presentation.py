"""Plain data for showing a sweep: table rows, chart series and a text table."""

from __future__ import annotations

from typing import Any

from ratings.backtest.models import Sweep, SweepRun


def setting_label(parameters: dict[str, Any]) -> str:
    """The parameters other than τ, e.g. ``RD 350 · volatility 0.06 · 7 days``."""
    unit = parameters["period_unit"]
    length = parameters["period_length"]
    if unit == "months":
        period = "1 month" if length == 1 else f"{length} months"
    else:
        period = "1 day" if length == 1 else f"{length} days"
    rd, volatility = parameters["initial_rd"], parameters["initial_volatility"]
    return f"RD {rd:g} · volatility {volatility:g} · {period}"


def run_rows(sweep: Sweep, runs: list[SweepRun]) -> list[dict[str, Any]]:
    """One dict per run for the results table (best run flagged)."""
    return [
        {
            "run": run,
            "tau": run.parameters["tau"],
            "setting": setting_label(run.parameters),
            "is_best": run.pk == sweep.best_run_id,
            "calibration": [row for row in (run.calibration or []) if row.get("count")],
        }
        for run in runs
    ]


def chart_data(runs: list[SweepRun]) -> dict[str, Any]:
    """Series of (τ, log-loss) per setting, and the baselines' log-loss per setting.

    The baselines do not depend on τ (the Elo baseline depends on the periods), so each
    setting contributes one constant and one Elo line.
    """
    series: dict[str, list[dict[str, float]]] = {}
    baselines: dict[str, dict[str, float]] = {}
    for run in runs:
        if run.status != SweepRun.Status.COMPLETE:
            continue
        label = setting_label(run.parameters)
        series.setdefault(label, []).append({"x": run.parameters["tau"], "y": run.log_loss})
        baselines.setdefault(
            label,
            {"constant": run.constant_log_loss, "elo": run.elo_log_loss, "elo_k": run.elo_k},
        )
    return {
        "series": [
            {"label": label, "points": sorted(points, key=lambda p: p["x"])}
            for label, points in series.items()
        ],
        "baselines": [{"label": label, **values} for label, values in baselines.items()],
    }


def text_table(sweep: Sweep, runs: list[SweepRun]) -> str:
    """The results as a fixed-width table for the terminal."""
    header = (
        f"{'τ':>6}  {'setting':<28} {'log-loss':>9} {'Brier':>7} {'accuracy':>8} "
        f"{'matches':>8} {'const LL':>9} {'Elo LL':>8} {'Elo K':>6} {'sec':>6}"
    )
    lines = [header, "-" * len(header)]
    for run in runs:
        setting = setting_label(run.parameters)
        tau = run.parameters["tau"]
        if run.status != SweepRun.Status.COMPLETE:
            lines.append(f"{tau:>6g}  {setting:<28} {run.status}: {run.error}")
            continue
        mark = "  <- best" if run.pk == sweep.best_run_id else ""
        lines.append(
            f"{tau:>6g}  {setting:<28} {run.log_loss:>9.4f} {run.brier:>7.4f} "
            f"{run.accuracy:>8.3f} {run.n_matches:>8d} {run.constant_log_loss:>9.4f} "
            f"{run.elo_log_loss:>8.4f} {run.elo_k:>6g} {run.elapsed:>6.2f}{mark}"
        )
    return "\n".join(lines)
