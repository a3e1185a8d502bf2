"""A fold computed in a process of its own (engine/fold_process.py): the same bits as in the
caller's process, the callbacks in the fold's order, errors raised again, no child left."""

from __future__ import annotations

import pickle
import signal
import subprocess
import sys

import numpy as np
import pytest

import engine.fold_process as fold_process
from engine import Glicko2Params, History, MatchArrays, fold
from engine.errors import InvalidParameterError
from engine.fold_process import FoldProcessError, fold_elsewhere
from engine.instant import fold_instant, fold_sides_instant
from engine.sides import SideMatches
from tests.unit.test_instant import assert_same, assert_same_state

PARAMS = Glicko2Params()
N_PLAYERS = 40
LAST = 11


def league(seed: int = 3, n: int = 600, last: int = LAST) -> tuple[MatchArrays, np.ndarray]:
    """Random one-vs-one matches over periods 0..last, and each one's moment in its period."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, N_PLAYERS, n)
    b = (a + 1 + rng.integers(0, N_PLAYERS - 1, n)) % N_PLAYERS
    period = np.sort(rng.integers(0, last + 1, n))
    matches = MatchArrays(period, a, b, rng.choice([0.0, 0.5, 1.0], n))
    return matches, np.ones(n)


def assert_same_fold(left, right) -> None:
    assert_same(left.history, right.history)
    assert_same_state(left.final_state, right.final_state)


def test_a_period_fold_elsewhere_is_the_same_bits_with_its_callbacks_in_order() -> None:
    matches, _moments = league()
    here_rows: list[History] = []
    here_progress: list[tuple[int, int]] = []
    here = fold(
        matches,
        N_PLAYERS,
        PARAMS,
        0,
        LAST,
        on_progress=lambda done, total: here_progress.append((done, total)),
        on_history=here_rows.append,
    )
    rows: list[History] = []
    progress: list[tuple[int, int]] = []
    there = fold_elsewhere(
        fold,
        matches,
        N_PLAYERS,
        PARAMS,
        0,
        LAST,
        on_progress=lambda done, total: progress.append((done, total)),
        on_history=rows.append,
    )
    assert progress == here_progress
    assert len(progress) == LAST + 1
    assert len(rows) == len(here_rows) == LAST + 1
    assert_same_fold(
        type(here)(History.concat(here_rows), here.final_state, 0, LAST),
        type(there)(History.concat(rows), there.final_state, 0, LAST),
    )


def test_an_instant_fold_elsewhere_sends_only_the_attribute_asked_for() -> None:
    matches, moments = league(seed=5)
    here = fold_instant(matches, moments, N_PLAYERS, PARAMS, 0, LAST)
    there = fold_elsewhere(
        fold_instant, matches, moments, N_PLAYERS, PARAMS, 0, LAST, attribute="fold"
    )
    assert type(there) is type(here.fold)
    assert_same_fold(here.fold, there)


def test_a_side_fold_elsewhere_is_the_same_bits() -> None:
    rng = np.random.default_rng(8)
    rows = []
    for match in range(200):
        players = rng.choice(N_PLAYERS, 4, replace=False)
        for side, pair in enumerate((players[:2], players[2:])):
            rows += [(match // 20, match, side, int(p), side) for p in pair]
    _period, match, side, player, place = (np.array(c) for c in zip(*rows, strict=True))
    # Two sides of two players a match, ten matches a period.
    sides = SideMatches(np.array([r[0] for r in rows[::4]]), match, side, player, place)
    moments = np.ones(len(sides))
    here = fold_sides_instant(sides, moments, N_PLAYERS, PARAMS, 0, 9)
    there = fold_elsewhere(
        fold_sides_instant, sides, moments, N_PLAYERS, PARAMS, 0, 9, attribute="fold"
    )
    assert_same_fold(here.fold, there)


def test_an_engine_error_in_the_fold_is_raised_again_with_its_message() -> None:
    matches, _moments = league()
    with pytest.raises(InvalidParameterError) as here:
        fold(matches, N_PLAYERS, PARAMS, 2, LAST)
    with pytest.raises(InvalidParameterError) as there:
        fold_elsewhere(fold, matches, N_PLAYERS, PARAMS, 2, LAST)
    assert str(there.value) == str(here.value)


def test_a_fold_process_that_dies_is_an_error_naming_its_exit_status(monkeypatch) -> None:
    monkeypatch.setattr(fold_process, "_SERVE", "sys.exit(3)")
    matches, _moments = league()
    with pytest.raises(FoldProcessError, match="exit status 3"):
        fold_elsewhere(fold, matches, N_PLAYERS, PARAMS, 0, LAST)


def test_a_fold_process_that_dies_before_reading_a_large_request_is_the_same_error(
    monkeypatch,
) -> None:
    # Megabytes of matches: more than the pipe holds, so the write finds it closed.
    monkeypatch.setattr(fold_process, "_SERVE", "sys.exit(3)")
    matches, _moments = league(n=200_000)
    with pytest.raises(FoldProcessError, match="exit status 3"):
        fold_elsewhere(fold, matches, N_PLAYERS, PARAMS, 0, LAST)


def test_a_fold_process_that_dies_in_the_middle_of_a_message_is_the_same_error(
    monkeypatch,
) -> None:
    # The start of a pickle frame, then the end: as a child killed while writing.
    monkeypatch.setattr(
        fold_process,
        "_SERVE",
        "sys.stdin.buffer.read(); sys.stdout.buffer.write(b'\\x80\\x05\\x95\\xff\\x00'); "
        "sys.stdout.flush(); sys.exit(4)",
    )
    matches, _moments = league()
    with pytest.raises(FoldProcessError, match="exit status 4"):
        fold_elsewhere(fold, matches, N_PLAYERS, PARAMS, 0, LAST)


def test_a_fold_process_whose_caller_stops_listening_ends_quietly() -> None:
    """The caller killed: the child's next write finds the pipe closed, and it exits
    without a traceback."""
    last = 1999
    matches, _moments = league(n=40_000, last=last)
    request = pickle.dumps(
        ("engine.fold", "fold", (matches, N_PLAYERS, PARAMS, 0, last), {}, True, True, None)
    )
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import sys; sys.path.insert(0, {str(fold_process.ROOT)!r}); {fold_process._SERVE}",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    child.stdin.write(request)
    child.stdin.close()
    assert pickle.load(child.stdout)[0] in {"history", "progress"}
    child.stdout.close()
    assert child.wait(timeout=60) == 1
    assert child.stderr.read() == b""
    child.stderr.close()


def test_a_callback_that_raises_ends_the_fold_s_process(monkeypatch) -> None:
    children: list[subprocess.Popen] = []
    real = subprocess.Popen

    def kept(*args, **kwargs):
        children.append(real(*args, **kwargs))
        return children[-1]

    monkeypatch.setattr(fold_process.subprocess, "Popen", kept)
    # Some 80,000 history rows: far more than the pipe holds, so the child is still
    # writing (blocked) when the first period's rows make the caller fail.
    last = 1999
    matches, _moments = league(n=40_000, last=last)

    def refuse(rows: History) -> None:
        raise RuntimeError("the writer failed")

    with pytest.raises(RuntimeError, match="the writer failed"):
        fold_elsewhere(fold, matches, N_PLAYERS, PARAMS, 0, last, on_history=refuse)
    assert len(children) == 1
    # Killed and waited for before the error reached the caller.
    assert children[0].returncode == -signal.SIGKILL
