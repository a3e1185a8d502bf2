"""Input checks for the write services, with messages meant for club organisers.

Parsers turn loose input (ids, strings, floats, dates) into model values or add a message
to an ``Errors`` collector; nothing here writes. State checks that depend on stored rows
(inactive players, already voided matches) live here too but are called by the services
under the league lock, so their answer cannot change before the events are appended.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.translation import gettext_lazy as _

from league import scores
from league.calendar import league_day, league_zone
from league.control_characters import first_control_character
from league.models import MATCH_KINDS, Event, League, Player
from league.prepared_queries import MAX_ID, PreparedQuery, model_fields
from league.scores import ONE_VS_ONE_FIRST

ROUND_FIELD = re.compile(r"^results\.(?P<row>\d+)(?:\.(?P<field>\w+))?$")

IDEMPOTENCY_KEY_MAX = Event._meta.get_field("idempotency_key").max_length
POINTS_MAX = Event._meta.get_field("points").max_length


class Errors:
    """Collects field -> messages and raises them as one ``ValidationError``."""

    def __init__(self) -> None:
        self.by_field: dict[str, list[ValidationError]] = {}

    def add(self, field: str, message: str, code: str, **params: Any) -> None:
        self.by_field.setdefault(field, []).append(
            ValidationError(message, code=code, params=params or None)
        )

    def merge(self, error: ValidationError | Errors, prefix: str = "") -> None:
        """Add another collector's or a raised error's messages, fields under ``prefix``."""
        by_field = error.by_field if isinstance(error, Errors) else error.update_error_dict({})
        for field, errors in by_field.items():
            name = f"{prefix}.{field}" if prefix and field != "__all__" else prefix or field
            self.by_field.setdefault(name, []).extend(errors)

    def __bool__(self) -> bool:
        return bool(self.by_field)

    def raise_if_any(self) -> None:
        if self.by_field:
            raise ValidationError(self.by_field)


def check_text(text: str, errors: Errors, field: str) -> None:
    """Typed text holds no control character (a NUL byte would fail the whole statement on
    PostgreSQL; the others are invisible wherever the text is shown)."""
    found = first_control_character(text)
    if found is not None:
        errors.add(
            field,
            _("The text holds a control character (%(found)s); remove it."),
            "control_character",
            found=found,
        )


def clean_key(value: Any, errors: Errors, field: str = "idempotency_key") -> str | None:
    """A stripped idempotency key, or None for no key."""
    if value is None:
        return None
    key = str(value).strip()
    if not key:
        return None
    check_text(key, errors, field)
    if len(key) > IDEMPOTENCY_KEY_MAX:
        errors.add(
            field,
            _("The idempotency key is %(length)s characters long; at most %(max)s are allowed."),
            "key_too_long",
            length=len(key),
            max=IDEMPOTENCY_KEY_MAX,
        )
    return key


def check_recorder(league: League, user: Any, errors: Errors) -> None:
    """Only the league's organisers (or a superuser) may record in its name."""
    if user is not None and not league.is_organiser(user):
        errors.add(
            "recorded_by",
            _("%(user)s is not an organiser of %(league)s."),
            "not_organiser",
            user=str(user),
            league=league.name,
        )


def _as_id(value: Any) -> int | None:
    """An id given as a whole number or its text; None for anything else.

    ``int()`` alone would read ``True`` as 1 and ``2.5`` as 2: a bad input naming a real row.
    """
    if isinstance(value, bool):
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    if not isinstance(value, str) and number != value:
        return None
    return number


# Every recorded match resolves two players: built once (``league.prepared_queries``).
_PLAYER = PreparedQuery(
    lambda league_id, player_id: (
        Player.objects.filter(league_id=league_id, pk=player_id)
        .order_by()
        .values_list(*model_fields(Player))
    )
)


def resolve_player(league: League, value: Any, field: str, errors: Errors) -> Player | None:
    """The player of ``league`` given as a ``Player`` or an id."""
    if isinstance(value, Player):
        if value.league_id != league.pk:
            errors.add(
                field,
                _("%(player)s is a player of another league, not of %(league)s."),
                "other_league",
                player=value.display_name,
                league=league.name,
            )
            return None
        return value
    if value is None or value == "":
        errors.add(field, _("Choose a player."), "required")
        return None
    player_id = _as_id(value)
    if player_id is None:
        errors.add(field, _("%(value)r is not a player id."), "invalid_player", value=value)
        return None
    # A player of another league is reported as unknown: ids of other leagues are not
    # this organiser's business.
    player = (
        next(iter(_PLAYER.instances(Player, league_id=league.pk, player_id=player_id)), None)
        if 0 < player_id <= MAX_ID
        else None  # no row has it (and a database integer could not hold it)
    )
    if player is None:
        errors.add(
            field,
            _("%(league)s has no player with id %(id)s."),
            "unknown_player",
            league=league.name,
            id=player_id,
        )
    return player


