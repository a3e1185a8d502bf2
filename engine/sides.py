"""Matches with sides: two or more sides, each of one or more players, as flat arrays.

A match has ``k >= 2`` sides numbered ``0..k-1``. Its result is a finishing place per side
(0 is best; equal places are a tie). Two sides with a score 1 / 0.5 / 0 for side 0 are the
places (0, 1), (0, 0) and (1, 0) (:func:`places_from_score`). Three or more sides are compared
pair by pair: side x scores 1 against side y if it finished ahead, 0.5 if level, 0 if behind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.errors import InvalidParameterError
from engine.fold import MatchArrays
from engine.state import FloatArray, IntArray

__all__ = ["SideMatches", "places_from_score"]


def places_from_score(score_a: npt.ArrayLike) -> tuple[IntArray, IntArray]:
    """Places of sides 0 and 1 from side 0's score (1, 0.5 or 0)."""
    s = np.asarray(score_a, dtype=np.float64)
    valid = (s == 1.0) | (s == 0.5) | (s == 0.0)
    if not np.all(valid):
        raise InvalidParameterError(f"score_a must be 1, 0.5 or 0, got {s[~valid].ravel()[0]!r}")
    return (s == 0.0).astype(np.int64), (s == 1.0).astype(np.int64)


@dataclass(frozen=True)
class SideMatches:
    """Matches with sides in long form: one row per (match, player), any row order.

    ``period`` has one entry per match; ``match``, ``side``, ``player`` and ``place`` one per
    row: the match index (``0..len(period)-1``), the side number within that match, the player
    and the finishing place of the row's side. On construction the rows are checked (every
    match has sides ``0..k-1`` with ``k >= 2``, one place per side, a player at most once per
    match) and sorted by (match, side, player), so equal inputs give equal arrays.
    """

    period: IntArray
    match: IntArray
    side: IntArray
    player: IntArray
    place: IntArray
    #: Optional, one flag per match: side 0 (the home side) has no advantage there.
    neutral: npt.NDArray[np.bool_] | None = None

    def __post_init__(self) -> None:
        if self.neutral is not None:
            flags = np.asarray(self.neutral)
            if flags.shape != np.shape(self.period) or flags.dtype != np.bool_:
                raise InvalidParameterError("neutral must be a boolean array, one flag per match")
            object.__setattr__(self, "neutral", flags)
        arrays = {
            f.name: np.asarray(getattr(self, f.name)) for f in fields(self) if f.name != "neutral"
        }
        if any(x.ndim != 1 for x in arrays.values()):
            raise InvalidParameterError("period, match, side, player and place must be 1-D")
        rows = {arrays[name].size for name in ("match", "side", "player", "place")}
        if len(rows) != 1:
            raise InvalidParameterError("match, side, player and place must have the same length")
        for name, x in arrays.items():
            if x.size and not np.issubdtype(x.dtype, np.integer):
                raise InvalidParameterError(f"{name} must be an integer array")
            object.__setattr__(self, name, x.astype(np.int64, copy=False))
        n_matches = self.period.size
        match, side, player, place = self.match, self.side, self.player, self.place
        if match.size and (match.min() < 0 or match.max() >= n_matches):
            raise InvalidParameterError(f"match indices must be in 0..{n_matches - 1}")
        if side.size and side.min() < 0:
            raise InvalidParameterError("side numbers must be >= 0")
        if place.size and place.min() < 0:
            raise InvalidParameterError("places must be >= 0")
        order = np.lexsort((player, side, match))
        for name in ("match", "side", "player", "place"):
            object.__setattr__(self, name, getattr(self, name)[order])
        self._check_shape(n_matches)

    def _check_shape(self, n_matches: int) -> None:
        match, side, player, place = self.match, self.side, self.player, self.place
        rows_per_match = np.bincount(match, minlength=n_matches)
        if np.any(rows_per_match == 0):
            empty = int(np.flatnonzero(rows_per_match == 0)[0])
            raise InvalidParameterError(f"match {empty} has no players")
        same_side = (match[1:] == match[:-1]) & (side[1:] == side[:-1])
        if np.any(same_side & (place[1:] != place[:-1])):
            bad = int(match[1:][same_side & (place[1:] != place[:-1])][0])
            raise InvalidParameterError(f"match {bad}: players of one side have different places")
        # Sides of a match must be 0..k-1 with k >= 2: count distinct sides, compare to max + 1.
        new_side = np.ones(match.size, dtype=bool)
        new_side[1:] = ~same_side
        sides_per_match = np.bincount(match[new_side], minlength=n_matches)
        top_side = np.zeros(n_matches, dtype=np.int64)
        np.maximum.at(top_side, match, side)
        if np.any(sides_per_match < 2):
            bad = int(np.flatnonzero(sides_per_match < 2)[0])
            raise InvalidParameterError(f"match {bad} has fewer than two sides")
        if np.any(sides_per_match != top_side + 1):
            bad = int(np.flatnonzero(sides_per_match != top_side + 1)[0])
            raise InvalidParameterError(f"match {bad}: sides must be numbered 0..k-1")
        by_player = np.lexsort((player, match))
        m, p = match[by_player], player[by_player]
        twice = (m[1:] == m[:-1]) & (p[1:] == p[:-1])
        if np.any(twice):
            where = int(np.flatnonzero(twice)[0])
            raise InvalidParameterError(
                f"match {int(m[where])}: player {int(p[where])} appears more than once"
            )

    @classmethod
    def from_lists(
        cls,
        period: Sequence[int],
        sides: Sequence[Sequence[Sequence[int]]],
        places: Sequence[Sequence[int]],
    ) -> SideMatches:
        """Build from nested lists: ``sides[m][x]`` lists the players of side x of match m."""
        if not (len(period) == len(sides) == len(places)):
            raise InvalidParameterError("period, sides and places need one entry per match")
        rows: list[tuple[int, int, int, int]] = []
        for m, (match_sides, match_places) in enumerate(zip(sides, places, strict=True)):
            if len(match_sides) != len(match_places):
                raise InvalidParameterError(f"match {m} needs one place per side")
            for x, (members, place) in enumerate(zip(match_sides, match_places, strict=True)):
                if not members:
                    raise InvalidParameterError(f"match {m}: side {x} is empty")
                rows.extend((m, x, int(p), int(place)) for p in members)
        data = np.array(rows, dtype=np.int64).reshape(-1, 4)
        return cls(np.asarray(period, dtype=np.int64), *data.T)

    @classmethod
    def from_pairs(cls, matches: MatchArrays) -> SideMatches:
        """One-vs-one matches as two sides of one player each, in the same match order."""
        n = len(matches)
        place_a, place_b = places_from_score(matches.score_a)
        index = np.arange(n, dtype=np.int64)
        return cls(
            matches.period.copy(),
            np.concatenate([index, index]),
            np.repeat(np.array([0, 1], dtype=np.int64), n),
            np.concatenate([matches.player_a, matches.player_b]),
            np.concatenate([place_a, place_b]),
            None if matches.neutral is None else matches.neutral.copy(),
        )

    @classmethod
    def two_sides(
        cls,
        period: Sequence[int],
        side_a: Sequence[Sequence[int]],
        side_b: Sequence[Sequence[int]],
        score_a: Sequence[float],
    ) -> SideMatches:
        """Two-side matches from the players of each side and side A's score (1, 0.5, 0)."""
        place_a, place_b = places_from_score(np.asarray(score_a, dtype=np.float64))
        return cls.from_lists(
            period,
            [[list(a), list(b)] for a, b in zip(side_a, side_b, strict=True)],
            [[int(x), int(y)] for x, y in zip(place_a, place_b, strict=True)],
        )

    def __len__(self) -> int:
        return int(self.period.size)

    @property
    def n_rows(self) -> int:
        return int(self.match.size)

    def take(self, index: npt.NDArray[Any]) -> SideMatches:
        """The matches at ``index`` (a boolean mask or positions), renumbered in that order."""
        chosen = np.arange(len(self), dtype=np.int64)[index]
        renumber = np.full(len(self), -1, dtype=np.int64)
        renumber[chosen] = np.arange(chosen.size, dtype=np.int64)
        keep = renumber[self.match] >= 0
        return SideMatches(
            self.period[chosen],
            renumber[self.match[keep]],
            self.side[keep],
            self.player[keep],
            self.place[keep],
            None if self.neutral is None else self.neutral[chosen],
        )

    def pair_scores(self) -> tuple[IntArray, IntArray, IntArray, FloatArray]:
        """Every pair of sides of every match: (match, side x, side y, x's score), x < y."""
        new_side = np.ones(self.n_rows, dtype=bool)
        new_side[1:] = (self.match[1:] != self.match[:-1]) | (self.side[1:] != self.side[:-1])
        starts = np.flatnonzero(new_side)
        m, s, p = self.match[starts], self.side[starts], self.place[starts]
        x, y = side_pairs(m)
        return m[x], s[x], s[y], score_of_places(p[x], p[y])


