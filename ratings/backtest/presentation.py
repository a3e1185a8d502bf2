"""Plain data for showing a sweep: table rows, chart series and a text table."""

from __future__ import annotations

from typing import Any

from ratings.backtest.models import Sweep, SweepRun


def setting_label(parameters: dict[str, Any]) -> str:
    """The parameters other than τ, e.g. ``RD 350 · volatility 0.06 · 7 days``, with the
    advantage and the margin scale when they are on (``advantage 100 · margins 1``) and
    instant updates when they are chosen."""
    unit = parameters["period_unit"]
    length = parameters["period_length"]
    if unit == "months":
        period = "1 month" if length == 1 else f"{length} months"
    else:
        period = "1 day" if length == 1 else f"{length} days"
    rd, volatility = parameters["initial_rd"], parameters["initial_volatility"]
    label = f"RD {rd:g} · volatility {volatility:g} · {period}"
    if parameters.get("advantage"):
        label += f" · advantage {parameters['advantage']:g}"
    if parameters.get("margin_scale") is not None:
        label += f" · margins {parameters['margin_scale']:g}"
    if parameters.get("update_mode") == "instant":
        label += " · instant updates"
    return label


def worst_gap(calibration: list[dict[str, Any]]) -> float | None:
    """The largest |observed - mean predicted| over the calibration deciles with matches."""
    gaps = [
        abs(row["observed"] - row["predicted"])
        for row in calibration
        if row.get("count") and row.get("observed") is not None
    ]
    return max(gaps) if gaps else None


def run_rows(sweep: Sweep, runs: list[SweepRun]) -> list[dict[str, Any]]:
    """One dict per run for the results table (best run flagged)."""
    return [
        {
            "run": run,
            "tau": run.parameters["tau"],
            "setting": setting_label(run.parameters),
            "is_best": run.pk == sweep.best_run_id,
            "is_current": run.is_current,
            "calibration": [row for row in (run.calibration or []) if row.get("count")],
            "worst_gap": worst_gap(run.calibration or []),
        }
        for run in runs
    ]


def calibration_chart(sweep: Sweep, runs: list[SweepRun]) -> dict[str, Any]:
    """The calibration deciles of the best and the current run, for the chart.

    Points are (mean predicted, observed, matches) per decile with matches; the best run's
    series comes first. The diagonal of perfect calibration is drawn by the page's script.
    """
    series = []
    for run in runs:
        if run.status != SweepRun.Status.COMPLETE:
            continue
        roles = []
        if run.pk == sweep.best_run_id:
            roles.append("best")
        if run.is_current:
            roles.append("current")
        if not roles:
            continue
        label = f"{' and '.join(roles).capitalize()}: τ {run.parameters['tau']:g}, "
        label += setting_label(run.parameters)
        series.append(
            {
                "label": label,
                "role": roles[0],
                "points": [
                    {"x": row["predicted"], "y": row["observed"], "n": row["count"]}
                    for row in run.calibration or []
                    if row.get("count")
                ],
            }
        )
    series.sort(key=lambda item: item["role"] != "best")  # the best first, then the current
    return {"series": series}


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
    width = max([28, *(len(setting_label(run.parameters)) for run in runs)])
    header = (
        f"{'τ':>6}  {'setting':<{width}} {'log-loss':>9} {'95 % interval':>17} {'Brier':>7} "
        f"{'accuracy':>8} {'gap':>6} {'matches':>8} {'const LL':>9} {'Elo LL':>8} "
        f"{'Elo K':>6} {'Glicko LL':>9} {'c':>5} {'sec':>6}"
    )
    lines = [header, "-" * len(header)]
    for run in runs:
        setting = setting_label(run.parameters)
        tau = run.parameters["tau"]
        if run.status != SweepRun.Status.COMPLETE:
            lines.append(f"{tau:>6g}  {setting:<{width}} {run.status}: {run.error}")
            continue
        marks = []
        if run.pk == sweep.best_run_id:
            marks.append("best")
        if run.is_current:
            marks.append("current")
        if run.within_noise_of_best and run.pk != sweep.best_run_id:
            marks.append("within noise of best")
        mark = f"  <- {', '.join(marks)}" if marks else ""
        interval = (
            f"{run.log_loss_low:.4f}-{run.log_loss_high:.4f}"
            if run.log_loss_low is not None and run.log_loss_high is not None
            else ""
        )
        gap = worst_gap(run.calibration or [])
        glicko = (
            f"{run.glicko_log_loss:>9.4f} {run.glicko_c:>5.1f}"
            if run.glicko_log_loss is not None and run.glicko_c is not None
            else f"{'':>9} {'':>5}"
        )
        lines.append(
            f"{tau:>6g}  {setting:<{width}} {run.log_loss:>9.4f} {interval:>17} "
            f"{run.brier:>7.4f} {run.accuracy:>8.3f} {gap if gap is not None else 0:>6.3f} "
            f"{run.n_matches:>8d} {run.constant_log_loss:>9.4f} {run.elo_log_loss:>8.4f} "
            f"{run.elo_k:>6g} {glicko} {run.elapsed:>6.2f}{mark}"
        )
    return "\n".join(lines)
