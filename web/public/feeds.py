"""Atom feeds of results, per league and per player (Django's syndication framework).

An entry is one counted match, one-vs-one or with sides (voided ones leave the feed; a
correction appears as the new result it is), newest played first, the latest ``ENTRIES``.
Its id is a tag URI built from the league and the match's sequence number, so a reader never
shows the same result twice; ``published`` is the local day it was played (noon, as a result
entered with a date alone stands for) but never later than the moment it was recorded (a match
played this morning is not published at noon, hours ahead), ``updated`` the moment it was
recorded. The response's Last-Modified is the newest of these dates, so it is never in the
future either.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from django.contrib.syndication.views import Feed
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.html import escape

from league.calendar import day_text, league_zone, local_day, local_noon
from league.event_log import SideMatchText, match_texts_of
from league.models import Event, League, MatchParticipant, Player
from league.scores import outcome_word
from ratings.selectors.players import counted_ids

#: Entries in a feed (the newest results).
ENTRIES = 50


def _matches(league: League) -> QuerySet[Event]:
    """The league's counted matches, one-vs-one and with sides, newest played first."""
    return (
        Event.objects.live_all_matches()
        .filter(league=league)
        .select_related("league", "player_a", "player_b")
        .order_by("-played_at", "-seq")
    )


def _with_texts(matches: list[Event]) -> list[Event]:
    """``matches`` with each match given its text (``feed_text``; one query for all the
    matches with sides)."""
    texts = match_texts_of(matches)
    for match in matches:
        match.feed_text = texts[match.pk]  # type: ignore[attr-defined]
    return matches


def _title(match: Event) -> str:
    text = match.feed_text.summary  # type: ignore[attr-defined]
    return f"{text} ({match.points})" if match.points else text


class LeagueResultsFeed(Feed):
    """The league's newest results."""

    feed_type = Atom1Feed

    def get_object(self, request: HttpRequest, league_slug: str) -> League:
        return get_object_or_404(League, slug=league_slug)

    def title(self, league: League) -> str:
        return f"{league.name}: results"

    def subtitle(self, league: League) -> str:
        return f"The newest results recorded in {league.name}, newest played first."

    def link(self, league: League) -> str:
        return reverse("pages:matches", args=[league.slug])

    def feed_guid(self, league: League) -> str:
        return f"tag:honest-league,2024:{league.slug}:results"

    def items(self, league: League) -> list[Event]:
        return _with_texts(list(_matches(league)[:ENTRIES]))

    def item_title(self, match: Event) -> str:
        return _title(match)

    def item_description(self, match: Event) -> str:
        # Atom carries the description as <summary type="html">, which a reader renders as
        # markup: the names, points and note typed by people are escaped to show as text.
        day = local_day(match.played_at, league_zone(match.league))
        text = f"Played {day_text(day)}: {_title(match)}."
        if match.replaces_id:
            text += " This result corrects an earlier one."
        if match.note:
            text += f" {match.note}"
        return escape(text)

    def item_link(self, match: Event) -> str:
        # The permalink redirects to the page of the list holding the match, wherever
        # later results have moved it.
        return reverse("pages:match", args=[match.league.slug, match.seq])

    def item_guid(self, match: Event) -> str:
        return f"tag:honest-league,2024:{match.league.slug}:match:{match.seq}"

    item_guid_is_permalink = False

    def item_pubdate(self, match: Event) -> dt.datetime:
        zone = league_zone(match.league)
        # Noon of the day played may be hours after the moment it was recorded; Django sets
        # Last-Modified from the newest entry date, which must not lie in the future.
        return min(local_noon(local_day(match.played_at, zone), zone), match.recorded_at)

    def item_updateddate(self, match: Event) -> dt.datetime:
        return match.recorded_at


class PlayerResultsFeed(LeagueResultsFeed):
    """One player's newest results, from their side."""

    def get_object(  # type: ignore[override]
        self, request: HttpRequest, league_slug: str, player_slug: str
    ) -> Player:
        league = get_object_or_404(League, slug=league_slug)
        return get_object_or_404(Player, league=league, slug=player_slug)

    def title(self, player: Player) -> str:  # type: ignore[override]
        return f"{player.display_name} ({player.league.name}): results"

    def subtitle(self, player: Player) -> str:  # type: ignore[override]
        return f"{player.display_name}'s newest results, newest played first."

    def link(self, player: Player) -> str:  # type: ignore[override]
        return reverse("pages:player", args=[player.league.slug, player.slug])

    def feed_guid(self, player: Player) -> str:  # type: ignore[override]
        return f"tag:honest-league,2024:{player.league.slug}:player:{player.pk}:results"

    def items(self, player: Player) -> list[Any]:  # type: ignore[override]
        # The matches of players merged into this one count as theirs, as on their page.
        counted = counted_ids(player)
        in_sides = MatchParticipant.objects.filter(player_id__in=counted).values("event_id")
        matches = _matches(player.league).filter(
            Q(player_a_id__in=counted) | Q(player_b_id__in=counted) | Q(pk__in=in_sides)
        )
        found = _with_texts(list(matches[:ENTRIES]))
        for match in found:
            match.feed_counted = counted
        return found

    def item_title(self, match: Event) -> str:
        counted = match.feed_counted  # type: ignore[attr-defined]
        return f"{_outcome(match, match.feed_text, counted)}: {_title(match)}"  # type: ignore[attr-defined]


def _outcome(match: Event, text: SideMatchText, counted: set[int]) -> str:
    """The player's result from their side: "Win against Bob", "Win with Ben against
    Cai & Dee", or "=2nd of 4"."""
    own = next(side for side in text.sides if any(p.id in counted for p in side.players))
    if match.score_a is None or len(text.sides) != 2:
        return f"{own.position_text} of {len(text.sides)}"
    other = text.sides[1] if own is text.sides[0] else text.sides[0]
    score = match.score_a if own is text.sides[0] else Decimal(1) - match.score_a
    partners = [p.name for p in own.players if p.id not in counted]
    with_whom = f" with {' & '.join(partners)}" if partners else ""
    return f"{outcome_word(score)}{with_whom} against {other.names}"
