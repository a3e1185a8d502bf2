"""Club-versus-club matches: two teams of a league meet over N boards.

A team (a club) holds a roster of the league's players (a player plays for one team). A
club match is scheduled between two teams over ``boards`` boards; each team plays its
players in a board order: the order its captain or an organiser submitted for the match,
else its roster's active players by their published rating (rated players first, highest
first; then by name). In a chess league colours alternate: the home team has White on
board 1, Black on board 2, and so on; elsewhere the home player is named first.

Each board is a rated one-vs-one game recorded through the one match path
(``league.services.record_round``), so it feeds the ratings like any other result; the
board points (1, ½, 0) add up to the match score, and the match points (2 / 1 / 0 by
default, fixed when the match is scheduled) feed the season's team table, ordered by
match points, then board points.

The service lives with the read side because a board order by rating reads the published
standings (``ratings.selectors``); everything it writes goes through the event store.

Every change is a fact: ``team_created``, ``roster_player_added``, ``team_captain_set``,
``club_season_set`` (a season's boards and match points), ``club_match_scheduled`` (one
at a time or a generated round robin), ``board_order_submitted`` (by an organiser or the
team's captain), ``club_match_recorded`` (with its board games) and ``club_match_voided``
(with a ``match_voided`` fact per board). Errors raise ``ValidationError`` with field ->
messages naming the board, and write nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.formats import number_format
from django.utils.text import slugify
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from league import event_store
from league.calendar import league_day, league_zone
from league.event_store import Submission
from league.event_store.store import find_by_key, idempotency_conflict
from league.event_store.vocabulary import (
    BoardOrderSubmitted,
    ClubMatchRecorded,
    ClubMatchScheduled,
    ClubMatchVoided,
    MatchVoided,
    RosterPlayerAdded,
    TeamCaptainSet,
    TeamCreated,
)
from league.models import (
    BoardOrder,
    ClubMatch,
    ClubSeason,
    Event,
    League,
    Player,
    RosterEntry,
    Team,
)
from league.player_accounts import player_of
from league.seasons import season_containing
from league.services.matches import record_round
from league.validation import (
    Errors,
    _as_id,
    check_can_play,
    check_in_range,
    check_reason,
    check_recorder,
    check_text,
    clean_key,
    resolve_player,
)
from ratings.selectors.configurations import live_config
from ratings.selectors.fixtures import strengths

NAME_MAX = Team._meta.get_field("name").max_length
SLUG_MAX = Team._meta.get_field("slug").max_length
VENUE_MAX = ClubMatch._meta.get_field("venue").max_length
#: The most boards a club match may have (a league's first team plays 4 to 12).
MAX_BOARDS = 32
#: The default match points of a win, a draw and a loss.
DEFAULT_MATCH_POINTS = (Decimal("2"), Decimal("1"), Decimal("0"))
#: A board's result as typed: the home player's score.
HOME_SCORES = {
    "1": Decimal("1"),
    "1-0": Decimal("1"),
    "0.5": Decimal("0.5"),
    "½": Decimal("0.5"),
    "½-½": Decimal("0.5"),
    "0.5-0.5": Decimal("0.5"),
    "=": Decimal("0.5"),
    "0": Decimal("0"),
    "0-1": Decimal("0"),
}

#: Reads the published rating of players (None: not rated yet), by player id.
RatingReader = Callable[[League, Iterable[int]], Mapping[int, float | None]]


def board_field(number: int) -> str:
    """The field of board ``number``'s errors (``board_1``, …)."""
    return f"board_{number}"


# --- reading input -------------------------------------------------------------------------


def resolve_team(league: League, value: Any, errors: Errors, field: str = "team") -> Team | None:
    """The team of ``league`` given as a ``Team``, an id or its address (slug)."""
    if isinstance(value, Team):
        if value.league_id != league.pk:
            errors.add(field, _("That team belongs to another league."), "other_league")
            return None
        return value
    found = None
    number = _as_id(value)
    if number is not None:
        found = Team.objects.filter(league=league, pk=number).first()
    elif isinstance(value, str) and value.strip():
        found = Team.objects.filter(league=league, slug=value.strip()).first()
    if found is None:
        if value in (None, ""):
            errors.add(field, _("Choose a team."), "required")
        else:
            errors.add(
                field,
                _("%(league)s has no team %(value)r."),
                "unknown_team",
                league=league.name,
                value=value,
            )
    return found


def resolve_club_match(
    league: League, value: Any, errors: Errors, field: str = "club_match"
) -> ClubMatch | None:
    """The club match of ``league`` given as a ``ClubMatch`` or an id: one that was
    scheduled (a result for a match never scheduled is refused here)."""
    if isinstance(value, ClubMatch):
        if value.league_id != league.pk:
            errors.add(field, _("That club match belongs to another league."), "other_league")
            return None
        return ClubMatch.objects.select_related("home", "away").get(pk=value.pk)
    number = _as_id(value)
    found = (
        None
        if number is None
        else ClubMatch.objects.select_related("home", "away")
        .filter(league=league, pk=number)
        .first()
    )
    if found is None:
        errors.add(
            field,
            _("%(league)s has no club match %(value)r: schedule the match first."),
            "unknown_club_match",
            league=league.name,
            value=value,
        )
    return found


