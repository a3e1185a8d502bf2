"""FIDE tie-breaks (Handbook C.07, the 2023/2024 edition), on plain values: no Django.

Input is a :class:`Tournament`: its players (with a rating or None), the games between them
(with the colours, where the sport has colours), the unplayed rounds (byes and absences) and
the points the event gives. Output is the value of each tie-break for each player
(:func:`values`) and the players ranked by their score and then an ordered list of
tie-breaks (:func:`rank`). Values are exact fractions (the rating average an integer), so
two players are level only when they really are.

The articles cited are those of C.07 "Play-off and tie-break regulations" (approved by the
FIDE Council on 1 August 2023; applied to FIDE-rated events from 1 April 2024):

* Art. 6, direct encounter (DE);
* Art. 7.1 number of wins (WIN), 7.2 games won over the board (WON), 7.3 games played with
  Black (BPG), 7.4 games won with Black (BWG), 7.5 progressive score (PS);
* Art. 8.1 Buchholz (BH); Art. 9.1 Sonneborn-Berger (SB); Art. 10.1 average rating of
  opponents (ARO);
* Art. 14, the modifiers: Cut-1 and Cut-2 drop the one or two least significant values,
  Median-1 the least and the most significant;
* Art. 15.2: rating-based tie-breaks read only games played over the board;
* Art. 16, unplayed rounds: a player's own unplayed round (a bye, a forfeit won or lost, a
  round not paired) counts in the Buchholz and Sonneborn-Berger families as a game against a
  *dummy* opponent whose score is the player's own; an opponent's score counts as scored,
  except that the voluntarily unplayed rounds at the end of their event (a withdrawal) count
  as draws; and the cut modifiers cut voluntarily unplayed rounds (requested byes, forfeits
  lost, rounds not paired) first.

A tournament without rounds (``rounds=None``: a season of a league, where players meet as
often as they like) has no unplayed rounds and no progressive score; every other tie-break
reads its games as they are, each game once.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from functools import cached_property

PlayerKey = Hashable
ONE, HALF, ZERO = Fraction(1), Fraction(1, 2), Fraction(0)


class Unplayed(StrEnum):
    """Why a player has no game in a round."""

    #: A pairing-allocated bye (odd number of players): the event's bye points; not voluntary.
    PAIRING_BYE = "pairing_bye"
    #: A bye the player asked for before the round was paired: a draw's points; voluntary.
    HALF_BYE = "half_bye"
    #: A bye the player asked for, worth nothing; voluntary.
    ZERO_BYE = "zero_bye"
    #: A full-point bye the pairing did not allocate (TRF's F, given by the arbiter): a win's
    #: points; not voluntary (the player did not choose to score it).
    FULL_BYE = "full_bye"
    #: Not paired: not yet entered (a late entry) or withdrawn; nothing; voluntary.
    ABSENT = "absent"


#: Unplayed rounds that are the player's choice (C.07 Art. 16: "voluntarily unplayed").
VOLUNTARY = frozenset({Unplayed.HALF_BYE, Unplayed.ZERO_BYE, Unplayed.ABSENT})


@dataclass(frozen=True)
class Points:
    """What a result is worth in the event's score (chess: 1, ½, 0 and a 1-point bye)."""

    win: Fraction = ONE
    draw: Fraction = HALF
    loss: Fraction = ZERO
    pairing_bye: Fraction = ONE

    def for_score(self, score: Fraction) -> Fraction:
        """The points of a game score (1 a win, ½ a draw, 0 a loss)."""
        return self.win if score == ONE else self.draw if score == HALF else self.loss


@dataclass(frozen=True)
class Game:
    """One game: ``first`` scored ``score`` (1, ½ or 0) against ``second``.

    ``forfeit``: not played over the board (the side that did not come scores 0, the other
    1); ``coloured``: the sport has colours and ``first`` had White.
    """

    first: PlayerKey
    second: PlayerKey
    score: Fraction
    round: int | None = None
    forfeit: bool = False
    coloured: bool = False


@dataclass(frozen=True)
class Bye:
    """A round in which ``player`` had no opponent, and why."""

    player: PlayerKey
    round: int
    kind: Unplayed


