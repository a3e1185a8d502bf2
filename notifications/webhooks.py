"""A league's webhook: where it is, checking it is safe to call, what is sent, signing.

Organisers set an address and a secret (``set_webhook``). Each call is a JSON body that Slack
(``text``) and Discord (``content``) show as it is, with structured fields beside them
(``league``, ``kind``, ``events``, ``timestamp``), posted with:

- ``X-League-Signature: sha256=<hex>``, the HMAC-SHA256 of the exact body bytes under the
  secret;
- ``X-League-Timestamp``, the Unix time of the call, also the body's ``timestamp`` (so it is
  signed): a receiver refuses a body whose timestamp is more than a few minutes old.

The site must not be a way into its own network (SSRF): the address's host is resolved and
every address it resolves to must be public (not private, loopback, link-local, multicast,
reserved or unspecified), when the address is saved and again at each call, which then
connects to the address it checked (a name that re-resolves elsewhere meanwhile gains
nothing). Redirects are not followed. ``settings.WEBHOOK_ALLOW_PRIVATE`` lifts the address
rule for tests and a receiver on the developer's machine.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import ipaddress
import json
import secrets
import socket
import ssl
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from league.event_store import store as event_store
from league.models import League
from league.validation import Errors, check_text
from notifications.models import Webhook

SIGNATURE_HEADER = "X-League-Signature"
TIMESTAMP_HEADER = "X-League-Timestamp"
#: Shortest secret an organiser may choose (a generated one is 43 characters).
MIN_SECRET = 16
MAX_URL = Webhook._meta.get_field("url").max_length
MAX_SECRET = Webhook._meta.get_field("secret").max_length
#: Characters of ``text`` kept: Discord refuses ``content`` over 2,000.
MAX_TEXT = 1900


class UnsafeAddress(Exception):
    """The webhook's address may not be called (its message says why)."""


@dataclass(frozen=True)
class Target:
    """A checked address: scheme, host name, port, path and the IP to connect to."""

    scheme: str
    host: str
    port: int
    path: str
    ip: str


def check_address(url: str, *, allow_private: bool | None = None) -> Target:
    """Resolve ``url`` and check it may be called; raises ``UnsafeAddress``."""
    allow = settings.WEBHOOK_ALLOW_PRIVATE if allow_private is None else allow_private
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UnsafeAddress(_("Give a full address starting with https:// (or http://)."))
    if parts.username or parts.password:
        raise UnsafeAddress(_("The address may not hold a user name or password."))
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise UnsafeAddress(_("The address's port is not a number from 1 to 65535.")) from None
    try:
        found = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise UnsafeAddress(
            _("The host %(host)s cannot be found.") % {"host": parts.hostname}
        ) from None
    addresses = [info[4][0] for info in found]
    if not addresses:
        raise UnsafeAddress(_("The host %(host)s cannot be found.") % {"host": parts.hostname})
    if not allow:
        for address in addresses:
            if not ipaddress.ip_address(address.split("%")[0]).is_global:
                raise UnsafeAddress(
                    _(
                        "%(host)s is a private or local address (%(address)s): a webhook must "
                        "be reachable on the public internet."
                    )
                    % {"host": parts.hostname, "address": address}
                )
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    return Target(parts.scheme, parts.hostname, port, path, addresses[0])


def set_webhook(
    league: League, *, url: Any, secret: Any, active: bool, updated_by: Any = None
) -> tuple[Webhook, str | None]:
    """Store ``league``'s webhook (``ValidationError`` naming the field on bad input).

    An empty ``secret`` keeps the stored one, or makes a new one for a new webhook; returns
    the webhook and the secret when it was made here (to show once).
    """
    errors = Errors()
    url_text = str(url or "").strip()
    secret_text = str(secret or "").strip()
    check_text(url_text, errors, "url")
    check_text(secret_text, errors, "secret")
    if not errors.by_field.get("url"):
        if not url_text:
            errors.add("url", _("Give the address the league's news is posted to."), "required")
        elif len(url_text) > MAX_URL:
            errors.add("url", _("At most %(max)s characters."), "too_long", max=MAX_URL)
        else:
            try:
                check_address(url_text)
            except UnsafeAddress as error:
                errors.add("url", str(error), "unsafe_address")
    if secret_text and not errors.by_field.get("secret"):
        if len(secret_text) < MIN_SECRET:
            errors.add("secret", _("At least %(min)s characters."), "too_short", min=MIN_SECRET)
        elif len(secret_text) > MAX_SECRET:
            errors.add("secret", _("At most %(max)s characters."), "too_long", max=MAX_SECRET)
    errors.raise_if_any()
    with transaction.atomic():
        event_store.lock_league(league)
        webhook = Webhook.objects.filter(league=league).first()
        made = None
        if not secret_text and webhook is None:
            made = secret_text = secrets.token_urlsafe(32)
        if webhook is None:
            webhook = Webhook(league=league)
        webhook.url = url_text
        if secret_text:
            webhook.secret = secret_text
        webhook.active = bool(active)
        webhook.updated_at = timezone.now()
        webhook.updated_by = updated_by if getattr(updated_by, "is_authenticated", False) else None
        webhook.save()
    return webhook, made


def sign(secret: str, body: bytes) -> str:
    """The signature header's value for ``body``."""
    digest = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def encode(payload: dict[str, Any]) -> bytes:
    """The exact bytes sent (and signed)."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


def clip(text: str) -> str:
    """``text`` cut to what Slack and Discord show in one message."""
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "\u2026"


@dataclass(frozen=True)
class Response:
    """What the receiver answered."""

    status: int
    body: bytes


def post(url: str, body: bytes, headers: dict[str, str]) -> Response:
    """POST ``body`` to ``url`` after checking its address, connecting to the checked IP
    (``settings.WEBHOOK_TIMEOUT_SECONDS`` to connect and for each read). Raises
    ``UnsafeAddress`` or ``OSError``."""
    target = check_address(url)
    timeout = settings.WEBHOOK_TIMEOUT_SECONDS
    connection: http.client.HTTPConnection
    if target.scheme == "https":
        connection = _PinnedHTTPS(target, timeout)
    else:
        connection = _PinnedHTTP(target, timeout)
    try:
        connection.request(
            "POST",
            target.path,
            body=body,
            headers={
                "Host": target.host if target.port in (80, 443) else f"{target.host}:{target.port}",
                "Content-Type": "application/json",
                "User-Agent": "HonestLeague-Webhook/1",
                **headers,
            },
        )
        answer = connection.getresponse()
        return Response(answer.status, answer.read(4096))
    finally:
        connection.close()


class _PinnedHTTP(http.client.HTTPConnection):
    def __init__(self, target: Target, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout)
        self._ip = target.ip

    def connect(self) -> None:
        self.sock = socket.create_connection((self._ip, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, target: Target, timeout: float) -> None:
        super().__init__(
            target.host, target.port, timeout=timeout, context=ssl.create_default_context()
        )
        self._ip = target.ip

    def connect(self) -> None:
        raw = socket.create_connection((self._ip, self.port), self.timeout)
        # The certificate is checked against the host name, not the IP connected to.
        self.sock = self._context.wrap_socket(raw, server_hostname=self.host)  # type: ignore[attr-defined]


def signed_headers(secret: str, body: bytes, timestamp: int) -> dict[str, str]:
    """The headers that sign ``body``."""
    return {SIGNATURE_HEADER: sign(secret, body), TIMESTAMP_HEADER: str(timestamp)}


def now_timestamp() -> int:
    return int(time.time())
