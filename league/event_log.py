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
from django.utils.translation import gettext, pgettext
from django.utils.translation import gettext as _

from league.calendar import (
    league_zone,
    local_day,
    local_midnight,
    page_day_text,
    page_moment_text,
)
from league.club_log import ClubNames, club_summary
from league.models import (
    CHALLENGE_KINDS,
    CLUB_KINDS,
    COMPETITION_KINDS,
    DIVISION_KINDS,
    FIXTURE_KINDS,
    MATCH_KINDS,
    REPORT_KINDS,
    ByeKind,
    ChallengeStatus,
    CompetitionFormat,
    Event,
    FixtureSide,
    League,
    MatchParticipant,
    Player,
    Report,
    Season,
)
from league.scores import score_text
from league.seasons import points_text
from league.seeding import seed_summary
from league.sides import places_of_score, positions_text, side_label

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
        if n == 1:
            ordinal = pgettext("finishing position 1", "%(n)sst")
        elif 10 <= n % 100 <= 20 or n % 10 not in (1, 2, 3):
            ordinal = pgettext("finishing position", "%(n)sth")
        elif n % 10 == 1:
            ordinal = pgettext("finishing position ending in 1", "%(n)sst")
        elif n % 10 == 2:
            ordinal = pgettext("finishing position ending in 2", "%(n)snd")
        else:
            ordinal = pgettext("finishing position ending in 3", "%(n)srd")
        return ("=" if self.tied else "") + ordinal % {"n": n}


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


def pair_text(a: SidePlayer, b: SidePlayer, score_a: Decimal) -> SideMatchText:
    """The text of a one-vs-one match: two sides of one player, places from the score."""
    places = places_of_score(score_a)
    first, second = positions_text(places)
    tied = places[0] == places[1]
    return SideMatchText(
        sides=[SideText("A", [a], first, tied), SideText("B", [b], second, tied)],
        score_a=score_a,
    )


def report_texts(report_ids: Iterable[int]) -> dict[int, SideMatchText]:
    """The text of each reported result (by report id), as its match would read."""
    reports = list(Report.objects.filter(pk__in=set(report_ids)))
    ids = {pid for report in reports for pid in report.player_ids}
    players = {
        pid: SidePlayer(pid, name, slug)
        for pid, name, slug in Player.objects.filter(pk__in=ids).values_list(
            "pk", "display_name", "slug"
        )
    }
    texts = {}
    for report in reports:
        positions = positions_text(report.places)
        sides = [
            SideText(
                side_label(index),
                [players[pid] for pid in members],
                positions[index],
                report.places.count(report.places[index]) > 1,
            )
            for index, members in enumerate(report.sides)
        ]
        score_a = None
        if len(report.places) == 2:
            a, b = report.places
            score_a = Decimal("1") if a < b else Decimal("0.5") if a == b else Decimal("0")
        texts[report.pk] = SideMatchText(sides=sides, score_a=score_a)
    return texts


def match_texts_of(events: Iterable[Event]) -> dict[int, SideMatchText]:
    """The text of every match among ``events`` (by event id): one-vs-one ones from their
    players (``player_a``/``player_b`` loaded), the others' sides in one query."""
    matches = [event for event in events if event.kind in MATCH_KINDS]
    texts = side_match_texts(
        [event.pk for event in matches if event.kind == Event.Kind.SIDE_MATCH_RECORDED]
    )
    for event in matches:
        if event.kind == Event.Kind.MATCH_RECORDED:
            a, b = event.player_a, event.player_b
            texts[event.pk] = pair_text(
                SidePlayer(a.pk, a.display_name, a.slug),
                SidePlayer(b.pk, b.display_name, b.slug),
                event.score_a,
            )
    return texts


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
    """A recorded match as the match list shows it, whatever its sides."""

    seq: int
    played_on: dt.date
    sides: SideMatchText
    score_a: Decimal | None
    score_b: Decimal | None
    points: str
    note: str
    voided_by: int | None
    replaces: int | None

    @property
    def result(self) -> str:
        """The result from side A's side, as the event log writes it (1, ½ or 0 each)."""
        if self.score_a is None:
            return gettext("Finishing order")
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
        "seq", "played_at", "player_a_id", "player_a__display_name", "player_a__slug",
        "player_b_id", "player_b__display_name", "player_b__slug", "score_a", "points", "note",
        "voided_by__seq", "replaces__seq", "kind", "pk",
    )[offset : offset + per_page])  # fmt: skip
    texts = side_match_texts([row[-1] for row in rows if row[-2] == Event.Kind.SIDE_MATCH_RECORDED])
    items = [
        MatchRow(
            seq=seq,
            played_on=local_day(played_at, tz),
            sides=texts[pk]
            if kind == Event.Kind.SIDE_MATCH_RECORDED
            else pair_text(SidePlayer(*a), SidePlayer(*b), score_a),
            score_a=score_a,
            score_b=None if score_a is None else Decimal(1) - score_a,
            points=points,
            note=note,
            voided_by=voided_by,
            replaces=replaces,
        )
        for (
            seq, played_at, *a_b, score_a, points, note, voided_by, replaces, kind, pk,
        ) in rows
        for a, b in [(a_b[:3], a_b[3:])]
    ]  # fmt: skip
    return Page(items, total, page, per_page)


