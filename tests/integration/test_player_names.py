"""Players' names: NFC, invisible and control characters, duplicates after normalisation,
on the services (workspace, admin, API), the CSV import (command and upload) and lookups."""

from __future__ import annotations

import io
import unicodedata

import pytest
from django.core.exceptions import ValidationError

from league import services
from league.csv_import import import_results
from league.models import Event, Player
from league.player_names import clean_name, find_player, name_key

ZWSP = "\u200b"


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Bob Baker", "bob baker"),
        ("Bob Baker", "Bob   Baker"),
        ("Bob Baker", "Bób Bäker"),
        ("Bob Baker", f"Bob{ZWSP} Baker"),
        ("Bob Baker", "Bob\u00a0Baker"),
        ("Zoë", "Zoe\u0308"),  # composed and decomposed
        ("STRASSE", "straße"),
    ],
)
def test_names_differing_by_case_spacing_accents_or_invisibles_share_a_key(one, other):
    assert name_key(one) == name_key(other)


@pytest.mark.parametrize(("one", "other"), [("Bob Baker", "Rob Baker"), ("Ann", "Anne")])
def test_names_differing_in_letters_have_different_keys(one, other):
    assert name_key(one) != name_key(other)


def test_a_name_is_stored_composed():
    decomposed = "Zoe\u0308 Smith"
    assert clean_name(decomposed) == "Zoë Smith"
    assert unicodedata.is_normalized("NFC", clean_name(decomposed))


def _refused(league, name: str) -> str:
    before = (Event.objects.count(), Player.objects.count())
    with pytest.raises(ValidationError) as raised:
        services.register_player(league, name)
    assert (Event.objects.count(), Player.objects.count()) == before
    return " ".join(raised.value.message_dict["display_name"])


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (ZWSP, "The name has no visible character"),
        (f"{ZWSP}\ufeff \u2060", "The name has no visible character"),
        ("\u00ad", "The name has no visible character"),
        (f"Bob{ZWSP}by", "U+200B (zero width space) at character 4"),
        ("Ann\u202eLee", "U+202E (right-to-left override) at character 4"),
        ("\u200dAnn", "U+200D (zero width joiner) at character 1"),
        ("Ann\x07", "control character (U+0007 at character 4)"),
        ("Ann\x00Lee", "control character (U+0000 (a NUL byte) at character 4)"),
    ],
)
def test_invisible_and_control_character_names_are_refused(league, name, message):
    assert message in _refused(league, name)


def test_a_joiner_inside_a_word_is_kept(league):
    # An emoji family (man, ZWJ, woman) is a visible name; the joiner is part of it.
    player = services.register_player(league, "Team \U0001f468\u200d\U0001f469")
    assert player.display_name == "Team \U0001f468\u200d\U0001f469"


@pytest.mark.parametrize("duplicate", ["bob baker", "Bób Baker", f"Bob {ZWSP}Baker", "BOB  BAKER"])
def test_a_duplicate_after_normalisation_is_refused_naming_the_existing_player(league, duplicate):
    services.register_player(league, "Bob Baker")
    message = _refused(league, duplicate)
    assert "already a player of Riverside Chess Club" in message
    assert "as Bob Baker" in message or "Bob Baker is already" in message


def test_a_rename_to_a_duplicate_after_normalisation_is_refused(league, organiser):
    services.register_player(league, "Bob Baker")
    ann = services.register_player(league, "Ann")
    before = Event.objects.count()
    with pytest.raises(ValidationError) as raised:
        services.rename_player(league, ann, "bób  baker", reason="x", recorded_by=organiser)
    assert "as Bob Baker" in raised.value.message_dict["display_name"][0]
    assert Event.objects.count() == before
    assert Player.objects.get(pk=ann.pk).display_name == "Ann"


def test_a_player_may_be_renamed_to_a_variant_of_their_own_name(league, organiser):
    bob = services.register_player(league, "Bob Baker")
    services.rename_player(league, bob, "Bób Baker", reason="accent", recorded_by=organiser)
    assert Player.objects.get(pk=bob.pk).display_name == "Bób Baker"


def test_a_typed_name_finds_the_existing_player_ignoring_accents_and_invisibles(league):
    bob = services.register_player(league, "Bób Baker")
    assert find_player(league, f"bob{ZWSP} baker") == bob
    assert find_player(league, "Rob Baker") is None


def _import(league, *lines: str, **options):
    data = ("date,player_a,player_b,score_a,id\n" + "".join(f"{line}\n" for line in lines)).encode()
    return import_results(league, io.BytesIO(data), **options)


def test_the_import_counts_a_variant_name_as_the_existing_player(league):
    bob = services.register_player(league, "Bob Baker")
    report = _import(league, "2024-03-01,Bób  baker,Ann,1,", create_players=True)
    assert report.ok
    assert report.players_created == ["Ann"]
    match = Event.objects.get(league=league, kind=Event.Kind.MATCH_RECORDED)
    assert match.player_a_id == bob.pk
    assert report.names_matched == {"Bób baker": "Bob Baker"}


def test_the_import_refuses_invisible_names_and_records_nothing(league):
    before = (Event.objects.count(), Player.objects.count())
    report = _import(
        league, "2024-03-01,Ann,Bob,1,", f"2024-03-02,{ZWSP},Ann,1,", create_players=True
    )
    assert not report.ok
    assert [(error.line, "no visible character" in error.message) for error in report.errors] == [
        (3, True)
    ]
    assert (Event.objects.count(), Player.objects.count()) == before


def test_the_import_refuses_a_name_shared_by_two_legacy_players(league):
    # Two players whose names share a key can only predate the rule: a name naming both is
    # ambiguous, and the import neither guesses nor registers a third.
    Player.objects.create(league=league, display_name="Ann Lee", slug="ann-lee")
    Player.objects.create(league=league, display_name="ann lee", slug="ann-lee-2")
    report = _import(league, "2024-03-01,ANN LEE,Bob,1,", create_players=True)
    assert not report.ok
    assert "matches several players" in report.errors[0].message
    assert Player.objects.filter(league=league).count() == 2
