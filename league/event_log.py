"""Reads of a league's event log that need no rating: the match list and the event log.

Both read ``Event`` rows only (no projection), newest first, one page at a time, as plain
dataclasses whose text (an event's summary, a match's result) is composed here once for
every page that shows it. ``Page`` is the page of any list: the read side's lists (a
player's results, a version comparison) use it too.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from math import ceil
from zoneinfo import ZoneInfo

from django.db.models import Q

from league.calendar import league_zone, local_day, local_midnight
from league.models import Event, League, MatchParticipant
from league.scores import score_text
from league.sides import positions_text, side_label

DEFAULT_PER_PAGE = 50
MAX_PER_PAGE = 500
# Page numbers past this are read as this (selectors then show the last page): the row
# offset of a larger one would not fit the database's 64-bit integers.
MAX_PAGE = 10**9


@dataclass(frozen=True)
class Page:
    """A page of any list, with its position."""

    items: list
    total: int
    page: int
    per_page: int

    @property
    def num_pages(self) -> int:
        return max(1, ceil(self.total / self.per_page))


def clamp_page(page: int, per_page: int) -> tuple[int, int]:
    """``page`` between 1 and ``MAX_PAGE``, ``per_page`` between 1 and ``MAX_PER_PAGE``."""
    per_page = max(1, min(int(per_page), MAX_PER_PAGE))
    return max(1, min(int(page), MAX_PAGE)), per_page


def last_page_at_most(page: int, total: int, per_page: int) -> int:
    """``page``, or the last page of ``total`` items when ``page`` is past it."""
    return min(page, max(1, ceil(total / per_page)))


@dataclass(frozen=True)
class SidePlayer:
    id: int
    name: str
    slug: str


@dataclass(frozen=True)
class SideText:
    """One side of a match with sides as shown: its letter, players and finishing position."""

    label: str
    players: list[SidePlayer]
    position: int
    tied: bool

    @property
    def names(self) -> str:
        return " & ".join(player.name for player in self.players)

    @property
    def position_text(self) -> str:
        """ "1st", "=2nd" (tied), …"""
        n = self.position
        suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        return f"{'=' if self.tied else ''}{n}{suffix}"


@dataclass(frozen=True)
class SideMatchText:
    """A match with sides as shown on pages: its sides in order and side A's score."""

    sides: list[SideText]
    score_a: Decimal | None

    @property
    def summary(self) -> str:
        """ "Ana & Ben 1-0 Cai & Dee" (en dash), or the finishing order of three or more sides."""
        if self.score_a is not None and len(self.sides) == 2:
            a, b = self.sides
            return f"{a.names} {score_text(self.score_a)} {b.names}"
        ordered = sorted(self.sides, key=lambda side: side.position)
        return ", ".join(f"{side.position_text} {side.names}" for side in ordered)

    @property
    def by_position(self) -> list[SideText]:
        """The sides from first to last (ties in the order given)."""
        return sorted(self.sides, key=lambda side: side.position)

    def side_of(self, player_id: int) -> SideText | None:
        for side in self.sides:
            if any(player.id == player_id for player in side.players):
                return side
        return None


def side_match_texts_of(events: Iterable[Event]) -> dict[int, SideMatchText]:
    """:func:`side_match_texts` of the matches with sides among ``events`` (by event id)."""
    return side_match_texts(
        [event.pk for event in events if event.kind == Event.Kind.SIDE_MATCH_RECORDED]
    )


def side_match_texts(event_ids: list[int]) -> dict[int, SideMatchText]:
    """The sides of each match with sides among ``event_ids``, in one query."""
    members: dict[int, dict[int, list[SidePlayer]]] = {}
    places: dict[int, dict[int, int]] = {}
    scores: dict[int, Decimal | None] = {}
    rows = (
        MatchParticipant.objects.filter(event_id__in=event_ids)
        .order_by("event", "side", "id")
        .values_list(
            "event_id", "side", "place", "player_id", "player__display_name", "player__slug",
            "event__score_a",
        )
    )  # fmt: skip
    for event_id, side, place, player_id, name, slug, score_a in rows:
        members.setdefault(event_id, {}).setdefault(side, []).append(
            SidePlayer(player_id, name, slug)
        )
        places.setdefault(event_id, {})[side] = place
        scores[event_id] = score_a
    texts = {}
    for event_id, sides in members.items():
        order = sorted(sides)
        ranks = [places[event_id][x] for x in order]
        positions = positions_text(ranks)
        texts[event_id] = SideMatchText(
            sides=[
                SideText(side_label(x), sides[x], position, ranks.count(ranks[i]) > 1)
                for i, (x, position) in enumerate(zip(order, positions, strict=True))
            ],
            score_a=scores[event_id],
        )
    return texts


