"""Knockout cups: a single-elimination bracket seeded by rating, played round by round.

A cup is a ``Competition`` of format ``knockout`` whose ``planned_rounds`` is the depth of
its bracket (4 rounds: 9 to 16 entrants). Round 1 is seeded from the entrants' ranking
(``league.competition_pairing.ranking``: seed rating, then pairing number) with the
standard seeding of ``pairings.brackets`` (top seeds meet latest; a field short of a power of
two gives the top seeds a bye, which advances them without a game and is never rated); the
``round_paired`` fact of round 1 stores the bracket (the player in each slot), and every
later round is paired from the winners of the round before, through the same publish path
(``league.competitions.publish_round``). A game of tie ``t`` of round ``k`` is a fixture of
round ``k`` on board ``t`` (a third-place match: board 2 of the final round).

A tie is decided by its first game with a winner (a result or a forfeit; a double forfeit
puts nobody through). A drawn game leaves it open until another game of the same tie is
played: a replay or a tie-break game, as the cup was created (``Competition.draw_rule``),
scheduled by ``schedule_tie_game`` in the same round and on the same board. The next round
is paired only once every tie of this one is decided.

An entrant withdrawn from a round on gives their opponent in it a walkover (a bye: no game).

A double-elimination cup (``Competition.double_elimination``) is played the same way over
the layout of ``pairings.double_elimination``: its ``planned_rounds`` are its rounds of play,
each published together (a winners' round with a losers' round), a tie's board its place in
its round of play. A tie with one side empty or withdrawn is a walkover; a double forfeit
puts both players out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from league import event_store
from league.calendar import league_day
from league.competition_pairing import ProposedRound, ranking
from league.competitions import (
    PublishedRound,
    _refreshed,
    _schedule_fields,
    competition_state,
    publish_round,
    published_round,
)
from league.event_store import Submission
from league.event_store.store import find_by_key
from league.event_store.vocabulary import FixtureScheduled
from league.fixtures import resolve_fixture
from league.models import (
    ByeKind,
    Competition,
    CompetitionFormat,
    CupDrawRule,
    Entrant,
    Event,
    Fixture,
    RoundBye,
)
from league.validation import Errors, check_recorder, clean_key
from pairings import brackets
from pairings import double_elimination as de

#: What a game of a tie is: its first game, or one after a draw (the cup's rule says which).
GAME, REPLAY, DECIDER = "game", "replay", "decider"


@dataclass(frozen=True, slots=True)
class TieGame:
    """One game of a tie: the fixture, what it is, its two players (``first`` as scheduled)
    and its outcome: ``score_first`` (1, ½, 0) once played, or the forfeit's winner."""

    fixture_id: int
    kind: str
    first_id: int
    second_id: int
    score_first: Decimal | None = None
    forfeited: bool = False
    forfeit_winner: int | None = None

    @property
    def pending(self) -> bool:
        return self.score_first is None and not self.forfeited

    @property
    def drawn(self) -> bool:
        return self.score_first == Decimal("0.5")

    @property
    def winner(self) -> int | None:
        if self.forfeited:
            return self.forfeit_winner
        if self.score_first == 1:
            return self.first_id
        if self.score_first == 0:
            return self.second_id
        return None


@dataclass(slots=True)
class Tie:
    """A tie of the bracket: round, position (1 first, in bracket order), its two sides
    (None: nobody, an empty slot or a withdrawn player; ``*_waiting``: the winner of an
    earlier tie not decided yet), its games and, once decided, the winner (None: nobody goes
    through, after a double forfeit)."""

    round_number: int
    position: int
    first: int | None
    second: int | None
    first_waiting: bool = False
    second_waiting: bool = False
    third_place: bool = False
    started: bool = False
    games: list[TieGame] = field(default_factory=list)
    decided: bool = False
    winner: int | None = None
    #: Decided without a game: one side empty or withdrawn (a walkover).
    bye: bool = False
    #: In a double-elimination cup: the part of the bracket (``pairings.double_elimination``:
    #: winners, losers, final, reset), the round within it, the tie's board in its round of
    #: play, its index in the layout, and whether it is played at all (a reset only when the
    #: losers' bracket champion won the grand final).
    part: str = de.WINNERS
    part_round: int = 0
    board_number: int = 0
    index: int = -1
    needed: bool = True

    @property
    def board(self) -> int:
        if self.board_number:
            return self.board_number
        return 2 if self.third_place else self.position

    @property
    def loser(self) -> int | None:
        """The side that lost a game (None after a bye or a double forfeit)."""
        if not self.decided or self.winner is None or self.bye:
            return None
        return self.second if self.winner == self.first else self.first

    @property
    def sides_known(self) -> bool:
        return not (self.first_waiting or self.second_waiting)


