"""Walk-forward scoring: choose a setting on the earlier periods, judge it on the later ones.

A sweep's runs each keep their scores summed per rating period of the base configuration
(``SweepRun.period_sums``). Splitting those periods at a cut gives, for every run, the
scores of the matches before the cut (in sample: what the tuning sees and chooses by) and
of the matches from the cut on (out of sample: what judges the choice). The ratings are
not split: every run folds the whole history, so a later match is predicted from ratings
updated by every earlier match, as in real use; only the scoring is split.

The intervals are the project's bootstrap over rating periods (``engine.bootstrap``), one
set of replicates per part, shared by every run so that differences are paired. A setting
is better than a baseline only when the 95 % interval of its out-of-sample log-loss
difference lies wholly below zero (:func:`outcome`).

Pure NumPy (no Django), so that the bench scripts use the same code as the sweeps.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.bootstrap import PeriodBootstrap, compare_sums
from engine.periods import PeriodSpec
from engine.prediction import brier_array, log_loss_array
from engine.scoring import CALIBRATION_BINS, calibration_bin_of, correct_array

#: The share of the played periods scored out of sample when the organiser picks no cut.
HOLDOUT_SHARE = 0.3
#: Periods with matches each part needs (a bootstrap over one period has no spread).
MIN_PERIODS = 2

#: How a tuned setting fares against a baseline out of sample.
SAME, BETTER, WORSE, NOISE = "same", "better", "worse", "noise"


class SplitError(ValueError):
    """A requested cut that cannot be used: ``kind`` says why ("before_anchor", "too_few",
    "share"), ``values`` holds the numbers for the message (the caller words it)."""

    def __init__(self, kind: str, message: str, **values: Any) -> None:
        super().__init__(message)
        self.kind = kind
        self.values = values


@dataclass(frozen=True)
class Split:
    """The first base period scored out of sample, and its first day."""

    unit: int
    first_day: dt.date


def choose_split(
    played: Sequence[int] | npt.NDArray[np.int64],
    spec: PeriodSpec,
    holdout_from: dt.date | None = None,
    share: float = HOLDOUT_SHARE,
) -> Split | None:
    """Where to cut the history: at the period holding ``holdout_from``, else before the
    last ``share`` of the ``played`` periods (indices of ``spec``'s periods with matches).

    Returns None when the default cut would leave a part with fewer than ``MIN_PERIODS``
    played periods; raises :class:`SplitError` (naming the numbers) for such a requested cut.
    """
    units = np.unique(np.asarray(played, dtype=np.int64))
    if holdout_from is not None:
        if holdout_from < spec.anchor:
            raise SplitError(
                "before_anchor",
                f"The out-of-sample part must start on or after {spec.anchor.isoformat()}, "
                "the first day of the first rating period.",
                anchor=spec.anchor.isoformat(),
            )
        cut = spec.index_of(holdout_from)
        before = int((units < cut).sum())
        after = int(units.size - before)
        if before < MIN_PERIODS or after < MIN_PERIODS:
            raise SplitError(
                "too_few",
                f"A cut on {holdout_from.isoformat()} leaves {before} rating period(s) with "
                f"matches before it and {after} from it on; each part needs at least "
                f"{MIN_PERIODS}.",
                date=holdout_from.isoformat(),
                before=before,
                after=after,
                minimum=MIN_PERIODS,
            )
        return Split(cut, spec.start_of(cut))
    if not 0.0 < share < 1.0:
        raise SplitError(
            "share", f"The out-of-sample share must be between 0 and 1, got {share!r}.", share=share
        )
    n_out = max(MIN_PERIODS, round(share * units.size))
    if units.size - n_out < MIN_PERIODS:
        return None
    cut = int(units[units.size - n_out])
    return Split(cut, spec.start_of(cut))


def period_sums(
    unit: npt.NDArray[np.int64], predictions: npt.NDArray[np.float64], results: npt.ArrayLike
) -> dict[str, Any]:
    """A run's scores summed per period (``unit``: each match's base period), JSON-ready.

    Per period: the matches, log-loss, Brier score and accuracy; per calibration decile and
    period, the matches, observed scores and predictions. What a sweep run stores and the
    bootstrap and the walk-forward split need.
    """
    s = np.asarray(results, dtype=np.float64)
    units, index = np.unique(unit, return_inverse=True)

    def per_unit(values: npt.NDArray[np.float64]) -> list[float]:
        summed: list[float] = np.bincount(index, weights=values, minlength=units.size).tolist()
        return summed

    cell = calibration_bin_of(predictions) * units.size + index
    cells = CALIBRATION_BINS * units.size

    def per_cell(weights: npt.NDArray[np.float64] | None) -> list[list[float]]:
        counts = np.bincount(cell, weights=weights, minlength=cells)
        table: list[list[float]] = counts.reshape(CALIBRATION_BINS, units.size).tolist()
        return table

    return {
        "units": units.tolist(),
        "matches": np.bincount(index, minlength=units.size).tolist(),
        "log_loss": per_unit(log_loss_array(predictions, s)),
        "brier": per_unit(brier_array(predictions, s)),
        "accuracy": per_unit(correct_array(predictions, s)),
        "decile_matches": per_cell(None),
        "decile_observed": per_cell(s),
        "decile_predicted": per_cell(predictions),
    }


def bootstraps(
    sums: Mapping[str, Any], cut: int, *, draws: int, seed: int
) -> tuple[npt.NDArray[np.bool_], PeriodBootstrap, PeriodBootstrap]:
    """The out-of-sample mask over a run's units and one bootstrap per part."""
    units = np.asarray(sums["units"], dtype=np.int64)
    counts = np.asarray(sums["matches"], dtype=np.int64)
    later = units >= cut
    boots = []
    for mask in (~later, later):
        periods = np.repeat(np.arange(int(mask.sum())), counts[mask])
        boots.append(PeriodBootstrap(periods, draws=draws, seed=seed))
    return later, boots[0], boots[1]


