"""What the entry pages echo after saving: the matches just recorded, in words.

The pages redirect to themselves with ``?recorded=FIRST-LAST`` (event numbers); this module
reads those matches back from the event store so the echo shows what was stored, not what was
typed: the players, the result, the date in words and what it recomputes, with one-click undo.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.utils.translation import gettext as _

from league.calendar import league_day
from league.event_log import SideMatchText, match_texts_of
from league.models import Event, League
from league.scores import DRAW, score_text
from web.workspace.dates import echo

_RANGE = re.compile(r"^(\d{1,12})(?:-(\d{1,12}))?$")
#: A round holds at most this many results, so an echo never reads more.
MAX_ECHOED = 100


@dataclass(frozen=True)
class RecordedMatch:
    """One recorded match as the echo shows it."""

    seq: int
    words: str
    voided_by: int | None


@dataclass(frozen=True)
class Echo:
    """The matches of one save and what their dates set off."""

    first: int
    last: int
    matches: list[RecordedMatch]
    dates: list[str]

    @property
    def live(self) -> list[RecordedMatch]:
        return [match for match in self.matches if match.voided_by is None]


def match_words(event: Event, text: SideMatchText | None = None) -> str:
    """``Ann Archer 3-1 Bob Baker: Ann Archer won`` (the result in words, never only digits),
    followed by ``, on neutral ground`` for a match marked so.

    A match of larger sides reads ``Ann & Bob 21-15 Cy & Di: Ann & Bob won``, or its
    finishing order for three or more sides (``1st Ann, =2nd Bob, =2nd Cy``); ``text`` is
    its text from ``league.event_log.match_texts_of`` (read here when not given).
    """
    text = text or match_texts_of([event])[event.pk]
    if event.score_a is None or len(text.sides) != 2:
        return f"{text.summary} ({event.points})" if event.points else text.summary
    a, b = (side.names for side in text.sides)
    shown = event.points or score_text(event.score_a)
    words = {"a": a, "score": shown, "b": b, "winner": a if event.score_a > DRAW else b}
    if event.score_a == DRAW:
        if event.neutral:
            return _("%(a)s %(score)s %(b)s: a draw, on neutral ground") % words
        return _("%(a)s %(score)s %(b)s: a draw") % words
    if event.neutral:
        return _("%(a)s %(score)s %(b)s: %(winner)s won, on neutral ground") % words
    return _("%(a)s %(score)s %(b)s: %(winner)s won") % words


def parse_range(raw: str | None) -> tuple[int, int] | None:
    """``"12"`` or ``"12-19"`` as (first, last); None for anything else."""
    found = _RANGE.match(raw or "")
    if found is None:
        return None
    first = int(found.group(1))
    last = int(found.group(2) or first)
    if last < first or last - first >= MAX_ECHOED:
        return None
    return first, last


def read_echo(league: League, raw: str | None) -> Echo | None:
    """The echo of the matches numbered ``raw`` (``FIRST-LAST``), or None."""
    bounds = parse_range(raw)
    if bounds is None:
        return None
    events = list(
        Event.objects.all_matches()
        .filter(league=league, seq__gte=bounds[0], seq__lte=bounds[1])
        .select_related("player_a", "player_b", "voided_by")
        .order_by("seq")
    )
    if not events:
        return None
    texts = match_texts_of(events)
    matches = [
        RecordedMatch(
            seq=event.seq,
            words=match_words(event, texts[event.pk]),
            voided_by=event.voided_by.seq if hasattr(event, "voided_by") else None,
        )
        for event in events
    ]
    days = sorted({league_day(league, event.played_at) for event in events})
    return Echo(bounds[0], bounds[1], matches, [echo(league, day) for day in days])
