"""``GET /api/leagues/<slug>/export/results.csv``: the league's matches in the import format.

The same CSV as the workspace's export and ``manage.py export_ratings --results``
(``ratings.exports.results``): ``?voided=1`` gives the full log (every recorded match, voided
ones with their void's reason). Readable by anyone, like the match list.
"""

from __future__ import annotations

from typing import Any

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.exceptions import ValidationError
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.serializers import BooleanField, Serializer

from api import schema
from api.views import LeagueScopedMixin
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