def part_scores(
    sums: Mapping[str, Any], mask: npt.NDArray[np.bool_], boot: PeriodBootstrap
) -> dict[str, Any]:
    """A run's scores on the periods of ``mask``: log-loss, Brier and accuracy with their
    95 % intervals, the matches and periods, and the worst calibration decile's gap.

    The worst gap (largest |observed - mean predicted| over the deciles with matches) needs
    the predictions summed per decile, which runs stored before the walk-forward lack: then
    it is None.
    """
    counts = np.asarray(sums["matches"], dtype=np.float64)[mask]
    result: dict[str, Any] = {"matches": int(counts.sum()), "periods": int(mask.sum())}
    for name in ("log_loss", "brier", "accuracy"):
        if name not in sums:
            continue
        interval = boot.interval_of_sums(np.asarray(sums[name], dtype=np.float64)[mask])
        result[name] = interval.estimate
        result[f"{name}_low"] = interval.low
        result[f"{name}_high"] = interval.high
    result["worst_gap"] = worst_decile_gap(sums, mask)
    return result


def worst_decile_gap(sums: Mapping[str, Any], mask: npt.NDArray[np.bool_]) -> float | None:
    """The largest |observed - mean predicted| over the calibration deciles of ``mask``."""
    if "decile_predicted" not in sums:
        return None
    matches = np.asarray(sums["decile_matches"], dtype=np.float64)[:, mask].sum(axis=1)
    observed = np.asarray(sums["decile_observed"], dtype=np.float64)[:, mask].sum(axis=1)
    predicted = np.asarray(sums["decile_predicted"], dtype=np.float64)[:, mask].sum(axis=1)
    kept = matches > 0
    if not kept.any():
        return None
    return float(np.max(np.abs(observed[kept] - predicted[kept]) / matches[kept]))


def difference(
    boot: PeriodBootstrap,
    mask: npt.NDArray[np.bool_],
    sums_a: Mapping[str, Any],
    sums_b: Mapping[str, Any],
) -> dict[str, float]:
    """``a``'s log-loss minus ``b``'s on the periods of ``mask``, paired: estimate and 95 %
    interval (negative: ``a`` predicts better)."""
    a = np.asarray(sums_a["log_loss"], dtype=np.float64)[mask]
    b = np.asarray(sums_b["log_loss"], dtype=np.float64)[mask]
    d = compare_sums(boot, a, b).difference
    return {"estimate": d.estimate, "low": d.low, "high": d.high}


def outcome(diff: Mapping[str, float] | None) -> str:
    """The rule: better only when the whole interval lies below zero, worse when above,
    otherwise within the noise (``SAME`` when there is no difference to judge)."""
    if diff is None:
        return SAME
    if diff["high"] < 0.0:
        return BETTER
    if diff["low"] > 0.0:
        return WORSE
    return NOISE


def tuned_index(in_sample_log_losses: Sequence[float]) -> int:
    """The setting chosen by the tuning: the lowest in-sample log-loss (first on a tie)."""
    return int(np.argmin(np.asarray(in_sample_log_losses, dtype=np.float64)))
