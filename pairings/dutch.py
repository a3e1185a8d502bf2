"""The FIDE Dutch system (Handbook C.04.3, 2025 rules, with C.04.1 and C.04.3 section E).

Public interface: :class:`DutchPlayer` (one player's pairing number, score, rating and
round-by-round history), :func:`pair_round` (pairs the next round) and :class:`DutchRound`
(its pairs, White first, and the pairing-allocated bye). Pure Python over plain values, no
Django; deterministic. The rules applied, and the deviations, are listed in ``PAIRINGS.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Literal

import networkx as nx

Colour = Literal["w", "b"]
WHITE: Colour = "w"
BLACK: Colour = "b"

# Result kinds of one round of a player's history (the TRF result codes in brackets).
WIN = "win"  # played and won (1, W)
DRAW = "draw"  # played, drawn (=, D)
LOSS = "loss"  # played and lost (0, L)
FORFEIT_WIN = "forfeit_win"  # opponent did not show: a win, not a played game (+)
FORFEIT_LOSS = "forfeit_loss"  # did not show: a loss, not a played game (-)
PAIRING_BYE = "pairing_bye"  # the pairing-allocated bye (U), C.04.1.c
FULL_BYE = "full_bye"  # a requested bye scored as a win (F)
HALF_BYE = "half_bye"  # a requested bye scored as a draw (H)
ZERO_BYE = "zero_bye"  # absent or a requested bye for no points (Z)
RESULT_KINDS = frozenset(
    {WIN, DRAW, LOSS, FORFEIT_WIN, FORFEIT_LOSS, PAIRING_BYE, FULL_BYE, HALF_BYE, ZERO_BYE}
)


@dataclass(frozen=True)
class DutchGame:
    """One round of a player's history.

    ``opponent`` is the opponent's pairing number (None for a bye or absence), ``colour`` the
    colour the player had ('w'/'b', None when there was no opponent), ``played`` whether the
    game was actually played over the board (False for forfeits and byes: C.04.1 and the
    Dutch rules count only played games for colours and for "have met"), ``result`` one of
    :data:`RESULT_KINDS`.
    """

    opponent: int | None
    colour: Colour | None
    played: bool
    result: str


@dataclass(frozen=True)
class DutchPlayer:
    """A player entering a round.

    ``number`` is the pairing number (1 = top of the initial ranking), ``score`` the points
    so far (a Fraction or Decimal, exactly), ``rating`` the rating used for the initial
    ranking, ``rounds`` the history of the rounds before this one, oldest first, and
    ``absent_this_round`` True when the player is not to be paired (withdrawn, or a
    requested bye this round).
    """

    number: int
    score: Fraction | Decimal
    rating: int
    rounds: tuple[DutchGame, ...] = field(default=())
    absent_this_round: bool = False


@dataclass(frozen=True)
class DutchRound:
    """The pairs of a round, ``(white number, black number)`` by board, and the bye, if any."""

    pairs: list[tuple[int, int]]
    bye: int | None


class NoValidPairing(ValueError):
    """No pairing of the present players satisfies the absolute criteria (C.04.3 C1-C3)."""


_DOWN, _UP, _NONE = "down", "up", None


def _invert(colour: Colour | None) -> Colour | None:
    if colour is None:
        return None
    return BLACK if colour == WHITE else WHITE


def _points(result: str, bye_points: Fraction) -> Fraction:
    """What one round's result scores (1 / ½ / 0; the pairing-allocated bye ``bye_points``)."""
    if result in (WIN, FORFEIT_WIN, FULL_BYE):
        return Fraction(1)
    if result in (DRAW, HALF_BYE):
        return Fraction(1, 2)
    if result == PAIRING_BYE:
        return bye_points
    return Fraction(0)


