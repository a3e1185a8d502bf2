"""The event vocabulary: every fact a league's history can hold, as a frozen dataclass.

Facts are in the past tense and carry only their content. The circumstances of a submission
(who recorded it, when, under which idempotency key, its sequence number) belong to the
stored row, not to the fact. ``content_key`` is what a retried submission must repeat exactly
for its idempotency key to match.

``affects_ratings`` tells the read side whether a fact can change a rating: only facts about
matches and about who a match counts for (a merge, an unmerge) do; a rename or a
deactivation does not.

The event store (``league.event_store.store``) maps facts to ``Event`` rows and back; the
``events_appended`` signal carries the league and these objects.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar

from league.scores import points_margin


@dataclass(frozen=True, slots=True, kw_only=True)
class Fact:
    """Base of every event kind."""

    kind: ClassVar[str]
    affects_ratings: ClassVar[bool] = False

    def content_key(self) -> tuple[Any, ...]:
        """What must be equal for a retried submission to be the same submission."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerRegistered(Fact):
    """A player joined the league under ``display_name``."""

    kind: ClassVar[str] = "player_registered"
    player_id: int | None
    display_name: str

    def content_key(self) -> tuple[Any, ...]:
        # The id is assigned when the player is created: a retry does not know it yet.
        return (self.kind, self.display_name)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerRenamed(Fact):
    """A player is known as ``display_name`` from now on."""

    kind: ClassVar[str] = "player_renamed"
    player_id: int
    display_name: str
    reason: str = ""

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.player_id, self.display_name, self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerDeactivated(Fact):
    """No new result may be recorded for the player (their history stays)."""

    kind: ClassVar[str] = "player_deactivated"
    player_id: int
    reason: str = ""

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.player_id, self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerReactivated(Fact):
    """A deactivated player may have results recorded again."""

    kind: ClassVar[str] = "player_reactivated"
    player_id: int
    reason: str = ""

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.player_id, self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerMerged(Fact):
    """Player ``player_id`` is the same competitor as ``into_id``: from now on every match
    of ``player_id`` counts as ``into_id``'s, in every replay (``league.identities``)."""

    kind: ClassVar[str] = "player_merged"
    affects_ratings: ClassVar[bool] = True
    player_id: int
    into_id: int
    reason: str = ""

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.player_id, self.into_id, self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerUnmerged(Fact):
    """The merge of ``player_id`` into ``from_id`` is undone: their matches count as their
    own again."""

    kind: ClassVar[str] = "player_unmerged"
    affects_ratings: ClassVar[bool] = True
    player_id: int
    from_id: int
    reason: str = ""

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.player_id, self.from_id, self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerIdentified(Fact):
    """Player ``player_id`` is on FIDE's rating list as ``fide_id`` (blank: no FIDE id), of
    federation ``federation`` (three letters) with the title ``title`` (GM, IM, …, WCM or
    blank): what a TRF file's player record carries besides the name and rating (a player's
    sex and birth date are not kept: personal data that no page needs)."""

    kind: ClassVar[str] = "player_identified"
    player_id: int
    fide_id: str = ""
    federation: str = ""
    title: str = ""

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.player_id, self.fide_id, self.federation, self.title)


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchRecorded(Fact):
    """``player_a`` scored ``score_a`` (1, 0.5 or 0) against ``player_b`` at ``played_at``.

    ``replaces_id`` names the voided match this result corrects (with the correction's
    ``reason``); ``fixture_id`` the fixture the match played, if it was scheduled as one.
    ``neutral`` marks a match where the first-named side (home team, white)
    has no advantage (a neutral ground), for configurations with an advantage.
    """

    kind: ClassVar[str] = "match_recorded"
    affects_ratings: ClassVar[bool] = True
    player_a_id: int
    player_b_id: int
    score_a: Decimal
    played_at: dt.datetime
    points: str = ""
    note: str = ""
    replaces_id: int | None = None
    reason: str = ""
    fixture_id: int | None = None
    neutral: bool = False

    @property
    def margin(self) -> int | None:
        """``player_a``'s points minus ``player_b``'s when ``points`` is one "a-b" pair of
        whole numbers, else None (unknown); stored with the match for the margin mapping."""
        return points_margin(self.points)

    def content_key(self) -> tuple[Any, ...]:
        return (
            self.kind,
            self.player_a_id,
            self.player_b_id,
            self.score_a,
            self.played_at,
            self.points,
            self.note,
            self.replaces_id,
            self.reason,
            self.fixture_id,
            self.neutral,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class SideMatchRecorded(Fact):
    """A match with sides: ``sides[x]`` are the player ids of side x, ``places[x]`` its place.

    Places count from 0 (the best side); equal places are a tie. Two sides with side 0's
    score 1 / 0.5 / 0 have the places (0, 1) / (0, 0) / (1, 0) (``score_a`` says which).
    A one-vs-one match is never stated this way: it is a ``MatchRecorded``. ``fixture_id``
    names the fixture with sides the match played, if it was scheduled as one.
    """

    kind: ClassVar[str] = "side_match_recorded"
    affects_ratings: ClassVar[bool] = True
    sides: tuple[tuple[int, ...], ...]
    places: tuple[int, ...]
    played_at: dt.datetime
    points: str = ""
    note: str = ""
    replaces_id: int | None = None
    reason: str = ""
    fixture_id: int | None = None

    @property
    def score_a(self) -> Decimal | None:
        """Side 0's score for two sides (1, 0.5 or 0), None for three or more."""
        if len(self.places) != 2:
            return None
        a, b = self.places
        return Decimal("1") if a < b else Decimal("0.5") if a == b else Decimal("0")

    @property
    def player_ids(self) -> tuple[int, ...]:
        return tuple(player for side in self.sides for player in side)

    def content_key(self) -> tuple[Any, ...]:
        return (
            self.kind,
            self.sides,
            self.places,
            self.played_at,
            self.points,
            self.note,
            self.replaces_id,
            self.reason,
            self.fixture_id,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchVoided(Fact):
    """Match ``match_id`` no longer counts, for ``reason``."""

    kind: ClassVar[str] = "match_voided"
    affects_ratings: ClassVar[bool] = True
    match_id: int
    reason: str

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.match_id, self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class FixtureScheduled(Fact):
    """``player_a`` is to play ``player_b`` at ``scheduled_at``, by the local day ``deadline``.

    ``venue`` is where (a venue, table or board), ``label`` which round ("Swiss round 2").
    The fixture is created with the event: a retry does not know its id yet. A fixture of
    a competition's round names the competition, the round and, optionally, the board.

    A fixture with sides (doubles, teams, multi-player games) lists them in ``sides``, each
    side's player ids; ``player_a`` and ``player_b`` are then the first players of sides A
    and B. A one-vs-one fixture has no ``sides``.
    """

    kind: ClassVar[str] = "fixture_scheduled"
    fixture_id: int | None
    player_a_id: int
    player_b_id: int
    scheduled_at: dt.datetime
    deadline: dt.date
    venue: str = ""
    label: str = ""
    competition_id: int | None = None
    round_number: int | None = None
    board: int | None = None
    sides: tuple[tuple[int, ...], ...] = ()

    def content_key(self) -> tuple[Any, ...]:
        return (
            self.kind,
            self.player_a_id,
            self.player_b_id,
            self.scheduled_at,
            self.deadline,
            self.venue,
            self.label,
            self.competition_id,
            self.round_number,
            self.board,
            self.sides,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class FixtureRescheduled(Fact):
    """Fixture ``fixture_id`` moves to ``scheduled_at`` (deadline and venue as given)."""

    kind: ClassVar[str] = "fixture_rescheduled"
    fixture_id: int
    scheduled_at: dt.datetime
    deadline: dt.date
    venue: str = ""
    reason: str = ""

    def content_key(self) -> tuple[Any, ...]:
        return (
            self.kind,
            self.fixture_id,
            self.scheduled_at,
            self.deadline,
            self.venue,
            self.reason,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class FixtureCancelled(Fact):
    """Fixture ``fixture_id`` will not be played, for ``reason``."""

    kind: ClassVar[str] = "fixture_cancelled"
    fixture_id: int
    reason: str = ""

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.fixture_id, self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReportSubmitted(Fact):
    """Player ``player_id`` reported a result of their own: ``sides`` (player ids) finished
    in ``places`` (from 0; ties share one) at ``played_at``, as a match would be recorded.

    The report is created with the event: a retry does not know its id yet. The result
    counts only once a ``report_confirmed`` fact says so (it then records the match).
    """

    kind: ClassVar[str] = "report_submitted"
    report_id: int | None
    player_id: int
    sides: tuple[tuple[int, ...], ...]
    places: tuple[int, ...]
    played_at: dt.datetime
    points: str = ""
    note: str = ""
    neutral: bool = False

    def content_key(self) -> tuple[Any, ...]:
        return (
            self.kind,
            self.player_id,
            self.sides,
            self.places,
            self.played_at,
            self.points,
            self.note,
            self.neutral,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ReportConfirmed(Fact):
    """Report ``report_id`` is confirmed and counts as match ``match_id``.

    ``player_id`` is the player of another side who confirmed it; None when an organiser
    did (the stored row names them) or when it was accepted for want of a dispute
    (``reason`` says so).
    """

    kind: ClassVar[str] = "report_confirmed"
    report_id: int
    match_id: int
    player_id: int | None = None
    reason: str = ""

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.report_id, self.match_id, self.player_id, self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReportDisputed(Fact):
    """Player ``player_id`` (of another side) says report ``report_id`` is wrong, for
    ``reason``: an organiser decides."""

    kind: ClassVar[str] = "report_disputed"
    report_id: int
    player_id: int
    reason: str

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.report_id, self.player_id, self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReportRejected(Fact):
    """An organiser rejected report ``report_id`` for ``reason``: it never counts."""

    kind: ClassVar[str] = "report_rejected"
    report_id: int
    reason: str

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.report_id, self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReportWithdrawn(Fact):
    """Player ``player_id``, who reported ``report_id``, took it back before it counted."""

    kind: ClassVar[str] = "report_withdrawn"
    report_id: int
    player_id: int
    reason: str = ""

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.report_id, self.player_id, self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class ChallengeIssued(Fact):
    """``challenger_id`` challenged ``challenged_id``, who may answer until the local day
    ``respond_by``. The challenge is created with the event."""

    kind: ClassVar[str] = "challenge_issued"
    challenge_id: int | None
    challenger_id: int
    challenged_id: int
    respond_by: dt.date

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.challenger_id, self.challenged_id, self.respond_by)


@dataclass(frozen=True, slots=True, kw_only=True)
class ChallengeAccepted(Fact):
    """Challenge ``challenge_id`` was accepted: it is played as fixture ``fixture_id``."""

    kind: ClassVar[str] = "challenge_accepted"
    challenge_id: int
    fixture_id: int

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.challenge_id, self.fixture_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class ChallengeDeclined(Fact):
    """The challenged player declined challenge ``challenge_id``."""

    kind: ClassVar[str] = "challenge_declined"
    challenge_id: int
    reason: str = ""

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.challenge_id, self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class ChallengeExpired(Fact):
    """Challenge ``challenge_id`` was not answered by its day. ``forfeit``: the league's
    rules give the challenger the win by forfeit, which is recorded here and never rated."""

    kind: ClassVar[str] = "challenge_expired"
    challenge_id: int
    forfeit: bool = False

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.challenge_id, self.forfeit)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerClaimed(Fact):
    """The person with account ``account_id`` holds player ``player_id`` from now on
    (``league.player_accounts``): they act for that player where the league lets players act.
    """

    kind: ClassVar[str] = "player_claimed"
    player_id: int
    account_id: int
    reason: str = ""

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.player_id, self.account_id, self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerReleased(Fact):
    """Account ``account_id`` no longer holds player ``player_id`` (the player record and its
    history stay)."""

    kind: ClassVar[str] = "player_released"
    player_id: int
    account_id: int
    reason: str = ""

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.player_id, self.account_id, self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerForgotten(Fact):
    """The person behind player ``player_id`` was forgotten: their name is erased from the
    league (the player shows as "Forgotten player <id>") and no account holds the player.
    Their matches and ratings stay exactly as they were (``league.forgetting``)."""

    kind: ClassVar[str] = "player_forgotten"
    player_id: int

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.player_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class CompetitionCreated(Fact):
    """An event inside the league (a competition) was created with these settings.

    ``format`` is a ``CompetitionFormat`` value; ``bye_points`` what a pairing-allocated
    bye scores; ``rated`` whether its results feed the league's ratings (fixed for good);
    ``tiebreaks`` the tie-break codes in the organiser's order. The competition is created
    with the event: a retry does not know its id yet.
    """

    kind: ClassVar[str] = "competition_created"
    competition_id: int | None
    slug: str
    name: str
    format: str
    planned_rounds: int
    bye_points: Decimal = Decimal("1")
    rated: bool = True
    tiebreaks: tuple[str, ...] = ()
    start_date: dt.date | None = None
    end_date: dt.date | None = None
    season_id: int | None = None
    #: A knockout cup's settings: how a drawn game is settled, whether third place is played.
    draw_rule: str = ""
    third_place: bool = False
    #: A double-elimination cup (``planned_rounds`` its rounds of play), and whether its
    #: grand final is played again when the losers' bracket champion wins it.
    double_elimination: bool = False
    bracket_reset: bool = False
    #: A chess Swiss event's first rounds are paired with Baku acceleration (C.04.5.1).
    accelerated: bool = False

    def content_key(self) -> tuple[Any, ...]:
        return (
            self.kind,
            self.slug,
            self.name,
            self.format,
            self.planned_rounds,
            self.bye_points,
            self.rated,
            self.tiebreaks,
            self.start_date,
            self.end_date,
            self.season_id,
            self.draw_rule,
            self.third_place,
            self.double_elimination,
            self.bracket_reset,
            self.accelerated,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class EntrantEntered(Fact):
    """Player ``player_id`` entered competition ``competition_id`` from round ``from_round``
    (after round 1: a late entry), seeded by ``seed_rating`` when one is given.

    ``number`` (the pairing number) is given by the store in the order of entry: a retry
    does not know it yet.
    """

    kind: ClassVar[str] = "entrant_entered"
    competition_id: int
    player_id: int
    from_round: int = 1
    seed_rating: float | None = None
    number: int | None = None

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.competition_id, self.player_id, self.from_round, self.seed_rating)


@dataclass(frozen=True, slots=True, kw_only=True)
class EntrantWithdrawn(Fact):
    """Player ``player_id`` is withdrawn from competition ``competition_id``: not paired from
    round ``from_round`` on (their earlier games stand)."""

    kind: ClassVar[str] = "entrant_withdrawn"
    competition_id: int
    player_id: int
    from_round: int
    reason: str = ""

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.competition_id, self.player_id, self.from_round, self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class ByeRequested(Fact):
    """Player ``player_id`` asked to sit out round ``round_number`` of the competition, before
    it was paired: ``bye_kind`` is ``requested_half`` (½ point) or ``requested_zero``."""

    kind: ClassVar[str] = "bye_requested"
    competition_id: int
    player_id: int
    round_number: int
    bye_kind: str
    points: Decimal

    def content_key(self) -> tuple[Any, ...]:
        return (
            self.kind,
            self.competition_id,
            self.player_id,
            self.round_number,
            self.bye_kind,
            self.points,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundPaired(Fact):
    """Round ``round_number`` of the competition was published: its byes are
    ``(player_id, bye kind, points)`` (the requested ones it honoured and the one the pairing
    allocated); its games are the ``FixtureScheduled`` facts stored with it. Round 1 of a
    knockout cup carries its ``bracket``: the player ids in slot order (None: an empty slot,
    a bye for the seed beside it), from which every later round follows."""

    kind: ClassVar[str] = "round_paired"
    competition_id: int
    round_number: int
    byes: tuple[tuple[int, str, Decimal], ...] = ()
    bracket: tuple[int | None, ...] = ()

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.competition_id, self.round_number, self.byes, self.bracket)


@dataclass(frozen=True, slots=True, kw_only=True)
class PairingForbidden(Fact):
    """No two of the players ``player_ids`` may be paired against each other in rounds
    ``first_round`` to ``last_round`` of competition ``competition_id`` (a prohibited pairing,
    TRF record 260: players of one club or family, for instance)."""

    kind: ClassVar[str] = "pairing_forbidden"
    competition_id: int
    player_ids: tuple[int, ...]
    first_round: int
    last_round: int
    reason: str = ""

    def content_key(self) -> tuple[Any, ...]:
        return (
            self.kind,
            self.competition_id,
            self.player_ids,
            self.first_round,
            self.last_round,
            self.reason,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ForfeitRecorded(Fact):
    """Fixture ``fixture_id`` was not played: ``winner_id`` (one of its two players) wins by
    forfeit and gets a win's points, the other a loss; no winner is a double forfeit (both
    lose). A forfeit is never rated."""

    kind: ClassVar[str] = "forfeit_recorded"
    fixture_id: int
    winner_id: int | None
    note: str = ""

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.fixture_id, self.winner_id, self.note)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerSeeded(Fact):
    """Player ``player_id`` starts from ``rating`` with deviation ``rd``, taken from a rating
    list of kind ``list_kind`` (fide, national, club) behind which stand ``games`` rated
    games (None: not known). Every replay starts the player from it (the latest seed of a
    player counts); ``reason`` says where it comes from ("FIDE list, March 2026")."""

    kind: ClassVar[str] = "player_seeded"
    affects_ratings: ClassVar[bool] = True
    player_id: int
    rating: float
    rd: float
    list_kind: str
    games: int | None = None
    reason: str = ""

    def content_key(self) -> tuple[Any, ...]:
        return (
            self.kind,
            self.player_id,
            self.rating,
            self.rd,
            self.list_kind,
            self.games,
            self.reason,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class TeamCreated(Fact):
    """A team (a club) of the league was made under ``name`` (its address ``slug``)."""

    kind: ClassVar[str] = "team_created"
    team_id: int | None
    name: str
    slug: str

    def content_key(self) -> tuple[Any, ...]:
        # The id is assigned when the team is created: a retry does not know it yet.
        return (self.kind, self.name, self.slug)


@dataclass(frozen=True, slots=True, kw_only=True)
class RosterPlayerAdded(Fact):
    """A player of the league joined team ``team_id``'s roster."""

    kind: ClassVar[str] = "roster_player_added"
    team_id: int
    player_id: int

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.team_id, self.player_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class ClubMatchScheduled(Fact):
    """Team ``home_id`` is to meet team ``away_id`` over ``boards`` boards; ``points`` are the
    match points of a win, a draw and a loss."""

    kind: ClassVar[str] = "club_match_scheduled"
    club_match_id: int | None
    home_id: int
    away_id: int
    boards: int
    scheduled_at: dt.datetime
    venue: str = ""
    points: tuple[Decimal, Decimal, Decimal] = (Decimal("2"), Decimal("1"), Decimal("0"))

    def content_key(self) -> tuple[Any, ...]:
        return (
            self.kind, self.home_id, self.away_id, self.boards, self.scheduled_at, self.venue,
            self.points,
        )  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class BoardOrderSubmitted(Fact):
    """Team ``team_id`` plays club match ``club_match_id`` with ``player_ids`` on its boards,
    board 1 first (a later order replaces it until the match is recorded)."""

    kind: ClassVar[str] = "board_order_submitted"
    club_match_id: int
    team_id: int
    player_ids: tuple[int, ...]
    #: Who handed it in: "organiser" or "captain" (the team's captain, signed in).
    by: str = "organiser"

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.club_match_id, self.team_id, self.player_ids, self.by)


@dataclass(frozen=True, slots=True, kw_only=True)
class ClubMatchRecorded(Fact):
    """Club match ``club_match_id`` was played: ``game_ids`` are its board games (each a
    ``match_recorded`` fact, board 1 first)."""

    kind: ClassVar[str] = "club_match_recorded"
    club_match_id: int
    game_ids: tuple[int, ...]

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.club_match_id, self.game_ids)


@dataclass(frozen=True, slots=True, kw_only=True)
class ClubMatchVoided(Fact):
    """Club match ``club_match_id``'s result no longer counts (its board games are voided by
    ``match_voided`` facts of their own, appended with it)."""

    kind: ClassVar[str] = "club_match_voided"
    club_match_id: int
    reason: str = ""

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.club_match_id, self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class TeamCaptainSet(Fact):
    """Player ``player_id`` of team ``team_id``'s roster is its captain from now on: they
    may hand in the team's board orders themselves, signed in."""

    kind: ClassVar[str] = "team_captain_set"
    team_id: int
    player_id: int

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.team_id, self.player_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class ClubSeasonSet(Fact):
    """Season ``season_id``'s club matches are played over ``boards`` boards for ``points``
    (match points of a win, a draw and a loss); a club match scheduled in it takes them."""

    kind: ClassVar[str] = "club_season_set"
    season_id: int
    boards: int
    points: tuple[Decimal, Decimal, Decimal] = (Decimal("2"), Decimal("1"), Decimal("0"))

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.season_id, self.boards, self.points)


@dataclass(frozen=True, slots=True, kw_only=True)
class DivisionsSet(Fact):
    """Season ``season_id``'s divisions, top first: each a name and its players' ids;
    ``promotion`` go up and down between adjacent divisions at the season's end, newcomers
    to the next season go to division ``newcomers`` (1 = top; 0: the bottom one);
    ``proposed``: the divisions were proposed by promotion and relegation from the season
    before (not set by hand). Replaces the season's divisions while they are not fixed."""

    kind: ClassVar[str] = "divisions_set"
    season_id: int
    divisions: tuple[tuple[str, tuple[int, ...]], ...]
    promotion: int
    newcomers: int = 0
    proposed: bool = False

    def content_key(self) -> tuple[Any, ...]:
        return (
            self.kind,
            self.season_id,
            self.divisions,
            self.promotion,
            self.newcomers,
            self.proposed,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class DivisionPlayerMoved(Fact):
    """Player ``player_id`` moved from division ``from_division`` to ``to_division``
    (places from the top, 1 first) of season ``season_id``'s divisions, not yet fixed."""

    kind: ClassVar[str] = "division_player_moved"
    season_id: int
    player_id: int
    from_division: int
    to_division: int

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.season_id, self.player_id, self.from_division, self.to_division)


@dataclass(frozen=True, slots=True, kw_only=True)
class DivisionsFixed(Fact):
    """Season ``season_id``'s divisions are fixed: no player moves any more."""

    kind: ClassVar[str] = "divisions_fixed"
    season_id: int

    def content_key(self) -> tuple[Any, ...]:
        return (self.kind, self.season_id)


#: Every event kind, by its stored ``kind`` value.
KINDS: dict[str, type[Fact]] = {
    cls.kind: cls
    for cls in (
        PlayerRegistered,
        PlayerRenamed,
        PlayerDeactivated,
        PlayerReactivated,
        PlayerMerged,
        PlayerUnmerged,
        PlayerIdentified,
        MatchRecorded,
        SideMatchRecorded,
        MatchVoided,
        FixtureScheduled,
        FixtureRescheduled,
        FixtureCancelled,
        ReportSubmitted,
        ReportConfirmed,
        ReportDisputed,
        ReportRejected,
        ReportWithdrawn,
        ChallengeIssued,
        ChallengeAccepted,
        ChallengeDeclined,
        ChallengeExpired,
        PlayerClaimed,
        PlayerReleased,
        PlayerForgotten,
        CompetitionCreated,
        EntrantEntered,
        EntrantWithdrawn,
        ByeRequested,
        RoundPaired,
        ForfeitRecorded,
        PlayerSeeded,
        PairingForbidden,
        TeamCreated,
        RosterPlayerAdded,
        ClubMatchScheduled,
        BoardOrderSubmitted,
        ClubMatchRecorded,
        ClubMatchVoided,
        TeamCaptainSet,
        ClubSeasonSet,
        DivisionsSet,
        DivisionPlayerMoved,
        DivisionsFixed,
    )
}
