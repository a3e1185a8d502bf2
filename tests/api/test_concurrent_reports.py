"""Answers to one report arriving at the same moment, over HTTP, on PostgreSQL: one outcome.

pytest-django's ``live_server`` (a threaded HTTP server on the test database) takes the
requests; each client is a thread with its own ``requests`` session and token, and a
barrier releases the rival requests together, round after round:

- the same report confirmed twice at once (two sessions of the opponent): both answers say
  "confirmed", with the same match; one match and one ``report_confirmed`` event exist;
- a confirmation racing an organiser's rejection: exactly one of them wins, the other is
  told the report is already settled; one outcome event, and a match only if the
  confirmation won.
"""

from __future__ import annotations

import threading
from collections import Counter
from urllib.parse import urlsplit

import pytest
import requests
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token

from league import services as league_services
from league.models import Event, Report
from league.player_accounts import claim_player
from league.services import reports
from ratings import tasks

ROUNDS = 12
TIMEOUT = 30


def _session(user) -> requests.Session:
    session = requests.Session()
    token, _created = Token.objects.get_or_create(user=user)
    session.headers["Authorization"] = f"Token {token.key}"
    return session


def _race(calls: list) -> list[requests.Response]:
    """Run ``calls`` (each a function of no argument) in threads released together."""
    barrier = threading.Barrier(len(calls))
    answers: list = [None] * len(calls)

    def run(index: int) -> None:
        barrier.wait(timeout=TIMEOUT)
        try:
            answers[index] = calls[index]()
        except BaseException as error:  # reported by the main thread
            answers[index] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for answer in answers:
        if isinstance(answer, BaseException):
            raise answer
    return answers


@pytest.fixture
def setting(live_server, league, organiser, monkeypatch):
    # The subject is the write path: the replays queued after each confirmation are
    # recorded, not run (they are tested elsewhere).
    monkeypatch.setattr(tasks.replay_league, "delay", lambda **kwargs: None)
    assert urlsplit(live_server.url).hostname in {"localhost", "127.0.0.1"}
    ann, bob = (league_services.register_player(league, name) for name in ("Ann", "Bob"))
    users = {}
    for player in (ann, bob):
        user = get_user_model().objects.create_user(player.display_name, password="pw-1-xyz")
        claim_player(player, user, by=organiser)
        users[player.display_name] = user
    return live_server.url, league, ann, bob, users


def _report(league, ann, bob, user, n: int) -> Report:
    return reports.submit_report(
        league,
        user=user,
        player_a=ann.pk,
        player_b=bob.pk,
        score_a="1",
        played_at=f"2024-02-{n + 1:02d}",
    )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_same_report_confirmed_twice_at_once_is_recorded_once(setting):
    base, league, ann, bob, users = setting
    first, second = _session(users["Bob"]), _session(users["Bob"])
    for n in range(ROUNDS):
        report = _report(league, ann, bob, users["Ann"], n)
        target = f"{base}/api/leagues/{league.slug}/reports/{report.pk}/confirm/"
        answers = _race(
            [
                lambda s=first, t=target: s.post(t, json={}, timeout=TIMEOUT),
                lambda s=second, t=target: s.post(t, json={}, timeout=TIMEOUT),
            ]
        )
        assert [a.status_code for a in answers] == [200, 200], [a.text for a in answers]
        bodies = [a.json() for a in answers]
        assert bodies[0] == bodies[1]
        assert bodies[0]["status"] == "confirmed"
        kinds = Counter(Event.objects.filter(report=report).values_list("kind", flat=True))
        assert kinds == Counter({"report_submitted": 1, "report_confirmed": 1})
        assert Event.objects.filter(idempotency_key=f"report:{report.pk}:match").count() == 1
        assert bodies[0]["match"] == Report.objects.get(pk=report.pk).match_id
    assert Event.objects.filter(league=league).all_matches().count() == ROUNDS
    seqs = list(Event.objects.filter(league=league).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_confirmation_racing_a_rejection_ends_with_one_outcome(setting, organiser):
    base, league, ann, bob, users = setting
    player, boss = _session(users["Bob"]), _session(organiser)
    winners = Counter()
    for n in range(ROUNDS):
        report = _report(league, ann, bob, users["Ann"], n)
        root = f"{base}/api/leagues/{league.slug}/reports/{report.pk}"
        confirm, reject = _race(
            [
                lambda r=root: player.post(f"{r}/confirm/", json={}, timeout=TIMEOUT),
                lambda r=root: boss.post(f"{r}/reject/", json={"reason": "No"}, timeout=TIMEOUT),
            ]
        )
        statuses = sorted([confirm.status_code, reject.status_code])
        assert statuses == [200, 400], [confirm.text, reject.text]
        loser = confirm if confirm.status_code == 400 else reject
        assert "already settled" in loser.json()["errors"]["report"][0]
        stored = Report.objects.get(pk=report.pk)
        outcome_kinds = list(
            Event.objects.filter(report=report)
            .exclude(kind="report_submitted")
            .values_list("kind", flat=True)
        )
        if confirm.status_code == 200:
            winners["confirm"] += 1
            assert stored.status == "confirmed"
            assert outcome_kinds == ["report_confirmed"]
            assert stored.match is not None
        else:
            winners["reject"] += 1
            assert stored.status == "rejected"
            assert outcome_kinds == ["report_rejected"]
            assert stored.match is None
            assert not Event.objects.filter(idempotency_key=f"report:{report.pk}:match").exists()
    assert sum(winners.values()) == ROUNDS
    assert Event.objects.filter(league=league).all_matches().count() == winners["confirm"]
