"""A database that cannot be reached is answered 503 with ``Retry-After``, not 500.

While PostgreSQL restarts (or SQLite stays locked past its busy timeout), every query fails
with ``OperationalError`` or, on a connection that broke under it, ``InterfaceError``. That is
not a fault of the request: the client should try again shortly, and "503 Service
Unavailable" with ``Retry-After: settings.DB_RETRY_AFTER_SECONDS`` says so. Any other
database error (integrity, data, programming) stays a 500: retrying would not help.

Two ways in, because Django turns an exception into a response where it is raised:

- :class:`DatabaseOutageMiddleware` answers an outage raised by a view (pages and API alike:
  DRF re-raises what it does not handle);
- :func:`server_error`, the project's ``handler500``, answers one raised elsewhere (a
  middleware saving the session, for instance), and Django's own 500 page otherwise.

Pages get a small HTML page that reads nothing from the database; ``/api/`` gets a JSON body
in the API's error format (``{"detail", "code", "errors"}``). Each outage response is logged
with its traceback, so a missing migration (SQLite's "no such table" is an
``OperationalError`` too) still shows where it comes from.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views import defaults

logger = logging.getLogger(__name__)

OUTAGE_ERRORS = (OperationalError, InterfaceError)
API_PREFIX = "/api/"


def is_outage(error: BaseException | None) -> bool:
    """True for the database errors that mean "cannot be reached now, try again"."""
    return isinstance(error, OUTAGE_ERRORS)


def outage_response(request: HttpRequest) -> HttpResponse:
    """503 with ``Retry-After``: JSON in the API's error format under ``/api/``, else HTML."""
    seconds = settings.DB_RETRY_AFTER_SECONDS
    if request.path.startswith(API_PREFIX):
        response: HttpResponse = JsonResponse(
            {
                "detail": _(
                    "The database cannot be reached just now. Try again in %(seconds)s seconds."
                )
                % {"seconds": seconds},
                "code": "service_unavailable",
                "errors": {},
            },
            status=503,
        )
    else:
        response = HttpResponse(render_to_string("503.html", {"retry_after": seconds}), status=503)
    response["Retry-After"] = str(seconds)
    response["Cache-Control"] = "no-store"
    return response


def _log(request: HttpRequest, error: BaseException) -> None:
    logger.error(
        "Database unreachable while answering %s %s: answered 503",
        request.method,
        request.path,
        exc_info=(type(error), error, error.__traceback__),
    )


class DatabaseOutageMiddleware:
    """Answers a view's database outage with :func:`outage_response`."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not is_outage(exception):
            return None
        _log(request, exception)
        return outage_response(request)


def server_error(request: HttpRequest, template_name: str = "500.html") -> HttpResponse:
    """``handler500``: an outage raised outside a view is a 503 too; anything else a 500."""
    error = sys.exc_info()[1]
    if is_outage(error):
        _log(request, error)
        return outage_response(request)
    return defaults.server_error(request, template_name)