@dataclass(slots=True)
class Bracket:
    """A cup's bracket: its rounds of ties (the final round's second tie is the third-place
    match when there is one), the seeds, and whether round 1 is only projected (not yet
    paired: the seeding as the entries stand now)."""

    competition_id: int
    size: int
    rounds: list[list[Tie]]
    seeds: dict[int, int]
    rounds_paired: int
    projected: bool
    draw_rule: str
    third_place: bool
    double_elimination: bool = False
    bracket_reset: bool = False
    #: A double-elimination cup: whether it is decided, and its champion.
    outcome: tuple[bool, int | None] = (False, None)

    @property
    def final(self) -> Tie | None:
        """The (grand) final."""
        if self.double_elimination:
            return next((t for ties in self.rounds for t in ties if t.part == de.FINAL), None)
        return self.rounds[-1][0] if self.rounds else None

    @property
    def decided(self) -> bool:
        """Whether the cup is over (its final, or a needed reset, decided)."""
        if self.double_elimination:
            return self.outcome[0]
        final = self.final
        return final is not None and final.decided

    @property
    def champion(self) -> int | None:
        if self.double_elimination:
            return self.outcome[1]
        final = self.final
        return final.winner if final is not None and final.decided else None

    @property
    def depth(self) -> int:
        """The rounds of the (winners') bracket."""
        return self.size.bit_length() - 1

    def tie_of_fixture(self, fixture_id: int) -> Tie | None:
        for ties in self.rounds:
            for tie in ties:
                if any(game.fixture_id == fixture_id for game in tie.games):
                    return tie
        return None


def _seeded_field(competition: Competition) -> list[int]:
    """The players of round 1, best seed first."""
    state = competition_state(competition)
    return [
        player
        for player in ranking(state)
        if (entrant := state.entrant(player)) is not None and entrant.plays_in(1)
    ]


def _round_one_slots(competition: Competition) -> tuple[int | None, ...] | None:
    details = (
        Event.objects.filter(kind=Event.Kind.ROUND_PAIRED, competition=competition, round_number=1)
        .values_list("details", flat=True)
        .first()
    )
    if details is None or not details.get("bracket"):
        return None
    return tuple(details["bracket"])


def _games(competition: Competition) -> dict[tuple[int, int], list[TieGame]]:
    """Every game of the cup by (round, board), in the order they were scheduled."""
    rule_kind = DECIDER if competition.draw_rule == CupDrawRule.DECIDER else REPLAY
    results = dict(
        Event.objects.live_matches()
        .filter(fixture__competition=competition)
        .values_list("fixture_id", "score_a")
    )
    forfeits = dict(
        Event.objects.filter(
            kind=Event.Kind.FORFEIT_RECORDED,
            fixture__competition=competition,
            voided_by__isnull=True,
        ).values_list("fixture_id", "player_id")
    )
    games: dict[tuple[int, int], list[TieGame]] = {}
    for fixture in Fixture.objects.filter(competition=competition, cancelled=False).order_by("pk"):
        key = (fixture.round_number or 0, fixture.board or 0)
        kind = rule_kind if key in games else GAME
        games.setdefault(key, []).append(
            TieGame(
                fixture_id=fixture.pk,
                kind=kind,
                first_id=fixture.player_a_id,
                second_id=fixture.player_b_id,
                score_first=results.get(fixture.pk),
                forfeited=fixture.pk in forfeits,
                forfeit_winner=forfeits.get(fixture.pk),
            )
        )
    return games


def _settle(tie: Tie, games: list[TieGame], byes: set[int]) -> None:
    """Decide a started tie from its games (or, without one, from its walkover)."""
    tie.games = games
    if not games:
        tie.decided, tie.bye = True, True
        tie.winner = next((side for side in (tie.first, tie.second) if side in byes), None)
        return
    for game in games:
        if game.pending:
            return
        if not game.drawn:
            tie.decided, tie.winner = True, game.winner
            return


