"""Seeded ratings: a player's starting rating taken from a rating list, as an event.

A club that knows its players' strength from a rating list (FIDE's, a national federation's,
its own grading) gives each player a starting point instead of the league's initial rating:
``seed_player`` appends a ``player_seeded`` fact, and every replay starts the player from
that rating and RD (``ratings.replay.seeds``). A later seed of the same player replaces the
earlier one (a correction is a new seed); nothing is edited.

The RD says how established the listed rating is (``seed_rd``): a FIDE rating over many
games is well established, a club grading over a handful is not. The mapping is the table
:data:`SEED_RD` (documented in docs/chess.md); an organiser may give the RD instead.
"""

from __future__ import annotations

import csv
import math
from typing import IO, Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from league.event_store.vocabulary import Fact, PlayerSeeded
from league.models import Event, League, Player
from league.validation import Errors

#: The kinds of rating list, as the event stores them, with their names.
LIST_KINDS = {
    "fide": gettext_lazy("FIDE rating"),
    "national": gettext_lazy("national rating"),
    "club": gettext_lazy("club grading"),
}

#: The RD of a seed by list kind and how many rated games stand behind the rating:
#: (fewest games, RD) from the most games down; a count not known takes the last row. A
#: FIDE rating over 50 games or more is established (FIDE's own K-factor drops from 40 to 20
#: at 30 games); national lists are less uniform; a club grading rests on fewer, more local
#: games. Every RD stays below a new player's 350, so a seed always says more than nothing.
SEED_RD: dict[str, tuple[tuple[int, float], ...]] = {
    "fide": ((50, 80.0), (20, 110.0), (0, 150.0)),
    "national": ((50, 100.0), (20, 130.0), (0, 170.0)),
    "club": ((50, 130.0), (20, 160.0), (0, 200.0)),
}
#: A listed rating outside this range is a typing error (FIDE's floor is 1400; the best
#: players are near 2850; club gradings on other scales must be converted first).
MIN_SEED_RATING, MAX_SEED_RATING = 100.0, 3500.0
#: The narrowest RD a seed may be given: a list is never surer than this.
MIN_SEED_RD = 30.0
MAX_SEED_GAMES = 100_000
REASON_MAX = 1000


def seed_rd(list_kind: str, games: int | None) -> float:
    """The RD a seed from a list of ``list_kind`` gets, with ``games`` rated games behind it
    (None: unknown, taken as few): :data:`SEED_RD`."""
    rows = SEED_RD[list_kind]
    if games is None:
        return rows[-1][1]
    for fewest, rd in rows:
        if games >= fewest:
            return rd
    return rows[-1][1]


def seed_summary(player: str, rating: float, rd: float, list_kind: str, games: int | None) -> str:
    """The event log's sentence for a seed: "Ann seeded at 1850 ± 80 (FIDE rating, 64 games)"."""
    what = str(LIST_KINDS.get(list_kind, list_kind))
    if games is None:
        source = what
    else:
        source = _("%(list)s, %(games)d rated games") % {"list": what, "games": games}
    return _("%(player)s seeded at %(rating).0f, RD %(rd).0f (%(source)s)") % {
        "player": player,
        "rating": rating,
        "rd": rd,
        "source": source,
    }


def clean_seed(
    rating: Any, list_kind: Any, games: Any = None, rd: Any = None, *, max_rd: float = 350.0
) -> tuple[float, str, int | None, float, Errors]:
    """(rating, list kind, games, RD, errors) from loose input: every bad value is one error
    naming its field (``rating``, ``list_kind``, ``games``, ``rd``). ``rd`` None: from
    :func:`seed_rd`; at most ``max_rd`` (the league's RD ceiling)."""
    errors = Errors()
    value = _number(rating)
    if value is None or not MIN_SEED_RATING <= value <= MAX_SEED_RATING:
        errors.add(
            "rating",
            _("The listed rating must be a number from %(low).0f to %(high).0f, not “%(value)s”."),
            "invalid",
            low=MIN_SEED_RATING,
            high=MAX_SEED_RATING,
            value=str(rating)[:40],
        )
    kind = str(list_kind or "").strip().lower()
    if kind not in LIST_KINDS:
        errors.add(
            "list_kind",
            _("Unknown rating list “%(value)s”: use fide, national or club."),
            "invalid",
            value=kind[:40],
        )
    count: int | None = None
    if games not in (None, ""):
        number = _number(games)
        if number is None or number != int(number) or not 0 <= number <= MAX_SEED_GAMES:
            errors.add(
                "games",
                _("The number of rated games must be a whole number from 0 to %(max)d."),
                "invalid",
                max=MAX_SEED_GAMES,
            )
        else:
            count = int(number)
    deviation: float = 0.0
    if rd not in (None, ""):
        given = _number(rd)
        if given is None or not MIN_SEED_RD <= given <= max_rd:
            errors.add(
                "rd",
                _("The RD must be a number from %(low).0f to %(high).0f (the RD ceiling)."),
                "invalid",
                low=MIN_SEED_RD,
                high=max_rd,
            )
        else:
            deviation = given
    elif kind in LIST_KINDS:
        deviation = min(seed_rd(kind, count), max_rd)
    return (value or 0.0), kind, count, deviation, errors


