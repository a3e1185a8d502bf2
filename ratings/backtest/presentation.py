"""Plain data for showing a sweep: table rows, chart series and a text table."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import formats, translation
from django.utils.translation import gettext, ngettext

from ratings.backtest.models import Sweep, SweepRun


def decimal(value: float, digits: int | None = None, *, signed: bool = False) -> str:
    """``value`` written with the active language's decimal mark: ``digits`` places, or as
    short as ``:g`` writes it; ``signed`` puts a ``+`` before a positive value (and zero).

    The numbers stay numbers in the stored sweep; only the words shown are written here.
    """
    spec = ("+" if signed else "") + (f".{digits}f" if digits is not None else "g")
    text = format(value, spec)
    return text.replace(".", formats.get_format("DECIMAL_SEPARATOR"))


def setting_label(parameters: dict[str, Any]) -> str:
    """The parameters other than τ, e.g. ``RD 350 · volatility 0.06 · 7 days``, with the
    advantage and the margin scale when they are on (``advantage 100 · margins 1``) and
    instant updates when they are chosen; in the active language."""
    unit = parameters["period_unit"]
    length = parameters["period_length"]
    if unit == "months":
        period = ngettext("%(count)d month", "%(count)d months", length) % {"count": length}
    else:
        period = ngettext("%(count)d day", "%(count)d days", length) % {"count": length}
    label = gettext("RD %(rd)s · volatility %(volatility)s · %(period)s") % {
        "rd": decimal(parameters["initial_rd"]),
        "volatility": decimal(parameters["initial_volatility"]),
        "period": period,
    }
    if parameters.get("advantage"):
        label += " · " + gettext("advantage %(points)s") % {
            "points": decimal(parameters["advantage"])
        }
    if parameters.get("margin_scale") is not None:
        label += " · " + gettext("margins %(scale)s") % {
            "scale": decimal(parameters["margin_scale"])
        }
    if parameters.get("update_mode") == "instant":
        label += " · " + gettext("instant updates")
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
            "error": run_error(run),
        }
        for run in runs
    ]


def run_error(run: SweepRun) -> str:
    """Why a run failed, for the page: a run given up after its retries says so in the
    active language; any other failure keeps the exception's own (technical) text."""
    if run.status != SweepRun.Status.FAILED:
        return ""
    if run.attempts > settings.REPLAY_MAX_ATTEMPTS:
        given_up = run.attempts - 1
        return ngettext(
            "Gave up after %(count)d attempt.", "Gave up after %(count)d attempts.", given_up
        ) % {"count": given_up}
    return run.error


def sweep_error(sweep: Sweep) -> str:
    """What went wrong with a finished sweep, in the active language ("" when nothing did)."""
    if not sweep.finished:
        return ""
    if sweep.status == Sweep.Status.FAILED:
        return gettext("Every run failed; see the runs' errors.")
    failed = sweep.runs.filter(status=SweepRun.Status.FAILED).count()
    if not failed:
        return ""
    return ngettext("%(count)d run failed.", "%(count)d runs failed.", failed) % {"count": failed}


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
        values = {"tau": decimal(run.parameters["tau"]), "setting": setting_label(run.parameters)}
        if len(roles) == 2:
            label = gettext("Best and current: τ %(tau)s, %(setting)s") % values
        elif roles[0] == "best":
            label = gettext("Best: τ %(tau)s, %(setting)s") % values
        else:
            label = gettext("Current: τ %(tau)s, %(setting)s") % values
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


def _change(value: float) -> str:
    """A difference in words: "0.06800 lower" or "0.02670 higher"."""
    amount = decimal(abs(value), 5)
    if value < 0:
        return gettext("%(amount)s lower") % {"amount": amount}
    return gettext("%(amount)s higher") % {"amount": amount}