def cup_bracket(competition: Competition) -> Bracket | None:
    """The cup's bracket as it stands: the ties of every round with their sides, games and
    winners. Before round 1 is paired it is projected from the entries (None when the field
    does not fit the cup's rounds)."""
    paired = Competition.objects.values_list("rounds_paired", flat=True).get(pk=competition.pk)
    depth = cup_depth(competition)
    size = 1 << depth
    slots = _round_one_slots(competition) if paired else None
    projected = slots is None
    if slots is None:
        seeded = _seeded_field(competition)
        if not brackets.fits(len(seeded), depth):
            return None
        pairs = brackets.first_round(seeded, size)
        slots = tuple(side for pair in pairs for side in pair)
    order = brackets.seed_order(size)
    seeds = {player: order[index] for index, player in enumerate(slots) if player is not None}
    games = _games(competition)
    byes: dict[int, set[int]] = {}
    for number, player in RoundBye.objects.filter(
        competition=competition, kind=ByeKind.PAIRING_ALLOCATED
    ).values_list("round_number", "player_id"):
        byes.setdefault(number, set()).add(player)
    if competition.double_elimination:
        return _double_bracket(competition, paired, slots, projected, seeds, games)
    sides: list[tuple[int | None, bool]] = [(player, False) for player in slots]
    rounds: list[list[Tie]] = []
    for number in range(1, depth + 1):
        ties = []
        for index in range(0, len(sides), 2):
            (first, first_waiting), (second, second_waiting) = sides[index], sides[index + 1]
            tie = Tie(number, index // 2 + 1, first, second, first_waiting, second_waiting)
            ties.append(tie)
        if number == depth and competition.third_place and depth >= 2:
            (a, a_waits), (b, b_waits) = [(tie.loser, not tie.decided) for tie in rounds[-1]]
            ties.append(Tie(number, 2, a, b, a_waits, b_waits, third_place=True))
        for tie in ties:
            tie.started = number <= paired
            if tie.started:
                _settle(tie, games.get((number, tie.board), []), byes.get(number, set()))
        rounds.append(ties)
        sides = [
            (tie.winner, False) if tie.decided else (None, True)
            for tie in ties
            if not tie.third_place
        ]
    return Bracket(
        competition_id=competition.pk,
        size=size,
        rounds=rounds,
        seeds=seeds,
        rounds_paired=paired,
        projected=projected,
        draw_rule=competition.draw_rule,
        third_place=competition.third_place,
    )


def cup_depth(competition: Competition) -> int:
    """The rounds of the cup's (winners') bracket."""
    if competition.double_elimination:
        return de.depth_of(competition.planned_rounds)
    return competition.planned_rounds


def _tie_outcome(games: list[TieGame]) -> tuple[int | None, int | None] | None:
    """A tie's (winner, loser) from its games; None while it has no winner."""
    for game in games:
        if game.pending:
            return None
        if game.forfeited and game.forfeit_winner is None:
            return None, None
        if not game.drawn:
            winner = game.winner
            loser = game.second_id if winner == game.first_id else game.first_id
            return winner, loser
    return None


def _double_bracket(
    competition: Competition,
    paired: int,
    slots: tuple[int | None, ...],
    projected: bool,
    seeds: dict[int, int],
    games: dict[tuple[int, int], list[TieGame]],
) -> Bracket:
    """A double-elimination cup's bracket: its ties by round of play."""
    depth = de.depth_of(competition.planned_rounds)
    specs = de.layout(depth, competition.bracket_reset)
    entrants = {e.player_id: e for e in Entrant.objects.filter(competition=competition)}

    def decide(spec: de.TieSpec, a: int, b: int) -> tuple[int | None, int | None] | None:
        if spec.round_number > paired:
            return None
        return _tie_outcome(games.get((spec.round_number, spec.board), []))

    def absent(spec: de.TieSpec, player: int) -> bool:
        entrant = entrants.get(player)
        return entrant is None or not entrant.plays_in(spec.round_number)

    played = de.play_out(specs, list(slots), decide, absent)
    rounds: list[list[Tie]] = [[] for _ in range(competition.planned_rounds)]
    for spec, outcome in zip(specs, played, strict=True):
        tie = Tie(
            spec.round_number,
            spec.position,
            outcome.first,
            outcome.second,
            outcome.first_waiting,
            outcome.second_waiting,
            started=spec.round_number <= paired,
            games=games.get((spec.round_number, spec.board), []),
            decided=outcome.decided,
            winner=outcome.winner,
            bye=outcome.walkover,
            part=spec.part,
            part_round=spec.part_round,
            board_number=spec.board,
            index=spec.index,
            needed=outcome.needed,
        )
        rounds[spec.round_number - 1].append(tie)
    return Bracket(
        competition_id=competition.pk,
        size=1 << depth,
        rounds=rounds,
        seeds=seeds,
        rounds_paired=paired,
        projected=projected,
        draw_rule=competition.draw_rule,
        third_place=False,
        double_elimination=True,
        bracket_reset=competition.bracket_reset,
        outcome=de.champion(specs, played),
    )


def tie_name(tie: Tie) -> str:
    """A tie's name in a fixture's label: "round 2, tie 1" in a single-elimination cup,
    "losers' round 2, tie 1" (or the grand final) in a double-elimination one."""
    values = {"round": tie.part_round or tie.round_number, "tie": tie.position}
    if tie.part_round == 0:
        return gettext("round %(round)s, tie %(tie)s") % values
    if tie.part == de.WINNERS:
        return gettext("winners' round %(round)s, tie %(tie)s") % values
    if tie.part == de.LOSERS:
        return gettext("losers' round %(round)s, tie %(tie)s") % values
    if tie.part == de.FINAL:
        return gettext("grand final")
    return gettext("grand final, second game (bracket reset)")


def _not_a_cup(competition: Competition, errors: Errors) -> bool:
    if competition.format != CompetitionFormat.KNOCKOUT:
        errors.add(
            "competition",
            _("%(event)s is not a knockout cup."),
            "not_a_cup",
            event=competition.name,
        )
        return True
    return False


def _names(competition: Competition) -> dict[int, str]:
    return dict(
        Entrant.objects.filter(competition=competition).values_list(
            "player_id", "player__display_name"
        )
    )


def propose_cup_round(competition: Competition) -> ProposedRound:
    """The cup's next round from its bracket, not stored: its games (board = tie), the
    walkovers and byes, and in round 1 the bracket itself.

    Refused (``ValidationError`` on ``round_number``) when every round is paired, when the
    field does not fit the cup's rounds, and when a tie of the round before is not decided.
    """
    errors = Errors()
    if _not_a_cup(competition, errors):
        errors.raise_if_any()
    competition = _refreshed(competition)
    number = competition.rounds_paired + 1
    depth = competition.planned_rounds
    if number > depth:
        errors.add(
            "round_number",
            _("All %(rounds)s rounds of %(event)s are paired."),
            "all_paired",
            rounds=depth,
            event=competition.name,
        )
        errors.raise_if_any()
    bracket = cup_bracket(competition)
    if bracket is None:
        entered = len(_seeded_field(competition))
        bracket_depth = cup_depth(competition)
        errors.add(
            "round_number",
            _("A double-elimination cup whose winners' bracket has %(rounds)s rounds takes "
              "%(low)s to %(high)s players; %(n)s are entered. Enter players, or create a "
              "cup with as many rounds as the field needs.")
            if competition.double_elimination
            else _("A cup of %(rounds)s rounds takes %(low)s to %(high)s players; %(n)s are "
                   "entered. Enter players, or create a cup with as many rounds as the field "
                   "needs."),
            "field_does_not_fit",
            rounds=bracket_depth,
            low=(1 << (bracket_depth - 1)) + 1 if bracket_depth > 1 else 2,
            high=1 << bracket_depth,
            n=entered,
        )  # fmt: skip
        errors.raise_if_any()
    assert bracket is not None
    if bracket.decided:
        names = _names(competition)
        errors.add(
            "round_number",
            _("%(event)s is decided (%(player)s wins it): no round is left to pair."),
            "cup_decided",
            event=competition.name,
            player=names.get(bracket.champion, gettext("nobody")),  # type: ignore[arg-type]
        )
        errors.raise_if_any()
    if number > 1:
        names = _names(competition)
        open_ties = [tie for tie in bracket.rounds[number - 2] if not tie.decided]
        if open_ties:
            errors.add(
                "round_number",
                _("Round %(round)s still has ties without a winner (%(ties)s): record their "
                  "results, replays or tie-break games before pairing round %(next)s."),
                "ties_undecided",
                round=number - 1,
                ties=", ".join(
                    gettext("%(a)s v %(b)s")
                    % {"a": names.get(tie.first, "?"), "b": names.get(tie.second, "?")}
                    for tie in open_ties
                ),
                next=number,
            )  # fmt: skip
            errors.raise_if_any()
    entrants = {e.player_id: e for e in Entrant.objects.filter(competition=competition)}

    def playing(player: int | None) -> int | None:
        if player is None or not entrants[player].plays_in(number):
            return None
        return player

    pairings, boards, byes = [], [], []
    for tie in bracket.rounds[number - 1]:
        first, second = playing(tie.first), playing(tie.second)
        if first is not None and second is not None:
            pairings.append((first, second))
            boards.append(tie.board)
        elif first is not None or second is not None:
            byes.append(first if first is not None else second)
    if not pairings and not byes:
        errors.add(
            "round_number",
            _("Nobody is left to play round %(round)s."),
            "nobody_left",
            round=number,
        )
        errors.raise_if_any()
    slots: tuple[int | None, ...] = ()
    if number == 1:
        slots = tuple(side for tie in bracket.rounds[0] for side in (tie.first, tie.second))
    return ProposedRound(
        round_number=number,
        pairings=tuple(pairings),
        bye=None,
        requested=(),
        byes=tuple(player for player in byes if player is not None),
        boards=tuple(boards),
        bracket=slots,
    )


def publish_cup_round(
    competition: Competition,
    round_number: Any = None,
    *,
    scheduled_at: Any = None,
    deadline: Any = None,
    venue: Any = "",
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> PublishedRound:
    """Pair the cup's next round from its bracket and publish it (``publish_round``).

    ``round_number``, when given, must be the next round (the one the organiser saw in the
    preview). A retry with the same idempotency key returns the round it published.
    """
    league = competition.league
    errors = Errors()
    if _not_a_cup(competition, errors):
        errors.raise_if_any()
    key = clean_key(idempotency_key, errors)
    errors.raise_if_any()
    with transaction.atomic():
        event_store.lock_league(league)
        if key:
            earlier = find_by_key(league, key)
            if (
                earlier is not None
                and earlier.kind == Event.Kind.ROUND_PAIRED
                and earlier.competition_id == competition.pk
                and earlier.round_number
            ):
                return published_round(competition, earlier.round_number)
        proposal = propose_cup_round(competition)
        if round_number not in (None, "") and str(round_number) != str(proposal.round_number):
            errors.add(
                "round_number",
                _("Round %(round)s cannot be published: the next round to pair is %(next)s."),
                "not_next_round",
                round=round_number,
                next=proposal.round_number,
            )
            errors.raise_if_any()
        return publish_round(
            competition,
            proposal.round_number,
            [list(pair) for pair in proposal.pairings],
            proposal.byes,
            scheduled_at=scheduled_at,
            deadline=deadline,
            venue=venue,
            recorded_by=recorded_by,
            idempotency_key=key,
            boards=proposal.boards,
            bracket=proposal.bracket,
        )


def schedule_tie_game(
    competition: Competition,
    fixture: Any,
    *,
    scheduled_at: Any = None,
    deadline: Any = None,
    venue: Any = "",
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> Fixture:
    """Schedule the game that settles a drawn tie: a replay or a tie-break game, as the cup
    says, in the same round and on the same board as the tie's drawn game ``fixture``.

    Refused unless every game of the tie has a result and none has a winner.
    """
    league = competition.league
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    _not_a_cup(competition, errors)
    target = resolve_fixture(league, fixture, errors)
    if target is not None and target.competition_id != competition.pk:
        errors.add(
            "fixture",
            _("That fixture is not a game of %(event)s."),
            "other_competition",
            event=competition.name,
        )
    when, due, place = _schedule_fields(league, scheduled_at, deadline, venue, errors)
    key = clean_key(idempotency_key, errors)
    errors.raise_if_any()
    assert target is not None
    moment = when or timezone.now()
    day = due or league_day(league, moment)
    if day < league_day(league, moment):
        errors.add("deadline", _("The deadline is before the game's day."), "before_scheduled")
        errors.raise_if_any()
    decider = competition.draw_rule == CupDrawRule.DECIDER
    with transaction.atomic():
        event_store.lock_league(league)
        if key:
            # A retry (its moment defaults to now, so it is matched by key and tie alone).
            earlier = find_by_key(league, key)
            if (
                earlier is not None
                and earlier.kind == Event.Kind.FIXTURE_SCHEDULED
                and earlier.fixture is not None
                and earlier.fixture.competition_id == competition.pk
                and earlier.fixture.round_number == target.round_number
                and earlier.fixture.board == target.board
            ):
                return earlier.fixture
        current = _refreshed(competition)
        bracket = cup_bracket(current)
        tie = None if bracket is None else bracket.tie_of_fixture(target.pk)
        if tie is None:
            errors.add("fixture", _("That game is not in the cup's bracket."), "not_in_bracket")
            errors.raise_if_any()
        assert tie is not None
        last = tie.games[-1]
        names = _names(current)
        label = (
            gettext("%(event)s, %(tie)s: tie-break game")
            if decider
            else gettext("%(event)s, %(tie)s: replay")
        ) % {"event": current.name, "tie": tie_name(tie)}
        submission = Submission(
            FixtureScheduled(
                fixture_id=None,
                player_a_id=last.first_id,
                player_b_id=last.second_id,
                scheduled_at=moment,
                deadline=day,
                venue=place,
                label=label,
                competition_id=current.pk,
                round_number=tie.round_number,
                board=tie.board,
            ),
            key,
        )
        existing = event_store.existing_for(league, submission)
        if existing is not None:
            return Fixture.objects.get(pk=existing.fixture_id)
        if tie.decided:
            errors.add(
                "fixture",
                _("The tie is decided (%(player)s goes through): it needs no other game."),
                "tie_decided",
                player=names.get(tie.winner, gettext("nobody")),  # type: ignore[arg-type]
            )
        elif last.pending:
            errors.add(
                "fixture",
                _("The tie's game has no result yet: a replay or a tie-break game follows "
                  "a draw."),
                "game_pending",
            )  # fmt: skip
        errors.raise_if_any()
        (event,) = event_store.append(league, [submission], recorded_by=recorded_by)
    return Fixture.objects.get(pk=event.fixture_id)


def tie_fixture(competition: Competition, round_number: Any, position: Any) -> Fixture:
    """The open game of tie ``position`` of round ``round_number`` (the one a result goes
    to). Refused for a round not yet paired (its ties have not started), a tie the bracket
    does not have, and a tie that is decided or waits for its replay or tie-break game."""
    errors = Errors()
    _not_a_cup(competition, errors)
    errors.raise_if_any()
    current = _refreshed(competition)
    number = _int(round_number)
    tie_number = _int(position)
    if number is None or not 1 <= number <= current.planned_rounds:
        errors.add(
            "round_number",
            _("%(event)s has rounds 1 to %(rounds)s; got %(value)r."),
            "invalid_round",
            event=current.name,
            rounds=current.planned_rounds,
            value=round_number,
        )
        errors.raise_if_any()
    assert number is not None
    if number > current.rounds_paired:
        errors.add(
            "round_number",
            _("Round %(round)s of %(event)s is not paired yet: its ties have not started."),
            "tie_not_started",
            round=number,
            event=current.name,
        )
        errors.raise_if_any()
    bracket = cup_bracket(current)
    assert bracket is not None
    ties = {tie.board: tie for tie in bracket.rounds[number - 1]}
    tie = None if tie_number is None else ties.get(tie_number)
    if tie is None:
        errors.add(
            "tie",
            _("Round %(round)s has ties %(ties)s; got %(value)r."),
            "unknown_tie",
            round=number,
            ties=", ".join(str(board) for board in sorted(ties)),
            value=position,
        )
        errors.raise_if_any()
    assert tie is not None
    open_games = [game for game in tie.games if game.pending]
    if tie.decided or not open_games:
        errors.add(
            "tie",
            _("The tie is decided.")
            if tie.decided
            else _("The tie's game was drawn: schedule its replay or tie-break game first."),
            "tie_closed",
        )
        errors.raise_if_any()
    return Fixture.objects.get(pk=open_games[0].fixture_id)


def _int(value: Any) -> int | None:
    try:
        number = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    return number if number >= 1 else None


__all__ = [
    "DECIDER",
    "GAME",
    "REPLAY",
    "Bracket",
    "Tie",
    "TieGame",
    "cup_bracket",
    "cup_depth",
    "propose_cup_round",
    "publish_cup_round",
    "schedule_tie_game",
    "tie_fixture",
    "tie_name",
]