@dataclass(frozen=True)
class Record:
    """One round (or one game, without rounds) of one player, as the tie-breaks read it."""

    round: int | None
    opponent: PlayerKey | None
    score: Fraction  # the game score 1, ½, 0 (a bye: its points as a share of a win)
    points: Fraction  # in the event's points
    played: bool  # over the board
    voluntary: bool  # a voluntarily unplayed round (C.07 Art. 16)
    black: bool | None  # None: no colours, or not played


class TiebreakInputError(ValueError):
    """The tournament's games or byes contradict each other (the message says how)."""


@dataclass(frozen=True)
class Tournament:
    """Players (key to rating or None), games, byes, points, and how many rounds were played."""

    players: Mapping[PlayerKey, float | None]
    games: Sequence[Game] = ()
    byes: Sequence[Bye] = ()
    points: Points = field(default_factory=Points)
    rounds: int | None = None

    @cached_property
    def records(self) -> dict[PlayerKey, list[Record]]:
        """Every player's records, in round order (games without rounds in a fixed order)."""
        found: dict[PlayerKey, list[Record]] = {key: [] for key in self.players}
        taken: set[tuple[PlayerKey, int]] = set()

        def add(player: PlayerKey, record: Record) -> None:
            if player not in found:
                raise TiebreakInputError(f"{player!r} is not a player of this event.")
            if record.round is not None:
                if self.rounds is None or not 1 <= record.round <= self.rounds:
                    raise TiebreakInputError(f"Round {record.round} is not a round of this event.")
                if (player, record.round) in taken:
                    raise TiebreakInputError(f"{player!r} has two results in round {record.round}.")
                taken.add((player, record.round))
            found[player].append(record)

        for game in self.games:
            if game.score not in (ONE, HALF, ZERO):
                raise TiebreakInputError(f"A game score must be 1, ½ or 0, not {game.score}.")
            if game.forfeit and game.score == HALF:
                raise TiebreakInputError("A forfeit is won by one side.")
            if game.first == game.second:
                raise TiebreakInputError(f"{game.first!r} cannot play themselves.")
            if (game.round is None) != (self.rounds is None):
                raise TiebreakInputError(
                    "Give every game a round exactly when the event has rounds."
                )
            for player, opponent, score, black in (
                (game.first, game.second, game.score, False),
                (game.second, game.first, ONE - game.score, True),
            ):
                add(
                    player,
                    Record(
                        game.round,
                        opponent,
                        score,
                        self.points.for_score(score),
                        played=not game.forfeit,
                        voluntary=game.forfeit and score == ZERO,
                        black=black if game.coloured and not game.forfeit else None,
                    ),
                )
        for bye in self.byes:
            points = {
                Unplayed.PAIRING_BYE: self.points.pairing_bye,
                Unplayed.HALF_BYE: self.points.draw,
                Unplayed.FULL_BYE: self.points.win,
            }.get(bye.kind, ZERO)
            share = points / self.points.win if self.points.win else ZERO
            add(
                bye.player,
                Record(bye.round, None, share, points, False, bye.kind in VOLUNTARY, None),
            )
        if self.rounds is not None:
            # A round with nothing recorded for a player is a round they were not paired in
            # (a late entry's first rounds, a withdrawn player's last): voluntarily unplayed.
            for records in found.values():
                for missing in sorted(set(range(1, self.rounds + 1)) - {r.round for r in records}):
                    records.append(Record(missing, None, ZERO, ZERO, False, True, None))
        for records in found.values():
            records.sort(
                key=lambda record: (record.round or 0, repr(record.opponent), record.score)
            )
        return found

    @cached_property
    def scores(self) -> dict[PlayerKey, Fraction]:
        """Each player's score: the points of all their rounds."""
        return {key: sum((r.points for r in rs), ZERO) for key, rs in self.records.items()}

    @cached_property
    def adjusted_scores(self) -> dict[PlayerKey, Fraction]:
        """Each player's score as an opponent's tie-breaks read it (C.07 Art. 16).

        As scored, except that the voluntarily unplayed rounds after the last round the
        player was available in (a withdrawal) count as draws.
        """
        adjusted = {}
        for key, records in self.records.items():
            total = self.scores[key]
            if self.rounds is not None:
                for record in reversed(records):
                    if not record.voluntary:
                        break
                    total += self.points.draw - record.points
            adjusted[key] = total
        return adjusted


