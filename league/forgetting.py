"""Forgetting a player: their name and contact details erased, the league's history exact.

``forget_player`` appends a ``player_forgotten`` event; the event store renames the player
to "Forgotten player <id>" (a new address too) and unlinks its account. In the same
transaction, while that event is the league's latest, it erases the person's traces through
the one audited UPDATE the database allows on ``league_event`` (migration 0012; see
docs/privacy.md): the names the player's registration and renames stored become the new
name, the reasons of the player's own events are emptied, and every former name found in
another event's note or reason is replaced by the new name. Columns that say anything
about the matches (players, scores, dates, sequence numbers, kinds, keys) cannot change, so
standings and ratings, which derive from them, stay exactly as they were.

Outside the event table it erases: the address and note of the player's invitations, the
name and message of the join requests that named the player or came from its account in
this league, the former names in fixtures' labels and venues and in the admin's change log;
and it clears the page cache, whose stored pages may show a former name.
"""

from __future__ import annotations

import json
import re
from typing import Any

from django.contrib.admin.models import LogEntry
from django.db import connection, transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from league import event_store
from league.event_store import Submission
from league.event_store.signals import player_erased
from league.event_store.vocabulary import PlayerForgotten
from league.models import Event, Fixture, Invitation, JoinRequest, League, Player
from league.player_accounts import is_forgotten
from league.player_names import forgotten_name
from league.validation import Errors

#: The flag the PostgreSQL guard reads to let an UPDATE statement reach the row check.
PG_ERASURE_FLAG = "league.erasure"


#: Shortest word of a name that is erased on its own ("Zelda" of "Zelda Marsh").
WORD_MIN = 3


def former_names(player: Player) -> list[str]:
    """What free text may call ``player`` by: every name they were registered under or
    renamed to, their current one, and each word of those names (of ``WORD_MIN`` letters
    or more) that is not also a word of another player's name in the league; longest
    first, so that a whole name is replaced before a word of it."""
    stored = Event.objects.filter(
        league_id=player.league_id,
        player=player,
        kind__in=[Event.Kind.PLAYER_REGISTERED, Event.Kind.PLAYER_RENAMED],
    ).values_list("display_name", flat=True)
    names = {name for name in [*stored, player.display_name] if name}
    others = {
        word.casefold()
        for name in Player.objects.filter(league_id=player.league_id)
        .exclude(pk=player.pk)
        .values_list("display_name", flat=True)
        for word in re.findall(r"\w+", name)
    }
    words = {
        word
        for name in names
        for word in re.findall(r"\w+", name)
        if len(word) >= WORD_MIN and word.casefold() not in others
    }
    return sorted(names | words, key=lambda name: (-len(name), name))


def _scrub(text: str, names: list[str], replacement: str) -> str:
    """``text`` with every former name, as a whole word in any case, replaced."""
    for name in names:
        pattern = rf"(?<!\w){re.escape(name)}(?!\w)"
        text = re.sub(pattern, lambda _match: replacement, text, flags=re.IGNORECASE)
    return text


def _mentions(names: list[str], *fields: str) -> Q:
    q = Q()
    for name in names:
        for field in fields:
            q |= Q(**{f"{field}__icontains": name})
    return q


