"""Players' names: how a name is cleaned, checked, turned into a slug and looked up.

One set of rules for the services, the admin's forms and the CSV import:

- a name is folded to single spaces between words (``clean_name``);
- it has 1 to ``NAME_MAX`` characters and no other player of the league has it, ignoring
  case (``check_name``);
- a typed name finds the player with exactly that name, else the one player whose name
  equals it ignoring case; two players differing only by case make it ambiguous (no
  player) — ``find_player`` in the database, ``PlayerDirectory`` in memory.
"""

from __future__ import annotations

from typing import Any

from django.utils.text import slugify

from league.models import League, Player
from league.validation import Errors, check_text

NAME_MAX = Player._meta.get_field("display_name").max_length
SLUG_MAX = Player._meta.get_field("slug").max_length


def clean_name(value: Any) -> str:
    """``value`` as a name: words separated by single spaces, no spaces around."""
    return " ".join(str(value or "").split())


def check_name_shape(name: str, errors: Errors, field: str = "display_name") -> bool:
    """A cleaned ``name`` has 1 to ``NAME_MAX`` characters (True when it has)."""
    if not name:
        errors.add(field, "Give the player a name.", "required")
        return False
    if len(name) > NAME_MAX:
        errors.add(
            field,
            "The name is too long (at most %(max)s characters).",
            "name_too_long",
            max=NAME_MAX,
        )
        return False
    before = len(errors.by_field.get(field, []))
    check_text(name, errors, field)
    return len(errors.by_field.get(field, [])) == before


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
        return
    taken = Player.objects.filter(league=league, display_name__iexact=name)
    if player is not None:
        taken = taken.exclude(pk=player.pk)
    if taken.exists():
        errors.add(
            field,
            "%(name)s is already a player of %(league)s.",
            "duplicate_name",
            name=name,
            league=league.name,
        )


def find_player(league: League, name: str) -> Player | None:
    """The player of ``league`` called ``name`` (ignoring case if that is unambiguous)."""
    name = clean_name(name)
    players = Player.objects.filter(league=league)
    exact = players.filter(display_name=name).first()
    if exact is not None:
        return exact
    matches = list(players.filter(display_name__iexact=name)[:2])
    return matches[0] if len(matches) == 1 else None


class PlayerDirectory:
    """``find_player`` in memory, for looking up many names (a CSV file's players)."""

    def __init__(self, league: League) -> None:
        self.exact: dict[str, Player] = {}
        self.folded: dict[str, Player | None] = {}
        for player in Player.objects.filter(league=league):
            self.remember(player)

    def remember(self, player: Player) -> None:
        self.exact[player.display_name] = player
        folded = player.display_name.casefold()
        # Two players differing only by case make a loose match ambiguous.
        self.folded[folded] = None if folded in self.folded else player

    def find(self, name: str) -> Player | None:
        found = self.exact.get(name)
        if found is None:
            name = clean_name(name)
            found = self.exact.get(name) or self.folded.get(name.casefold())
        return found


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