#: Every tie-break this module computes: code -> (name, C.07 article).
TIEBREAKS: dict[str, tuple[str, str]] = {
    "DE": ("Direct encounter", "6"),
    "WIN": ("Number of wins (with byes and forfeits)", "7.1"),
    "WON": ("Games won over the board", "7.2"),
    "BPG": ("Games played with Black", "7.3"),
    "BWG": ("Games won with Black", "7.4"),
    "PS": ("Progressive score", "7.5"),
    "PS-C1": ("Progressive score, Cut-1", "7.5, 14.1"),
    "BH": ("Buchholz", "8.1"),
    "BH-C1": ("Buchholz, Cut-1", "8.1, 14.1"),
    "BH-C2": ("Buchholz, Cut-2", "8.1, 14.2"),
    "BH-M1": ("Buchholz, Median-1", "8.1, 14.3"),
    "SB": ("Sonneborn-Berger", "9.1"),
    "ARO": ("Average rating of opponents", "10.1"),
    "ARO-C1": ("Average rating of opponents, Cut-1", "10.1, 14.1"),
}
#: Other spellings of the codes, as organisers (and other programs) write them (after
#: :func:`canonical_code` has put them in capitals with "-" for "/").
ALIASES = {
    "BH-1": "BH-C1",
    "BH1": "BH-C1",
    "BH-2": "BH-C2",
    "BH2": "BH-C2",
    "MBH": "BH-M1",
    "BH-M": "BH-M1",
    "MEDIAN": "BH-M1",
    "SOBERG": "SB",
    "S-B": "SB",
    "PS-1": "PS-C1",
    "ARO-1": "ARO-C1",
    "WINS": "WIN",
    "BLACK": "BPG",
}


def canonical_code(code: str) -> str:
    """The :data:`TIEBREAKS` code an organiser's (or another program's) spelling stands for:
    ``"bh-1"``, ``"BH/C1"`` and ``"BH1"`` are all ``"BH-C1"``. A code this module does not
    compute comes back in capitals, so ``canonical_code(x) in TIEBREAKS`` tells them apart."""
    upper = code.strip().upper().replace("/", "-")
    return ALIASES.get(upper, upper)


#: Tie-breaks that need colours, and those that need rounds.
NEED_COLOURS = frozenset({"BPG", "BWG"})
NEED_ROUNDS = frozenset({"PS", "PS-C1"})


def _cut(values: Iterable[tuple[bool, Fraction]], low: int, high: int) -> list[Fraction]:
    """``values`` (voluntary?, value) without the ``low`` least and ``high`` most significant.

    C.07 Art. 14 and 16: the least significant are the voluntarily unplayed rounds first,
    then the smallest values.
    """
    ordered = sorted(values, key=lambda item: (not item[0], item[1]))
    kept = ordered[low:]
    if high:
        rest = sorted(value for _voluntary, value in kept)
        return rest[: max(len(rest) - high, 0)]
    return [value for _voluntary, value in kept]


def _opponent_scores(t: Tournament, player: PlayerKey) -> list[tuple[bool, Fraction, Fraction]]:
    """(voluntary?, opponent's score, player's game score) per round (C.07 Art. 8.1, 16)."""
    own = t.scores[player]
    return [
        (
            record.voluntary,
            t.adjusted_scores[record.opponent] if record.played else own,
            record.score,
        )
        for record in t.records[player]
    ]


def buchholz(t: Tournament, player: PlayerKey, low: int = 0, high: int = 0) -> Fraction:
    """Sum of the opponents' scores (C.07 Art. 8.1), cut by ``low`` and ``high`` (Art. 14)."""
    rows = [(voluntary, score) for voluntary, score, _own in _opponent_scores(t, player)]
    return sum(_cut(rows, low, high), ZERO)


def sonneborn_berger(t: Tournament, player: PlayerKey) -> Fraction:
    """Sum of each opponent's score times the game score against them (C.07 Art. 9.1)."""
    return sum((score * own for _v, score, own in _opponent_scores(t, player)), ZERO)


