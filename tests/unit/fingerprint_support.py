"""Fingerprints of fold and scoring outputs.

Two kinds:

* :func:`history_fingerprint` and :func:`fingerprints`: SHA-256 of every float written
  exactly (hex). Bit-exact, so they compare two computations made on the same machine (the
  options off against the plain arrays); they are not stored, because numpy's vectorised
  ``exp``/``log`` give last-bit differences between CPUs (AVX2 against AVX-512), and a hash
  of the last bits is then a hash of the machine.
* :func:`summary`: per output array its length, sum, sum of squares, minimum, maximum and
  five values at fixed positions (integers exactly). ``tests/unit/engine_before.json`` holds
  the summaries produced by the engine as it was before the advantage and margin options
  existed (commit d807aba, ``python -m tests.unit.fingerprint_support --summaries``), and
  ``test_advantage.py`` compares today's with a relative tolerance of 1e-9: far above
  last-bit noise (about 1e-15 per operation), far below any change of the algorithm.
"""

from __future__ import annotations

import hashlib
from dataclasses import fields

import numpy as np

from bench.synthetic import synthetic_league
from engine.fold import History, MatchArrays, fold
from engine.params import Glicko2Params
from engine.scoring import score_fold

#: (players, matches, periods, seed, params) of the fingerprinted leagues.
LEAGUES: tuple[tuple[int, int, int, int, Glicko2Params], ...] = (
    (40, 600, 30, 0, Glicko2Params()),
    (40, 600, 30, 1, Glicko2Params(tau=0.3)),
    (120, 3000, 52, 2, Glicko2Params(tau=1.2, initial_rd=300.0, max_rd=320.0)),
    (25, 900, 12, 3, Glicko2Params(volatility_ceiling=0.1, rating_floor=1000.0)),
    (200, 5000, 80, 4, Glicko2Params(tau=0.5, initial_volatility=0.09)),
)


def _update(digest: hashlib._Hash, values: np.ndarray) -> None:
    if values.dtype == np.float64:
        digest.update(",".join(float.hex(x) for x in values.tolist()).encode())
    else:
        digest.update(",".join(str(x) for x in values.tolist()).encode())
    digest.update(b";")


def history_fingerprint(history: History) -> str:
    digest = hashlib.sha256()
    for f in fields(History):
        _update(digest, getattr(history, f.name))
    return digest.hexdigest()


def league(index: int) -> tuple[MatchArrays, int, int, Glicko2Params]:
    n_players, n_matches, n_periods, seed, params = LEAGUES[index]
    return (
        synthetic_league(n_players, n_matches, n_periods, seed=seed).matches,
        n_players,
        (n_periods),
        params,
    )


def fingerprints(index: int) -> tuple[str, str]:
    """(history fingerprint, predictions fingerprint) of league ``index`` on plain arrays."""
    matches, n_players, n_periods, params = league(index)
    result = fold(matches, n_players, params, 0, n_periods - 1)
    scores = score_fold(matches, n_players, params, 0, n_periods - 1)
    digest = hashlib.sha256()
    _update(digest, scores.predictions)
    _update(digest, scores.elo_predictions)
    digest.update(float.hex(scores.elo_k).encode())
    return history_fingerprint(result.history), digest.hexdigest()


def _array_summary(values: np.ndarray) -> list[float | int]:
    n = len(values)
    picks = [values[(n - 1) * k // 4] for k in range(5)] if n else []
    if values.dtype == np.float64:
        return [
            n,
            float(values.sum()),
            float((values * values).sum()),
            float(values.min(initial=np.inf)),
            float(values.max(initial=-np.inf)),
            *(float(x) for x in picks),
        ]
    return [n, int(values.sum()), *(int(x) for x in picks)]


def summary(index: int) -> dict[str, list[float | int]]:
    """Per output array of league ``index`` (history fields, predictions, Elo's): its summary."""
    matches, n_players, n_periods, params = league(index)
    result = fold(matches, n_players, params, 0, n_periods - 1)
    scores = score_fold(matches, n_players, params, 0, n_periods - 1)
    out = {f.name: _array_summary(getattr(result.history, f.name)) for f in fields(History)}
    out["predictions"] = _array_summary(scores.predictions)
    out["elo_predictions"] = _array_summary(scores.elo_predictions)
    out["elo_k"] = [float(scores.elo_k)]
    return out


if __name__ == "__main__":
    import json
    import sys

    if "--summaries" in sys.argv:
        print(json.dumps([summary(i) for i in range(len(LEAGUES))], indent=1))
    else:
        for i in range(len(LEAGUES)):
            print(i, *fingerprints(i))
