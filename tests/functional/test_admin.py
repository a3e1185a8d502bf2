"""The admin (the operator's console) through the test client: per-league access, leagues,
players and the read-only event log; it records no result (the workspace does)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.urls import reverse

from league import services
from league.models import Event, Player
from ratings import services as rating_services

PLAYED = dt.date(2024, 3, 2)


@pytest.fixture
def clubs(league, other_league, organiser, other_organiser):
    """Two leagues, each with two players, one match and a staff organiser."""
    for user in (organiser, other_organiser):
        user.is_staff = True
        user.save()
    ann = services.register_player(league, "Ann Riverside")
    bob = services.register_player(league, "Bob Riverside")
    olga = services.register_player(other_league, "Olga Hilltop")
    pete = services.register_player(other_league, "Pete Hilltop")
    return {
        "mine": services.record_match(
            league, player_a=ann, player_b=bob, score_a=1, played_at=PLAYED
        ),
        "theirs": services.record_match(
            other_league, player_a=olga, player_b=pete, score_a=0, played_at=PLAYED
        ),
        "ann": ann,
        "bob": bob,
        "olga": olga,
    }


@pytest.fixture
def organiser_client(client, organiser, clubs):
    client.force_login(organiser)
    return client


def url(name: str, *args) -> str:
    return reverse(f"admin:{name}", args=args)


def events() -> list[tuple]:
    return list(Event.objects.order_by("pk").values_list("pk", "kind", "league_id"))


@pytest.mark.parametrize(
    "target",
    [
        ("league_event_changelist",),
        ("league_player_changelist",),
        ("league_league_changelist",),
    ],
)
def test_anonymous_users_are_sent_to_the_login_page(client, clubs, target):
    response = client.get(url(*target))
    assert response.status_code == 302
    assert response.url.startswith(reverse("admin:login"))


@pytest.mark.parametrize(
    "name", ["league_event_changelist", "league_player_changelist", "league_league_changelist"]
)
def test_an_organiser_lists_only_their_own_league(organiser_client, name):
    content = organiser_client.get(url(name)).content.decode()
    assert "Riverside" in content
    assert "Hilltop" not in content


@pytest.mark.parametrize(
    "name",
    [
        "league_event_changelist",
        "league_player_changelist",
        "ratings_ratingconfig_changelist",
        "ratings_replay_changelist",
    ],
)
def test_a_list_s_filters_offer_an_organiser_only_their_own_league(
    organiser_client, league, other_league, name
):
    for each in (league, other_league):
        rating_services.create_config(each)
    response = organiser_client.get(url(name))
    changelist = response.context["cl"]
    offered = [
        str(choice["display"])
        for spec in changelist.filter_specs
        for choice in spec.choices(changelist)
    ]
    assert league.name in offered
    assert other_league.name not in offered
    assert "Hilltop" not in response.content.decode()


def test_a_superuser_sees_every_league(client, superuser, clubs):
    client.force_login(superuser)
    content = client.get(url("league_event_changelist")).content.decode()
    assert "Ann Riverside" in content
    assert "Olga Hilltop" in content


def test_other_leagues_objects_do_not_open(organiser_client, clubs, other_league):
    for name, obj in (
        ("league_event_change", clubs["theirs"]),
        ("league_player_change", clubs["olga"]),
        ("league_league_change", other_league),
    ):
        response = organiser_client.get(url(name, obj.pk))
        # The admin answers "does not exist" (redirect to the index) for rows outside
        # the user's queryset.
        assert response.status_code == 302, name
        assert response.url == reverse("admin:index")


def test_the_progress_of_another_league_is_not_found(organiser_client, other_league):
    assert organiser_client.get(url("league_progress", other_league.pk)).status_code == 404


def test_a_non_staff_organiser_cannot_use_the_admin(client, organiser, clubs):
    organiser.is_staff = False
    organiser.save()
    client.force_login(organiser)
    response = client.get(url("league_event_changelist"))
    assert response.status_code == 302
    assert response.url.startswith(reverse("admin:login"))


class TestEventLogIsReadOnly:
    def test_the_change_page_has_no_save_or_delete(self, organiser_client, clubs):
        page = organiser_client.get(url("league_event_change", clubs["mine"].pk))
        assert page.status_code == 200
        assert b'name="_save"' not in page.content
        assert url("league_event_delete", clubs["mine"].pk).encode() not in page.content

    def test_posting_a_change_is_forbidden(self, organiser_client, clubs):
        before = events()
        response = organiser_client.post(
            url("league_event_change", clubs["mine"].pk), {"points": "forged"}
        )
        assert response.status_code == 403
        assert events() == before

    def test_delete_is_forbidden(self, organiser_client, clubs):
        response = organiser_client.post(
            url("league_event_delete", clubs["mine"].pk), {"post": "yes"}
        )
        assert response.status_code == 403
        assert Event.objects.filter(pk=clubs["mine"].pk).exists()

    def test_nothing_is_added_from_the_admin(self, organiser_client, league):
        before = events()
        assert organiser_client.get(url("league_event_add")).status_code == 403
        response = organiser_client.post(
            url("league_event_add"), {"league": league.pk, "kind": "match_recorded"}
        )
        assert response.status_code == 403
        assert events() == before

    def test_the_list_offers_no_action_and_no_add_button(self, organiser_client):
        page = organiser_client.get(url("league_event_changelist")).content.decode()
        assert 'name="action"' not in page
        assert url("league_event_add") not in page

    def test_an_event_links_to_the_leagues_workspace_log(self, organiser_client, clubs, league):
        match = clubs["mine"]
        page = organiser_client.get(url("league_event_change", match.pk)).content.decode()
        log = reverse("workspace:log", args=[league.slug])
        assert f"{log}?highlight={match.seq}#event-{match.seq}" in page

    def test_the_log_filters_by_kind(self, organiser_client, clubs):
        response = organiser_client.get(url("league_event_changelist"), {"kind": "match_recorded"})
        assert list(response.context["cl"].result_list) == [clubs["mine"]]


class TestPlayers:
    def test_adding_a_player_appends_a_registration(self, organiser_client, league, organiser):
        response = organiser_client.post(
            url("league_player_add"), {"league": league.pk, "display_name": "Dora Riverside"}
        )
        assert response.status_code == 302
        dora = Player.objects.get(display_name="Dora Riverside")
        registration = Event.objects.get(player=dora)
        assert (registration.kind, registration.recorded_by) == ("player_registered", organiser)

    def test_a_player_cannot_be_added_to_another_league(self, organiser_client, other_league):
        before = (events(), Player.objects.count())
        response = organiser_client.post(
            url("league_player_add"), {"league": other_league.pk, "display_name": "Mole"}
        )
        assert response.status_code == 200
        assert "league" in response.context["adminform"].form.errors
        assert (events(), Player.objects.count()) == before

    def test_a_duplicate_name_is_refused_on_the_form(self, organiser_client, league):
        before = (events(), Player.objects.count())
        response = organiser_client.post(
            url("league_player_add"), {"league": league.pk, "display_name": "ann riverside"}
        )
        assert response.context["adminform"].form.errors["display_name"] == [
            "ann riverside is already a player of Riverside Chess Club, as Ann Riverside (names "
            "are compared ignoring case, spacing, accents and invisible characters): use Ann "
            "Riverside, or choose a name that differs in its letters."
        ]
        assert (events(), Player.objects.count()) == before

    def test_deactivating_a_player(self, organiser_client, clubs):
        organiser_client.post(
            url("league_player_change", clubs["ann"].pk),
            {"display_name": "Ann Riverside", "active": "", "reason": "left the club"},
        )
        clubs["ann"].refresh_from_db()
        assert clubs["ann"].active is False

    def test_a_players_name_must_stay_unique(self, organiser_client, clubs):
        response = organiser_client.post(
            url("league_player_change", clubs["ann"].pk),
            {"display_name": "bob riverside", "active": "on"},
        )
        assert response.status_code == 200
        clubs["ann"].refresh_from_db()
        assert clubs["ann"].display_name == "Ann Riverside"

    def test_renaming_a_player_appends_a_rename_with_the_reason(
        self, organiser_client, clubs, organiser
    ):
        response = organiser_client.post(
            url("league_player_change", clubs["ann"].pk),
            {"display_name": "Ann  Archer", "active": "on", "reason": "married"},
        )
        assert response.status_code == 302
        rename = Event.objects.get(kind="player_renamed")
        assert (rename.player, rename.display_name, rename.reason, rename.recorded_by) == (
            clubs["ann"],
            "Ann Archer",
            "married",
            organiser,
        )
        assert Player.objects.get(pk=clubs["ann"].pk).display_name == "Ann Archer"

    def test_the_change_form_asks_for_a_reason(self, organiser_client, clubs):
        page = organiser_client.get(url("league_player_change", clubs["ann"].pk))
        assert "reason" in page.context["adminform"].form.fields

    def test_deactivating_in_the_form_appends_one_event(self, organiser_client, clubs):
        organiser_client.post(
            url("league_player_change", clubs["ann"].pk),
            {"display_name": "Ann Riverside", "active": "", "reason": "left the club"},
        )
        (event,) = Event.objects.filter(kind="player_deactivated")
        assert (event.player, event.reason) == (clubs["ann"], "left the club")
        assert not Event.objects.filter(kind="player_renamed").exists()

    def test_a_change_without_a_reason_is_refused(self, organiser_client, clubs):
        before = events()
        response = organiser_client.post(
            url("league_player_change", clubs["ann"].pk),
            {"display_name": "Ann Archer", "active": "on", "reason": " "},
        )
        assert response.context["adminform"].form.errors["reason"] == [
            "Give a reason (it is shown in the event log)."
        ]
        assert events() == before

    def test_saving_an_unchanged_player_appends_nothing(self, organiser_client, clubs):
        before = events()
        organiser_client.post(
            url("league_player_change", clubs["ann"].pk),
            {"display_name": "Ann Riverside", "active": "on", "reason": ""},
        )
        assert events() == before

    def test_the_actions_change_players_through_events(self, organiser_client, clubs):
        changelist = url("league_player_changelist")
        selected = [clubs["ann"].pk, clubs["bob"].pk]
        organiser_client.post(changelist, {"action": "deactivate", ACTION_CHECKBOX_NAME: selected})
        assert not Player.objects.filter(pk__in=selected, active=True).exists()
        assert Event.objects.filter(kind="player_deactivated").count() == 2
        # Already inactive: nothing more to record.
        organiser_client.post(changelist, {"action": "deactivate", ACTION_CHECKBOX_NAME: selected})
        assert Event.objects.filter(kind="player_deactivated").count() == 2
        organiser_client.post(changelist, {"action": "activate", ACTION_CHECKBOX_NAME: selected})
        assert Player.objects.filter(pk__in=selected, active=True).count() == 2
        assert Event.objects.filter(kind="player_reactivated").count() == 2

    def test_the_event_log_describes_player_events(self, organiser_client, clubs, organiser):
        league = clubs["ann"].league
        services.rename_player(league, clubs["ann"], "Ann A", reason="typo", recorded_by=organiser)
        content = organiser_client.get(url("league_event_changelist")).content.decode()
        assert f"player #{clubs['ann'].pk} renamed to Ann A: typo" in content


class TestRecompute:
    def test_the_button_queues_a_full_replay_and_shows_its_progress(
        self, organiser_client, league, organiser
    ):
        from ratings.models import Replay

        page = organiser_client.get(url("league_league_change", league.pk)).content.decode()
        assert url("league_recompute", league.pk) in page
        response = organiser_client.post(url("league_recompute", league.pk))
        assert response.status_code == 302
        replay = Replay.objects.get(config__league=league, kind="full")
        assert replay.requested_by == organiser
        fragment = organiser_client.get(url("league_progress", league.pk)).content.decode()
        assert f"replay #{replay.pk}" in fragment
        assert 'hx-trigger="every 2s"' in fragment

    def test_get_does_not_recompute(self, organiser_client, league):
        from ratings.models import Replay

        assert organiser_client.get(url("league_recompute", league.pk)).status_code == 405
        assert not Replay.objects.exists()

    def test_another_league_cannot_be_recomputed(self, organiser_client, other_league):
        from ratings.models import Replay

        assert organiser_client.post(url("league_recompute", other_league.pk)).status_code == 404
        assert not Replay.objects.exists()


def test_the_league_page_links_to_its_workspace(organiser_client, league):
    page = organiser_client.get(url("league_league_change", league.pk)).content.decode()
    for name in ("hub", "import", "config"):
        assert reverse(f"workspace:{name}", args=[league.slug]) in page


def test_time_zone_and_start_date_are_fixed_once_a_league_has_matches(
    organiser_client, clubs, league, make_player
):
    response = organiser_client.post(
        url("league_league_change", league.pk),
        {
            "name": league.name,
            "slug": league.slug,
            "description": "",
            "sport": league.sport,
            "time_zone": "Pacific/Auckland",
            "start_date": "2030-01-01",
            "default_language": "en-gb",
        },
    )
    assert response.status_code == 302
    league.refresh_from_db()
    # The other fields save; these two would reinterpret recorded history, so they stay.
    assert (league.time_zone, league.start_date) == ("Europe/London", dt.date(2024, 1, 1))


def test_a_league_without_matches_can_still_move_its_time_zone(client, superuser, db):
    from league.models import League

    empty = League.objects.create(name="New", slug="new", start_date=dt.date(2024, 1, 1))
    client.force_login(superuser)
    response = client.post(
        url("league_league_change", empty.pk),
        {
            "name": "New",
            "slug": "new",
            "description": "",
            "sport": "",
            "time_zone": "Pacific/Auckland",
            "start_date": "2024-02-01",
            "default_language": "en-gb",
        },
    )
    assert response.status_code == 302
    empty.refresh_from_db()
    assert (empty.time_zone, empty.start_date) == ("Pacific/Auckland", dt.date(2024, 2, 1))
