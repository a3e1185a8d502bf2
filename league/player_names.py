"""Players' names: how a name is cleaned, checked, turned into a slug and looked up.

One set of rules for the services, the admin's forms, the organisers' pages and the CSV
import:

- a name is put in Unicode's composed form (NFC) and folded to single spaces between words
  (``clean_name``);
- it has 1 to ``NAME_MAX`` characters, no control character, no invisible formatting
  character (a zero-width space, a byte-order mark, a direction override…; the zero-width
  joiner and non-joiner are let through between visible characters, as emoji and some
  scripts need them) and at least one visible character (``check_name_shape``);
- no other player of the league has the same name once both are compared by
  ``name_key``: ignoring case, spacing, accents and invisible characters (``check_name``,
  whose message names the existing player);
- a typed name finds the player with exactly that name, else the one player whose
  ``name_key`` equals it; two such players make it ambiguous (no player) — ``find_player``
  in the database, ``PlayerDirectory`` in memory.
"""

from __future__ import annotations

import functools
import unicodedata
from typing import Any

from django.utils.text import slugify
from django.utils.translation import gettext as _

from league.models import League, Player
from league.validation import Errors, check_text

NAME_MAX = Player._meta.get_field("display_name").max_length
SLUG_MAX = Player._meta.get_field("slug").max_length


#: Joiners that shape visible text (emoji sequences, Indic and Arabic scripts): allowed in a
#: name between visible characters, ignored when names are compared.
JOINERS = frozenset("\u200c\u200d")


def clean_name(value: Any) -> str:
    """``value`` as a name: NFC, words separated by single spaces, no spaces around."""
    return " ".join(unicodedata.normalize("NFC", str(value or "")).split())


def _invisible(char: str) -> bool:
    """A character that shows nothing: a format character (Unicode category Cf)."""
    return unicodedata.category(char) == "Cf"


def name_key(name: str) -> str:
    """What two names must share to count as the same name: ``name`` without case,
    accents (combining marks after compatibility decomposition), invisible characters and
    spacing differences ("Bob  Baker", "bob baker", "Bób Baker" and "Bob\u200bBaker" share
    one key)."""
    return _key_of(str(name))


@functools.lru_cache(maxsize=16_384)
def _key_of(name: str) -> str:
    """``name_key`` of a string, remembered: an import asks for each new name's key three
    times (looked up, checked for ambiguity, remembered)."""
    decomposed = unicodedata.normalize("NFKD", name)
    kept = "".join(
        char
        for char in decomposed
        if not _invisible(char) and unicodedata.category(char) not in ("Mn", "Me")
    )
    return " ".join(kept.casefold().split())


def _first_invisible(name: str) -> str | None:
    """The first invisible formatting character a name may not hold, described; None if none."""
    for index, char in enumerate(name):
        if not _invisible(char):
            continue
        if char in JOINERS and 0 < index < len(name) - 1:
            before, after = name[index - 1], name[index + 1]
            if not (before.isspace() or after.isspace() or _invisible(before) or _invisible(after)):
                continue
        label = unicodedata.name(char, _("a formatting character"))
        return _("%(code)s (%(name)s) at character %(index)s") % {
            "code": f"U+{ord(char):04X}",
            "name": label.lower(),
            "index": index + 1,
        }
    return None


def check_name_shape(name: str, errors: Errors, field: str = "display_name") -> bool:
    """A cleaned ``name`` has 1 to ``NAME_MAX`` characters (True when it has)."""
    if not name:
        errors.add(field, _("Give the player a name."), "required")
        return False
    if len(name) > NAME_MAX:
        errors.add(
            field,
            _("The name is too long (at most %(max)s characters)."),
            "name_too_long",
            max=NAME_MAX,
        )
        return False
    before = len(errors.by_field.get(field, []))
    check_text(name, errors, field)
    if len(errors.by_field.get(field, [])) != before:
        return False
    if not any(not _invisible(char) and not char.isspace() for char in name):
        errors.add(
            field,
            _(
                "The name has no visible character (only invisible or formatting characters): "
                "give a name people can read."
            ),
            "invisible_name",
        )
        return False
    found = _first_invisible(name)
    if found is not None:
        errors.add(
            field,
            _("The name holds an invisible character, %(found)s; remove it."),
            "invisible_character",
            found=found,
        )
        return False
    return True


