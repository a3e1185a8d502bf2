"""OpenAPI pieces shared by the views: the error body, headers and parameters."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import permissions, serializers

from api.bodies import BodySerializer
from api.converters import MAX_ID
from api.idempotency import HEADER, KEY_PATTERN, MAX_LENGTH
from api.parsers import MAX_DEPTH


class AutoSchema(SpectacularAutoSchema):
    """drf-spectacular's schema, with reads open to anonymous callers declared as such.

    drf-spectacular adds the empty security requirement (no credentials needed) only when
    a view's permission class *is* ``AllowAny`` or ``IsAuthenticatedOrReadOnly``; the API's
    own refinements of them (``LeagueOrganiserOrReadOnly``) are subclasses, so their reads
    were declared as needing a token although anyone may call them.
    """

    def get_auth(self) -> list[dict[str, Any]]:
        auths = super().get_auth()
        if {} in auths:
            return auths
        perms = self.view.get_permissions()
        anyone = any(isinstance(p, permissions.AllowAny) for p in perms)
        reads = self.method in permissions.SAFE_METHODS and any(
            isinstance(p, permissions.IsAuthenticatedOrReadOnly) for p in perms
        )
        return [*auths, {}] if anyone or reads else auths


class ErrorSerializer(serializers.Serializer):
    """Every error response: a summary, a code and field -> messages (see ``api.errors``)."""

    detail = serializers.CharField(help_text="Human-readable summary.")
    code = serializers.CharField(
        help_text="Machine-readable code, e.g. invalid, not_authenticated, idempotency_conflict."
    )
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text=(
            "Field (or non_field_errors, or a header name) -> messages; nested fields are "
            "dotted, e.g. results.2.score_a. Empty when no field is at fault."
        ),
    )


_DESCRIPTIONS = {
    400: (
        "Invalid input: every problem of the request at once, field -> messages in `errors` "
        "(a field the body does not take is named too); or a body that is not JSON, or JSON "
        f"nested deeper than {MAX_DEPTH} levels."
    ),
    401: "Not authenticated (send a token: `Authorization: Token <key>`).",
    403: "Authenticated, but not an organiser of this league.",
    404: (
        "No such league or object; or a query parameter's id (a player's) names nobody "
        "in this league, the parameter named in `errors`."
    ),
    413: "The request body is larger than the server accepts (2.5 MB by default).",
    422: "The Idempotency-Key was already used with a different request body.",
}


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    """``responses`` entries for the given error statuses, all with ``ErrorSerializer``."""
    return {
        code: OpenApiResponse(ErrorSerializer, description=_DESCRIPTIONS[code]) for code in codes
    }


class ClosedBodyExtension(OpenApiSerializerExtension):
    """Request bodies (``api.bodies.BodySerializer``) take their declared fields only.

    The API refuses any other field with a 400, so the schema says
    ``additionalProperties: false``.
    """

    target_class = BodySerializer
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        return {**schema, "additionalProperties": False}


IDEMPOTENCY_KEY = OpenApiParameter(
    HEADER,
    {"type": "string", "pattern": f"^{KEY_PATTERN.pattern}$", "maxLength": MAX_LENGTH},
    OpenApiParameter.HEADER,
    required=False,
    description=(
        "Makes a retry safe: 1 to 100 visible ASCII characters without spaces or colons "
        "(a UUID is a good choice). A repeat with the same body returns the original "
        "response and stores nothing new; the same key with a different body is refused "
        "with 422. Keys are scoped to the league and to the kind of request."
    ),
)

ETAG = OpenApiParameter(
    "ETag",
    str,
    OpenApiParameter.HEADER,
    description="Validator for If-None-Match.",
    response=[200, 304],
)
LAST_MODIFIED = OpenApiParameter(
    "Last-Modified",
    str,
    OpenApiParameter.HEADER,
    description="When the standings were last computed or published.",
    response=[200, 304],
)


def id_path(name: str, description: str) -> OpenApiParameter:
    """An integer path parameter as the ``id`` converter matches it (0 to 10**18 - 1)."""
    return OpenApiParameter(
        name,
        {"type": "integer", "minimum": 0, "maximum": MAX_ID},
        OpenApiParameter.PATH,
        description=description,
    )
