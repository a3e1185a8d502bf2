"""The organisers' players page: list, register, rename, (de)activate, merge and unmerge."""

from __future__ import annotations

import pytest
from django.urls import reverse

from league import services
from league.models import Event, Player


def players_url(league) -> str:
    return reverse("workspace:players", args=[league.slug])


def player_url(league, player) -> str:
    return reverse("workspace:player", args=[league.slug, player.slug])


def events(league) -> int:
    return Event.objects.filter(league=league).count()


def test_the_hub_lists_the_players_page(client, league, organiser):
    client.force_login(organiser)
    body = client.get(reverse("workspace:hub", args=[league.slug])).content.decode()
    assert players_url(league) in body


def test_the_admins_player_list_links_each_player_to_its_organiser_page(client, league, organiser):
    ann = services.register_player(league, "Ann")
    organiser.is_staff = True
    organiser.save()
    client.force_login(organiser)
    body = client.get(reverse("admin:league_player_changelist")).content.decode()
    assert player_url(league, ann) in body


def test_anonymous_visitors_are_sent_to_sign_in_and_others_refused(client, league, other_organiser):
    ann = services.register_player(league, "Ann")
    for url in (players_url(league), player_url(league, ann)):
        response = client.post(url, {"display_name": "Zed", "action": "rename", "reason": "x"})
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("accounts:sign_in"))
    client.force_login(other_organiser)
    before = events(league)
    assert client.post(players_url(league), {"display_name": "Zed"}).status_code == 403
    assert (
        client.post(
            player_url(league, ann), {"action": "rename", "display_name": "Zed", "reason": "x"}
        ).status_code
        == 403
    )
    assert events(league) == before


def test_registering_a_player(client, league, organiser):
    client.force_login(organiser)
    response = client.post(
        players_url(league), {"display_name": "  Zoe\u0308   Smith "}, follow=True
    )
    assert response.status_code == 200
    player = Player.objects.get(league=league)
    assert player.display_name == "Zoë Smith"
    assert "Zoë Smith is registered." in response.content.decode()
    registered = Event.objects.get(league=league, kind=Event.Kind.PLAYER_REGISTERED)
    assert registered.recorded_by == organiser


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("\u200b", "The name has no visible character"),
        ("Ann\x1bLee", "control character (U+001B at character 4)"),
        ("bob  BÁKER", "as Bob Baker"),
    ],
)
def test_a_refused_name_says_why_and_records_nothing(client, league, organiser, name, message):
    services.register_player(league, "Bob Baker")
    client.force_login(organiser)
    before = (events(league), Player.objects.count())
    response = client.post(players_url(league), {"display_name": name})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert (events(league), Player.objects.count()) == before


def test_a_duplicate_name_offers_the_existing_player(client, league, organiser):
    bob = services.register_player(league, "Bob Baker")
    client.force_login(organiser)
    body = client.post(players_url(league), {"display_name": "bób baker"}).content.decode()
    assert f'Did you mean <a href="{player_url(league, bob)}">Bob Baker</a>?' in body


def test_rename_deactivate_reactivate_with_reasons(client, league, organiser):
    ann = services.register_player(league, "Ann")
    client.force_login(organiser)
    url = player_url(league, ann)
    response = client.post(
        url, {"action": "rename", "display_name": "Ann Lee", "reason": "married"}
    )
    assert response.status_code == 302
    client.post(url, {"action": "deactivate", "reason": "moved away"})
    client.post(url, {"action": "reactivate", "reason": "back"})
    stored = list(
        Event.objects.filter(league=league, seq__gt=1)
        .order_by("seq")
        .values_list("kind", "reason", "recorded_by")
    )
    assert stored == [
        ("player_renamed", "married", organiser.pk),
        ("player_deactivated", "moved away", organiser.pk),
        ("player_reactivated", "back", organiser.pk),
    ]
    body = client.get(reverse("pages:events", args=[league.slug])).content.decode()
    for text in ("Ann renamed to Ann Lee", "Reason: married", "Reason: moved away", "Reason: back"):
        assert text in body


def test_every_change_needs_a_reason(client, league, organiser):
    ann = services.register_player(league, "Ann")
    client.force_login(organiser)
    before = events(league)
    response = client.post(
        player_url(league, ann), {"action": "rename", "display_name": "Ann Lee", "reason": " "}
    )
    assert response.status_code == 400
    assert "Give a reason (it is shown in the event log)." in response.content.decode()
    assert events(league) == before


def test_merge_and_unmerge_through_the_page(client, league, organiser):
    bob, bob2 = (
        services.register_player(league, "Bob Baker"),
        services.register_player(league, "Bob Bakr"),
    )
    client.force_login(organiser)
    response = client.post(
        player_url(league, bob2),
        {"action": "merge", "into": str(bob.pk), "reason": "typo in the CSV"},
        follow=True,
    )
    body = response.content.decode()
    assert "Bob Bakr is merged into Bob Baker" in body
    assert Player.objects.get(pk=bob2.pk).merged_into_id == bob.pk

    services.record_match(
        league,
        player_a=bob,
        player_b=services.register_player(league, "Cy"),
        score_a="1",
        played_at=league.start_date,
    )
    survivor_page = client.get(bob.get_absolute_url()).content.decode()
    assert "Also recorded as" in survivor_page
    assert bob2.get_absolute_url() in survivor_page
    public = client.get(bob2.get_absolute_url()).content.decode()
    assert "Games (W–D–L)" not in public  # a merged-away player shows no rating of their own
    assert "was merged into" in public
    assert bob.get_absolute_url() in public
    log = client.get(reverse("pages:events", args=[league.slug])).content.decode()
    assert "Bob Bakr merged into Bob Baker" in log
    assert "Reason: typo in the CSV" in log

    api = client.get(reverse("api:player-detail", args=[league.slug, bob2.pk])).json()
    assert api["merged_into"] == bob.pk
    response = client.post(
        player_url(league, bob2), {"action": "unmerge", "reason": "brothers"}, follow=True
    )
    assert "Bob Bakr is unmerged from Bob Baker" in response.content.decode()
    assert Player.objects.get(pk=bob2.pk).merged_into_id is None


def test_a_refused_merge_says_why_and_records_nothing(client, league, organiser):
    ann, bea = services.register_player(league, "Ann"), services.register_player(league, "Bea")
    services.record_match(
        league, player_a=ann, player_b=bea, score_a="1", played_at=league.start_date
    )
    client.force_login(organiser)
    before = events(league)
    response = client.post(
        player_url(league, ann), {"action": "merge", "into": str(bea.pk), "reason": "same?"}
    )
    assert response.status_code == 400
    assert "Ann and Bea played each other" in response.content.decode()
    response = client.post(player_url(league, ann), {"action": "merge", "into": "", "reason": "x"})
    assert response.status_code == 400
    assert "Choose the player to merge into." in response.content.decode()
    assert events(league) == before


def test_finding_a_player_ignores_case_accents_and_invisibles(client, league, organiser):
    for name in ("Bób Baker", "Ann Lee", "Rob Bakerson"):
        services.register_player(league, name)
    client.force_login(organiser)
    response = client.get(players_url(league), {"q": "BOB\u200b bak"})
    body = response.content.decode()
    assert "1 of 3 players match" in body
    assert "Bób Baker" in body
    assert "Ann Lee" not in body
    assert "Rob Bakerson" not in body
    body = client.get(players_url(league), {"q": "baker"}).content.decode()
    assert "2 of 3 players match" in body
