"""Named API tokens: organisers create, list and revoke their own.

A token's secret is random (256 bits), shown once and stored only as its SHA-256 digest:
a leaked database reveals no usable token, and a plain digest suffices for a secret this long
(no password stretching needed). ``user_for`` is what the API's authentication asks.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from league.models import ApiToken
from league.validation import Errors, check_text

SECRET_PREFIX = "hl_"
NAME_MAX = ApiToken._meta.get_field("name").max_length
# How stale "last used" may get: writing it on every request would cost a write per call.
LAST_USED_RESOLUTION = dt.timedelta(minutes=1)


def digest_of(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def create_token(user: Any, name: str) -> tuple[ApiToken, str]:
    """A new token named ``name`` for ``user`` and its secret (shown to the user once)."""
    errors = Errors()
    name = (name or "").strip()
    if not name:
        errors.add(
            "name",
            _("Give the token a name (where it is used, e.g. “results bot”)."),
            "required",
        )
    elif len(name) > NAME_MAX:
        errors.add(
            "name",
            _("The name is too long (at most %(max)s characters)."),
            "too_long",
            max=NAME_MAX,
        )
    check_text(name, errors, "name")
    if not getattr(user, "is_authenticated", False):
        errors.add("user", _("Only a signed-in user can create a token."), "anonymous")
    errors.raise_if_any()
    secret = SECRET_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user, name=name, digest=digest_of(secret), prefix=secret[: len(SECRET_PREFIX) + 6]
    )
    return token, secret


def tokens_of(user: Any) -> list[ApiToken]:
    """The user's tokens, newest first, revoked ones included."""
    return list(ApiToken.objects.filter(user=user))


def revoke_token(user: Any, token_id: int) -> ApiToken | None:
    """Revoke the user's token ``token_id`` (None when the user has no such token)."""
    token = ApiToken.objects.filter(user=user, pk=token_id).first()
    if token is not None and token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def user_for(secret: str) -> tuple[Any, ApiToken] | None:
    """The active user a live token's ``secret`` belongs to, with the token; else None."""
    if not secret.startswith(SECRET_PREFIX):
        return None
    token = (
        ApiToken.objects.select_related("user")
        .filter(digest=digest_of(secret), revoked_at__isnull=True)
        .first()
    )
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token.user, token
