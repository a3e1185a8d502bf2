"""Chess: the vocabulary of chess leagues' pages, exports and API, and colour history.

In a chess league (``League.is_chess``) the first-named player of a match or a fixture is
White and the second Black. Every representation of a chess match takes its words from here,
so pages, exports and the API say the same: "White"/"Black", results "1-0", "½-½", "0-1",
a forfeit "1-0F"/"0-1F", a drawn game "draw". Other sports keep their own words
(``league.scores``); nothing here is used for them.

``colour_history`` gives the pairing engines each player's colours, game by game.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db.models import Q
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from league.models import Event, League, Player
from league.scores import DRAW, EN_DASH, HALF_SIGN, LOSS, WIN

#: The two colours, as a player's colour in a game is stored by its position: the first-named
#: player is White.
WHITE, BLACK = "white", "black"
COLOUR_LABELS = {WHITE: gettext_lazy("White"), BLACK: gettext_lazy("Black")}
#: One letter per colour, as colour histories and TRF files write them.
COLOUR_LETTERS = {WHITE: "w", BLACK: "b"}

_RESULTS = {WIN: f"1{EN_DASH}0", DRAW: f"{HALF_SIGN}{EN_DASH}{HALF_SIGN}", LOSS: f"0{EN_DASH}1"}


def side_labels(league: League) -> tuple[str, str]:
    """What the first- and second-named players of a one-vs-one match are called on the
    league's pages: "White" and "Black" in chess, else "Player A" and "Player B"."""
    if league.is_chess:
        return str(COLOUR_LABELS[WHITE]), str(COLOUR_LABELS[BLACK])
    return _("Player A"), _("Player B")


def colour_of(position: int) -> str:
    """The colour of the player named at ``position`` (0: first-named, 1: second)."""
    if position not in (0, 1):
        raise ValueError(f"a chess game has two players, not a position {position!r}")
    return WHITE if position == 0 else BLACK


def result_text(score_white: Decimal, *, forfeit: bool = False) -> str:
    """A chess result from White's score: "1-0", "½-½", "0-1"; a forfeit "1-0F"/"0-1F".

    A forfeit is a game not played: one side wins it, so a drawn forfeit does not exist.
    """
    score = Decimal(score_white)
    if score not in _RESULTS:
        raise ValueError(f"White's score is 1, 0.5 or 0, not {score_white!r}")
    if forfeit:
        if score == DRAW:
            raise ValueError("a forfeit is won by one side: it has no draw")
        return f"{_RESULTS[score]}F"
    return _RESULTS[score]


def outcome_word(score: Decimal) -> str:
    """A player's result in words: "win", "draw" or "loss" (chess calls a drawn game a draw;
    translated like every other word of the pages)."""
    words = {WIN: _("win"), DRAW: _("draw"), LOSS: _("loss")}
    try:
        return words[Decimal(score)]
    except KeyError:
        raise ValueError(f"a score is 1, 0.5 or 0, not {score!r}") from None


def colour_history(player: Player, competition: Any = None) -> list[str]:
    """The colours ``player`` had, game by game in the order played: ``"w"`` or ``"b"``.

    Counts the league's one-vs-one matches that still count (voided ones do not) of the
    player and of every player merged into them (a merge says they are one competitor).
    ``competition`` restricts it to the games of that competition's fixtures (its rounds);
    None counts every game. Forfeits, byes and unplayed games are not matches, so they add
    no colour, as the FIDE rules want (C.04.1: "Forfeited games do not count").
    """
    ids = [player.pk, *Player.objects.filter(merged_into=player).values_list("pk", flat=True)]
    games = Event.objects.live_matches().filter(
        Q(player_a_id__in=ids) | Q(player_b_id__in=ids), league_id=player.league_id
    )
    if competition is not None:
        # Rounds of a competition are its fixtures (the competitions slice's model).
        games = games.filter(fixture__competition=competition)
    rows = games.order_by("played_at", "seq").values_list("player_a_id", flat=True)
    return [COLOUR_LETTERS[WHITE if first in ids else BLACK] for first in rows]