@dataclass(frozen=True)
class MatchRow:
    seq: int
    played_on: dt.date
    player_a: str
    player_a_slug: str
    player_b: str
    player_b_slug: str
    score_a: Decimal
    score_b: Decimal
    points: str
    note: str
    voided_by: int | None
    replaces: int | None
    #: A match with sides: its sides (``player_a``/``player_b`` are then empty).
    sides: SideMatchText | None = None

    @property
    def result(self) -> str:
        """The result from player A's side, as the event log writes it (1, ½ or 0 each)."""
        if self.sides is not None and self.score_a is None:
            return "Finishing order"
        return score_text(self.score_a)


@dataclass(frozen=True)
class EventRow:
    seq: int
    kind: str
    kind_label: str
    recorded_at: dt.datetime
    recorded_by: str
    summary: str
    reason: str
    voided_by: int | None
    voids: int | None


#: A span of moments: the first one in it and the first one after it (a season's days).
Span = tuple[dt.datetime, dt.datetime]


def match_list(
    league: League,
    *,
    page: int = 1,
    per_page: int = DEFAULT_PER_PAGE,
    between: Span | None = None,
) -> Page:
    """Every recorded match, newest first; voided ones say which event voided them.

    ``between`` keeps the matches played from its first moment to before its second.
    """
    page, per_page = clamp_page(page, per_page)
    matches = Event.objects.all_matches().filter(league=league).order_by("-played_at", "-seq")
    if between is not None:
        matches = matches.filter(played_at__gte=between[0], played_at__lt=between[1])
    total = matches.count()
    page = last_page_at_most(page, total, per_page)
    offset = (page - 1) * per_page
    tz = league_zone(league)
    rows = list(matches.values_list(
        "seq", "played_at", "player_a__display_name", "player_a__slug",
        "player_b__display_name", "player_b__slug", "score_a", "points", "note",
        "voided_by__seq", "replaces__seq", "kind", "pk",
    )[offset : offset + per_page])  # fmt: skip
    sides = side_match_texts([row[-1] for row in rows if row[-2] == Event.Kind.SIDE_MATCH_RECORDED])
    items = [
        MatchRow(
            seq=seq,
            played_on=local_day(played_at, tz),
            player_a=a_name or "",
            player_a_slug=a_slug or "",
            player_b=b_name or "",
            player_b_slug=b_slug or "",
            score_a=score_a,
            score_b=None if score_a is None else Decimal(1) - score_a,
            points=points,
            note=note,
            voided_by=voided_by,
            replaces=replaces,
            sides=sides.get(pk),
        )
        for (
            seq, played_at, a_name, a_slug, b_name, b_slug, score_a, points, note, voided_by,
            replaces, _kind, pk,
        ) in rows
    ]  # fmt: skip
    return Page(items, total, page, per_page)


def _former_names(league: League, rows: list[tuple]) -> dict[int, str]:
    """For each rename among ``rows`` (by seq; a row's player id at 17), the name the player
    had just before it.

    A player's names are the names their registration and renames stored, in seq order
    (registrations stored before names were kept on the event have none: no former name).
    """
    # Column 17 of the event log's rows is ``player_id``.
    renames = [(row[0], row[17]) for row in rows if row[1] == Event.Kind.PLAYER_RENAMED]
    if not renames:
        return {}
    named = (
        Event.objects.filter(
            league=league,
            kind__in=[Event.Kind.PLAYER_REGISTERED, Event.Kind.PLAYER_RENAMED],
            player_id__in={player_id for _, player_id in renames},
            seq__lt=max(seq for seq, _ in renames),
        )
        .order_by("seq")
        .values_list("player_id", "seq", "display_name")
    )
    history: dict[int, list[tuple[int, str | None]]] = {}
    for player_id, seq, name in named:
        history.setdefault(player_id, []).append((seq, name))
    former: dict[int, str] = {}
    for seq, player_id in renames:
        earlier = [name for at, name in history.get(player_id, []) if at < seq]
        if earlier and earlier[-1]:
            former[seq] = earlier[-1]
    return former


def _about_player(name: str) -> Q:
    """Events naming a player whose name contains ``name`` (any case)."""
    q = Q()
    for field in ("player", "player_a", "player_b", "voids__player_a", "voids__player_b"):
        q |= Q(**{f"{field}__display_name__icontains": name})
    return q


def _played_on(day: dt.date, tz: ZoneInfo) -> Q:
    """Matches played on local ``day`` and the voids of such matches."""
    start = local_midnight(day, tz)
    end = local_midnight(day + dt.timedelta(days=1), tz)
    return Q(played_at__gte=start, played_at__lt=end) | Q(
        voids__played_at__gte=start, voids__played_at__lt=end
    )