def seed_player(
    league: League,
    player: Player | int,
    *,
    rating: Any,
    list_kind: Any,
    games: Any = None,
    rd: Any = None,
    reason: str = "",
    recorded_by: Any = None,
    idempotency_key: str | None = None,
    max_rd: float = 350.0,
) -> Event:
    """Append a ``player_seeded`` event: ``player`` starts every replay from ``rating`` with
    the RD of :func:`seed_rd` (or ``rd``). Raises ``ValidationError`` naming each bad field;
    stores nothing then."""
    # The players' service runs the shared checks (recorder, player, reason, key, lock).
    from league.services.players import _change_player

    value, kind, count, deviation, errors = clean_seed(rating, list_kind, games, rd, max_rd=max_rd)
    errors.raise_if_any()

    def fact(current: Player) -> Fact:
        return PlayerSeeded(
            player_id=current.pk,
            rating=value,
            rd=deviation,
            list_kind=kind,
            games=count,
            reason=(reason or "").strip(),
        )

    def check(current: Player, state_errors: Errors) -> None:
        if current.merged_into_id is not None:
            state_errors.add(
                "player",
                _("%(player)s was merged into another player: seed that player instead."),
                "merged",
                player=current.display_name,
            )

    return _change_player(league, player, fact, check, reason, recorded_by, idempotency_key)


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        number = float(str(value).strip())
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


#: The columns of a file of seeds (``seed_players``): ``rd`` and ``games`` may be empty.
SEED_COLUMNS = ("player", "rating", "list", "games", "rd", "reason")
SEED_REQUIRED = ("player", "rating", "list")
MAX_SEED_LINE_CHARS = 4096


def seed_players_from_csv(
    league: League,
    stream: IO[bytes],
    *,
    recorded_by: Any = None,
    dry_run: bool = False,
    max_rd: float = 350.0,
) -> tuple[int, list[tuple[int, str]]]:
    """Seed the players a CSV file names (header: player, rating, list; optional games, rd,
    reason), all or none: (players seeded, [(line, message)]). On any error, or a dry run,
    nothing is stored. A player is found by name as the imports find them; no RD may pass
    ``max_rd`` (the league's RD ceiling)."""
    from league.player_names import PlayerDirectory

    errors: list[tuple[int, str]] = []
    rows: list[tuple[int, Player, dict[str, str]]] = []
    players = PlayerDirectory(league)
    header: list[str] | None = None
    for number, raw in enumerate(stream, start=1):
        try:
            text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError:
            errors.append((number, _("not UTF-8: save the file as UTF-8")))
            continue
        if len(text) > MAX_SEED_LINE_CHARS or any(ord(c) < 32 and c not in "\t\r\n" for c in text):
            errors.append((number, _("the line is too long or holds a control character")))
            continue
        (cells,) = list(csv.reader([text])) or [[]]
        if not any(cell.strip() for cell in cells):
            continue
        if header is None:
            header = [cell.strip().lower() for cell in cells]
            missing = [name for name in SEED_REQUIRED if name not in header]
            if missing:
                errors.append(
                    (number, _("missing column(s): %(names)s") % {"names": ", ".join(missing)})
                )
                break
            continue
        row = {name: (cells[i].strip() if i < len(cells) else "") for i, name in enumerate(header)}
        player = players.find(row.get("player", ""))
        if player is None:
            errors.append(
                (number, _("no player “%(name)s” in this league") % {"name": row["player"][:120]})
            )
            continue
        *_values, problems = clean_seed(
            row.get("rating"), row.get("list"), row.get("games"), row.get("rd"), max_rd=max_rd
        )
        for field, found in problems.by_field.items():
            for error in found:
                errors.append((number, f"{field}: {' '.join(error.messages)}"))
        if not problems.by_field:
            rows.append((number, player, row))
    if header is None and not errors:
        errors.append((1, _("the file is empty: its first line names the columns")))
    if errors or dry_run:
        return (0 if errors else len(rows)), errors
    with transaction.atomic():
        for number, player, row in rows:
            try:
                seed_player(
                    league,
                    player,
                    rating=row.get("rating"),
                    list_kind=row.get("list"),
                    games=row.get("games"),
                    rd=row.get("rd"),
                    reason=row.get("reason", ""),
                    recorded_by=recorded_by,
                    max_rd=max_rd,
                )
            except ValidationError as error:
                errors.append((number, " ".join(error.messages)))
        if errors:
            transaction.set_rollback(True)
            return 0, errors
    return len(rows), []
