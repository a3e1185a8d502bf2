"""What the weekly digest says: for each league where the account holds a player, the past
seven days' results, the next seven days' fixtures and the player's rating now."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db.models import Q
from django.utils.dateparse import parse_datetime

from league.models import Event, Fixture, MatchParticipant, Player
from notifications.models import Message
from notifications.times import local_time
from ratings.models import Standing
from ratings.selectors.configurations import live_config

WEEK = dt.timedelta(days=7)


def digest_context(message: Message) -> dict[str, Any]:
    """The digest's leagues, each with its player's week (numbers; the template words them)."""
    until = parse_datetime(message.params.get("until", "")) or message.created_at
    since = until - WEEK
    leagues = []
    players = Player.objects.select_related("league").filter(account_id=message.user_id)
    for player in players.order_by("league__name", "pk"):
        league = player.league
        side_events = MatchParticipant.objects.filter(player=player).values("event_id")
        events = Event.objects.filter(
            league=league,
            kind__in=[Event.Kind.MATCH_RECORDED, Event.Kind.SIDE_MATCH_RECORDED],
            voided_by__isnull=True,
            played_at__gte=since,
            played_at__lt=until,
        ).filter(Q(player_a=player) | Q(player_b=player) | Q(pk__in=side_events))
        fixtures = Fixture.objects.filter(
            league=league,
            cancelled=False,
            scheduled_at__gte=until,
            scheduled_at__lt=until + WEEK,
        ).filter(Q(player_a=player) | Q(player_b=player))
        names = dict(
            Player.objects.filter(
                pk__in=[pk for pair in fixtures.values_list("player_a", "player_b") for pk in pair]
            ).values_list("pk", "display_name")
        )
        config = live_config(league)
        standing = Standing.objects.filter(config=config, player=player).first() if config else None
        leagues.append(
            {
                "league": league,
                "player": player,
                "games": events.count(),
                "fixtures": [
                    {
                        "opponent": names.get(
                            fixture.player_b_id
                            if fixture.player_a_id == player.pk
                            else fixture.player_a_id,
                            "",
                        ),
                        "scheduled_at": local_time(league, fixture.scheduled_at),
                        "venue": fixture.venue,
                    }
                    for fixture in fixtures
                ],
                "rating": standing.rating if standing else None,
                "interval": 1.96 * standing.rd if standing else None,
            }
        )
    return {"leagues": leagues, "since": since, "until": until}