def progressive(t: Tournament, player: PlayerKey, cut: int = 0) -> Fraction | None:
    """Sum of the running score after each round (C.07 Art. 7.5), without the first ``cut``.

    None without rounds. The least significant running scores are the earliest (Art. 14.1).
    """
    if t.rounds is None:
        return None
    running, sums = ZERO, []
    for record in t.records[player]:
        running += record.points
        sums.append(running)
    return sum(sums[cut:], ZERO)


def average_rating(t: Tournament, player: PlayerKey, cut: int = 0) -> int | None:
    """Mean rating of the opponents met over the board (C.07 Art. 10.1, 15.2), rounded
    half up; ``cut`` drops the lowest ratings first (Art. 14.1). None without such games."""
    ratings = sorted(
        rating
        for record in t.records[player]
        if record.played and (rating := t.players.get(record.opponent)) is not None
    )[cut:]
    if not ratings:
        return None
    mean = Fraction(sum(Fraction(r) for r in ratings)) / len(ratings)
    return int(mean + HALF) if mean >= 0 else -int(-mean + HALF)


def wins(t: Tournament, player: PlayerKey, *, over_the_board: bool) -> int:
    """Rounds scored as a win, with byes and forfeits (Art. 7.1), or games won (Art. 7.2)."""
    if over_the_board:
        return sum(1 for r in t.records[player] if r.played and r.score == ONE)
    return sum(1 for r in t.records[player] if r.points == t.points.win and r.points > 0)


def black_games(t: Tournament, player: PlayerKey, *, won: bool) -> int:
    """Games played over the board with Black (Art. 7.3), or won with Black (Art. 7.4)."""
    return sum(1 for r in t.records[player] if r.black and (not won or r.score == ONE))


def direct_encounter(
    t: Tournament, group: Iterable[PlayerKey]
) -> tuple[dict[PlayerKey, Fraction], dict[PlayerKey, int]]:
    """The points each of a tied ``group`` scored against the others, and their order.

    C.07 Art. 6: when every pair of the group has met, the points decide (players level on
    them stay tied). When some have not, a player is ranked ahead of the rest only if no
    other could have caught up had the missing games all been won by that other; the
    rule is applied again to the rest, and whoever cannot be separated stays tied. The
    order is a number per player, larger ahead.
    """
    members = set(group)
    scored: dict[PlayerKey, Fraction] = dict.fromkeys(members, ZERO)
    met: dict[PlayerKey, set[PlayerKey]] = {key: set() for key in members}
    for key in members:
        for record in t.records[key]:
            if record.opponent in members:
                scored[key] += record.points
                met[key].add(record.opponent)
    order: dict[PlayerKey, int] = {}
    if all(met[key] >= members - {key} for key in members):
        ranks = sorted(set(scored.values()))
        return scored, {key: ranks.index(scored[key]) for key in members}
    remaining, level = set(members), len(members)
    while remaining:
        potential = {
            key: scored[key] + t.points.win * len(remaining - met[key] - {key}) for key in remaining
        }
        ahead = [
            key
            for key in remaining
            if all(scored[key] > potential[other] for other in remaining - {key})
        ]
        if len(ahead) != 1:
            break
        order[ahead[0]] = level
        remaining.discard(ahead[0])
        level -= 1
    for key in remaining:
        order[key] = 0
    return scored, order


def values(
    t: Tournament, codes: Iterable[str]
) -> dict[str, dict[PlayerKey, Fraction | int | None]]:
    """Each tie-break of ``codes`` (keys of :data:`TIEBREAKS`) for every player.

    Direct encounter is given among the players level on score (:func:`rank` applies it to
    the players still level when its turn comes).
    """
    out: dict[str, dict[PlayerKey, Fraction | int | None]] = {}
    for code in codes:
        if code not in TIEBREAKS:
            raise TiebreakInputError(f"{code!r} is not a tie-break.")
        if code == "DE":
            de: dict[PlayerKey, Fraction | int | None] = {}
            for group in _level(t.players, t.scores):
                points, _order = direct_encounter(t, group)
                de.update(points if len(group) > 1 else {group[0]: None})
            out[code] = de
            continue
        out[code] = {key: _one(t, code, key) for key in t.players}
    return out