def parse_score(value: Any, errors: Errors, field: str = "score_a") -> Decimal | None:
    """The first player's score: 1 (win), 0.5 (draw) or 0 (loss)."""
    score = scores.parse_score(value)
    if score is None:
        errors.add(field, scores.SCORE_MESSAGE, "invalid_score", value=value)
    return score


def check_in_range(
    moment: dt.datetime, zone: dt.tzinfo, value: Any, errors: Errors, field: str
) -> bool:
    """Whether ``moment`` survives the conversions the checks and the store make (an
    ``out_of_range`` error on ``field``, naming the ``value`` given, when it does not)."""
    try:
        # A moment at the calendar's ends (0001-01-01 far east of UTC, 9999-12-31 far
        # west) overflows in one of them.
        moment.astimezone(dt.UTC)
        moment.astimezone(zone)
    except (OverflowError, ValueError):
        errors.add(
            field,
            _("%(value)s is out of range: give a day from 0001-01-03 to 9999-12-29."),
            "out_of_range",
            value=value,
        )
        return False
    return True


def parse_played_at(
    league: League, value: Any, errors: Errors, field: str = "played_at"
) -> tuple[dt.datetime, bool] | None:
    """When the match was played, and whether only its date was given.

    A date means noon in the league's time zone; a naive date-time is read in the
    league's time zone too.
    """
    if isinstance(value, str):
        text = value.strip()
        parsed: Any = None
        try:
            # Date first: parse_datetime() would read "2024-07-01" as midnight.
            parsed = parse_date(text) or parse_datetime(text)
        except ValueError:
            parsed = None
        value = parsed if parsed is not None else value
    zone = league_zone(league)
    when: tuple[dt.datetime, bool] | None = None
    if isinstance(value, dt.datetime):
        when = (value.replace(tzinfo=zone) if timezone.is_naive(value) else value), False
    elif isinstance(value, dt.date):
        when = dt.datetime.combine(value, dt.time(12), tzinfo=zone), True
    if when is not None:
        return when if check_in_range(when[0], zone, value, errors, field) else None
    errors.add(
        field,
        _("Give the day the match was played (YYYY-MM-DD) or a date and time; got %(value)r."),
        "invalid_played_at",
        value=value,
    )
    return None


def check_played_at(
    league: League, played_at: dt.datetime, date_only: bool, errors: Errors, field: str
) -> None:
    """A match is played on or after the league's start and not in the future."""
    day = league_day(league, played_at)
    now = timezone.now()
    if (day > league_day(league, now)) if date_only else (played_at > now):
        errors.add(
            field,
            _("%(day)s is in the future: record a match once it has been played."),
            "future",
            day=day.isoformat(),
        )
    if day < league.start_date:
        errors.add(
            field,
            _("%(day)s is before the league started (%(start)s)."),
            "before_start",
            day=day.isoformat(),
            start=league.start_date.isoformat(),
        )


def parse_points(value: Any, errors: Errors, field: str = "points") -> str:
    """The optional game or points score shown next to the result ("3-1")."""
    text, fits = scores.parse_points(value, POINTS_MAX)
    if not fits:
        errors.add(field, scores.POINTS_TOO_LONG, "points_too_long", max=POINTS_MAX)
    check_text(text, errors, field)
    return text


def check_points_agree(
    score_a: Decimal | None, points: str, errors: Errors, first: str = ONE_VS_ONE_FIRST
) -> None:
    """The points, when they are one pair of numbers, imply the same result as the score.

    ``first`` names who ``score_a`` is the score of ("the first player", "side A"): one rule
    and one message for every match of two sides, whatever their size.
    """
    if score_a is None:
        return
    params = scores.points_contradiction(score_a, points, first)
    if params is not None:
        errors.add("points", scores.POINTS_CONTRADICT, "points_contradict_score", **params)


NEUTRAL_MESSAGE = _("neutral must be true or false (also yes/no, 1/0 or empty), got %(value)r.")


def parse_neutral(value: Any, errors: Errors, field: str = "neutral") -> bool:
    """Whether a match was played on neutral ground (no advantage for the first-named side)."""
    flag = scores.parse_flag(value)
    if flag is None:
        errors.add(field, NEUTRAL_MESSAGE, "invalid_neutral", value=str(value)[:40])
        return False
    return flag


