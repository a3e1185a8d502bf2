"""Hooks for django-axes, the sign-in rate limit: the client's address and the lockout page.

Settings name these functions (``AXES_CLIENT_IP_CALLABLE``, ``AXES_LOCKOUT_CALLABLE``).
"""

from __future__ import annotations

import math

from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

LOCKOUT_TEMPLATE = "admin/login_locked_out.html"


def client_address(request: HttpRequest) -> str:
    """The address failed sign-ins are counted against.

    ``REMOTE_ADDR``; behind the TLS proxy (``DJANGO_BEHIND_PROXY=1``) the last entry of
    ``X-Forwarded-For``, the one the proxy itself appended: the entries before it are
    whatever the client sent, so trusting them would let an attacker pick a fresh address
    for every attempt.
    """
    if settings.SECURE_PROXY_SSL_HEADER:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        last = forwarded.rsplit(",", 1)[-1].strip()
        if last:
            return last
    return request.META.get("REMOTE_ADDR", "")


def cooloff_minutes() -> int:
    """The cool-off in whole minutes, rounded up (at least 1)."""
    return max(1, math.ceil(settings.AXES_COOLOFF_TIME.total_seconds() / 60))


def lockout_response(
    request: HttpRequest,
    original_response: HttpResponse | None = None,
    credentials: dict | None = None,
) -> HttpResponse:
    """The admin sign-in page saying why sign-in is refused and for how long (HTTP 429)."""
    minutes = cooloff_minutes()
    context = {
        **admin.site.each_context(request),
        "title": "Sign-in paused",
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "cooloff_minutes": minutes,
    }
    response = render(request, LOCKOUT_TEMPLATE, context, status=429)
    response["Retry-After"] = str(minutes * 60)
    return response
