"""``GET /api/leagues/<slug>/export/results.csv``: the league's matches in the import format;
``GET /api/leagues/<slug>/competitions/<event>/export.trf``: an event as a TRF file.

The same CSV as the workspace's export and ``manage.py export_ratings --results``
(``ratings.exports.results``): ``?voided=1`` gives the full log (every recorded match, voided
ones with their void's reason). Readable by anyone, like the match list.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.exceptions import ValidationError
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.serializers import BooleanField, ChoiceField, Serializer

from api import schema
from api.views import LeagueScopedMixin
from league.chess import trf
from league.chess.trf_export import export_competition, file_name
from league.models import Competition
from ratings import exports


class CSVRenderer(BaseRenderer):
    """Lets a client ask for ``text/csv``: the view streams the file itself, so this renders
    only an error's body (as its JSON text, the API's error format)."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context=None):
        return JSONRenderer().render(data)


#: The ``?format=`` values this view answers (its renderers' formats).
FORMATS = frozenset({"csv", "json"})


class ExportQuerySerializer(Serializer):
    voided = BooleanField(required=False, default=False)


class ResultsExportView(LeagueScopedMixin, generics.GenericAPIView):
    """The league's matches as CSV in the format ``import_results`` reads back."""

    renderer_classes = [JSONRenderer, CSVRenderer]
    pagination_class = None
    serializer_class = ExportQuerySerializer
    # A streamed download: not stored (the CSV of a big league is megabytes).
    cache_reads = False

    @extend_schema(
        tags=["matches"],
        parameters=[
            OpenApiParameter(
                "voided",
                bool,
                description="Every recorded match, voided ones with a void_reason column.",
            )
        ],
        responses={(200, "text/csv"): OpenApiTypes.STR, **schema.errors(400, 404)},
    )
    def get(self, request: Request, league_slug: str) -> StreamingHttpResponse:
        # DRF ignores an empty or unknown ``?format=`` and answers as if none were given; the
        # schema lists the formats, so anything else is refused like any other bad parameter.
        if request.query_params.get("format", "csv") not in FORMATS:
            raise ValidationError(
                {"format": [f"Choose one of {', '.join(sorted(FORMATS))}, or leave it out."]}
            )
        league = self.get_league()
        params = self.query(ExportQuerySerializer)
        table = exports.results(league, with_voided=params["voided"])
        response = StreamingHttpResponse(
            exports.csv_lines(table), content_type="text/csv; charset=utf-8"
        )
        what = "event-log" if params["voided"] else "results"
        response["Content-Disposition"] = f'attachment; filename="{league.slug}-{what}.csv"'
        return response


class TRFRenderer(BaseRenderer):
    """Lets a client ask for ``text/plain`` (a TRF file is text): the view writes the file
    itself, so this renders only an error's body (as its JSON text, the API's error format)."""

    media_type = "text/plain"
    format = "trf"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context=None):
        return JSONRenderer().render(data)


#: The ``?format=`` values the TRF view answers (its renderers' formats).
TRF_FORMATS = frozenset({"trf", "json"})


class TrfQuerySerializer(Serializer):
    flavour = ChoiceField(choices=list(trf.FLAVOURS), required=False, default=trf.TRF_2026)


class CompetitionTrfExportView(LeagueScopedMixin, generics.GenericAPIView):
    """An event of the league as a TRF file: TRF-2026, ``?flavour=trf-x`` (XXR and XXC for
    JaVaFo and bbpPairings) or ``?flavour=trf-bx`` (TRF(x) with bbpPairings' BB? point
    records). Readable by anyone, like the event's page."""

    renderer_classes = [JSONRenderer, TRFRenderer]
    pagination_class = None
    serializer_class = TrfQuerySerializer
    cache_reads = False

    @extend_schema(
        tags=["competitions"],
        parameters=[
            OpenApiParameter(
                "flavour",
                str,
                enum=list(trf.FLAVOURS),
                description="trf-2026 (the default), trf-x (XXR/XXC for pairing engines) or "
                "trf-bx (trf-x with bbpPairings' BBW…BBU point records).",
            )
        ],
        responses={(200, "text/plain"): OpenApiTypes.STR, **schema.errors(400, 404)},
    )
    def get(self, request: Request, league_slug: str, competition_slug: str) -> HttpResponse:
        if request.query_params.get("format", "trf") not in TRF_FORMATS:
            raise ValidationError(
                {"format": [f"Choose one of {', '.join(sorted(TRF_FORMATS))}, or leave it out."]}
            )
        league = self.get_league()
        params = self.query(TrfQuerySerializer)
        competition = get_object_or_404(Competition, league=league, slug=competition_slug)
        response = HttpResponse(
            export_competition(competition, params["flavour"]).encode("utf-8"),
            content_type="text/plain; charset=utf-8",
        )
        response["Content-Disposition"] = f'attachment; filename="{file_name(competition)}"'
        return response