def side_pairs(side_match: IntArray) -> tuple[IntArray, IntArray]:
    """All pairs (x, y), x < y, of sides in the same match; sides grouped by match, in order.

    Pairs come in the order of x, then y: for a two-side match, the single pair (0, 1).
    """
    count = side_match.size
    if count == 0:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty
    new_match = np.ones(count, dtype=bool)
    new_match[1:] = side_match[1:] != side_match[:-1]
    match_start = np.flatnonzero(new_match)
    sides_in_match = np.diff(np.append(match_start, count))
    local = np.arange(count, dtype=np.int64) - np.repeat(match_start, sides_in_match)
    later = np.repeat(sides_in_match, sides_in_match) - 1 - local
    x = np.repeat(np.arange(count, dtype=np.int64), later)
    first_of_x = np.repeat(np.cumsum(later) - later, later)
    y = x + 1 + (np.arange(x.size, dtype=np.int64) - first_of_x)
    return x, y


def score_of_places(place_x: IntArray, place_y: IntArray) -> FloatArray:
    """Side x's score against side y: 1 if it placed ahead, 0.5 if level, 0 if behind."""
    result: FloatArray = np.where(
        place_x < place_y, 1.0, np.where(place_x == place_y, 0.5, 0.0)
    ).astype(np.float64)
    return result