def forget_player(player: Player, *, by: Any) -> Event:
    """Forget the person behind ``player``; return the ``player_forgotten`` event.

    ``by`` is the account holding the player or an organiser of its league. Refused (a
    ``ValidationError`` on ``player``): anybody else, or a player forgotten already.
    """
    league = player.league
    errors = Errors()
    allowed = getattr(by, "is_authenticated", False) and (
        league.is_organiser(by) or (player.account_id is not None and player.account_id == by.pk)
    )
    if not allowed:
        errors.add(
            "player",
            _("Only the person holding %(player)s or an organiser can forget it."),
            "forbidden",
            player=player.display_name,
        )
    errors.raise_if_any()

    with transaction.atomic():
        event_store.lock_league(league)
        current = Player.objects.get(pk=player.pk)
        if is_forgotten(current):
            errors.add("player", _("This player was forgotten already."), "forgotten")
            errors.raise_if_any()
        placeholder = forgotten_name(current.pk)
        if Player.objects.filter(league=league, display_name=placeholder).exists():
            errors.add(
                "player",
                _(
                    "Another player is called %(name)s: rename them first, so that the "
                    "forgotten player can take that name."
                ),
                "name_taken",
                name=placeholder,
            )
            errors.raise_if_any()
        names = former_names(current)
        account_id = current.account_id
        (event,) = event_store.append(
            league, [Submission(PlayerForgotten(player_id=current.pk))], recorded_by=by
        )
        current.refresh_from_db()
        _erase_events(current, names)
        _erase_elsewhere(current, names, account_id)
        transaction.on_commit(lambda: player_erased.send(sender=League, league=league))
    player.refresh_from_db()
    return event


def _erase_events(player: Player, names: list[str]) -> None:
    """The audited erasure on ``league_event`` (allowed while the forgetting is the league's
    latest event): names and reasons of the player's own events, former names elsewhere."""
    new_name = player.display_name
    own = Event.objects.filter(league_id=player.league_id, player=player)
    others = (
        Event.objects.filter(league_id=player.league_id)
        .exclude(player=player)
        .filter(_mentions(names, "note", "reason"))
    )
    updates: list[tuple[str, str, str, int]] = []
    for pk, kind, display_name, note in own.values_list("pk", "kind", "display_name", "note"):
        named = kind in (Event.Kind.PLAYER_REGISTERED, Event.Kind.PLAYER_RENAMED)
        updates.append(
            (
                new_name if named and display_name else display_name,
                "",
                _scrub(note, names, new_name),
                pk,
            )
        )
    for pk, display_name, reason, note in others.values_list(
        "pk", "display_name", "reason", "note"
    ):
        updates.append(
            (display_name, _scrub(reason, names, new_name), _scrub(note, names, new_name), pk)
        )
    if not updates:
        return
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT set_config(%s, 'on', true)", [PG_ERASURE_FLAG])
        # Raw SQL: the ORM refuses every change of an event; the database triggers check
        # that these change only the personal columns of a league that just forgot someone.
        cursor.executemany(
            "UPDATE league_event SET display_name = %s, reason = %s, note = %s WHERE id = %s",
            updates,
        )
        # A FIDE record (``player_identified``) is personal data too: its details go blank.
        cursor.execute(
            "UPDATE league_event SET details = %s WHERE player_id = %s AND kind = %s",
            [
                json.dumps({"fide_id": "", "federation": "", "title": ""}),
                player.pk,
                Event.Kind.PLAYER_IDENTIFIED.value,
            ],
        )
        if connection.vendor == "postgresql":
            cursor.execute("SELECT set_config(%s, 'off', true)", [PG_ERASURE_FLAG])


def _erase_elsewhere(player: Player, names: list[str], account_id: int | None) -> None:
    """The person's data outside the event table (all of it mutable state)."""
    new_name = player.display_name
    Invitation.objects.filter(player=player).update(email="", label="")
    requests = JoinRequest.objects.filter(league_id=player.league_id).filter(
        Q(player=player) | Q(account_id=account_id) if account_id else Q(player=player)
    )
    requests.update(name=new_name, message="")
    for fixture in Fixture.objects.filter(league_id=player.league_id).filter(
        _mentions(names, "label", "venue")
    ):
        Fixture.objects.filter(pk=fixture.pk).update(
            label=_scrub(fixture.label, names, new_name),
            venue=_scrub(fixture.venue, names, new_name),
        )
    for entry in LogEntry.objects.filter(_mentions(names, "object_repr", "change_message")):
        LogEntry.objects.filter(pk=entry.pk).update(
            object_repr=_scrub(entry.object_repr, names, new_name),
            change_message=_scrub(entry.change_message, names, new_name),
        )