def _count(value: Any, errors: Errors, field: str, low: int, high: int, label: str) -> int | None:
    number = _as_id(value)
    if number is None or not low <= number <= high:
        errors.add(
            field,
            _("The %(label)s is a whole number from %(low)s to %(high)s; got %(value)r."),
            "invalid",
            label=label,
            low=low,
            high=high,
            value=value,
        )
        return None
    return number


def _match_points(value: Any, errors: Errors, field: str, default: Decimal) -> Decimal | None:
    if value is None or value == "":
        return default
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        number = None
    if number is None or not number.is_finite() or not Decimal("0") <= number <= Decimal("9.5"):
        errors.add(
            field,
            _("Match points are a number from 0 to 9.5 (halves allowed); got %(value)r."),
            "invalid_points",
            value=value,
        )
        return None
    if number * 2 != (number * 2).to_integral_value():
        errors.add(
            field, _("Match points count in halves; got %(value)r."), "invalid_points", value=value
        )
        return None
    return number.quantize(Decimal("0.1"))


def _moment(league: League, value: Any, errors: Errors, field: str) -> dt.datetime | None:
    """A date-time (a date alone: 19:30 local, a club night's start) in the league's zone."""
    parsed: Any = value
    if isinstance(value, str):
        text = value.strip()
        try:
            # Date first: parse_datetime() would read "2024-07-01" as midnight.
            parsed = parse_date(text) or parse_datetime(text)
        except ValueError:
            parsed = None
    zone = league_zone(league)
    moment = None
    if isinstance(parsed, dt.datetime):
        moment = parsed if parsed.tzinfo else parsed.replace(tzinfo=zone)
    elif isinstance(parsed, dt.date):
        moment = dt.datetime.combine(parsed, dt.time(19, 30), tzinfo=zone)
    if moment is not None:
        return moment if check_in_range(moment, zone, value, errors, field) else None
    errors.add(
        field,
        _("Give the day of the match (YYYY-MM-DD) or a date and time; got %(value)r."),
        "invalid_date",
        value=value,
    )
    return None


def home_score(value: Any) -> Decimal | None:
    """A board's result as the home player's score (1, 0.5 or 0), or None when it is not
    one of ``HOME_SCORES``' spellings."""
    if isinstance(value, Decimal | int | float) and not isinstance(value, bool):
        value = str(Decimal(str(value)).normalize())
    if not isinstance(value, str):
        return None
    return HOME_SCORES.get(value.strip().replace("–", "-").replace(" ", ""))


# --- board orders and colours (pure) -------------------------------------------------------


def order_by_rating(
    players: Sequence[tuple[int, str]], ratings: Mapping[int, float | None]
) -> list[int]:
    """Player ids of (id, name) pairs in board order: rated players by rating, highest
    first, then unrated ones; equal ratings (and the unrated) by name."""
    return [
        pid
        for pid, _name in sorted(
            players,
            key=lambda p: (ratings.get(p[0]) is None, -(ratings.get(p[0]) or 0.0), p[1], p[0]),
        )
    ]


def home_has_white(league_is_chess: bool, board: int) -> bool | None:
    """Whether the home team has White on ``board`` (from 1): odd boards in a chess league;
    None where the league has no colours."""
    if not league_is_chess:
        return None
    return board % 2 == 1


def match_outcome(home: Decimal, away: Decimal) -> int:
    """1 when the home team won the match on board points, 0 a draw, -1 a loss."""
    return (home > away) - (home < away)


# --- reading the state ---------------------------------------------------------------------


def published_ratings(league: League, player_ids: Iterable[int]) -> dict[int, float | None]:
    """Each player's published rating (None: not rated yet), read from the standings."""
    found = strengths(live_config(league), player_ids)
    return {pid: (strength.rating if strength.rated else None) for pid, strength in found.items()}


def roster(team: Team) -> list[Player]:
    """The team's players, in the order they joined its roster."""
    return [
        entry.player for entry in RosterEntry.objects.filter(team=team).select_related("player")
    ]


@dataclass(frozen=True)
class TeamOrder:
    """A team's players for a club match, board 1 first, and whether it was submitted
    (else: by rating)."""

    players: list[Player]
    submitted: bool