def match_position(league: League, seq: int) -> int | None:
    """How many matches come before the match ``seq`` in ``match_list``'s order (newest
    played first), or None when the league has no match ``seq``."""
    match = Event.objects.all_matches().filter(league=league, seq=seq).values("played_at").first()
    if match is None:
        return None
    played_at = match["played_at"]
    return (
        Event.objects.all_matches()
        .filter(league=league)
        .filter(Q(played_at__gt=played_at) | Q(played_at=played_at, seq__gt=seq))
        .count()
    )


def _former_names(league: League, rows: list[tuple]) -> dict[int, str]:
    """For each rename among ``rows`` (by seq; a row's player id at 12), the name the player
    had just before it.

    A player's names are the names their registration and renames stored, in seq order
    (registrations stored before names were kept on the event have none: no former name).
    """
    # Column 12 of the event log's rows is ``player_id``.
    renames = [(row[0], row[12]) for row in rows if row[1] == Event.Kind.PLAYER_RENAMED]
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
    for field in (
        "player", "player_a", "player_b", "voids__player_a", "voids__player_b",
        "fixture__player_a", "fixture__player_b",
    ):  # fmt: skip
        q |= Q(**{f"{field}__display_name__icontains": name})
    return q


def _played_on(day: dt.date, tz: ZoneInfo) -> Q:
    """Matches played on local ``day`` and the voids of such matches."""
    start = local_midnight(day, tz)
    end = local_midnight(day + dt.timedelta(days=1), tz)
    return Q(played_at__gte=start, played_at__lt=end) | Q(
        voids__played_at__gte=start, voids__played_at__lt=end
    )


#: The event log's columns: what each kind of event is said with. The last eight are the
#: players of a one-vs-one match, or of the one a void voids: (id, name, slug) of A, then B.
_LOG_COLUMNS = (
    "seq", "kind", "recorded_at", "recorded_by__username", "player__display_name",
    "display_name", "played_at", "points", "reason", "voids__seq", "voided_by__seq",
    "replaces__seq", "player_id", "other_player__display_name", "pk", "voids_id",
    "fixture__player_a__display_name", "fixture__player_b__display_name", "scheduled_at",
    "venue", "note", "score_a",
    "player_a_id", "player_a__display_name", "player_a__slug",
    "player_b_id", "player_b__display_name", "player_b__slug",
    "voids__score_a",
    "voids__player_a_id", "voids__player_a__display_name", "voids__player_a__slug",
    "voids__player_b_id", "voids__player_b__display_name", "voids__player_b__slug",
    "report_id", "challenge_id", "challenge__status", "challenge__challenger__display_name",
    "competition__name", "round_number", "details", "fixture__competition__name",
    "fixture__round_number", "voids__kind", "voids__fixture__player_a__display_name",
    "voids__fixture__player_b__display_name",
    "seed_rating", "seed_rd", "seed_list", "seed_games",
)  # fmt: skip
_REPORT, _CHALLENGE, _CHALLENGE_STATUS, _CHALLENGER = 35, 36, 37, 38
_SCORE, _PAIR, _VOIDS_SCORE, _VOIDS_PAIR = 21, slice(22, 28), 28, slice(29, 35)
_DETAILS = 41  # after the four columns about reports and challenges