def baku_acceleration(
    number: int, field_size: int, round_index: int, total_rounds: int
) -> Fraction:
    """Virtual points of Baku acceleration (C.04.5.1) for pairing round ``round_index`` (0-based).

    Group A is the top ``2 * ceil(field_size / 4)`` pairing numbers; its players get one
    virtual point in the first half (rounded up) of the accelerated rounds and half a point in
    the rest; the accelerated rounds are the first half (rounded up) of the tournament.
    """
    group_a = 2 * -(-field_size // 4)
    accelerated_rounds = -(-total_rounds // 2)
    full_rounds = -(-accelerated_rounds // 2)
    if number > group_a or round_index >= accelerated_rounds:
        return Fraction(0)
    return Fraction(1) if round_index < full_rounds else Fraction(1, 2)


def baku_records(field_size: int, total_rounds: int) -> list[tuple[Fraction, int, int, int]]:
    """Baku acceleration (C.04.5.1) as TRF ``250`` records: (virtual points, first round,
    last round, last pairing number of group A; group A starts at 1), in round order.

    The same virtual points as :func:`baku_acceleration`, grouped by value: one point in the
    first rounds, half a point in the rest of the accelerated rounds.
    """
    if field_size < 1:
        return []
    group_a = min(field_size, 2 * -(-field_size // 4))
    records: list[tuple[Fraction, int, int, int]] = []
    for round_index in range(total_rounds):
        points = baku_acceleration(1, field_size, round_index, total_rounds)
        if not points:
            continue
        if records and records[-1][0] == points and records[-1][2] == round_index:
            records[-1] = (points, records[-1][1], round_index + 1, group_a)
        else:
            records.append((points, round_index + 1, round_index + 1, group_a))
    return records


@dataclass
class _Entrant:
    """What the pairing needs of one player, derived from the history (C.04.3 A.6, E.1)."""

    player: DutchPlayer
    rank: int  # 0-based position in the initial ranking (the "rank index")
    score: Fraction  # with acceleration, for this round
    played_games: int = 0
    preference: Colour | None = None
    imbalance: int = 0
    repeated: Colour | None = None  # the colour of the last two played games, when equal
    strong: bool = False
    bye_eligible: bool = True
    floats: tuple[str | None, str | None] = (None, None)  # 1 and 2 rounds back
    colours: tuple[Colour, ...] = ()

    @property
    def absolute_imbalance(self) -> bool:
        return self.imbalance > 1

    @property
    def absolute(self) -> bool:
        return self.imbalance > 1 or self.repeated is not None


def _compatible_preferences(a: Colour | None, b: Colour | None) -> bool:
    return a != b or a is None or b is None


class _Graph(nx.Graph):  # type: ignore[misc]
    """A ``networkx`` graph whose ``graph[v]`` is the plain adjacency dict.

    ``max_weight_matching`` reads ``graph[v][w]`` in its innermost loop; skipping the
    read-only view networkx wraps around it saves about a third of the time (measured on
    50-player fields). The matching code only reads through it.
    """

    def __getitem__(self, n: object) -> dict[object, dict[str, int]]:
        return self._adj[n]  # type: ignore[no-any-return]


class _Pairer:
    """One round's pairing: a bracket-by-bracket sequence of maximum-weight matchings.

    The edge weight of a pair packs the criteria into bit fields, most important first (the
    structure bbpPairings proved, re-derived here): completion and the bye (C.04.3 C2, C4),
    pairs and scores paired in the current bracket (C5, C6) and the next (C7, C8), the PAB
    assignee's unplayed games (C9), colour criteria (C10-C13), repeated floats (C14-C21),
    then room for the transposition and exchange order of section D. Later matchings fix
    each decision in the order the rules make it (moved-down players first, then exchanges,
    then S1's opponents), so the result is the pairing the Dutch rules define.
    """

    def __init__(
        self,
        entrants: list[_Entrant],
        by_number: dict[int, _Entrant],
        played_rounds: int,
        total_rounds: int,
        initial: Colour,
    ) -> None:
        self.sp = sorted(entrants, key=lambda e: (-e.score, e.rank))
        self.by_number = by_number
        self.played_rounds = played_rounds
        self.total_rounds = total_rounds
        self.initial = initial
        n = len(self.sp)
        self.n = n
        # Score groups, lowest first: each gets a sub-field wide enough for its size (C6, C8).
        sizes: dict[Fraction, int] = {}
        for e in self.sp:
            sizes[e.score] = sizes.get(e.score, 0) + 1
        self.shift: dict[Fraction, int] = {}
        total = 0
        for score in sorted(sizes):
            self.shift[score] = total
            total += sizes[score].bit_length()
        self.S = total
        self.B = max(sizes.values()).bit_length()
        self.bye_score = Fraction(0)
        self.single_bye = False
        self.ranks: dict[int, int] = {}
        self.forbidden: set[frozenset[int]] = set()
        for e in self.sp:
            for game in e.player.rounds:
                if game.played and game.opponent is not None:
                    self.forbidden.add(frozenset((e.player.number, game.opponent)))
        bits = 2 + self.B + self.S + self.B + self.S + 2 * self.B + 4 * self.B
        if played_rounds >= 1:
            bits += 2 * self.B + 2 * self.S
        if played_rounds > 1:
            bits += 2 * self.B + 2 * self.S
        bits += 3 * self.B + 1
        self.max_weight = (1 << bits) - 1
        self.weights: dict[tuple[int, int], int] = {}
        self.finalized: dict[int, int] = {}
        self.mate: list[int] | None = None  # the last matching, while still valid
        self.preference_owners: list[int] = []  # the players of ``match(preferences)``

    # -- criteria ---------------------------------------------------------------------------

    def compatible(self, a: _Entrant, b: _Entrant) -> bool:
        """C1 (no rematch of a played game) and C3 (absolute colour preferences clash).

        C3 does not hold between topscorers in the last round (C.04.3 A.7, C3).
        """
        if frozenset((a.player.number, b.player.number)) in self.forbidden:
            return False
        if not a.absolute or not b.absolute or a.preference != b.preference:
            return True
        threshold = Fraction(self.played_rounds, 2)
        return self.played_rounds >= self.total_rounds - 1 and (
            a.score > threshold or b.score > threshold
        )

    def bye_candidate(self, e: _Entrant) -> bool:
        return e.bye_eligible and e.score <= self.bye_score

    def edge(self, high: _Entrant, low: _Entrant, in_current: bool, in_next: bool) -> int:
        """The weight of pairing ``high`` (earlier in the order) with ``low``; 0: not allowed."""
        if not self.compatible(high, low):
            return 0
        B, S, shift = self.B, self.S, self.shift
        # C4 (completion) and C2: the unpaired player is a legal PAB candidate.
        w = 1 + (not self.bye_candidate(high)) + (not self.bye_candidate(low))
        # C5: as many pairs as possible in the current bracket; C6: highest scores paired.
        w = (w << B) | in_current
        w <<= S
        if in_current:
            w |= 1 << shift[high.score]
        # C7, C8: the same for the next bracket (the downfloaters must allow it).
        w = (w << B) | in_next
        w <<= S
        if in_next:
            w |= 1 << shift[high.score]
        # C9: the PAB assignee has as few unplayed games as possible.
        w <<= 2 * B
        if self.single_bye:
            if high.score == self.bye_score:
                w += self.ranks[high.played_games]
            if low.score == self.bye_score:
                w += self.ranks[low.played_games]
        # C10-C13: colour criteria, within the current bracket only.
        p, o, mask = low, high, in_current
        w = (w << B) | (
            mask
            and (
                not p.absolute_imbalance or not o.absolute_imbalance or p.preference != o.preference
            )
        )
        w = (w << B) | (
            mask
            and (
                not p.absolute
                or not o.absolute
                or p.preference != o.preference
                or (
                    (p.repeated is None or p.repeated != o.repeated)
                    if p.imbalance == o.imbalance
                    else (o if p.imbalance > o.imbalance else p).repeated != _invert(p.preference)
                )
            )
        )
        w = (w << B) | (mask and _compatible_preferences(p.preference, o.preference))
        w = (w << B) | (
            mask
            and (
                (not p.strong and not p.absolute)
                or (not o.strong and not o.absolute)
                or (p.absolute and o.absolute)
                or p.preference != o.preference
            )
        )
        # C14-C17: no repeated downfloat / upfloat from one and two rounds before.
        for back in (1, 2):
            if self.played_rounds < back:
                continue
            w <<= B
            if in_current:
                w += (low.floats[back - 1] == _DOWN) + (
                    high.score <= low.score and high.floats[back - 1] == _DOWN
                )
            w <<= B
            if in_current:
                w |= not (high.score > low.score and low.floats[back - 1] == _UP)
        # C18-C21: the scores of those repeated floaters as low as possible.
        for back in (1, 2):
            if self.played_rounds < back:
                continue
            w <<= S
            if in_current:
                w += (low.floats[back - 1] == _DOWN) << shift[low.score]
                w += (high.floats[back - 1] == _DOWN) << shift[high.score]
            w <<= S
            if in_current and not (low.floats[back - 1] == _UP and high.score > low.score):
                w |= 1 << shift[high.score]
        # Room for section D: exchanges and transpositions, fixed by later matchings.
        w <<= 3 * B + 1
        return w

    # -- the matching ------------------------------------------------------------------------

    def set(self, a: int, b: int, weight: int) -> None:
        key = (a, b) if a < b else (b, a)
        if self.weights.get(key) != weight:
            self.weights[key] = weight
            self.mate = None

    def finalize(self, a: int, b: int) -> None:
        """Fix the pair ``a``-``b``: they leave the graph (a component of its own)."""
        self.finalized[a] = b
        self.finalized[b] = a
        if self.mate is not None and self.mate[a] != b:
            self.mate = None

    def match(self, preferences: list[dict[int, int]] | None = None) -> list[int]:
        """Maximum-weight matching of the weights; ``mate[v] == v`` for an unmatched vertex.

        ``preferences`` (optional): for players ``p_0, p_1, ...`` in order, a map from a
        vertex to how much ``p_i`` prefers it as a partner; among the matchings of maximum
        weight, the one giving ``p_0`` its most preferred partner, then ``p_1``, ... is
        chosen. This is one matching for what would otherwise be a matching per player
        (fixing each pair in turn): the weights are shifted left and the preference of
        ``p_i`` is scaled by ``K ** (m - 1 - i)``, ``K`` exceeding every preference, so
        that ``p_i``'s choice outweighs all later ones and none outweighs the base weights.
        Without preferences the last matching is reused while no weight has changed since.
        """
        if self.mate is not None and not preferences:
            return list(self.mate)
        extra: dict[tuple[int, int], int] = {}
        shift = 0
        if preferences:
            radix = max((r for prefs in preferences for r in prefs.values()), default=0) + 1
            count = len(preferences)
            shift = (radix**count).bit_length()
            for index, prefs in enumerate(preferences):
                for vertex, rank in prefs.items():
                    extra[(index, vertex)] = rank * radix ** (count - 1 - index)
        graph = _Graph()
        free = [v for v in range(self.n) if v not in self.finalized]
        graph.add_nodes_from(free)
        for (a, b), weight in self.weights.items():
            if weight > 0 and a not in self.finalized and b not in self.finalized:
                graph.add_edge(a, b, weight=weight << shift)
        for (index, vertex), bonus in extra.items():
            owner = self.preference_owners[index]
            key = (owner, vertex) if owner < vertex else (vertex, owner)
            if self.weights.get(key, 0) > 0:
                graph[owner][vertex]["weight"] += bonus
        mate = list(range(self.n))
        for a, b in nx.max_weight_matching(graph, maxcardinality=False):
            mate[a], mate[b] = b, a
        for a, b in self.finalized.items():
            mate[a] = b
        self.mate = None if preferences else list(mate)
        return mate

    # -- the round ---------------------------------------------------------------------------

    def run(self) -> tuple[list[tuple[_Entrant, _Entrant]], _Entrant | None]:
        sp, n, B = self.sp, self.n, self.B
        odd = n % 2 == 1
        top = sp[0].score
        # Completion first (C.04.3 C4): can everybody but one legal PAB receiver be paired?
        for pi in range(n):
            for oi in range(pi):
                p, o = sp[pi], sp[oi]
                if odd:
                    w = 0
                    if self.compatible(p, o):
                        w = 1 + (not p.bye_eligible) + (not o.bye_eligible)
                        w = (w << self.S) | (self.shift[p.score] + self.shift[o.score])
                        w = (w << B) | (p.score >= top)
                    self.set(pi, oi, w)
                else:
                    self.set(pi, oi, self.edge(o, p, False, False))
        mate = self.match()
        unmatched = [v for v in range(n) if mate[v] == v]
        if len(unmatched) > 1 or any(not sp[v].bye_eligible for v in unmatched):
            raise NoValidPairing(
                "No pairing of the present players avoids rematches and colour clashes "
                "(FIDE C.04.3 C1-C3)."
            )
        if odd:
            self.bye_score = sp[unmatched[0]].score
            if self.bye_score >= top:
                self.single_bye = True
                for v in range(n):
                    if sp[v].score < top:
                        break
                    if sp[mate[v]].score < top:
                        self.single_bye = False
                        break
            counts = sorted((e.played_games for e in sp if e.score == self.bye_score), reverse=True)
            for index, count in enumerate(counts):
                self.ranks[count] = index
            for pi in range(n):
                for oi in range(pi):
                    self.set(pi, oi, self.edge(sp[oi], sp[pi], False, False))

        pairs: dict[int, int] = {}
        vi: list[int] = []
        it = 0
        while it < n and sp[it].score >= top:
            vi.append(it)
            it += 1
        matched = [False] * n
        sgb = 0  # moved-down players at the head of the bracket
        sgbv = 0  # first vertex of the bracket's own score group
        while len(vi) > 1 or it < n:
            nsgb = len(vi)
            nsgbv = sgbv + (nsgb - sgb)
            group_start = it
            while it < n and sp[it].score >= sp[group_start].score:
                vi.append(it)
                it += 1
            base: dict[tuple[int, int], int] = {}
            for large in range(sgb, len(vi)):
                for small in range(large):
                    base[large, small] = self.edge(
                        sp[vi[small]], sp[vi[large]], large < nsgb, large >= nsgb
                    )
                    self.set(vi[large], vi[small], base[large, small])

            def exchange_weight(
                small: int,
                large: int,
                position: int,
                s1_size: int,
                base: dict[tuple[int, int], int] = base,
            ) -> int:
                """Base weight plus the D.2 order: fewest exchanges, then smallest BSN gaps."""
                weight = base[large, small]
                if weight:
                    weight += (((position < s1_size) << (2 * B)) - position) << 1
                return weight

            def in_bracket(v: int, sgbv: int = sgbv, nsgbv: int = nsgbv) -> bool:
                return sgbv <= v < nsgbv

            mate = self.match()
            # Which moved-down players (MDPs) are paired in this bracket (C5, C6; D.1).
            md_score = Fraction(0)
            left = left_matched = 0
            for pidx in range(sgb):
                if pidx == 0 or sp[vi[pidx]].score < md_score:
                    md_score = sp[vi[pidx]].score
                    left = left_matched = 0
                    j = pidx
                    while j < len(vi) and sp[vi[j]].score >= md_score:
                        left += 1
                        if in_bracket(mate[vi[j]]):
                            left_matched += 1
                        j += 1
                if not left_matched:
                    continue
                pv = vi[pidx]
                if left <= left_matched:
                    matched[pv] = True
                    continue
                left -= 1
                if not in_bracket(mate[pv]):
                    for oidx in range(sgb, nsgb):
                        w = base[oidx, pidx]
                        if w:
                            self.set(pv, vi[oidx], w | 1)
                    mate = self.match()
                if in_bracket(mate[pv]):
                    matched[pv] = True
                    left_matched -= 1
                    for oidx in range(sgb, nsgb):
                        w = base[oidx, pidx]
                        if w:
                            self.set(pv, vi[oidx], (w | (nsgb - sgb)) + 1)
            # The MDPs' opponents: the highest resident the rest allows (D.1, S1 v S2 order),
            # the first MDP's choice first; one matching with the choices in order.
            owners: list[int] = []
            preferences: list[dict[int, int]] = []
            for pidx in range(sgb):
                pv = vi[pidx]
                if not matched[pv]:
                    continue
                prefs: dict[int, int] = {}
                rank = 1
                for oidx in range(nsgb - 1, sgb - 1, -1):
                    if base[oidx, pidx]:
                        prefs[vi[oidx]] = rank
                        rank += 1
                owners.append(pv)
                preferences.append(prefs)
            if owners:
                self.preference_owners = owners
                mate = self.match(preferences)
                for pv in owners:
                    matched[mate[pv]] = True
                    self.finalize(pv, mate[pv])
            # The remainder: S1 and S2, then exchanges (D.2) with the fewest, smallest swaps.
            remainder: list[int] = []
            s1_size = 0
            for pidx in range(sgb, nsgb):
                pv = vi[pidx]
                if mate[pv] < sgbv:
                    continue
                remainder.append(pidx)
                if mate[pv] < pv:
                    s1_size += 1
            for oidx in remainder:
                for position, pidx in enumerate(remainder):
                    if oidx <= pidx:
                        break
                    self.set(vi[pidx], vi[oidx], exchange_weight(pidx, oidx, position, s1_size))
            mate = self.match()
            exchanges = 0
            if remainder and s1_size < len(remainder):
                for pidx in remainder:
                    if pidx >= remainder[s1_size]:
                        break
                    pv = vi[pidx]
                    exchanges += mate[pv] <= pv or mate[pv] >= nsgbv
            # Exchange the lowest possible players of S1 (D.2: smallest BSN differences).
            remaining = exchanges
            position = s1_size
            pos = s1_size
            while pos > 0 and remaining:
                opos = pos
                position -= 1
                pos -= 1
                pidx = remainder[pos]
                pv = vi[pidx]
                if pv < mate[pv] < nsgbv:
                    while opos < len(remainder):
                        w = exchange_weight(pidx, remainder[opos], position, s1_size)
                        if w:
                            self.set(pv, vi[remainder[opos]], w - 1)
                        opos += 1
                    mate = self.match()
                exchange = mate[pv] <= pv or mate[pv] >= nsgbv
                remaining -= exchange
                for opos in range(pos + 1, len(remainder)):
                    if exchange:
                        base[remainder[opos], pidx] = 0
                    self.set(
                        pv,
                        vi[remainder[opos]],
                        exchange_weight(pidx, remainder[opos], position, s1_size),
                    )
            # ... with the highest possible players of S2.
            remaining = exchanges
            position = s1_size
            for pos in range(s1_size, len(remainder)):
                if remaining <= 1:
                    break
                pidx = remainder[pos]
                pv = vi[pidx]
                already = pv < mate[pv] < nsgbv
                if not already:
                    for opos in range(pos + 1, len(remainder)):
                        w = exchange_weight(pidx, remainder[opos], position, s1_size)
                        if w:
                            self.set(pv, vi[remainder[opos]], w + 1)
                    mate = self.match()
                if pv < mate[pv] < nsgbv:
                    remaining -= 1
                    for opos in range(pos):
                        base[pidx, remainder[opos]] = 0
                        self.set(pv, vi[remainder[opos]], 0)
                    for oidx in range(nsgb, len(vi)):
                        base[oidx, pidx] = 0
                        self.set(pv, vi[oidx], 0)
                if not already:
                    for opos in range(pos + 1, len(remainder)):
                        self.set(
                            pv,
                            vi[remainder[opos]],
                            exchange_weight(pidx, remainder[opos], position, s1_size),
                        )
                position += 1
            # Fix who is in S1 and who in S2.
            for pos, pidx in enumerate(remainder):
                pv = vi[pidx]
                for opos in range(pos + 1, len(remainder)):
                    oidx = remainder[opos]
                    ov = vi[oidx]
                    if mate[pv] <= pv or mate[pv] >= nsgbv or (ov < mate[ov] < nsgbv):
                        base[oidx, pidx] = 0
                    self.set(pv, ov, base[oidx, pidx])
            # S1's opponents, top of S1 first, each the first of S2 the rest allows (D.1);
            # one matching with the choices in order.
            owners = []
            preferences = []
            for pidx in remainder:
                pv = vi[pidx]
                if pv < mate[pv] < nsgbv:
                    prefs = {}
                    rank = 1
                    for oidx in reversed(remainder):
                        ov = vi[oidx]
                        if oidx <= pidx or matched[ov]:
                            continue
                        if base[oidx, pidx]:
                            prefs[ov] = rank
                        rank += 1
                    owners.append(pv)
                    preferences.append(prefs)
            if owners:
                self.preference_owners = owners
                mate = self.match(preferences)
                for pv in owners:
                    matched[pv] = matched[mate[pv]] = True
                    self.finalize(pv, mate[pv])
            # The next bracket: this bracket's unpaired players move down (A.3, A.4).
            new_vi: list[int] = []
            sgb = 0
            self.single_bye = odd and group_start < n and self.bye_score >= sp[group_start].score
            for pidx, pv in enumerate(vi):
                if pidx < nsgb and matched[pv]:
                    pairs[pv] = mate[pv]
                    pairs[mate[pv]] = pv
                else:
                    new_vi.append(pv)
                    if pidx < nsgb:
                        sgb += 1
                    if self.single_bye and sp[mate[pv]].score < sp[group_start].score:
                        self.single_bye = False
            vi = new_vi
            sgbv = nsgbv
        result: list[tuple[_Entrant, _Entrant]] = []
        bye: _Entrant | None = None
        for v in range(n):
            if v in pairs:
                if v < pairs[v]:
                    result.append((sp[v], sp[pairs[v]]))
            else:
                bye = sp[v]
        return result, bye


def _first_colour_difference(a: _Entrant, b: _Entrant) -> tuple[Colour | None, Colour | None]:
    """The two players' colours in the latest played round of each where they differed (E.3)."""
    ca, cb = list(reversed(a.colours)), list(reversed(b.colours))
    for x, y in zip(ca, cb, strict=False):
        if x != y:
            return x, y
    return None, None


def _neutral_colour(player: _Entrant, opponent: _Entrant) -> Colour | None:
    """C.04.3 E.1-E.4: the colour ``player`` gets from the two preferences and histories.

    None when the rules leave it to the ranking (E.5).
    """
    if _compatible_preferences(player.preference, opponent.preference):
        # E.1: both preferences granted.
        if player.preference is not None:
            return player.preference
        return _invert(opponent.preference)
    # E.2: the stronger preference wins (absolute over strong over mild; the wider imbalance
    # between two absolute ones).
    if player.absolute and (player.imbalance > opponent.imbalance or not opponent.absolute):
        return player.preference
    if opponent.absolute and (opponent.imbalance > player.imbalance or not player.absolute):
        return _invert(opponent.preference)
    if player.strong and not opponent.strong:
        return player.preference
    if opponent.strong and not player.strong:
        return _invert(opponent.preference)
    # E.3: alternate from the latest round in which the two had different colours.
    mine, theirs = _first_colour_difference(player, opponent)
    if mine is not None and theirs is not None:
        return theirs
    return None


def _colour(player: _Entrant, opponent: _Entrant, initial: Colour) -> Colour:
    """The colour ``player`` gets against ``opponent`` (C.04.3 E.1-E.5)."""
    colour = _neutral_colour(player, opponent)
    if colour is not None:
        return colour
    player_lower = (player.score, opponent.rank) < (opponent.score, player.rank)
    if player.preference is None:
        # E.5: the higher-ranked player gets the initial colour with an odd pairing number.
        if player_lower:
            return initial if opponent.rank % 2 else _invert_strict(initial)
        return _invert_strict(initial) if player.rank % 2 else initial
    # E.4: the higher-ranked player's preference is granted.
    if player_lower:
        return _invert_strict(opponent.preference or initial)
    return player.preference


def _invert_strict(colour: Colour) -> Colour:
    return BLACK if colour == WHITE else WHITE


def _entrants(
    players: Sequence[DutchPlayer],
    played_rounds: int,
    total_rounds: int,
    accelerated: bool,
    bye_points: Fraction,
) -> tuple[list[_Entrant], dict[int, _Entrant]]:
    """Every player's pairing data: scores back in time, colour preference, floats, bye right."""
    ordered = sorted(players, key=lambda p: p.number)
    field_size = len(ordered)

    def acceleration(number: int, round_index: int) -> Fraction:
        if not accelerated:
            return Fraction(0)
        return baku_acceleration(number, field_size, round_index, total_rounds)

    def score_before(p: DutchPlayer, rounds_back: int) -> Fraction:
        """Score (with acceleration) before the round ``rounds_back`` rounds ago."""
        score = Fraction(p.score)
        for game in p.rounds[played_rounds - rounds_back :]:
            score -= _points(game.result, bye_points)
        return score + acceleration(p.number, played_rounds - rounds_back)

    by_number: dict[int, _Entrant] = {}
    # E.5 and the order within a score: the ranking counts the players who take part in the
    # pairing (present now, or paired in an earlier round); those absent so far are skipped.
    ranked = [
        p
        for p in ordered
        if not p.absent_this_round
        or any(g.opponent is not None or g.result == PAIRING_BYE for g in p.rounds)
    ]
    ranks = {p.number: index for index, p in enumerate(ranked)}
    for p in ordered:
        rank = ranks.get(p.number, len(ordered) + p.number)
        e = _Entrant(p, rank, Fraction(p.score) + acceleration(p.number, played_rounds))
        whites = blacks = consecutive = 0
        repeated: Colour | None = None
        colours: list[Colour] = []
        for game in p.rounds:
            if game.result in (FORFEIT_WIN, FULL_BYE, PAIRING_BYE):
                # C.04.1 / C.04.3 C2: one PAB per player, none after a win without playing.
                e.bye_eligible = False
            if not game.played:
                continue
            e.played_games += 1
            colour = game.colour
            assert colour is not None
            colours.append(colour)
            if colour == WHITE:
                whites += 1
            else:
                blacks += 1
            consecutive = 1 if not consecutive or colour != repeated else consecutive + 1
            repeated = colour
        lower: Colour = BLACK if whites > blacks else WHITE
        e.imbalance = abs(whites - blacks)
        # A.6: absolute (imbalance > 1 or the same colour twice running), strong, mild.
        if e.imbalance > 1:
            e.preference = lower
        elif consecutive > 1:
            e.preference = _invert(repeated)
        elif e.imbalance > 0:
            e.preference = lower
        elif consecutive:
            e.preference = _invert(repeated)
        e.repeated = repeated if consecutive > 1 else None
        e.strong = not e.absolute and e.imbalance > 0
        e.colours = tuple(colours)
        by_number[p.number] = e
    numbers = {p.number: p for p in ordered}
    for e in by_number.values():
        floats: list[str | None] = []
        for back in (1, 2):
            if back > played_rounds:
                floats.append(None)
                continue
            game = e.player.rounds[played_rounds - back]
            if not game.played or game.opponent is None:
                # A.4: a bye or a forfeit win counts as a downfloat.
                gained = _points(game.result, bye_points) > 0
                floats.append(_DOWN if gained else None)
                continue
            mine = score_before(e.player, back)
            theirs = score_before(numbers[game.opponent], back)
            floats.append(_DOWN if mine > theirs else _UP if mine < theirs else None)
        e.floats = (floats[0], floats[1])
    return list(by_number.values()), by_number


def _validate(players: Sequence[DutchPlayer], round_number: int, total_rounds: int) -> None:
    if round_number < 1 or total_rounds < round_number:
        raise ValueError(
            f"Round {round_number} is not within the tournament's {total_rounds} rounds."
        )
    numbers = [p.number for p in players]
    if len(set(numbers)) != len(numbers):
        raise ValueError("Each pairing number may appear once.")
    known = set(numbers)
    for p in players:
        if len(p.rounds) != round_number - 1:
            raise ValueError(
                f"Player {p.number}: {len(p.rounds)} rounds of history before round "
                f"{round_number} (expected {round_number - 1})."
            )
        for index, game in enumerate(p.rounds, start=1):
            if game.result not in RESULT_KINDS:
                raise ValueError(
                    f"Player {p.number}, round {index}: unknown result {game.result!r}."
                )
            if game.played and (game.opponent not in known or game.colour not in (WHITE, BLACK)):
                raise ValueError(
                    f"Player {p.number}, round {index}: a played game needs a known opponent "
                    "and a colour."
                )


def pair_round(
    players: Sequence[DutchPlayer],
    round_number: int,
    total_rounds: int,
    *,
    accelerated: bool = False,
    bye_points: Fraction | Decimal = Fraction(1),
    first_white: bool = True,
    forbidden: Iterable[tuple[int, int]] = (),
) -> DutchRound:
    """Pair round ``round_number`` (1-based) of ``total_rounds`` by the FIDE Dutch system.

    ``players`` are every player of the event (absent ones are skipped); ``accelerated``
    applies Baku acceleration (C.04.5.1, :func:`baku_acceleration`); ``bye_points`` is what
    the pairing-allocated bye scores; ``first_white`` gives the top-ranked player White in
    round 1 (C.04.3 E.5, the lot drawn before round 1); ``forbidden`` pairs of pairing numbers
    must not meet (prohibited pairings, TRF record 260: read with C1, as a rematch would be,
    so also by the bye's and the completion's checks). Pairs come back by board: the
    highest score (then ranking) first.
    Raises ``ValueError`` on inconsistent input, :class:`NoValidPairing` when no legal
    pairing exists.
    """
    _validate(players, round_number, total_rounds)
    played_rounds = round_number - 1
    entrants, by_number = _entrants(
        players, played_rounds, total_rounds, accelerated, Fraction(bye_points)
    )
    present = [e for e in entrants if not e.player.absent_this_round]
    initial: Colour = WHITE if first_white else BLACK
    if not present:
        return DutchRound([], None)
    if len(present) == 1:
        if not present[0].bye_eligible:
            raise NoValidPairing(
                "The only present player cannot receive the pairing-allocated bye."
            )
        return DutchRound([], present[0].player.number)
    pairer = _Pairer(present, by_number, played_rounds, total_rounds, initial)
    pairer.forbidden.update(frozenset(pair) for pair in forbidden if len(set(pair)) == 2)
    pairs, bye = pairer.run()
    # Boards (C.04.2): the higher score of the pair first, then the lower, then the ranking.
    boards: list[tuple[tuple[Fraction, Fraction, int], tuple[int, int]]] = []
    for a, b in pairs:
        first, second = (a, b) if a.rank < b.rank else (b, a)
        colour = _colour(first, second, initial)
        white, black = (first, second) if colour == WHITE else (second, first)
        scores = sorted((Fraction(a.player.score), Fraction(b.player.score)))
        boards.append(
            ((-scores[1], -scores[0], first.rank), (white.player.number, black.player.number))
        )
    boards.sort()
    return DutchRound([pair for _, pair in boards], bye.player.number if bye else None)
