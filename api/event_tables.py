"""REST API of an event's table: standings with tie-breaks, the crosstable, the forecast.

The numbers the event's table page shows (``ratings.selectors.event_tables``): read-only,
public. Tie-break values and points are numbers (halves and quarters exact in binary).
Included by ``api/urls.py``.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from api import schema
from api.caching import CachedReadMixin
from api.seasons import TableForecastSerializer, forecast_body
from league.models import Competition, League
from ratings.selectors.event_tables import EventTable, event_table


class EventLineSerializer(serializers.Serializer):
    player_id = serializers.IntegerField()
    name = serializers.CharField()
    position = serializers.IntegerField(
        help_text="Place after points and the tie-breaks; shared while level on all of them."
    )
    number = serializers.IntegerField(help_text="The line's number in the crosstable.")
    points = serializers.FloatField()
    withdrawn_from_round = serializers.IntegerField(allow_null=True)
    tiebreaks = serializers.DictField(
        child=serializers.FloatField(allow_null=True),
        help_text="Each tie-break of the order (code -> value; null where none).",
    )


class CrosstableResultSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    opponent = serializers.IntegerField(
        allow_null=True, help_text="The opponent's line number; null for a bye or no game."
    )
    colour = serializers.ChoiceField(choices=["white", "black"], allow_null=True)
    score = serializers.FloatField(help_text="Game score: 1, 0.5, 0 (a bye: its points).")
    forfeit = serializers.BooleanField()
    unplayed = serializers.CharField(
        allow_null=True, help_text="pairing_bye, half_bye, zero_bye or absent (not paired)."
    )


class CrosstableRowSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    player_id = serializers.IntegerField()
    results = CrosstableResultSerializer(many=True)


class EventTableSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    name = serializers.CharField()
    format = serializers.CharField()
    after_round = serializers.IntegerField(help_text="The table counts rounds 1 to this one.")
    rounds_paired = serializers.IntegerField()
    tiebreak_order = serializers.ListField(child=serializers.CharField())
    ignored_tiebreaks = serializers.ListField(
        child=serializers.CharField(), help_text="The event's codes this site does not compute."
    )
    rows = EventLineSerializer(many=True)
    crosstable = CrosstableRowSerializer(many=True)
    forecast = TableForecastSerializer(allow_null=True)


def _colour(black: bool | None) -> str | None:
    return None if black is None else ("black" if black else "white")


def _body(table: EventTable) -> dict[str, Any]:
    numbers = {line.player_id: line.number for line in table.lines}
    crosstable = []
    for line in table.lines:
        results = []
        if table.rounds is not None:
            row = table.rounds[line.number - 1]
            results = [
                {
                    "round": c.round,
                    "opponent": c.opponent,
                    "colour": _colour(c.black),
                    "score": float(c.score),
                    "forfeit": c.forfeit,
                    "unplayed": c.unplayed.value if c.unplayed else None,
                }
                for c in row.rounds
            ]
        elif table.grid is not None:
            grid_row = table.grid[line.number - 1]
            results = [
                {
                    "round": cell.round,
                    "opponent": column + 1,
                    "colour": _colour(cell.black),
                    "score": float(cell.score),
                    "forfeit": cell.forfeit,
                    "unplayed": None,
                }
                for column, cells in enumerate(grid_row.cells)
                for cell in cells or ()
            ]
        crosstable.append({"number": line.number, "player_id": line.player_id, "results": results})
    return {
        "slug": table.competition.slug,
        "name": table.competition.name,
        "format": table.competition.format,
        "after_round": table.after_round,
        "rounds_paired": table.rounds_paired,
        "tiebreak_order": list(table.order),
        "ignored_tiebreaks": list(table.ignored),
        "rows": [
            {
                "player_id": line.player_id,
                "name": line.name,
                "position": line.position,
                "number": numbers[line.player_id],
                "points": float(line.points),
                "withdrawn_from_round": line.withdrawn_from_round,
                "tiebreaks": {
                    code: None if value is None else float(value)
                    for code, value in line.values.items()
                },
            }
            for line in table.lines
        ],
        "crosstable": crosstable,
        "forecast": forecast_body(table.forecast),
    }


@extend_schema(tags=["events"], responses={200: EventTableSerializer, **schema.errors(404)})
class EventTableView(CachedReadMixin, generics.GenericAPIView):
    """An event's standings by its tie-breaks, its crosstable and who is likely to win it."""

    serializer_class = EventTableSerializer
    permission_classes = [IsAuthenticatedOrReadOnly]
    pagination_class = None

    def get(self, request: Request, league_slug: str, competition_slug: str) -> Response:
        league = get_object_or_404(League, slug=league_slug)
        competition = get_object_or_404(Competition, league=league, slug=competition_slug)
        return Response(EventTableSerializer(_body(event_table(competition))).data)


urlpatterns = [
    path(
        "leagues/<slug:league_slug>/competitions/<slug:competition_slug>/table/",
        EventTableView.as_view(),
        name="competition-table",
    ),
]