def _identified_summary(player: str, details: dict[str, str]) -> str:
    """ "Ann Lee: FIDE id 400123, ENG, WIM" (what is blank is left out)."""
    fide_id = details.get("fide_id")
    parts = [
        gettext("FIDE id %(fide_id)s") % {"fide_id": fide_id} if fide_id else gettext("no FIDE id"),
        details.get("federation", ""),
        details.get("title", ""),
    ]
    return gettext("%(player)s: %(details)s") % {
        "player": player,
        "details": ", ".join(part for part in parts if part),
    }


_SEED = slice(47, 51)  # the seed's columns, last


def _log_texts(rows: list[tuple]) -> dict[int, SideMatchText]:
    """The text of every match among the event log's ``rows`` and of every match they void
    (by event id): one-vs-one ones from the row, the others' sides in one query."""
    with_sides: list[int] = []
    texts: dict[int, SideMatchText] = {}
    for row in rows:
        kind, pk, voids_id = row[1], row[14], row[15]
        if kind in MATCH_KINDS:
            match_id, score, pair = pk, row[_SCORE], row[_PAIR]
        elif kind == Event.Kind.MATCH_VOIDED:
            match_id, score, pair = voids_id, row[_VOIDS_SCORE], row[_VOIDS_PAIR]
        else:
            continue
        if pair[0] is None:
            with_sides.append(match_id)
        else:
            texts[match_id] = pair_text(SidePlayer(*pair[:3]), SidePlayer(*pair[3:]), score)
    return {**side_match_texts(with_sides), **texts}


def _fixture_side_names(rows: list[tuple]) -> dict[int, tuple[str, str]]:
    """For the log's events about fixtures with sides (by event pk): side A's name and the
    other sides' ("Ann & Bob", "Cem & Dan"), in place of the first players of sides A and B.
    Two queries, for the page's fixture events only."""
    pks = [row[14] for row in rows if row[1] in FIXTURE_KINDS]
    if not pks:
        return {}
    fixture_of = dict(Event.objects.filter(pk__in=pks).values_list("pk", "fixture_id"))
    sides: dict[int, dict[int, list[str]]] = {}
    for fixture_id, side, name in (
        FixtureSide.objects.filter(fixture_id__in=set(fixture_of.values()))
        .order_by("fixture_id", "side", "id")
        .values_list("fixture_id", "side", "player__display_name")
    ):
        sides.setdefault(fixture_id, {}).setdefault(side, []).append(name)
    versus = f" {pgettext('versus', 'v')} "
    names: dict[int, tuple[str, str]] = {}
    for pk, fixture_id in fixture_of.items():
        if fixture_id not in sides:
            continue
        texts = [" & ".join(sides[fixture_id][x]) for x in sorted(sides[fixture_id])]
        names[pk] = (texts[0], versus.join(texts[1:]))
    return names


def _bye_names(rows: list[tuple]) -> dict[int, str]:
    """The names of the players given byes by the paired rounds among the log's ``rows``."""
    ids = {
        bye[0]
        for row in rows
        if row[1] == Event.Kind.ROUND_PAIRED
        for bye in (row[_DETAILS] or {}).get("byes", [])
    }
    # And the players of a forbidden pairing.
    ids |= {
        player
        for row in rows
        if row[1] == Event.Kind.PAIRING_FORBIDDEN
        for player in (row[_DETAILS] or {}).get("players", [])
    }
    return dict(Player.objects.filter(pk__in=ids).values_list("pk", "display_name"))


