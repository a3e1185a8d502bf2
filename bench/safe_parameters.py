"""Rate the demo league's history at the corners of the parameter ranges (no database).

The demo league's matches (``league/demo/international_football.csv.gz`` from 1990-01-01,
as ``manage.py load_demo`` keeps them; ``bench.football_sweep.read_results`` reads them) are
folded with each setting given and the table says, per setting: whether every number is
finite, how many played rows end at the RD ceiling, the largest volatility and RD, the
range of ratings and the seconds. ``docs/parameters.md`` quotes its numbers.

    .venv/bin/python -m bench.safe_parameters "tau=8" "tau=2,volatility_ceiling=0.1" \\
        "mode='instant',unit='days',length=7,max_rd=300,initial_rd=300"

Each argument is a comma-separated list of ``Glicko2Params`` fields plus ``mode``
("period" or "instant"), ``unit`` ("months" or "days") and ``length`` (default: calendar
months, 1, period updates, as the demo league).
"""

from __future__ import annotations

import ast
import datetime as dt
import sys
import time
from typing import Any

import numpy as np

from bench.football_sweep import DEFAULT_CSV, read_results
from engine.errors import ConvergenceError, InvalidParameterError
from engine.fold import MatchArrays, fold
from engine.instant import fold_instant
from engine.params import Glicko2Params
from engine.periods import PeriodSpec

SINCE = dt.date(1990, 1, 1)


def setting(text: str) -> dict[str, Any]:
    """``"tau=2,mode='instant'"`` as a dict (literals only)."""
    call = ast.parse(f"dict({text})", mode="eval").body
    assert isinstance(call, ast.Call)
    return {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}


def main(arguments: list[str]) -> None:
    days_all, every, teams, _spec = read_results(DEFAULT_CSV)
    keep = days_all >= np.datetime64(SINCE)
    days = days_all[keep]
    print("| setting | finite | played rows at the RD ceiling | max σ | max RD | ratings | s |")
    print("|---|---|---:|---:|---:|---|---:|")
    for text in arguments:
        options = setting(text)
        mode = options.pop("mode", "period")
        spec = PeriodSpec(
            unit=options.pop("unit", "months"), length=options.pop("length", 1), anchor=SINCE
        )
        matches = MatchArrays(
            period=spec.indices_of(days),
            player_a=every.player_a[keep],
            player_b=every.player_b[keep],
            score_a=every.score_a[keep],
            neutral=None if every.neutral is None else every.neutral[keep],
            margin=None if every.margin is None else every.margin[keep],
        )
        params = Glicko2Params(**options)
        last = int(matches.period.max())
        started = time.perf_counter()
        try:
            if mode == "instant":
                moments = spec.end_of_day_fractions(days)
                rows = fold_instant(matches, moments, len(teams), params, 0, last).fold.history
            else:
                rows = fold(matches, len(teams), params, 0, last).history
        except (ConvergenceError, InvalidParameterError) as error:
            print(f"| {text} | error: {error} | | | | | |")
            continue
        seconds = time.perf_counter() - started
        finite = all(np.isfinite(v).all() for v in (rows.rating, rows.rd, rows.volatility))
        print(
            f"| {text} | {'yes' if finite else 'no'} | {int((rows.rd >= params.max_rd).sum())} | "
            f"{rows.volatility.max():.3g} | {rows.rd.max():.1f} | "
            f"{rows.rating.min():.3g} to {rows.rating.max():.3g} | {seconds:.1f} |"
        )


if __name__ == "__main__":
    main(sys.argv[1:] or ["tau=0.5", "tau=8", "tau=8,volatility_ceiling=0.1"])