def event_log(
    league: League,
    *,
    page: int = 1,
    per_page: int = DEFAULT_PER_PAGE,
    player: str = "",
    played_on: dt.date | None = None,
) -> Page:
    """Every event of the league, newest first, described in words.

    ``player`` keeps the events naming a player whose name contains it; ``played_on`` the
    matches played on that local day (and their voids).
    """
    page, per_page = clamp_page(page, per_page)
    events = Event.objects.filter(league=league).order_by("-seq")
    if player:
        events = events.filter(_about_player(player))
    if played_on is not None:
        events = events.filter(_played_on(played_on, league_zone(league)))
    total = events.count()
    page = last_page_at_most(page, total, per_page)
    offset = (page - 1) * per_page
    tz = league_zone(league)
    labels = dict(Event.Kind.choices)
    rows = list(events.values_list(
        "seq", "kind", "recorded_at", "recorded_by__username", "player__display_name",
        "display_name", "played_at", "player_a__display_name", "player_b__display_name",
        "score_a", "points", "reason", "voids__seq", "voids__player_a__display_name",
        "voids__player_b__display_name", "voided_by__seq", "replaces__seq", "player_id",
        "other_player__display_name", "pk", "voids_id",
        "fixture__player_a__display_name", "fixture__player_b__display_name", "scheduled_at",
        "venue", "note",
    )[offset : offset + per_page])  # fmt: skip
    former = _former_names(league, rows)
    # Columns 19 and 20 of the rows are ``pk`` and ``voids_id``.
    sides = side_match_texts(
        [row[19] for row in rows if row[1] == Event.Kind.SIDE_MATCH_RECORDED]
        + [row[20] for row in rows if row[1] == Event.Kind.MATCH_VOIDED]
    )
    items = []
    for (
        seq, kind, recorded_at, recorded_by, player, name, played_at, a_name, b_name, score_a,
        points, reason, voids, voids_a, voids_b, voided_by, replaces, _player_id, other, pk,
        voids_id, fixture_a, fixture_b, scheduled_at, venue, label,
    ) in rows:  # fmt: skip
        if kind == Event.Kind.PLAYER_REGISTERED:
            # Registrations stored before names were kept on the event show today's name.
            summary = f"{name or player} registered"
        elif kind == Event.Kind.PLAYER_RENAMED:
            before = former.get(seq)
            summary = f"{before} renamed to {name}" if before else f"Renamed to {name}"
            if player != name:
                summary += f" (now {player})"
        elif kind == Event.Kind.PLAYER_DEACTIVATED:
            summary = f"{player} deactivated: no new results until reactivated"
        elif kind == Event.Kind.PLAYER_REACTIVATED:
            summary = f"{player} reactivated"
        elif kind == Event.Kind.PLAYER_MERGED:
            summary = f"{player} merged into {other}: {player}'s matches count as {other}'s"
        elif kind == Event.Kind.PLAYER_UNMERGED:
            summary = f"{player} unmerged from {other}: {player}'s matches count as their own again"
        elif kind == Event.Kind.MATCH_RECORDED:
            summary = f"{a_name} {score_text(score_a)} {b_name}"
            if points:
                summary += f" ({points})"
            summary += f", played {local_day(played_at, tz):%d %b %Y}"
            if replaces:
                summary += f"; corrects match #{replaces}"
        elif kind == Event.Kind.SIDE_MATCH_RECORDED:
            text = sides.get(pk)
            summary = text.summary if text is not None else labels[kind]
            if points:
                summary += f" ({points})"
            summary += f", played {local_day(played_at, tz):%d %b %Y}"
            if replaces:
                summary += f"; corrects match #{replaces}"
        elif kind == Event.Kind.MATCH_VOIDED and voids_id in sides:
            teams = " v ".join(side.names for side in sides[voids_id].sides)
            summary = f"Match #{voids} ({teams}) voided"
        elif kind == Event.Kind.MATCH_VOIDED:
            summary = f"Match #{voids} ({voids_a} v {voids_b}) voided"
        elif kind in (Event.Kind.FIXTURE_SCHEDULED, Event.Kind.FIXTURE_RESCHEDULED):
            verb = "scheduled" if kind == Event.Kind.FIXTURE_SCHEDULED else "moved to"
            when = scheduled_at.astimezone(tz)
            summary = f"{fixture_a} v {fixture_b} {verb} {when:%d %b %Y %H:%M}"
            if venue:
                summary += f" at {venue}"
            if label and kind == Event.Kind.FIXTURE_SCHEDULED:
                summary += f" ({label})"
        elif kind == Event.Kind.FIXTURE_CANCELLED:
            summary = f"{fixture_a} v {fixture_b} cancelled"
        else:
            summary = labels.get(kind, kind)
        items.append(
            EventRow(
                seq=seq,
                kind=kind,
                kind_label=labels.get(kind, kind),
                recorded_at=recorded_at.astimezone(tz),
                recorded_by=recorded_by or "",
                summary=summary,
                reason=reason,
                voided_by=voided_by,
                voids=voids,
            )
        )
    return Page(items, total, page, per_page)