def _competition_summary(
    kind: str,
    player: str | None,
    first: str | None,
    second: str | None,
    competition: str | None,
    round_number: int | None,
    details: dict | None,
    fixture_competition: str | None,
    fixture_round: int | None,
    bye_names: dict[int, str],
) -> str:
    """The words of a fact about a competition (an event of the league) in the log."""
    details = details or {}
    values = {"event": competition, "player": player, "round": round_number}
    if kind == Event.Kind.COMPETITION_CREATED:
        text = gettext("Event %(event)s created: %(format)s, %(rounds)s rounds") % {
            "event": competition,
            "format": CompetitionFormat(details.get("format")).label,
            "rounds": round_number,
        }
        # The event's particulars follow as a list, each one a phrase of its own.
        particulars = [text]
        if details.get("double_elimination"):
            particulars.append(
                gettext("double elimination with a bracket reset")
                if details.get("bracket_reset")
                else gettext("double elimination")
            )
        if details.get("accelerated"):
            particulars.append(gettext("Baku acceleration"))
        if not details.get("rated", True):
            particulars.append(gettext("not rated"))
        return ", ".join(particulars)
    if kind == Event.Kind.ENTRANT_ENTERED:
        if round_number and round_number > 1:
            return gettext("%(player)s entered %(event)s from round %(round)s") % values
        return gettext("%(player)s entered %(event)s") % values
    if kind == Event.Kind.ENTRANT_WITHDRAWN:
        return gettext("%(player)s withdrawn from %(event)s from round %(round)s on") % values
    if kind == Event.Kind.BYE_REQUESTED:
        label = ByeKind(details.get("kind")).label
        return gettext("%(player)s: %(bye)s in round %(round)s of %(event)s") % {
            **values,
            "bye": label,
        }
    if kind == Event.Kind.PAIRING_FORBIDDEN:
        names = [bye_names.get(player_id, "?") for player_id in details.get("players", [])]
        return gettext(
            "%(players)s are not to be paired together in rounds %(first)s to %(last)s of %(event)s"
        ) % {
            "players": ", ".join(names),
            "first": round_number,
            "last": details.get("last_round"),
            "event": competition,
        }
    if kind == Event.Kind.ROUND_PAIRED:
        text = gettext("Round %(round)s of %(event)s paired") % values
        byes = [
            gettext("%(player)s: %(bye)s, %(points)s")
            % {
                "player": bye_names.get(player_id, "?"),
                "bye": ByeKind(bye_kind).label,
                "points": points_text(Decimal(points)),
            }
            for player_id, bye_kind, points in details.get("byes", [])
        ]
        return text + ("; " + "; ".join(byes) if byes else "")
    # A forfeit: the log says it is not rated.
    where = {"event": fixture_competition, "round": fixture_round}
    if player is None:
        text = gettext("%(a)s v %(b)s: double forfeit") % {"a": first, "b": second}
    else:
        loser = second if player == first else first
        text = gettext("%(winner)s wins by forfeit against %(loser)s") % {
            "winner": player,
            "loser": loser,
        }
    return gettext("%(forfeit)s (round %(round)s of %(event)s; not rated)") % {
        **where,
        "forfeit": text,
    }


def _division_names(rows: list[tuple]) -> dict[str, dict[int, str]]:
    """The names of the seasons and players the log's facts about divisions name."""
    details = [row[_DETAILS] or {} for row in rows if row[1] in DIVISION_KINDS]
    if not details:
        return {"seasons": {}, "players": {}}
    seasons = {item.get("season_id") for item in details}
    players = {
        player
        for item in details
        for _name, members in item.get("divisions", [])
        for player in members
    }
    return {
        "seasons": dict(Season.objects.filter(pk__in=seasons).values_list("pk", "name")),
        "players": dict(Player.objects.filter(pk__in=players).values_list("pk", "display_name")),
    }


def _division_summary(
    kind: str, player: str | None, details: dict, names: dict[str, dict[int, str]]
) -> str:
    """The words of a fact about a season's divisions in the log."""
    season = names["seasons"].get(details.get("season_id"), "?")
    if kind == Event.Kind.DIVISIONS_SET:
        parts = [
            gettext("%(division)s: %(players)s")
            % {
                "division": name,
                "players": ", ".join(names["players"].get(pid, "?") for pid in members),
            }
            for name, members in details.get("divisions", [])
        ]
        rule = gettext("%(count)s up and %(count)s down") % {"count": details.get("promotion")}
        if details.get("proposed"):
            text = gettext("Divisions of %(season)s proposed by promotion and relegation")
        else:
            text = gettext("Divisions of %(season)s set")
        return (text % {"season": season}) + f" ({rule}): " + "; ".join(parts)
    if kind == Event.Kind.DIVISION_PLAYER_MOVED:
        return gettext(
            "%(player)s moved from division %(from)s to division %(to)s of %(season)s"
        ) % {
            "player": player,
            "from": details.get("from"),
            "to": details.get("to"),
            "season": season,
        }
    return gettext("Divisions of %(season)s fixed") % {"season": season}


def _match_summary(kind: str, text: SideMatchText | None, voids: int | None) -> str:
    """A match's words in the log: its result, or, for a void, which match no longer counts."""
    if text is None:
        return dict(Event.Kind.choices)[kind]
    if kind == Event.Kind.MATCH_VOIDED:
        return gettext("Match #%(seq)s (%(sides)s) voided") % {
            "seq": voids,
            "sides": " v ".join(side.names for side in text.sides),
        }
    return text.summary


