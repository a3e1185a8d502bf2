"""Fingerprints of fold and scoring outputs: SHA-256 of every float written exactly (hex).

The constants in ``test_advantage.py`` were produced by this module running on the engine as
it was before the advantage and margin options existed (commit d807aba), so the tests prove
that those options, when off, change no bit.
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


if __name__ == "__main__":
    for i in range(len(LEAGUES)):
        print(i, *fingerprints(i))