def verdict_text(sweep: Sweep) -> str:
    """The sentences saying whether the best run beats the current configuration, in the
    active language, from the numbers the sweep stores (``sweep.difference``).

    ``difference`` is the best run's log-loss minus the current one's (``compared``:
    "best"), or, when the current configuration scores best, the current one's minus the
    next best run's ("runner-up"); a difference whose 95 % interval holds zero is noise.
    """
    if not sweep.verdict:
        return ""  # not judged (yet): no best run, or no run with scores to compare
    return _verdict_sentences(sweep)


def _verdict_sentences(sweep: Sweep) -> str:
    difference = sweep.difference or {}
    if not difference:
        if sweep.current_run_id is not None and sweep.current_run_id == sweep.best_run_id:
            return gettext("The current configuration scores best: keep it.")
        return gettext("The current configuration could not be scored, so nothing is compared.")
    low, high, estimate = difference["low"], difference["high"], difference["estimate"]
    within_noise = not (high < 0.0 or low > 0.0)
    values = {
        "lead": decimal(-estimate, 5),
        "interval": gettext("95 %% interval: %(low)s to %(high)s")
        % {"low": _change(low), "high": _change(high)},
    }
    if difference.get("compared") == "runner-up":
        if within_noise:
            text = gettext(
                "No meaningful difference; keep the current value. It scores best on this "
                "history, %(lead)s below the next best setting, but that is within noise "
                "(%(interval)s, from resampling the rating periods)."
            )
        else:
            text = gettext(
                "The current configuration predicts meaningfully better than every other "
                "setting tried: keep it (log-loss %(lead)s below the next best, %(interval)s)."
            )
    elif within_noise:
        text = gettext(
            "No meaningful difference; keep the current value. The best setting's log-loss is "
            "%(lead)s lower on this history, but that is within noise (%(interval)s, from "
            "resampling the rating periods)."
        )
    else:
        text = gettext(
            "The best setting predicts meaningfully better than the current one: log-loss "
            "%(lead)s lower (%(interval)s, from resampling the rating periods)."
        )
    return text % values


def stored_verdict(sweep: Sweep) -> str:
    """The verdict as the sweep keeps it (``Sweep.verdict``, set once its ``difference``,
    ``best_run`` and ``current_run`` are): in the site's own language whatever language
    the worker runs in, so that the record does not depend on it."""
    with translation.override(settings.LANGUAGE_CODE):
        return _verdict_sentences(sweep)


def _baseline_name(name: str) -> str:
    return {"default": gettext("default"), "live": gettext("live")}[name]


def walk_forward_rows(sweep: Sweep, runs: list[SweepRun]) -> list[dict[str, Any]]:
    """The tuned, the default and the live run with their in- and out-of-sample scores.

    One row per run (a run can hold several roles: the tuned setting may be the live one),
    the tuned first; empty when the sweep has no walk-forward figures.
    """
    if sweep.tuned_run_id is None:
        return []
    roles: dict[int, list[str]] = {}
    for run_id, role in (
        (sweep.tuned_run_id, gettext("tuned")),
        (sweep.default_run_id, gettext("default")),
        (sweep.current_run_id, gettext("live")),
    ):
        if run_id is not None:
            roles.setdefault(run_id, []).append(role)
    by_id = {run.pk: run for run in runs}
    return [
        {
            "run": by_id[run_id],
            "roles": " · ".join(names),
            "tau": by_id[run_id].parameters["tau"],
            "setting": setting_label(by_id[run_id].parameters),
            "in_sample": by_id[run_id].in_sample,
            "out_of_sample": by_id[run_id].out_of_sample,
            "parts": [("in", by_id[run_id].in_sample), ("out", by_id[run_id].out_of_sample)],
        }
        for run_id, names in roles.items()
        if run_id in by_id and by_id[run_id].out_of_sample
    ]


