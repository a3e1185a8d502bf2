"""Helpers for the e-mail and webhook tests: people who hold players, a real SMTP server and a
real HTTP receiver, each on a free port of this machine."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from aiosmtpd.controller import Controller
from django.contrib.auth import get_user_model

from league import services
from league.models import League, Player
from league.player_accounts import claim_player

SMTP_BACKEND = "django.core.mail.backends.smtp.EmailBackend"


def person(username: str, email: str | None = None) -> Any:
    """An account with an e-mail address."""
    return get_user_model().objects.create_user(
        username, email=f"{username}@example.org" if email is None else email, password="pw-1x"
    )


def holder(league: League, name: str, username: str, email: str | None = None) -> Player:
    """A player of ``league`` claimed by a new account ``username`` (``player.account``)."""
    player = services.register_player(league, name)
    account = person(username, email)
    claim_player(player, account, by=account)
    player.refresh_from_db()
    return player


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def smtp_mailers(port: int) -> dict[str, Any]:
    """A ``MAILERS`` setting that sends to 127.0.0.1:``port`` without TLS."""
    return {
        "default": {
            "BACKEND": SMTP_BACKEND,
            "OPTIONS": {"host": "127.0.0.1", "port": port, "use_tls": False, "timeout": 5},
        }
    }


@dataclass
class Inbox:
    """What a real SMTP server received: each message parsed, with its envelope."""

    received: list[tuple[str, list[str], EmailMessage]] = field(default_factory=list)
    raw: list[bytes] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        parsed = message_from_bytes(envelope.content, policy=policy.default)
        self.received.append((envelope.mail_from, list(envelope.rcpt_tos), parsed))
        self.raw.append(envelope.original_content or envelope.content)
        return "250 Message accepted for delivery"

    def messages(self) -> list[EmailMessage]:
        return [message for _from, _to, message in self.received]


@contextmanager
def smtp_server(port: int | None = None) -> Iterator[tuple[Inbox, int]]:
    """An aiosmtpd server on 127.0.0.1 (a free port unless given) for the ``with`` block."""
    inbox = Inbox()
    port = port or free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


@dataclass
class Call:
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    """A webhook receiver: records every POST and answers ``status``."""

    url: str
    calls: list[Call]
    status: list[int]


@contextmanager
def http_receiver(status: int = 200) -> Iterator[Receiver]:
    """A real HTTP server in a thread on 127.0.0.1 for the ``with`` block."""
    calls: list[Call] = []
    answer = [status]

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            calls.append(Call(self.path, dict(self.headers.items()), self.rfile.read(length)))
            self.send_response(answer[0])
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Receiver(f"http://127.0.0.1:{server.server_address[1]}/hook", calls, answer)
    finally:
        server.shutdown()
        server.server_close()