def team_order(
    club_match: ClubMatch,
    team: Team,
    ratings: Mapping[int, float | None] | None = None,
    reader: RatingReader | None = None,
) -> TeamOrder:
    """The board order ``team`` plays ``club_match`` in: the one submitted, else its
    roster's active players by rating (at most ``boards`` of them)."""
    submitted = BoardOrder.objects.filter(club_match=club_match, team=team).first()
    if submitted is not None:
        by_id = Player.objects.in_bulk(submitted.players)
        return TeamOrder([by_id[pid] for pid in submitted.players], True)
    players = [p for p in roster(team) if p.active and p.merged_into_id is None]
    if ratings is None:
        ratings = (reader or published_ratings)(club_match.league, [p.pk for p in players])
    order = order_by_rating([(p.pk, p.display_name) for p in players], ratings)
    by_id = {p.pk: p for p in players}
    return TeamOrder([by_id[pid] for pid in order[: club_match.boards]], False)


@dataclass(frozen=True)
class Board:
    """One board of a club match: its players, who has White (None: no colours) and, once
    recorded, the home player's score and the game (None when that game was voided on its
    own and not corrected)."""

    number: int
    home: Player | None
    away: Player | None
    home_white: bool | None
    home_score: Decimal | None = None
    game: Event | None = None

    @property
    def away_score(self) -> Decimal | None:
        return None if self.home_score is None else Decimal(1) - self.home_score


@dataclass(frozen=True)
class ClubMatchView:
    """A club match with its boards and, once recorded, its board score."""

    club_match: ClubMatch
    boards: list[Board]
    home_submitted: bool
    away_submitted: bool
    played_at: dt.datetime | None

    @property
    def recorded(self) -> bool:
        return self.played_at is not None

    @property
    def home_points(self) -> Decimal:
        return sum((b.home_score for b in self.boards if b.home_score is not None), Decimal(0))

    @property
    def away_points(self) -> Decimal:
        return sum((b.away_score for b in self.boards if b.away_score is not None), Decimal(0))

    @property
    def outcome(self) -> int | None:
        """1 home win, 0 draw, -1 home loss (on board points); None before the result."""
        return match_outcome(self.home_points, self.away_points) if self.recorded else None


def _live_game(game: Event) -> Event | None:
    """The game as it counts now: itself, its correction when it was corrected, None when
    it was voided and not corrected."""
    current: Event | None = game
    seen = 0
    while current is not None and hasattr(current, "voided_by") and seen < 50:
        seen += 1
        current = getattr(current, "replaced_by", None)
    return current


def club_match_view(
    club_match: ClubMatch,
    ratings: Mapping[int, float | None] | None = None,
    reader: RatingReader | None = None,
) -> ClubMatchView:
    """A club match's boards: the recorded games once it is recorded, else the orders the
    two teams would play in now."""
    league = club_match.league
    home_roster = set(
        RosterEntry.objects.filter(team_id=club_match.home_id).values_list("player_id", flat=True)
    )
    submitted = set(
        BoardOrder.objects.filter(club_match=club_match).values_list("team_id", flat=True)
    )
    if club_match.games:
        games = Event.objects.select_related("player_a", "player_b").in_bulk(club_match.games)
        boards = []
        for number, game_id in enumerate(club_match.games, start=1):
            game = games[game_id]
            live = _live_game(game)
            shown = live or game
            home_is_a = shown.player_a_id in home_roster
            home, away = (
                (shown.player_a, shown.player_b) if home_is_a else (shown.player_b, shown.player_a)
            )
            score = None
            if live is not None:
                score = live.score_a if home_is_a else Decimal(1) - live.score_a
            white = home_is_a if league.is_chess else None
            boards.append(Board(number, home, away, white, score, live))
        first = games[club_match.games[0]]
        return ClubMatchView(
            club_match,
            boards,
            club_match.home_id in submitted,
            club_match.away_id in submitted,
            first.played_at,
        )
    home = team_order(club_match, club_match.home, ratings, reader)
    away = team_order(club_match, club_match.away, ratings, reader)
    boards = [
        Board(
            number,
            home.players[number - 1] if number <= len(home.players) else None,
            away.players[number - 1] if number <= len(away.players) else None,
            home_has_white(league.is_chess, number),
        )
        for number in range(1, club_match.boards + 1)
    ]
    return ClubMatchView(club_match, boards, home.submitted, away.submitted, None)


# --- services ------------------------------------------------------------------------------


def _append_one(league: League, submission: Submission, recorded_by: Any) -> Event:
    (event,) = event_store.append(league, [submission], recorded_by=recorded_by)
    return event