def walk_forward_verdicts(sweep: Sweep) -> list[str]:
    """What the out-of-sample comparison says about the tuned setting, one sentence per
    baseline (default, live): better only when the 95 % interval of its log-loss difference
    lies wholly below zero, else "no better than … within the noise"."""
    sentences = []
    comparisons = (sweep.walk_forward or {}).get("comparisons", {})
    for name in ("default", "live"):
        entry = comparisons.get(name)
        if entry is None:
            continue
        values = {"baseline": _baseline_name(name)}
        if entry["outcome"] == "same":
            sentences.append(
                gettext("The tuned setting is the %(baseline)s configuration itself.") % values
            )
            continue
        d = entry["out_of_sample"]
        values.update(
            estimate=decimal(d["estimate"], 5, signed=True),
            low=decimal(d["low"], 5, signed=True),
            high=decimal(d["high"], 5, signed=True),
            gain=decimal(-d["estimate"], 5),
            excess=decimal(d["estimate"], 5),
        )
        if entry["outcome"] == "better":
            text = gettext(
                "Better than the %(baseline)s configuration out of sample: log-loss "
                "%(gain)s lower (95 %% interval of the difference %(low)s to "
                "%(high)s, wholly below zero)."
            )
        elif entry["outcome"] == "worse":
            text = gettext(
                "Worse than the %(baseline)s configuration out of sample: log-loss "
                "%(excess)s higher (95 %% interval of the difference %(low)s to "
                "%(high)s)."
            )
        else:
            text = gettext(
                "No better than the %(baseline)s configuration within the noise: out of "
                "sample the log-loss differs by %(estimate)s, and the 95 %% interval of "
                "the difference (%(low)s to %(high)s) includes zero."
            )
        sentences.append(text % values)
    return sentences


def _interval(part: dict[str, Any], name: str, digits: int) -> str:
    if part.get(f"{name}_low") is None:
        return ""
    return f"{part[f'{name}_low']:.{digits}f}-{part[f'{name}_high']:.{digits}f}"


def walk_forward_text(sweep: Sweep, runs: list[SweepRun]) -> str:
    """The walk-forward figures as a fixed-width table for the terminal, with the verdicts."""
    rows = walk_forward_rows(sweep, runs)
    if not rows:
        if sweep.holdout and sweep.holdout_from is None:
            return gettext(
                "Walk-forward: the history is too short to split (each part needs at least "
                "two rating periods with matches); every figure above is in sample."
            )
        return ""
    parts = sweep.walk_forward
    lines = [
        gettext(
            "Walk-forward: in sample (used to choose) before %(date)s, %(in_matches)d matches "
            "in %(in_periods)d periods; out of sample (used to judge) from %(date)s on, "
            "%(out_matches)d matches in %(out_periods)d periods."
        )
        % {
            "date": sweep.holdout_from.isoformat() if sweep.holdout_from else "?",
            "in_matches": parts["in_sample"]["matches"],
            "in_periods": parts["in_sample"]["periods"],
            "out_matches": parts["out_of_sample"]["matches"],
            "out_periods": parts["out_of_sample"]["periods"],
        }
    ]
    width = max(28, *(len(row["setting"]) for row in rows))
    header = (
        f"{'role':<22} {'τ':>5}  {'setting':<{width}} {'part':<4} {'log-loss':>8} "
        f"{'95 % interval':>15} {'Brier':>7} {'95 % interval':>15} {'accuracy':>8} "
        f"{'95 % interval':>11} {'worst decile':>12}"
    )
    lines += [header, "-" * len(header)]
    for row in rows:
        for label, part in (("in", row["in_sample"]), ("out", row["out_of_sample"])):
            gap = part.get("worst_gap")
            lines.append(
                f"{row['roles']:<22} {row['tau']:>5g}  {row['setting']:<{width}} {label:<4} "
                f"{part['log_loss']:>8.5f} {_interval(part, 'log_loss', 5):>15} "
                f"{part['brier']:>7.5f} {_interval(part, 'brier', 5):>15} "
                f"{part['accuracy']:>8.4f} {_interval(part, 'accuracy', 3):>11} "
                f"{gap if gap is not None else float('nan'):>12.3f}"
            )
    lines += walk_forward_verdicts(sweep)
    return "\n".join(lines)
