"""Messages sent by a real Celery worker: a result's mail waits for the worker's replay to
publish the standings, its first attempt meets a mail server that is down, and the task's own
retry (autoretry with back-off) delivers it once the server is up."""

from __future__ import annotations

import datetime as dt

import pytest

from league import services as league_services
from league.models import League
from notifications.models import Message, Status
from ratings import services
from ratings.models import Publication, Standing
from tests.messages_support import free_port, holder, smtp_server
from tests.worker.conftest import wait_for

pytestmark = [pytest.mark.worker, pytest.mark.slow]


def test_a_worker_retries_a_results_mail_until_the_server_takes_it(worker_factory):
    league = League.objects.create(
        name="Worker League", slug="worker-league", start_date=dt.date(2024, 1, 1)
    )
    ann = holder(league, "Ann Archer", "ann")
    bob = holder(league, "Bob Baker", "bob")
    services.create_config(league)
    port = free_port()  # nothing listens there yet
    worker_factory(
        env={
            "LEAGUE_EMAIL_BACKEND": "smtp",
            "LEAGUE_EMAIL_HOST": "127.0.0.1",
            "LEAGUE_EMAIL_PORT": str(port),
            "LEAGUE_EMAIL_TLS": "0",
        }
    )
    wait_for(lambda: Publication.objects.filter(league=league).exists(), 60, "first standings")
    event = league_services.record_match(
        league, player_a=ann, player_b=bob, score_a="1", played_at=dt.date(2024, 3, 1)
    )
    messages = Message.objects.filter(event=event)
    wait_for(
        lambda: (
            messages.filter(
                status=Status.PENDING, last_error__contains="ConnectionRefusedError"
            ).count()
            == 2
        ),
        60,
        "the worker's replay releases both messages and the first attempts are refused",
    )
    with smtp_server(port) as (inbox, _port):
        wait_for(lambda: len(inbox.received) == 2, 60, "the task's retry reaches the server")
    wait_for(lambda: messages.filter(status=Status.SENT).count() == 2, 10, "both marked sent")
    config = Publication.objects.get(league=league).config
    rating = Standing.objects.get(config=config, player=ann).rating
    to_ann = next(m for m in inbox.messages() if m["To"] == "ann@example.org")
    assert f"Your rating now: {rating:.0f} ±" in to_ann.get_content()
    assert to_ann["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
