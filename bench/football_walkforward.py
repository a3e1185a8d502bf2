"""Walk-forward backtest of the demo league (international football since 1990), in memory.

Reads the demo's fixture (``league/demo/international_football.csv.gz``) as ``manage.py
load_demo`` stores it: matches played from ``--since`` (1990-01-01) to today, home team
first, the file's neutral flags, calendar-month periods from the first day. Every setting of
the grid folds the WHOLE history (each match predicted from the ratings just before it:
start of its period, or with instant updates just before the match), and its scores are
summed per month (``ratings.backtest.walk_forward.period_sums``, what a sweep run stores).
The history is then cut as a sweep cuts it (``choose_split``: the last 30 % of the months
with matches, or ``--holdout-from``):

- in sample: the months before the cut; the tuned setting is the lowest in-sample log-loss;
- out of sample: the months from the cut on; the tuned setting is judged there against the
  default configuration (a new league's defaults on monthly periods), with the project's
  paired bootstrap over months (400 replicates, seed 19, as a sweep's).

The same code as ``manage.py backtest --holdout-…`` (``ratings.backtest.walk_forward``);
the sweep of the loaded demo gives the same figures (docs/backtests.md).

    .venv/bin/python -m bench.football_walkforward [--workers 2] [--holdout-from YYYY-MM-DD]
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import gzip
import itertools
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from engine.fold import MatchArrays
from engine.params import Glicko2Params
from engine.periods import PeriodSpec
from engine.scoring import score_fold, score_instant
from ratings.backtest import walk_forward
from ratings.parameters import DEFAULTS, default_volatility

DEFAULT_CSV = (
    Path(__file__).resolve().parent.parent / "league" / "demo" / "international_football.csv.gz"
)
RESULTS = Path(__file__).resolve().parent / "results" / "football_walkforward.md"
#: As a sweep's (``ratings.backtest.services``).
DRAWS, SEED = 400, 19

UPDATE_MODES = ("period", "instant")
ADVANTAGES = (0.0, 60.0, 115.0, 150.0)
TAUS = (0.3, 0.5, 1.0)
INITIAL_RDS = (200.0, 350.0)
VOLATILITIES = (0.06, 0.09, 0.10)
KEYS = ("update_mode", "advantage", "tau", "initial_rd", "initial_volatility")
DEFAULT = {
    "update_mode": DEFAULTS["update_mode"],
    "advantage": DEFAULTS["advantage"],
    "tau": DEFAULTS["tau"],
    "initial_rd": DEFAULTS["initial_rd"],
    # A new league's on the demo's monthly periods (0.1444), not the weekly 0.10.
    "initial_volatility": default_volatility("months", 1),
}
#: The demo's live configuration (``load_demo``'s ``DEMO_PARAMETERS`` over the defaults): the
#: tuned setting's values where they predict better out of sample beyond the noise (update
#: mode, advantage), the defaults where no value tried does (τ, RD, volatility).
LIVE = {**DEFAULT, "update_mode": "instant", "advantage": 115.0, "initial_volatility": 0.06}


def read_demo(path: Path, since: dt.date, until: dt.date) -> tuple[dict[str, Any], PeriodSpec]:
    """The demo's matches in the replay's order (period, day, file order), with days."""
    days: list[str] = []
    home: list[int] = []
    away: list[int] = []
    score: list[float] = []
    neutral: list[bool] = []
    teams: dict[str, int] = {}
    with gzip.open(path, "rt", encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            day = row["date"]
            if day < since.isoformat() or day > until.isoformat():
                continue
            if not (row["home_score"].isdigit() and row["away_score"].isdigit()):
                continue  # not played (yet)
            goals_home, goals_away = int(row["home_score"]), int(row["away_score"])
            days.append(day)
            home.append(teams.setdefault(row["home_team"], len(teams)))
            away.append(teams.setdefault(row["away_team"], len(teams)))
            score.append(1.0 if goals_home > goals_away else 0.5 if goals_home == goals_away else 0)
            neutral.append(row["neutral"].strip().upper() == "TRUE")
    spec = PeriodSpec(unit="months", length=1, anchor=since.replace(day=1))
    day = np.array(days, dtype="datetime64[D]")
    period = spec.indices_of(day)
    order = np.lexsort((np.arange(day.size), day, period))
    return {
        "day": day[order],
        "matches": MatchArrays(
            period=period[order],
            player_a=np.array(home, dtype=np.int64)[order],
            player_b=np.array(away, dtype=np.int64)[order],
            score_a=np.array(score, dtype=np.float64)[order],
            neutral=np.array(neutral, dtype=bool)[order],
        ),
        "n_players": len(teams),
    }, spec


_DATA: dict[str, Any] = {}


def _init(path: Path, since: dt.date, until: dt.date) -> None:
    data, spec = read_demo(path, since, until)
    _DATA.update(data, spec=spec)


def predictions(setting: dict[str, Any]) -> np.ndarray:
    """One setting's prediction of every match (whole history folded), in the read order."""
    matches: MatchArrays = _DATA["matches"]
    params = Glicko2Params(
        tau=setting["tau"],
        initial_rd=setting["initial_rd"],
        initial_volatility=setting["initial_volatility"],
        advantage=setting["advantage"],
        # Every league's configuration has one (ratings.parameters); it never binds here.
        volatility_ceiling=DEFAULTS["volatility_ceiling"],
    )
    last = int(matches.period.max())
    if setting["update_mode"] == "instant":
        moment = _DATA["spec"].end_of_day_fractions(_DATA["day"])
        scores = score_instant(matches, moment, _DATA["n_players"], params, 0, last)
    else:
        scores = score_fold(matches, _DATA["n_players"], params, 0, last)
    return scores.predictions