def _renamed_summary(before: str | None, name: str, player: str) -> str:
    """A rename in the log: the former name when known, and today's name when it changed
    again since."""
    values = {"before": before, "name": name, "player": player}
    if before and player != name:
        return gettext("%(before)s renamed to %(name)s (now %(player)s)") % values
    if before:
        return gettext("%(before)s renamed to %(name)s") % values
    if player != name:
        return gettext("Renamed to %(name)s (now %(player)s)") % values
    return gettext("Renamed to %(name)s") % values


def _played_summary(result: str, points: str, day: str, replaces: int | None) -> str:
    """A recorded match in the log: its result (and points), the day it was played, and the
    match it corrects."""
    if points:
        result = gettext("%(result)s (%(points)s)") % {"result": result, "points": points}
    values = {"result": result, "day": day, "seq": replaces}
    if replaces:
        return gettext("%(result)s, played %(day)s; corrects match #%(seq)s") % values
    return gettext("%(result)s, played %(day)s") % values


def _fixture_summary(
    scheduled: bool, a: str, b: str, when: str, venue: str | None, label: str | None
) -> str:
    """A fixture scheduled or moved in the log: who plays whom, when and where (and its
    label, such as a round, when it is scheduled)."""
    values = {"a": a, "b": b, "when": when, "venue": venue}
    if scheduled and venue:
        text = gettext("%(a)s v %(b)s scheduled %(when)s at %(venue)s") % values
    elif scheduled:
        text = gettext("%(a)s v %(b)s scheduled %(when)s") % values
    elif venue:
        text = gettext("%(a)s v %(b)s moved to %(when)s at %(venue)s") % values
    else:
        text = gettext("%(a)s v %(b)s moved to %(when)s") % values
    if label and scheduled:
        text = gettext("%(fixture)s (%(label)s)") % {"fixture": text, "label": label}
    return text


def _report_summary(
    kind: str,
    report_id: int,
    text: SideMatchText | None,
    player: str | None,
    played_at: dt.datetime | None,
    tz: ZoneInfo,
) -> str:
    """A reported result's step in the log: the result as reported, who acted."""
    result = text.summary if text is not None else ""
    if kind == Event.Kind.REPORT_SUBMITTED:
        return _("Report %(id)s: %(player)s reported %(result)s, played %(day)s") % {
            "id": report_id,
            "player": player,
            "result": result,
            "day": page_day_text(local_day(played_at, tz)) if played_at else "",
        }
    if kind == Event.Kind.REPORT_CONFIRMED:
        if player:
            return _("Report %(id)s (%(result)s) confirmed by %(player)s") % {
                "id": report_id, "result": result, "player": player,
            }  # fmt: skip
        return _("Report %(id)s (%(result)s) confirmed") % {"id": report_id, "result": result}
    if kind == Event.Kind.REPORT_DISPUTED:
        return _("Report %(id)s (%(result)s) disputed by %(player)s") % {
            "id": report_id, "result": result, "player": player,
        }  # fmt: skip
    if kind == Event.Kind.REPORT_REJECTED:
        return _("Report %(id)s (%(result)s) rejected") % {"id": report_id, "result": result}
    return _("Report %(id)s (%(result)s) withdrawn by %(player)s") % {
        "id": report_id, "result": result, "player": player,
    }  # fmt: skip