def _one(t: Tournament, code: str, key: PlayerKey) -> Fraction | int | None:
    match code:
        case "WIN" | "WON":
            return wins(t, key, over_the_board=code == "WON")
        case "BPG" | "BWG":
            return black_games(t, key, won=code == "BWG")
        case "PS":
            return progressive(t, key)
        case "PS-C1":
            return progressive(t, key, cut=1)
        case "BH":
            return buchholz(t, key)
        case "BH-C1":
            return buchholz(t, key, low=1)
        case "BH-C2":
            return buchholz(t, key, low=2)
        case "BH-M1":
            return buchholz(t, key, low=1, high=1)
        case "SB":
            return sonneborn_berger(t, key)
        case "ARO":
            return average_rating(t, key)
        case "ARO-C1":
            return average_rating(t, key, cut=1)
    raise TiebreakInputError(f"{code!r} is not a tie-break.")


def _level(players: Iterable[PlayerKey], key: Mapping[PlayerKey, object]) -> list[list[PlayerKey]]:
    """``players`` in groups of equal ``key`` (any order inside a group)."""
    groups: dict[object, list[PlayerKey]] = defaultdict(list)
    for player in players:
        groups[key[player]].append(player)
    return list(groups.values())


@dataclass(frozen=True)
class Placing:
    """One player's place: position (shared while level), score and tie-break values."""

    player: PlayerKey
    position: int
    score: Fraction
    values: dict[str, Fraction | int | float | None]


def _tie_key(key: PlayerKey) -> tuple[int, int, str]:
    """A fixed order for players level on everything: integer keys by value, others by repr."""
    if isinstance(key, int) and not isinstance(key, bool):
        return (0, key, "")
    return (1, 0, repr(key))


def _sortable(value: object) -> tuple[int, object]:
    # A missing value (no games for an average) sorts below every number.
    return (0, 0) if value is None else (1, value)


def rank(
    t: Tournament,
    order: Sequence[str],
    extra: Mapping[str, Mapping[PlayerKey, float | None]] | None = None,
    scores: Mapping[PlayerKey, Fraction] | None = None,
) -> list[Placing]:
    """The players by score, then by each tie-break of ``order`` in turn (larger ahead).

    ``extra`` adds criteria of the caller's own (a rating, say) under codes of its own;
    ``scores`` replaces the scores the ranking starts from (a season's points, which count
    results the tie-breaks do not read) without changing the tie-breaks' own.
    Players level on everything share a position; they are listed in the order of their
    keys (integers by value, others by ``repr``) so the list never depends on the order
    results were given in.
    """
    extra = dict(extra or {})
    codes = [code for code in order if code not in extra]
    table: dict[str, dict[PlayerKey, object]] = {
        code: dict(column) for code, column in values(t, [c for c in codes if c != "DE"]).items()
    }
    for code, column in extra.items():
        table[code] = {key: column.get(key) for key in t.players}
    de_points: dict[PlayerKey, Fraction | int | None] = {}
    score = dict(t.scores if scores is None else scores)
    groups = [sorted(g, key=_tie_key) for g in _level(t.players, score)]
    groups.sort(key=lambda g: -score[g[0]])
    for code in order:
        split: list[list[PlayerKey]] = []
        for group in groups:
            if len(group) == 1:
                split.append(group)
                continue
            if code == "DE":
                points, ordinal = direct_encounter(t, group)
                de_points.update(points)
                keyed: Mapping[PlayerKey, object] = ordinal
            else:
                keyed = {key: _sortable(table[code][key]) for key in group}
            parts = _level(group, keyed)
            parts.sort(key=lambda part: keyed[part[0]], reverse=True)  # type: ignore[arg-type,return-value]
            split.extend(sorted(part, key=_tie_key) for part in parts)
        groups = split
    placings, position = [], 1
    for group in groups:
        for key in group:
            shown: dict[str, Fraction | int | float | None] = {
                code: table[code][key]
                for code in order
                if code in table  # type: ignore[misc]
            }
            if "DE" in order:
                shown["DE"] = de_points.get(key)
            placings.append(Placing(key, position, score[key], shown))
        position += len(group)
    return placings