#: A chess game has no neutral ground: the first-named player is White, and White's advantage
#: (the first move) applies to every game (``docs/chess.md``).
CHESS_NEUTRAL = _(
    "A chess game has no neutral ground: the first-named player is White. Leave neutral out "
    "or false, and name White first."
)


def check_neutral_allowed(league: League, neutral: bool, errors: Errors) -> None:
    """Refuse a result marked as played on neutral ground in a chess league
    (``League.is_chess``): every entry path asks this before anything is stored."""
    if neutral and league.is_chess:
        errors.add("neutral", CHESS_NEUTRAL, "neutral_in_chess")


def check_can_play(players: Iterable[tuple[str, Player]], errors: Errors) -> None:
    """Results are recorded for active players only, and never for a merged-away one (the
    message names the player they were merged into).

    ``players`` are (field, player) pairs, the players as stored now: one rule for the
    players of every match, whatever its sides, on every entry path.
    """
    for field, player in players:
        if player.merged_into_id is not None:
            survivor = Player.objects.filter(pk=player.merged_into_id).first()
            errors.add(
                field,
                _("%(player)s was merged into %(survivor)s: record the result for %(survivor)s."),
                "merged_player",
                player=player.display_name,
                survivor=survivor.display_name if survivor else _("another player"),
            )
        elif not player.active:
            errors.add(
                field,
                _("%(player)s is inactive; reactivate them before recording a result."),
                "inactive_player",
                player=player.display_name,
            )


def check_opponents(player_a: Player | None, player_b: Player | None, errors: Errors) -> None:
    """A pairing (a fixture) has two different players."""
    if player_a is not None and player_b is not None and player_a.pk == player_b.pk:
        errors.add(
            "player_b",
            _("A player cannot play themselves: choose two different players."),
            "self_play",
        )


def resolve_match(
    league: League, value: Any, errors: Errors, field: str = "match", *, forfeits: bool = False
) -> Event | None:
    """A recorded match of ``league`` given as an ``Event`` or an id (with ``forfeits``, a
    recorded forfeit too: a forfeit entered by mistake is voided like a result)."""
    if isinstance(value, Event):
        if value.league_id != league.pk:
            errors.add(field, _("That match belongs to another league."), "other_league")
            return None
        event: Event | None = value
    else:
        event_id = _as_id(value)
        if event_id is None:
            errors.add(field, _("%(value)r is not a match id."), "invalid_match", value=value)
            return None
        event = Event.objects.filter(league=league, pk=event_id).first()
        if event is None:
            errors.add(
                field,
                _("Unknown match: %(league)s has no event with id %(id)s."),
                "unknown_match",
                league=league.name,
                id=event_id,
            )
            return None
    if forfeits and event.kind == Event.Kind.FORFEIT_RECORDED:
        return event
    if event.kind not in MATCH_KINDS:
        errors.add(
            field,
            _("Event #%(seq)s is a “%(kind)s” event; only a recorded match can be voided."),
            "not_a_match",
            seq=event.seq,
            kind=event.get_kind_display(),
        )
        return None
    return event


def check_not_voided(match: Event, errors: Errors, field: str = "match") -> None:
    """A match is voided at most once."""
    void = Event.objects.filter(voids=match).only("seq").first()
    if void is not None:
        errors.add(
            field,
            _("Match #%(seq)s was already voided (event #%(void)s)."),
            "already_voided",
            seq=match.seq,
            void=void.seq,
        )


def check_reason(value: Any, errors: Errors) -> str:
    """A void or a correction says why."""
    reason = "" if value is None else str(value).strip()
    if not reason:
        errors.add("reason", _("Give a reason (it is shown in the event log)."), "required")
    check_text(reason, errors, "reason")
    return reason


def row_errors(error: ValidationError) -> dict[int, dict[str, list[str]]]:
    """Split a ``record_round`` error into row index -> field -> messages.

    Messages that belong to no row are returned under row -1 (field ``__all__``).
    """
    rows: dict[int, dict[str, list[str]]] = {}
    for name, messages in error.message_dict.items():
        match = ROUND_FIELD.match(name)
        if match is None:
            rows.setdefault(-1, {}).setdefault("__all__", []).extend(messages)
            continue
        field = match["field"] or "__all__"
        rows.setdefault(int(match["row"]), {}).setdefault(field, []).extend(messages)
    return rows