def create_team(
    league: League,
    *,
    name: Any,
    slug: Any = "",
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> Team:
    """Make a team (a club) of the league (a ``team_created`` fact)."""
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    title = str(name or "").strip()
    check_text(title, errors, "name")
    if not title:
        errors.add("name", _("Give the team a name."), "required")
    elif len(title) > NAME_MAX:
        errors.add(
            "name", _("A team's name has at most %(max)s characters."), "too_long", max=NAME_MAX
        )
    address = str(slug or "").strip() or slugify(title)[:SLUG_MAX]
    if title and (not address or slugify(address) != address or len(address) > SLUG_MAX):
        errors.add(
            "slug",
            _("Give the team an address of lower-case letters, digits and hyphens; got %(value)r."),
            "invalid_slug",
            value=address,
        )
    key = clean_key(idempotency_key, errors)
    errors.raise_if_any()
    submission = Submission(TeamCreated(team_id=None, name=title, slug=address), key)
    with transaction.atomic():
        event_store.lock_league(league)
        if event_store.existing_for(league, submission) is None:
            if Team.objects.filter(league=league, name=title).exists():
                errors.add(
                    "name", _("%(league)s already has a team called %(name)s."), "duplicate",
                    league=league.name, name=title,
                )  # fmt: skip
            elif Team.objects.filter(league=league, slug=address).exists():
                errors.add(
                    "slug", _("%(league)s already has a team at the address %(slug)s."),
                    "duplicate_slug", league=league.name, slug=address,
                )  # fmt: skip
            errors.raise_if_any()
        event = _append_one(league, submission, recorded_by)
    return Team.objects.get(league=league, pk=event.details["team"])


def add_to_roster(
    league: League,
    team: Team | int | str,
    player: Player | int | str,
    *,
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> RosterEntry:
    """Put a player of the league on a team's roster (``roster_player_added``); a player
    plays for one team."""
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    chosen = resolve_team(league, team, errors)
    member = resolve_player(league, player, "player", errors)
    key = clean_key(idempotency_key, errors)
    errors.raise_if_any()
    assert chosen is not None
    assert member is not None
    submission = Submission(RosterPlayerAdded(team_id=chosen.pk, player_id=member.pk), key)
    with transaction.atomic():
        event_store.lock_league(league)
        if event_store.existing_for(league, submission) is None:
            current = Player.objects.get(pk=member.pk)
            check_can_play([("player", current)], errors)
            other = (
                RosterEntry.objects.filter(team__league=league, player=member)
                .select_related("team")
                .first()
            )
            if other is not None:
                errors.add(
                    "player",
                    _("%(player)s already plays for %(team)s."),
                    "on_a_team",
                    player=member.display_name,
                    team=other.team.name,
                )
            errors.raise_if_any()
        _append_one(league, submission, recorded_by)
    return RosterEntry.objects.get(team=chosen, player=member)


def set_captain(
    league: League,
    team: Team | int | str,
    player: Player | int | str,
    *,
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> Team:
    """Name a player of the team's roster its captain (``team_captain_set``): signed in,
    they may hand in the team's board orders. A later captain replaces them."""
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    chosen = resolve_team(league, team, errors)
    member = None
    if player in (None, ""):
        errors.add("player", _("Choose the captain among the team's players."), "required")
    else:
        member = resolve_player(league, player, "player", errors)
    key = clean_key(idempotency_key, errors)
    errors.raise_if_any()
    assert chosen is not None
    assert member is not None
    submission = Submission(TeamCaptainSet(team_id=chosen.pk, player_id=member.pk), key)
    with transaction.atomic():
        event_store.lock_league(league)
        if event_store.existing_for(league, submission) is None:
            if not RosterEntry.objects.filter(team=chosen, player=member).exists():
                errors.add(
                    "player",
                    _("%(player)s is not on %(team)s's roster: a captain is one of its players."),
                    "not_on_roster",
                    player=member.display_name,
                    team=chosen.name,
                )
            else:
                check_can_play([("player", Player.objects.get(pk=member.pk))], errors)
            errors.raise_if_any()
        _append_one(league, submission, recorded_by)
    return Team.objects.select_related("captain").get(pk=chosen.pk)


def club_season_on(league: League, day: dt.date) -> ClubSeason | None:
    """The club-match settings of the league's season holding ``day``, if it has any."""
    season = season_containing(league, day)
    return None if season is None else ClubSeason.objects.filter(season=season).first()


def _season_value(setting: ClubSeason, field: str, given: Any, fixed: Any, errors: Errors) -> None:
    """A value typed for a match in a season whose club-match settings fix it must be
    those settings' (or left empty)."""
    if given is not None and given != fixed:
        errors.add(
            field,
            _("%(season)s sets %(setting)s to %(value)s for its club matches: leave it empty "
              "or give %(value)s."),
            "season_setting",
            season=setting.season.name,
            setting=str(SEASON_FIELDS[field]),
            value=fixed if isinstance(fixed, int) else number_format(fixed.normalize()),
        )  # fmt: skip


#: The names of the settings a season fixes, for its messages.
SEASON_FIELDS = {
    "boards": _("the number of boards"),
    "points_win": _("a win's match points"),
    "points_draw": _("a draw's match points"),
    "points_loss": _("a loss's match points"),
}


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _match_terms(
    league: League,
    when: dt.datetime | None,
    boards: Any,
    points: tuple[Any, Any, Any],
    errors: Errors,
) -> tuple[int | None, tuple[Decimal, Decimal, Decimal] | None]:
    """A match's boards and match points: its season's club-match settings when the
    season of its day has them (a value typed must agree), else the values typed (the
    boards required, the points 2 / 1 / 0 by default)."""
    setting = club_season_on(league, league_day(league, when)) if when is not None else None
    count = None
    if setting is not None:
        typed = None if _blank(boards) else _count(
            boards, errors, "boards", 1, MAX_BOARDS, str(_("number of boards"))
        )  # fmt: skip
        _season_value(setting, "boards", typed, setting.boards, errors)
        fixed = (setting.points_win, setting.points_draw, setting.points_loss)
        for field, value, own in zip(
            ("points_win", "points_draw", "points_loss"), points, fixed, strict=True
        ):
            given = None if _blank(value) else _match_points(value, errors, field, own)
            _season_value(setting, field, given, own, errors)
        return setting.boards, fixed
    if _blank(boards) and when is not None:
        errors.add(
            "boards",
            _("Give the number of boards (1 to %(max)s), or set it for the season of the "
              "match's day."),
            "required",
            max=MAX_BOARDS,
        )  # fmt: skip
    elif not _blank(boards):
        count = _count(boards, errors, "boards", 1, MAX_BOARDS, str(_("number of boards")))
    win = _match_points(points[0], errors, "points_win", DEFAULT_MATCH_POINTS[0])
    draw = _match_points(points[1], errors, "points_draw", DEFAULT_MATCH_POINTS[1])
    loss = _match_points(points[2], errors, "points_loss", DEFAULT_MATCH_POINTS[2])
    if win is None or draw is None or loss is None:
        return count, None
    if not win >= draw >= loss:
        errors.add(
            "points_draw",
            _("A win earns at least a draw's match points and a draw at least a loss's."),
            "points_order",
        )
        return count, None
    return count, (win, draw, loss)


def _check_venue(venue: Any, errors: Errors) -> str:
    place = str(venue or "").strip()
    check_text(place, errors, "venue")
    if len(place) > VENUE_MAX:
        errors.add("venue", _("A venue has at most %(max)s characters."), "too_long", max=VENUE_MAX)
    return place


def schedule_club_match(
    league: League,
    *,
    home: Any,
    away: Any,
    boards: Any = None,
    scheduled_at: Any,
    venue: Any = "",
    points_win: Any = None,
    points_draw: Any = None,
    points_loss: Any = None,
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> ClubMatch:
    """Schedule a match of team ``home`` against team ``away`` over ``boards`` boards
    (``club_match_scheduled``). In a season with club-match settings the match takes its
    boards and match points from them (``boards`` and the points may be left out); else
    ``boards`` is required and match points default to 2 / 1 / 0."""
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    home_team = resolve_team(league, home, errors, "home")
    away_team = resolve_team(league, away, errors, "away")
    if home_team is not None and away_team is not None and home_team.pk == away_team.pk:
        errors.add("away", _("A team cannot play itself: choose two different teams."), "same_team")
    when = _moment(league, scheduled_at, errors, "scheduled_at")
    count, points = _match_terms(
        league, when, boards, (points_win, points_draw, points_loss), errors
    )
    place = _check_venue(venue, errors)
    key = clean_key(idempotency_key, errors)
    errors.raise_if_any()
    assert home_team
    assert away_team
    assert count
    assert when
    assert points is not None
    fact = ClubMatchScheduled(
        club_match_id=None,
        home_id=home_team.pk,
        away_id=away_team.pk,
        boards=count,
        scheduled_at=when,
        venue=place,
        points=points,
    )
    with transaction.atomic():
        event = _append_one(league, Submission(fact, key), recorded_by)
    return ClubMatch.objects.select_related("home", "away").get(pk=event.details["club_match"])


def _check_not_recorded(club_match: ClubMatch, errors: Errors) -> None:
    if ClubMatch.objects.filter(pk=club_match.pk).values_list("games", flat=True).get():
        errors.add(
            "club_match",
            _("%(match)s is recorded already: void it first to change it."),
            "already_recorded",
            match=str(club_match),
        )


def submit_board_order(
    league: League,
    club_match: ClubMatch | int,
    team: Team | int | str,
    players: Any,
    *,
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> BoardOrder:
    """A team's board order for a club match (``board_order_submitted``): one player of its
    roster per board, board 1 first, each once. Replaces an earlier order until the match
    is recorded.

    ``recorded_by`` is an organiser of the league (or None: the system), or the account
    holding the team's captain: the fact records which ("organiser" or "captain"). Anyone
    else, a captain of the other team included, is refused."""
    errors = Errors()
    chosen_match = resolve_club_match(league, club_match, errors)
    chosen = resolve_team(league, team, errors)
    key = clean_key(idempotency_key, errors)
    errors.raise_if_any()
    assert chosen_match is not None
    assert chosen is not None
    by = submitter(league, chosen, recorded_by, errors)
    errors.raise_if_any()
    if chosen.pk not in (chosen_match.home_id, chosen_match.away_id):
        errors.add(
            "team",
            _("%(team)s does not play %(match)s."),
            "not_in_match",
            team=chosen.name,
            match=str(chosen_match),
        )
        errors.raise_if_any()
    named = _board_players(league, chosen_match, chosen, players, errors)
    errors.raise_if_any()
    assert named is not None
    submission = Submission(
        BoardOrderSubmitted(
            club_match_id=chosen_match.pk,
            team_id=chosen.pk,
            player_ids=tuple(p.pk for p in named),
            by=by,
        ),
        key,
    )
    with transaction.atomic():
        event_store.lock_league(league)
        if event_store.existing_for(league, submission) is None:
            # Again under the lock: the organisers may have named another captain since.
            submitter(league, chosen, recorded_by, errors)
            _check_not_recorded(chosen_match, errors)
            current = Player.objects.in_bulk([p.pk for p in named])
            check_can_play(
                ((board_field(n), current[p.pk]) for n, p in enumerate(named, start=1)), errors
            )
            errors.raise_if_any()
        _append_one(league, submission, recorded_by)
    return BoardOrder.objects.get(club_match=chosen_match, team=chosen)


def submitter(league: League, team: Team, account: Any, errors: Errors) -> str:
    """Who hands in ``team``'s board order: "organiser" (an organiser of the league, or
    None: the system) or "captain" (the account holding the team's captain); anyone else
    is refused, naming the team."""
    if account is None or league.is_organiser(account):
        return "organiser"
    me = player_of(account, league)
    # Read now, not from ``team``: the organisers may have named another captain since.
    # A deactivated captain no longer acts for the team (an organiser still can).
    if me is not None and me.active and Team.objects.filter(pk=team.pk, captain=me).exists():
        return "captain"
    mine = None if me is None else Team.objects.filter(league=league, captain=me).first()
    if me is not None and not me.active and mine is not None:
        errors.add(
            "team",
            _("%(player)s is deactivated in %(league)s: a deactivated captain cannot hand in "
              "a board order; an organiser can."),
            "captain_inactive",
            player=me.display_name,
            league=league.name,
        )  # fmt: skip
    elif mine is not None:
        errors.add(
            "team",
            _("You captain %(mine)s, not %(team)s: hand in your own team's board order."),
            "not_captain",
            mine=mine.name,
            team=team.name,
        )
    else:
        errors.add(
            "team",
            _("Only %(team)s's captain or an organiser of %(league)s can hand in its board "
              "order."),
            "not_captain",
            team=team.name,
            league=league.name,
        )  # fmt: skip
    return ""


def captained_teams(account: Any, league: League) -> list[Team]:
    """The teams of ``league`` whose captain ``account`` holds (none, or one)."""
    me = player_of(account, league)
    return [] if me is None else list(Team.objects.filter(league=league, captain=me))


def _board_players(
    league: League, club_match: ClubMatch, team: Team, players: Any, errors: Errors
) -> list[Player] | None:
    """The players of a board order, checked: one per board, of the team's roster, once."""
    if not isinstance(players, list | tuple):
        errors.add("players", _("Give the players as a list, board 1 first."), "invalid")
        return None
    boards = club_match.boards
    if len(players) != boards:
        errors.add(
            "players",
            _(
                "%(match)s is played over %(boards)s boards: name %(boards)s players, "
                "not %(count)s."
            ),
            "board_count",
            match=str(club_match),
            boards=boards,
            count=len(players),
        )
    on_roster = set(RosterEntry.objects.filter(team=team).values_list("player_id", flat=True))
    teams = dict(
        RosterEntry.objects.filter(team__league=league).values_list("player_id", "team__name")
    )
    named: list[Player] = []
    seen: dict[int, int] = {}
    for number, value in enumerate(players[:boards], start=1):
        field = board_field(number)
        found = Errors()
        if value in (None, ""):
            errors.add(field, _("Board %(board)s: choose a player."), "required", board=number)
            continue
        player = resolve_player(league, value, field, found)
        if player is None:
            for error in found.by_field[field]:
                errors.add(
                    field, _("Board %(board)s: %(problem)s"), error.code or "invalid",
                    board=number, problem=" ".join(error.messages),
                )  # fmt: skip
            continue
        if player.pk not in on_roster:
            other = teams.get(player.pk)
            if other is not None:
                errors.add(
                    field, _("Board %(board)s: %(player)s plays for %(other)s, not %(team)s."),
                    "other_team", board=number, player=player.display_name, other=other,
                    team=team.name,
                )  # fmt: skip
            else:
                errors.add(
                    field, _("Board %(board)s: %(player)s is not on %(team)s's roster."),
                    "not_on_roster", board=number, player=player.display_name, team=team.name,
                )  # fmt: skip
            continue
        if player.pk in seen:
            errors.add(
                field, _("Board %(board)s: %(player)s is already on board %(first)s."),
                "player_twice", board=number, player=player.display_name, first=seen[player.pk],
            )  # fmt: skip
            continue
        seen[player.pk] = number
        named.append(player)
    return named if len(named) == boards and not errors else None


def _game_key(key: str | None) -> str | None:
    return f"{key}/boards" if key else None


def record_club_match(
    league: League,
    club_match: ClubMatch | int,
    *,
    results: Any,
    played_at: Any,
    recorded_by: Any = None,
    idempotency_key: str | None = None,
    reader: RatingReader | None = None,
) -> Event:
    """Record a club match's result: ``results`` holds the home player's score on each board
    (1, 0.5 or 0; "1-0", "½-½", "0-1"), board 1 first. Each board is a rated game recorded
    through the one match path (``record_round``, all or none), then a
    ``club_match_recorded`` fact names them. With an ``idempotency_key`` a retry stores
    nothing new (board ``n``'s game is keyed ``<key>/boards/<n-1>``)."""
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    chosen = resolve_club_match(league, club_match, errors)
    key = clean_key(idempotency_key, errors)
    if key is not None:
        clean_key(f"{_game_key(key)}/{MAX_BOARDS}", errors)
    if not league.takes_one_vs_one:
        errors.add(
            "club_match",
            _("A club match's boards are one-vs-one games; %(league)s records sides only."),
            "format_refused",
            league=league.name,
        )
    errors.raise_if_any()
    assert chosen is not None
    if key is not None:
        stored = find_by_key(league, key)
        if stored is not None:
            if (
                stored.kind == Event.Kind.CLUB_MATCH_RECORDED
                and (stored.details or {}).get("club_match") == chosen.pk
            ):
                return stored
            raise idempotency_conflict(key, stored.seq, stored.kind)
    scores = _board_scores(chosen, results, errors)
    if chosen.games:
        _check_not_recorded(chosen, errors)
    view = club_match_view(chosen, reader=reader)
    for side, team in (("home", chosen.home), ("away", chosen.away)):
        missing = [b.number for b in view.boards if getattr(b, side) is None]
        if missing:
            errors.add(
                side,
                _("%(team)s has no player for board(s) %(boards)s: add players to its roster "
                  "or submit its board order."),
                "too_few_players",
                team=team.name,
                boards=", ".join(str(n) for n in missing),
            )  # fmt: skip
    errors.raise_if_any()
    rows = []
    for board, score in zip(view.boards, scores, strict=True):
        assert board.home is not None
        assert board.away is not None
        assert score is not None
        home_first = board.home_white is not False
        rows.append(
            {
                "player_a": board.home if home_first else board.away,
                "player_b": board.away if home_first else board.home,
                "score_a": score if home_first else Decimal(1) - score,
                "played_at": played_at,
                "note": gettext("%(match)s, board %(board)s")
                % {"match": str(chosen), "board": board.number},
            }
        )
    keyed = [
        {**row, "idempotency_key": f"{_game_key(key)}/{index}" if key else None}
        for index, row in enumerate(rows)
    ]
    with transaction.atomic():
        event_store.lock_league(league)
        _check_not_recorded(chosen, errors)
        errors.raise_if_any()
        try:
            games = record_round(league, keyed, recorded_by=recorded_by)
        except ValidationError as error:
            raise _per_board(error) from None
        fact = ClubMatchRecorded(club_match_id=chosen.pk, game_ids=tuple(g.pk for g in games))
        return _append_one(league, Submission(fact, key), recorded_by)


def _board_scores(club_match: ClubMatch, results: Any, errors: Errors) -> list[Decimal | None]:
    """The home player's score on each board, or errors naming the boards."""
    if not isinstance(results, list | tuple):
        errors.add("results", _("Give the results as a list, board 1 first."), "invalid")
        return []
    if len(results) > club_match.boards:
        errors.add(
            "results",
            _("%(match)s is played over %(boards)s boards; %(count)s results given."),
            "board_count",
            match=str(club_match),
            boards=club_match.boards,
            count=len(results),
        )
    scores: list[Decimal | None] = []
    for number in range(1, club_match.boards + 1):
        value = results[number - 1] if number <= len(results) else None
        if value in (None, ""):
            errors.add(
                board_field(number),
                _("Board %(board)s: give its result (1-0, ½-½ or 0-1 for the home player)."),
                "required",
                board=number,
            )
            scores.append(None)
            continue
        score = home_score(value)
        if score is None:
            errors.add(
                board_field(number),
                _("Board %(board)s: %(value)r is not a result; give 1-0, ½-½ or 0-1 (home first)."),
                "invalid_result",
                board=number,
                value=value,
            )
        scores.append(score)
    return scores


def _per_board(error: ValidationError) -> ValidationError:
    """``record_round``'s errors (``results.<row>.<field>``) as errors of the boards
    (``played_at`` stays itself: it is one for every board)."""
    found = Errors()
    for field, messages in error.message_dict.items():
        parts = field.split(".")
        if len(parts) >= 2 and parts[0] == "results" and parts[1].isdigit():
            board = int(parts[1]) + 1
            target = "played_at" if parts[-1] == "played_at" else board_field(board)
            for message in messages:
                text = (
                    message
                    if target == "played_at"
                    else gettext("Board %(board)s: %(problem)s")
                    % {"board": board, "problem": message}
                )
                if text not in [m for e in found.by_field.get(target, []) for m in e.messages]:
                    found.add(target, "%(text)s", "invalid", text=text)
        else:
            for message in messages:
                found.add(field, "%(text)s", "invalid", text=message)
    return ValidationError(dict(found.by_field.items()))


def void_club_match(
    league: League,
    club_match: ClubMatch | int,
    *,
    reason: Any,
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> Event:
    """Void a recorded club match: a ``match_voided`` fact for each board game that still
    counts, then ``club_match_voided``, in one transaction. The match may be recorded
    again."""
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    chosen = resolve_club_match(league, club_match, errors)
    text = check_reason(reason, errors)
    key = clean_key(idempotency_key, errors)
    errors.raise_if_any()
    assert chosen is not None
    with transaction.atomic():
        event_store.lock_league(league)
        if key is not None:
            stored = find_by_key(league, key)
            if stored is not None and stored.kind == Event.Kind.CLUB_MATCH_VOIDED:
                return stored
        games = ClubMatch.objects.filter(pk=chosen.pk).values_list("games", flat=True).get()
        if not games:
            errors.add(
                "club_match",
                _("%(match)s has no recorded result to void."),
                "not_recorded",
                match=str(chosen),
            )
            errors.raise_if_any()
        voids = []
        for index, game in enumerate(Event.objects.filter(pk__in=games).order_by("seq")):
            live = _live_game(game)
            if live is not None:
                voids.append(
                    Submission(
                        MatchVoided(match_id=live.pk, reason=text),
                        f"{key}/boards/{index}" if key else None,
                    )
                )
        fact = ClubMatchVoided(club_match_id=chosen.pk, reason=text)
        events = event_store.append(
            league, [*voids, Submission(fact, key)], recorded_by=recorded_by
        )
    return events[-1]


# --- the team table ------------------------------------------------------------------------


@dataclass
class TeamRow:
    """A team's line in the table: matches played, won, drawn, lost, board points for and
    against, match points."""

    team: Team
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    board_for: Decimal = Decimal(0)
    board_against: Decimal = Decimal(0)
    match_points: Decimal = Decimal(0)
    position: int = 0


def add_result(
    home: TeamRow, away: TeamRow, home_points: Decimal, away_points: Decimal,
    points: tuple[Decimal, Decimal, Decimal],
) -> None:  # fmt: skip
    """Count one club match in both teams' rows (``points``: a win's, a draw's, a loss's)."""
    outcome = match_outcome(home_points, away_points)
    for row, mine, theirs, sign in (
        (home, home_points, away_points, 1),
        (away, away_points, home_points, -1),
    ):
        row.played += 1
        row.board_for += mine
        row.board_against += theirs
        result = outcome * sign
        if result > 0:
            row.won += 1
            row.match_points += points[0]
        elif result == 0:
            row.drawn += 1
            row.match_points += points[1]
        else:
            row.lost += 1
            row.match_points += points[2]


def ordered_table(rows: Iterable[TeamRow]) -> list[TeamRow]:
    """Rows by match points, then board points, then name; equal teams share a place."""
    ranked = sorted(rows, key=lambda r: (-r.match_points, -r.board_for, r.team.name))
    for index, row in enumerate(ranked):
        earlier = ranked[index - 1] if index else None
        same = earlier is not None and (earlier.match_points, earlier.board_for) == (
            row.match_points,
            row.board_for,
        )
        row.position = earlier.position if same and earlier else index + 1
    return ranked


def team_table(
    league: League, between: tuple[dt.datetime, dt.datetime] | None = None
) -> list[TeamRow]:
    """Every team of the league with its recorded club matches (played from ``between``'s
    first moment to before its second, when given), in table order."""
    rows = {team.pk: TeamRow(team) for team in Team.objects.filter(league=league)}
    matches = ClubMatch.objects.filter(league=league).select_related("league", "home", "away")
    for match_row in matches:
        if not match_row.games:
            continue
        view = club_match_view(match_row)
        if between is not None and not (
            view.played_at is not None and between[0] <= view.played_at < between[1]
        ):
            continue
        add_result(
            rows[match_row.home_id],
            rows[match_row.away_id],
            view.home_points,
            view.away_points,
            (match_row.points_win, match_row.points_draw, match_row.points_loss),
        )
    return ordered_table(rows.values())
