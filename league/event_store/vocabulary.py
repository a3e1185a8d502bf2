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
    A one-vs-one match is never stated this way: it is a ``MatchRecorded``.
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
    The fixture is created with the event: a retry does not know its id yet.
    """

    kind: ClassVar[str] = "fixture_scheduled"
    fixture_id: int | None
    player_a_id: int
    player_b_id: int
    scheduled_at: dt.datetime
    deadline: dt.date
    venue: str = ""
    label: str = ""

    def content_key(self) -> tuple[Any, ...]:
        return (
            self.kind,
            self.player_a_id,
            self.player_b_id,
            self.scheduled_at,
            self.deadline,
            self.venue,
            self.label,
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
        MatchRecorded,
        MatchVoided,
        SideMatchRecorded,
        FixtureScheduled,
        FixtureRescheduled,
        FixtureCancelled,
        PlayerSeeded,
    )
}