def _challenge_summary(
    kind: str,
    challenge_id: int,
    challenger: str | None,
    challenged: str | None,
    forfeit: bool,
    by: str | None,
) -> str:
    """A challenge's step in the log (the issue names both players; the answers the id)."""
    if kind == Event.Kind.CHALLENGE_ISSUED:
        return _("Challenge %(id)s: %(a)s challenged %(b)s") % {
            "id": challenge_id, "a": challenger, "b": challenged,
        }  # fmt: skip
    if kind == Event.Kind.CHALLENGE_ACCEPTED:
        return _("Challenge %(id)s accepted: scheduled as a fixture") % {"id": challenge_id}
    if kind == Event.Kind.CHALLENGE_DECLINED:
        return _("Challenge %(id)s declined") % {"id": challenge_id}
    if forfeit:
        return _("Challenge %(id)s unanswered: %(player)s wins by forfeit (not rated)") % {
            "id": challenge_id, "player": by,
        }  # fmt: skip
    return _("Challenge %(id)s expired unanswered") % {"id": challenge_id}


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
    rows = list(events.values_list(*_LOG_COLUMNS)[offset : offset + per_page])
    former = _former_names(league, rows)
    texts = _log_texts(rows)
    reported = report_texts(row[_REPORT] for row in rows if row[_REPORT] is not None)
    bye_names = _bye_names(rows)
    side_names = _fixture_side_names(rows)
    club_names = ClubNames([row[_DETAILS] or {} for row in rows if row[1] in CLUB_KINDS])
    division_names = _division_names(rows)
    items = []
    for row in rows:
        (
            seq, kind, recorded_at, recorded_by, player, name, played_at, points, reason, voids,
            voided_by, replaces, _player_id, other, pk, voids_id, fixture_a, fixture_b,
            scheduled_at, venue, label, *_pair,
        ) = row  # fmt: skip
        if pk in side_names:
            fixture_a, fixture_b = side_names[pk]
        if kind == Event.Kind.PLAYER_REGISTERED:
            # Registrations stored before names were kept on the event show today's name.
            summary = gettext("%(player)s registered") % {"player": name or player}
        elif kind == Event.Kind.PLAYER_RENAMED:
            before = former.get(seq)
            summary = _renamed_summary(before, name, player)
        elif kind == Event.Kind.PLAYER_DEACTIVATED:
            summary = gettext("%(player)s deactivated: no new results until reactivated") % {
                "player": player
            }
        elif kind == Event.Kind.PLAYER_REACTIVATED:
            summary = gettext("%(player)s reactivated") % {"player": player}
        elif kind == Event.Kind.PLAYER_MERGED:
            summary = gettext(
                "%(player)s merged into %(other)s: %(player)s's matches count as %(other)s's"
            ) % {"player": player, "other": other}
        elif kind == Event.Kind.PLAYER_UNMERGED:
            summary = gettext(
                "%(player)s unmerged from %(other)s: %(player)s's matches count as their own again"
            ) % {"player": player, "other": other}
        elif kind == Event.Kind.PLAYER_IDENTIFIED:
            # ``_pair`` holds the columns from the 22nd on (index 21).
            summary = _identified_summary(player, _pair[_DETAILS - 21] or {})
        elif kind in MATCH_KINDS or kind == Event.Kind.MATCH_VOIDED:
            summary = _match_summary(
                kind, texts.get(voids_id if kind == Event.Kind.MATCH_VOIDED else pk), voids
            )
            voided_kind, voided_a, voided_b = _pair[-7:-4]
            if voided_kind == Event.Kind.FORFEIT_RECORDED:
                summary = gettext("Forfeit #%(seq)s (%(a)s v %(b)s) voided") % {
                    "seq": voids,
                    "a": voided_a,
                    "b": voided_b,
                }
            if kind in MATCH_KINDS:
                summary = _played_summary(
                    summary, points, page_day_text(local_day(played_at, tz)), replaces
                )
        elif kind in (Event.Kind.FIXTURE_SCHEDULED, Event.Kind.FIXTURE_RESCHEDULED):
            summary = _fixture_summary(
                kind == Event.Kind.FIXTURE_SCHEDULED,
                fixture_a,
                fixture_b,
                page_moment_text(scheduled_at.astimezone(tz)),
                venue,
                label,
            )
        elif kind == Event.Kind.FIXTURE_CANCELLED:
            summary = gettext("%(a)s v %(b)s cancelled") % {"a": fixture_a, "b": fixture_b}
        elif kind in REPORT_KINDS:
            summary = _report_summary(
                kind, _pair[_REPORT - 21], reported.get(_pair[_REPORT - 21]), player, played_at, tz
            )
        elif kind in CHALLENGE_KINDS:
            summary = _challenge_summary(
                kind,
                _pair[_CHALLENGE - 21],
                _pair[2],
                _pair[5],
                _pair[_CHALLENGE_STATUS - 21] == ChallengeStatus.FORFEITED,
                _pair[_CHALLENGER - 21],
            )
        elif kind in COMPETITION_KINDS:
            summary = _competition_summary(
                kind, player, fixture_a, fixture_b, *_pair[-12:-7], bye_names
            )
        elif kind == Event.Kind.PLAYER_SEEDED:
            summary = seed_summary(player, *row[_SEED])
        elif kind in CLUB_KINDS:
            summary = club_summary(kind, player, row[_DETAILS], club_names)
        elif kind in DIVISION_KINDS:
            summary = _division_summary(kind, player, _pair[_DETAILS - 21] or {}, division_names)
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