def check_name(
    league: League,
    name: str,
    errors: Errors,
    field: str = "display_name",
    *,
    player: Player | None = None,
) -> None:
    """A cleaned ``name`` is usable in ``league`` (by ``player``, when renaming one).

    The league's names are read: call under the league lock for a stable answer.
    """
    if not check_name_shape(name, errors, field):
        # A name refused only for an invisible character may still name an existing player:
        # say so too, so the organiser sees which player they meant.
        codes = [error.code for error in errors.by_field.get(field, [])]
        if codes[-1:] != ["invisible_character"]:
            return
    existing = same_name(league, name, exclude=player)
    if existing is None:
        return
    if existing.display_name == name:
        errors.add(
            field,
            _("%(name)s is already a player of %(league)s."),
            "duplicate_name",
            name=name,
            league=league.name,
        )
    else:
        errors.add(
            field,
            _(
                "%(name)s is already a player of %(league)s, as %(existing)s (names are "
                "compared ignoring case, spacing, accents and invisible characters): use "
                "%(existing)s, or choose a name that differs in its letters."
            ),
            "duplicate_name",
            name=name,
            existing=existing.display_name,
            league=league.name,
        )


def same_name(league: League, name: str, *, exclude: Player | None = None) -> Player | None:
    """A player of ``league`` (other than ``exclude``) whose name has ``name``'s key.

    Keys are computed in Python (a database has no such collation); a league's names are
    few enough to read (one column).
    """
    key = name_key(name)
    players = Player.objects.filter(league=league)
    if exclude is not None:
        players = players.exclude(pk=exclude.pk)
    exact = players.filter(display_name=name).first()
    if exact is not None:
        return exact
    for pk, display_name in players.order_by("pk").values_list("pk", "display_name"):
        if name_key(display_name) == key:
            return players.get(pk=pk)
    return None


def unknown_players_message(league: League, names: list[str]) -> str:
    """The one message for names that are no player of ``league`` (every entry path that
    names players: the workspace's forms, a CSV file)."""
    quoted = _(" and ").join(f"\u201c{name}\u201d" for name in names)
    return _("%(league)s has no player named %(names)s.") % {
        "league": league.name,
        "names": quoted,
    }


def find_player(league: League, name: str) -> Player | None:
    """The player of ``league`` called ``name`` (else the one player with its ``name_key``)."""
    name = clean_name(name)
    exact = Player.objects.filter(league=league, display_name=name).first()
    return exact if exact is not None else PlayerDirectory(league).find(name)


class PlayerDirectory:
    """``find_player`` in memory, for looking up many names (a CSV file's players)."""

    def __init__(self, league: League) -> None:
        self.exact: dict[str, Player] = {}
        self.folded: dict[str, Player | None] = {}
        for player in Player.objects.filter(league=league):
            self.remember(player)

    def remember(self, player: Player) -> None:
        self.exact[player.display_name] = player
        folded = name_key(player.display_name)
        # Two players sharing a key (stored before keys were compared) make a loose match
        # ambiguous.
        self.folded[folded] = None if folded in self.folded else player

    def find(self, name: str) -> Player | None:
        found = self.exact.get(name)
        if found is None:
            name = clean_name(name)
            found = self.exact.get(name) or self.folded.get(name_key(name))
        return found

    def ambiguous(self, name: str) -> bool:
        """True when several players share ``name``'s key and none is called exactly that."""
        key = name_key(clean_name(name))
        return key in self.folded and self.folded[key] is None


def free_slug(league: League, name: str) -> str:
    """A slug for ``name`` not yet used in ``league`` ("ann-lee", "ann-lee-2", …)."""
    base = (slugify(name) or "player")[: SLUG_MAX - 10]
    taken = set(
        Player.objects.filter(league=league, slug__startswith=base).values_list("slug", flat=True)
    )
    slug, counter = base, 2
    while slug in taken:
        slug, counter = f"{base}-{counter}", counter + 1
    return slug


class FreeSlugs:
    """``free_slug`` for many new players of one league: the league's slugs are read once.

    Each slug handed out is taken at once, so two new players never share one. Use under
    the league lock (nothing else may add players meanwhile).
    """

    def __init__(self, league: League) -> None:
        self.taken = set(Player.objects.filter(league=league).values_list("slug", flat=True))

    def take(self, name: str) -> str:
        base = (slugify(name) or "player")[: SLUG_MAX - 10]
        slug, counter = base, 2
        while slug in self.taken:
            slug, counter = f"{base}-{counter}", counter + 1
        self.taken.add(slug)
        return slug


def forgotten_name(player_id: int) -> str:
    """The name a forgotten player is shown under from then on ("Forgotten player 17").

    Stored data, like every player name, so in one language: the id keeps it unique in the
    league and says nothing about the person.
    """
    return f"Forgotten player {player_id}"
