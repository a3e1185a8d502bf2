"""The organisers' admin through the test client: per-league access and result entry."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

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
        ("league_event_record",),
    ],
)
def test_anonymous_users_are_sent_to_the_login_page(client, clubs, target):
    response = client.get(url(*target))
    assert response.status_code == 302
    assert response.url.startswith(reverse("admin:login"))


def test_anonymous_users_cannot_record(client, clubs, league):
    before = events()
    response = client.post(url("league_event_record_match", league.pk), {"player_a": "x"})
    assert response.status_code == 302
    assert response.url.startswith(reverse("admin:login"))
    assert events() == before


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


@pytest.mark.parametrize(
    ("name", "arg"),
    [
        ("league_event_record_match", "other_league"),
        ("league_event_record_round", "other_league"),
        ("league_event_void", "theirs"),
        ("league_event_correct", "theirs"),
        ("league_progress", "other_league"),
    ],
)
def test_entry_pages_of_other_leagues_are_not_found(
    organiser_client, clubs, other_league, name, arg
):
    target = other_league if arg == "other_league" else clubs[arg]
    assert organiser_client.get(url(name, target.pk)).status_code == 404
    before = events()
    response = organiser_client.post(
        url(name, target.pk), {"reason": "mine now", "player_a": "Olga Hilltop"}
    )
    assert response.status_code == 404
    assert events() == before


def test_a_non_staff_organiser_cannot_use_the_admin(client, organiser, clubs):
    organiser.is_staff = False
    organiser.save()
    client.force_login(organiser)
    response = client.get(url("league_event_changelist"))
    assert response.status_code == 302
    assert response.url.startswith(reverse("admin:login"))


class TestQuickEntry:
    def post(self, client, league, **overrides):
        data = {
            "player_a": "Ann Riverside",
            "player_b": "Bob Riverside",
            "score_a": "0.5",
            "played_on": "2024-03-09",
            "points": "2-2",
            "note": "",
            "idempotency_key": "form-1",
        }
        return client.post(url("league_event_record_match", league.pk), {**data, **overrides})

    def test_the_form_offers_only_the_leagues_active_players(self, organiser_client, league):
        content = organiser_client.get(url("league_event_record_match", league.pk)).content
        assert b'<option value="Ann Riverside">' in content
        assert b"Olga Hilltop" not in content

    def test_a_result_is_appended(self, organiser_client, league, organiser, clubs):
        response = self.post(organiser_client, league)
        assert response.status_code == 302
        event = Event.objects.matches().filter(league=league).last()
        assert (event.player_a, event.player_b) == (clubs["ann"], clubs["bob"])
        assert (event.score_a, event.points, event.recorded_by) == (
            Decimal("0.5"),
            "2-2",
            organiser,
        )

    def test_a_double_submission_stores_one_result(self, organiser_client, league):
        self.post(organiser_client, league)
        self.post(organiser_client, league)
        assert Event.objects.matches().filter(league=league).count() == 2  # fixture's + one

    def test_a_player_of_another_league_is_not_found(self, organiser_client, league):
        before = events()
        response = self.post(organiser_client, league, player_b="Olga Hilltop")
        assert response.status_code == 200
        assert "has no player named “Olga Hilltop”" in response.content.decode()
        assert events() == before

    def test_service_errors_are_shown_on_their_field(self, organiser_client, league):
        before = events()
        response = self.post(organiser_client, league, played_on="2023-06-01")
        assert response.status_code == 200
        errors = response.context["form"].errors
        assert errors["played_on"] == ["2023-06-01 is before the league started (2024-01-01)."]
        assert events() == before


class TestRoundEntry:
    def data(self, rows, played_on="2024-03-16"):
        data = {
            "played_on": played_on,
            "idempotency_key": "round-form-1",
            "results-TOTAL_FORMS": str(len(rows)),
            "results-INITIAL_FORMS": "0",
            "results-MIN_NUM_FORMS": "1",
            "results-MAX_NUM_FORMS": "100",
        }
        for index, (a, b, score) in enumerate(rows):
            data.update(
                {
                    f"results-{index}-player_a": a,
                    f"results-{index}-player_b": b,
                    f"results-{index}-score_a": score,
                    f"results-{index}-points": "",
                }
            )
        return data

    def test_a_round_is_appended_and_empty_rows_are_ignored(self, organiser_client, league):
        services.register_player(league, "Cleo Riverside")
        rows = [
            ("Ann Riverside", "Bob Riverside", "1"),
            ("", "", ""),
            ("Cleo Riverside", "Ann Riverside", "0.5"),
        ]
        response = organiser_client.post(
            url("league_event_record_round", league.pk), self.data(rows)
        )
        assert response.status_code == 302
        recorded = list(Event.objects.matches().filter(league=league).order_by("seq"))[1:]
        assert [(e.player_a.display_name, e.score_a) for e in recorded] == [
            ("Ann Riverside", Decimal("1")),
            ("Cleo Riverside", Decimal("0.5")),
        ]

    def test_one_bad_row_records_nothing_and_is_marked(self, organiser_client, league):
        rows = [("Ann Riverside", "Bob Riverside", "1"), ("Bob Riverside", "Bob Riverside", "0")]
        before = events()
        response = organiser_client.post(
            url("league_event_record_round", league.pk), self.data(rows)
        )
        assert response.status_code == 200
        formset = response.context["formset"]
        assert formset.forms[0].errors == {}
        assert formset.forms[1].errors["player_b"] == [
            "A player cannot play themselves: choose two different players."
        ]
        assert events() == before

    def test_a_player_of_another_league_is_refused_in_its_row(self, organiser_client, league):
        rows = [("Ann Riverside", "Bob Riverside", "1"), ("Olga Hilltop", "Ann Riverside", "0")]
        before = events()
        response = organiser_client.post(
            url("league_event_record_round", league.pk), self.data(rows)
        )
        assert response.context["formset"].forms[1].errors["player_a"] == [
            "Riverside Chess Club has no player named “Olga Hilltop”."
        ]
        assert events() == before

    def test_a_round_date_in_the_future_is_shown_once(self, organiser_client, league):
        rows = [("Ann Riverside", "Bob Riverside", "1"), ("Bob Riverside", "Ann Riverside", "1")]
        before = events()
        response = organiser_client.post(
            url("league_event_record_round", league.pk), self.data(rows, played_on="2999-01-01")
        )
        assert response.context["form"].errors["played_on"] == [
            "2999-01-01 is in the future: record a match once it has been played."
        ]
        assert events() == before


class TestVoidAndCorrect:
    def test_void_from_the_event_page(self, organiser_client, clubs, organiser):
        match = clubs["mine"]
        page = organiser_client.get(url("league_event_change", match.pk)).content.decode()
        assert url("league_event_void", match.pk) in page
        response = organiser_client.post(
            url("league_event_void", match.pk), {"reason": "wrong board", "idempotency_key": ""}
        )
        assert response.status_code == 302
        void = Event.objects.get(voids=match)
        assert (void.reason, void.recorded_by) == ("wrong board", organiser)

    def test_void_needs_a_reason(self, organiser_client, clubs):
        before = events()
        response = organiser_client.post(url("league_event_void", clubs["mine"].pk), {})
        assert response.context["form"].errors["reason"] == ["This field is required."]
        assert events() == before

    def test_correct_records_a_linked_result(self, organiser_client, clubs):
        match = clubs["mine"]
        form = organiser_client.get(url("league_event_correct", match.pk)).context["form"]
        data = {**form.initial, "score_a": "0", "reason": "score reversed"}
        data["played_on"] = data["played_on"].isoformat()
        response = organiser_client.post(url("league_event_correct", match.pk), data)
        assert response.status_code == 302
        corrected = Event.objects.get(replaces=match)
        assert corrected.score_a == Decimal("0")
        assert corrected.played_at == match.played_at
        assert Event.objects.get(voids=match).reason == "score reversed"

    def test_void_action_with_a_reason(self, organiser_client, clubs):
        changelist = url("league_event_changelist")
        selection = {"action": "void_selected", ACTION_CHECKBOX_NAME: [clubs["mine"].pk]}
        confirm = organiser_client.post(changelist, selection)
        assert confirm.status_code == 200
        assert b"Void 1 match" in confirm.content
        organiser_client.post(changelist, {**selection, "apply": "1", "reason": "duplicate"})
        assert Event.objects.get(voids=clubs["mine"]).reason == "duplicate"

    def test_void_action_ignores_other_leagues_events(self, organiser_client, clubs):
        changelist = url("league_event_changelist")
        before = events()
        organiser_client.post(
            changelist,
            {
                "action": "void_selected",
                ACTION_CHECKBOX_NAME: [clubs["theirs"].pk],
                "apply": "1",
                "reason": "not mine",
            },
        )
        assert events() == before


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

    def test_add_leads_to_result_entry(self, organiser_client, league):
        response = organiser_client.get(url("league_event_add"))
        assert response.status_code == 302
        response = organiser_client.get(response.url)
        assert response.url == url("league_event_record_match", league.pk)

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


def test_a_superuser_chooses_the_league_to_record_for(client, superuser, clubs, other_league):
    client.force_login(superuser)
    page = client.get(url("league_event_record")).content.decode()
    assert url("league_event_record_round", other_league.pk) in page
    round_page = client.get(url("league_event_record_round", other_league.pk))
    assert round_page.status_code == 200
    assert b'<option value="Olga Hilltop">' in round_page.content
    assert b"Ann Riverside" not in round_page.content


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
        },
    )
    assert response.status_code == 302
    empty.refresh_from_db()
    assert (empty.time_zone, empty.start_date) == ("Pacific/Auckland", dt.date(2024, 2, 1))
