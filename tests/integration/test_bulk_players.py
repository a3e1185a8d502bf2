"""The bulk path's new players: created a batch at a time, before the results naming them."""

from __future__ import annotations

import datetime as dt

from django.db import transaction

from league import services as league_services
from league.event_store import facts_of
from league.event_store.bulk import BulkAppender, NewMatch
from league.event_store.vocabulary import MatchRecorded, PlayerRegistered
from league.models import Event, Player


def test_new_players_are_created_per_batch_with_free_slugs_before_their_results(league):
    league_services.register_player(league, "Ann Lee")
    day = dt.date(2024, 3, 1)
    with transaction.atomic():
        appender = BulkAppender(league, batch_size=2)
        bo = appender.register_player("Bo")
        ann = appender.register_player("Ann  Lee!")  # the same slug as Ann Lee's
        assert (bo.pk, ann.pk) == (None, None)  # created with the batch
        appender.add(NewMatch(bo, ann, "1", day, ref=1))
        appender.add(NewMatch(ann, bo, "0.5", day, ref=2))  # the batch is written here
        assert None not in (bo.pk, ann.pk)
        cy = appender.register_player("Cy")
        appender.add(NewMatch(cy, bo, "0", day, idempotency_key="k", ref=3))
        appender.add(NewMatch(cy, cy, "1", day, ref=4))  # a new player cannot play themselves
        result = appender.close(announce=False)
    assert result.players_registered == ["Bo", "Ann Lee!", "Cy"]
    assert [ref for ref, _ in result.errors] == [4]
    assert result.appended == 3
    slugs = sorted(Player.objects.filter(league=league).values_list("slug", flat=True))
    assert slugs == ["ann-lee", "ann-lee-2", "bo", "cy"]
    events = Event.objects.filter(league=league).order_by("seq")
    facts = facts_of(events)
    kinds = [type(fact).__name__ for fact in facts]
    assert kinds == [
        "PlayerRegistered",  # Ann Lee, before the import
        "PlayerRegistered",
        "PlayerRegistered",
        "MatchRecorded",
        "MatchRecorded",
        "PlayerRegistered",
        "MatchRecorded",
    ]
    seqs = list(events.values_list("seq", flat=True))
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    registered = [f for f in facts if isinstance(f, PlayerRegistered)][1:]
    assert [(f.player_id, f.display_name) for f in registered] == [
        (bo.pk, "Bo"),
        (ann.pk, "Ann Lee!"),
        (cy.pk, "Cy"),
    ]
    matches = [f for f in facts if isinstance(f, MatchRecorded)]
    assert [(m.player_a_id, m.player_b_id) for m in matches] == [
        (bo.pk, ann.pk),
        (ann.pk, bo.pk),
        (cy.pk, bo.pk),
    ]