def _job(setting: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], float]:
    started = time.perf_counter()
    p = predictions(setting)
    sums = walk_forward.period_sums(_DATA["matches"].period, p, _DATA["matches"].score_a)
    return setting, sums, time.perf_counter() - started


def describe(setting: dict[str, Any]) -> str:
    return (
        f"{setting['update_mode']}, advantage {setting['advantage']:g}, τ {setting['tau']:g}, "
        f"RD {setting['initial_rd']:g}, σ {setting['initial_volatility']:g}"
    )


def _iv(part: dict[str, Any], name: str, digits: int = 5) -> str:
    return (
        f"{part[name]:.{digits}f} ({part[name + '_low']:.{digits}f}–"
        f"{part[name + '_high']:.{digits}f})"
    )


def _diff(d: dict[str, float]) -> str:
    return f"{d['estimate']:+.5f} ({d['low']:+.5f}, {d['high']:+.5f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--csv", type=Path, default=DEFAULT_CSV)
    parser.add_argument("--since", type=dt.date.fromisoformat, default=dt.date(1990, 1, 1))
    parser.add_argument("--until", type=dt.date.fromisoformat, default=dt.date.today())
    parser.add_argument("--holdout-from", type=dt.date.fromisoformat, default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    started = time.perf_counter()

    grid = [
        dict(zip(KEYS, values, strict=True))
        for values in itertools.product(UPDATE_MODES, ADVANTAGES, TAUS, INITIAL_RDS, VOLATILITIES)
    ]
    if DEFAULT not in grid:
        grid.append(dict(DEFAULT))
    _init(args.csv, args.since, args.until)
    with ProcessPoolExecutor(
        args.workers, initializer=_init, initargs=(args.csv, args.since, args.until)
    ) as pool:
        done = list(pool.map(_job, grid))
    sums = [item[1] for item in done]
    seconds = sum(item[2] for item in done)

    split = walk_forward.choose_split(sums[0]["units"], _DATA["spec"], args.holdout_from)
    assert split is not None
    later, boot_in, boot_out = walk_forward.bootstraps(sums[0], split.unit, draws=DRAWS, seed=SEED)
    parts = [
        (
            walk_forward.part_scores(s, ~later, boot_in),
            walk_forward.part_scores(s, later, boot_out),
        )
        for s in sums
    ]
    tuned = walk_forward.tuned_index([inside["log_loss"] for inside, _ in parts])
    default = grid.index(DEFAULT)
    best_out = int(np.argmin([outside["log_loss"] for _, outside in parts]))

    lines = [
        "# Walk-forward backtest: international football (the demo league)",
        "",
        f"{int(_DATA['matches'].period.size)} matches from {args.since} to {args.until}, "
        f"{_DATA['n_players']} teams, calendar-month periods. Cut at {split.first_day}: in "
        f"sample {parts[0][0]['matches']} matches in {parts[0][0]['periods']} months (used "
        f"to choose), out of sample {parts[0][1]['matches']} matches in "
        f"{parts[0][1]['periods']} months (used to judge). {len(grid)} settings, each folding "
        "the whole history. 95 % intervals: bootstrap over months, 400 replicates, paired.",
        "",
        "| configuration | part | log-loss (95 % interval) | Brier | accuracy | worst decile |",
        "|---|---|---:|---:|---:|---:|",
    ]
    live = grid.index(LIVE)
    roles = [("default", default), ("tuned", tuned), ("live (the demo's)", live)]
    if best_out not in (default, tuned, live):
        roles.append(("best out of sample (for reference, not a choice)", best_out))
    for role, index in roles:
        for label, part in zip(("in sample", "out of sample"), parts[index], strict=True):
            lines.append(
                f"| {role}: {describe(grid[index])} | {label} | {_iv(part, 'log_loss')} | "
                f"{_iv(part, 'brier')} | {_iv(part, 'accuracy', 4)} | {part['worst_gap']:.3f} |"
            )
    lines += ["", "| log-loss difference | in sample | out of sample | verdict (out of sample) |"]
    lines += ["|---|---:|---:|---|"]
    for name, a, b, baseline in (
        ("tuned − default", tuned, default, "the default"),
        ("live − default", live, default, "the default"),
        ("live − tuned", live, tuned, "the tuned setting"),
    ):
        d_in = walk_forward.difference(boot_in, ~later, sums[a], sums[b])
        d_out = walk_forward.difference(boot_out, later, sums[a], sums[b])
        verdict = {
            walk_forward.BETTER: "better (interval below zero)",
            walk_forward.WORSE: "worse (interval above zero)",
            walk_forward.NOISE: f"no different from {baseline} within the noise",
            walk_forward.SAME: "the same setting",
        }[walk_forward.outcome(d_out if a != b else None)]
        lines.append(f"| {name} | {_diff(d_in)} | {_diff(d_out)} | {verdict} |")

    lines += ["", "Ten best settings in sample, and how they fare out of sample:", ""]
    lines += ["| setting | in sample | out of sample | out − default (95 % interval) |"]
    lines += ["|---|---:|---:|---:|"]
    ranked = sorted(range(len(grid)), key=lambda i: parts[i][0]["log_loss"])
    for i in ranked[:10]:
        d = walk_forward.difference(boot_out, later, sums[i], sums[default])
        lines.append(
            f"| {describe(grid[i])} | {parts[i][0]['log_loss']:.5f} | "
            f"{parts[i][1]['log_loss']:.5f} | {_diff(d)} |"
        )
    lines += ["", "Per factor, the best setting in sample with that value, out of sample:", ""]
    lines += ["| factor | value | in sample | out of sample | out − tuned (95 % interval) |"]
    lines += ["|---|---|---:|---:|---:|"]
    for key, values in (
        ("update_mode", UPDATE_MODES),
        ("advantage", ADVANTAGES),
        ("tau", TAUS),
        ("initial_rd", INITIAL_RDS),
        ("initial_volatility", VOLATILITIES),
    ):
        for value in values:
            best = min(
                (i for i in range(len(grid)) if grid[i][key] == value),
                key=lambda i: parts[i][0]["log_loss"],
            )
            d = walk_forward.difference(boot_out, later, sums[best], sums[tuned])
            lines.append(
                f"| {key} | {value} | {parts[best][0]['log_loss']:.5f} | "
                f"{parts[best][1]['log_loss']:.5f} | "
                f"{_diff(d) if best != tuned else 'tuned'} |"
            )
    lines += [
        "",
        f"Folding and scoring: {seconds:.0f} s of work on {args.workers} process(es), "
        f"{time.perf_counter() - started:.0f} s in all.",
        "",
        "    .venv/bin/python -m bench.football_walkforward",
    ]
    text = "\n".join(lines)
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
