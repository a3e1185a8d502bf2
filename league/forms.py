"""Forms of the organisers' admin: leagues, players, results, rounds, voids and corrections.

The forms only shape input; the services in ``league.services`` decide what is valid and
their ``ValidationError`` messages are put back on the matching fields with
``add_service_errors``.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from league import services
from league.calendar import league_day, league_zone
from league.idempotency_keys import new_key
from league.models import MATCH_KINDS, Event, League, MatchFormat, Player
from league.player_names import check_name, clean_name, find_player, unknown_players_message
from league.sides import side_label
from league.validation import Errors, row_errors

SCORE_CHOICES = [
    ("1", "1 - first player won"),
    ("0.5", "½ - draw"),
    ("0", "0 - second player won"),
]
PLAYER_LIST_ID = "league-players"


def add_service_errors(
    form: forms.BaseForm, error: ValidationError, renamed: dict[str, str] | None = None
) -> None:
    """Show a service's ``ValidationError`` on ``form``: on the field it names, if the form
    has it (``renamed`` maps service names to form names), otherwise above the form."""
    if not hasattr(error, "error_dict"):
        for message in error.messages:
            form.add_error(None, message)
        return
    renamed = renamed or {}
    for name, messages in error.message_dict.items():
        field = renamed.get(name, name)
        if field in form.fields and form.fields[field].widget.is_hidden:
            # A hidden field's error (a key used before) is shown above the form: as is,
            # since the message names what it is about.
            field = None
        elif field not in form.fields:
            messages = [m if name == NON_FIELD_ERRORS else f"{name}: {m}" for m in messages]
            field = None
        for message in messages:
            form.add_error(field, message)


def show_round_errors(
    round_form: forms.BaseForm,
    rows: list[forms.Form],
    error: ValidationError,
    renamed: dict[str, str] | None = None,
) -> None:
    """Put ``record_round``'s errors on the rows (and the round's day) they concern.

    An error of the whole round, or about the day, goes once on ``round_form`` (its day field
    is ``played_on``); a row's error on that row's field (``renamed`` maps service names to
    form names), or above the row when the form has no such field.
    """
    renamed = renamed or {}
    shown: set[tuple[str | None, str]] = set()
    for index, fields in row_errors(error).items():
        for field, found in fields.items():
            for message in found:
                if index < 0 or field == "played_at":
                    target = "played_on" if field == "played_at" else None
                    if (target, message) not in shown:
                        shown.add((target, message))
                        round_form.add_error(target, message)
                    continue
                form = rows[index]
                name = renamed.get(field, field)
                form.add_error(name if name in form.fields else None, message)


class PlayerNameInput(forms.TextInput):
    """A text input completed from the league's player list (``<datalist>`` on the page)."""

    def __init__(self, attrs: dict[str, Any] | None = None) -> None:
        super().__init__({"list": PLAYER_LIST_ID, "autocomplete": "off", **(attrs or {})})


class LeagueBoundForm(forms.Form):
    """A form for one league: player names are looked up in that league only."""

    player_fields: tuple[str, ...] = ()

    def __init__(self, *args: Any, league: League, **kwargs: Any) -> None:
        self.league = league
        super().__init__(*args, **kwargs)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        for field in self.player_fields:
            name = cleaned.get(field)
            if name:
                player = find_player(self.league, name)
                if player is None:
                    self.add_error(field, unknown_players_message(self.league, [name]))
                else:
                    cleaned[field] = player
        return cleaned


def league_today(league: League) -> Any:
    return timezone.localdate(timezone=league_zone(league))


class MatchForm(LeagueBoundForm):
    """Quick entry of one result."""

    player_fields = ("player_a", "player_b")

    player_a = forms.CharField(label="First player", widget=PlayerNameInput())
    player_b = forms.CharField(label="Second player", widget=PlayerNameInput())
    score_a = forms.TypedChoiceField(
        label="Result", choices=SCORE_CHOICES, coerce=Decimal, widget=forms.RadioSelect
    )
    played_on = forms.DateField(
        label="Played on", widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
    )
    points = forms.CharField(
        label="Points or games", required=False, max_length=120, help_text="e.g. 3-1"
    )
    neutral = forms.BooleanField(
        label="Neutral ground",
        required=False,
        help_text="No home (first-player) advantage in this match.",
    )
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    idempotency_key = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args: Any, league: League, **kwargs: Any) -> None:
        super().__init__(*args, league=league, **kwargs)
        if not self.is_bound:
            self.initial.setdefault("played_on", league_today(league))
            self.initial.setdefault("idempotency_key", new_key())

    def service_arguments(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "player_a": data["player_a"],
            "player_b": data["player_b"],
            "score_a": data["score_a"],
            "played_at": data["played_on"],
            "points": data["points"],
            "note": data["note"],
            "neutral": data["neutral"],
            "idempotency_key": data["idempotency_key"] or None,
        }


class RoundForm(forms.Form):
    """The shared part of a round: its date (and the submission key)."""

    played_on = forms.DateField(
        label="Round played on", widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
    )
    idempotency_key = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args: Any, league: League, **kwargs: Any) -> None:
        self.league = league
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial.setdefault("played_on", league_today(league))
            self.initial.setdefault("idempotency_key", new_key())


class RoundRowForm(LeagueBoundForm):
    """One result of a round; a row left empty is ignored."""

    player_fields = ("player_a", "player_b")

    # The round's table has column headers; aria-labels name each cell's input too.
    player_a = forms.CharField(
        label="First player", widget=PlayerNameInput({"aria-label": "First player"})
    )
    player_b = forms.CharField(
        label="Second player", widget=PlayerNameInput({"aria-label": "Second player"})
    )
    score_a = forms.TypedChoiceField(
        label="Result",
        choices=[("", "—"), *SCORE_CHOICES],
        coerce=Decimal,
        widget=forms.Select(attrs={"aria-label": "Result"}),
    )
    points = forms.CharField(
        label="Points or games",
        required=False,
        max_length=120,
        widget=forms.TextInput(attrs={"aria-label": "Points or games", "size": 10}),
    )
    neutral = forms.BooleanField(
        label="Neutral ground",
        required=False,
        widget=forms.CheckboxInput(attrs={"aria-label": "Neutral ground"}),
    )


class BaseRoundFormSet(forms.BaseFormSet):
    """Rows of one league's round: each form gets the league (the admin's round and the
    workspace's round screen share it)."""

    def __init__(self, *args: Any, league: League, **kwargs: Any) -> None:
        self.league = league
        super().__init__(*args, **kwargs)

    def get_form_kwargs(self, index: int | None) -> dict[str, Any]:
        return {**super().get_form_kwargs(index), "league": self.league}

    @property
    def empty_form(self) -> forms.Form:
        return self.form(
            auto_id=self.auto_id,
            prefix=self.add_prefix("__prefix__"),
            empty_permitted=True,
            use_required_attribute=False,
            renderer=self.renderer,
            **self.get_form_kwargs(None),
        )

    def filled_forms(self) -> list[forms.Form]:
        """The rows the organiser filled in and did not delete, in page order."""
        return [
            form for form in self.forms if form.has_changed() and form not in self.deleted_forms
        ]


RoundFormSet = forms.formset_factory(
    RoundRowForm, formset=BaseRoundFormSet, extra=10, min_num=1, validate_min=True, max_num=100
)


class VoidForm(forms.Form):
    """Why a match no longer counts."""

    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), help_text="Shown in the event log."
    )
    idempotency_key = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial.setdefault("idempotency_key", new_key())


class CorrectionForm(MatchForm):
    """The corrected result of a match, prefilled with the recorded one, and a reason."""

    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), help_text="Shown in the event log."
    )
    field_order = [
        "player_a",
        "player_b",
        "score_a",
        "played_on",
        "points",
        "neutral",
        "note",
        "reason",
    ]

    def __init__(self, *args: Any, league: League, match: Event, **kwargs: Any) -> None:
        self.match = match
        kwargs.setdefault(
            "initial",
            {
                "player_a": match.player_a.display_name,
                "player_b": match.player_b.display_name,
                "score_a": str(match.score_a.normalize()) if match.score_a else "0",
                "played_on": league_day(league, match.played_at),
                "points": match.points,
                "neutral": match.neutral,
                "note": match.note,
            },
        )
        super().__init__(*args, league=league, **kwargs)

    def service_arguments(self) -> dict[str, Any]:
        arguments = super().service_arguments()
        # An unchanged day keeps the recorded moment (which may not be noon).
        if arguments["played_at"] == league_day(self.league, self.match.played_at):
            arguments["played_at"] = self.match.played_at
        return arguments


class LeagueForm(forms.ModelForm):
    """A league; the time zone is chosen from the IANA names this system knows."""

    time_zone = forms.ChoiceField(
        choices=[(name, name) for name in sorted(zoneinfo.available_timezones())],
        help_text="A match belongs to the local date it was played on.",
    )

    class Meta:
        model = League
        fields = [
            "name",
            "slug",
            "description",
            "sport",
            "records_points",
            "time_zone",
            "start_date",
            "match_format",
            "side_size",
            "organisers",
        ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # A form sent without them (an older page, a script) keeps the league's format.
        for name in ("match_format", "side_size"):
            self.fields[name].required = False

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        for name in ("match_format", "side_size"):
            if cleaned.get(name) in (None, ""):
                cleaned[name] = getattr(self.instance, name)
        start, zone_name = cleaned.get("start_date"), cleaned.get("time_zone")
        if self.instance.pk and start and zone_name:
            first = (
                Event.objects.filter(league=self.instance, kind__in=MATCH_KINDS)
                .order_by("played_at")
                .values_list("played_at", flat=True)
                .first()
            )
            if first is not None:
                first_day = first.astimezone(zoneinfo.ZoneInfo(zone_name)).date()
                if start > first_day:
                    self.add_error(
                        "start_date",
                        f"The first recorded match was played on {first_day:%Y-%m-%d}; "
                        "the league cannot start after it.",
                    )
        return cleaned


def _name_errors(league: League, name: str, player: Player | None = None) -> list[str]:
    """``league.player_names``' objections to ``name``, as messages."""
    errors = Errors()
    check_name(league, name, errors, player=player)
    return [message for error in errors.by_field.get("display_name", []) for message in error]


class PlayerAddForm(forms.ModelForm):
    """A new player: registered through ``league.services.register_player``."""

    class Meta:
        model = Player
        fields = ["league", "display_name"]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        league, name = cleaned.get("league"), cleaned.get("display_name")
        if league and name:
            name = clean_name(name)
            for message in _name_errors(league, name):
                self.add_error("display_name", message)
        return cleaned


class PlayerChangeForm(forms.ModelForm):
    """A player's name and whether results may be recorded for them, with a reason.

    The form never changes the player itself: ``service_calls`` names the services
    (rename, deactivate, reactivate) that append the events saying what changed.
    """

    reason = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Why the name or the status changes; shown in the event log.",
    )

    class Meta:
        model = Player
        fields = ["display_name", "active"]

    def clean_display_name(self) -> str:
        name = clean_name(self.cleaned_data["display_name"])
        if name != self.instance.display_name:
            for message in _name_errors(self.instance.league, name, self.instance):
                self.add_error("display_name", message)
        return name

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        # Every change of a player says why: the reason is shown in the public event log.
        changes = "display_name" in cleaned and "active" in cleaned and self.service_calls()
        if changes and not str(cleaned.get("reason") or "").strip():
            self.add_error("reason", "Give a reason (it is shown in the event log).")
        return cleaned

    def _post_clean(self) -> None:
        # The player is changed by the services, not by the form: leave the instance as it
        # is stored (its current state is what the services compare with).
        return

    def service_calls(self) -> list[tuple[Callable[..., Any], dict[str, Any]]]:
        """The services (with their arguments but the league, player and recorder) to call."""
        player, data = self.instance, self.cleaned_data
        calls: list[tuple[Callable[..., Any], dict[str, Any]]] = []
        reason = data.get("reason", "")
        if data["display_name"] != player.display_name:
            calls.append(
                (services.rename_player, {"new_name": data["display_name"], "reason": reason})
            )
        if data["active"] != player.active:
            change = services.reactivate_player if data["active"] else services.deactivate_player
            calls.append((change, {"reason": reason}))
        return calls


# --- matches with sides --------------------------------------------------------------------

SIDE_SCORE_CHOICES = [
    ("", "— (three or more sides: give positions)"),
    ("1", "1 - side A won"),
    ("0.5", "½ - draw"),
    ("0", "0 - side B won"),
]


def side_form_shape(league: League) -> tuple[int, int]:
    """(sides shown, player slots per side) of the team match form for ``league``."""
    if league.match_format == MatchFormat.FIXED:
        size = league.side_size
        # One player a side: a board game of up to six; otherwise a two-side team match.
        return (6, 1) if size == 1 else (2, size)
    return 4, 4


def add_side_fields(form: forms.BaseForm, n_sides: int, slots: int) -> list[list[str]]:
    """A name box per player slot of each side (``side_<x>_<j>``, completed from the
    league's players) and, for three or more sides, a finishing position per side
    (``place_<x>``): every form of a match with sides lays its players out so. Returns the
    slot names, side by side."""
    names = [[f"side_{x}_{j}" for j in range(slots)] for x in range(n_sides)]
    for x, side in enumerate(names):
        letter = side_label(x)
        for j, name in enumerate(side):
            label = str(_("Side %(side)s, player %(slot)s") % {"side": letter, "slot": j + 1})
            form.fields[name] = forms.CharField(
                label=label,
                required=False,
                max_length=120,
                widget=PlayerNameInput({"aria-label": label}),
            )
        if n_sides > 2:
            label = str(_("Side %(side)s: finishing position") % {"side": letter})
            form.fields[f"place_{x}"] = forms.IntegerField(
                label=label,
                required=False,
                min_value=1,
                max_value=n_sides,
                widget=forms.NumberInput(attrs={"aria-label": label, "size": 3}),
            )
    return names


class SideMatchForm(forms.Form):
    """One match with sides: a name input per player slot (completed from the league's
    players), side A's result for two sides or a finishing position per side for more.

    Sides left empty at the end are ignored; the services check everything else (a player on
    two sides, an empty side between filled ones, the league's format, …).
    """

    played_on = forms.DateField(
        label="Played on", widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
    )
    score_a = forms.TypedChoiceField(
        label="Result (two sides)",
        choices=SIDE_SCORE_CHOICES,
        coerce=Decimal,
        empty_value=None,
        required=False,
        widget=forms.RadioSelect,
    )
    points = forms.CharField(
        label="Points or games", required=False, max_length=120, help_text="e.g. 21-15"
    )
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    idempotency_key = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args: Any, league: League, **kwargs: Any) -> None:
        self.league = league
        super().__init__(*args, **kwargs)
        self.n_sides, self.slots = side_form_shape(league)
        add_side_fields(self, self.n_sides, self.slots)
        if self.n_sides == 2:
            # Always two sides (doubles, teams of n): side A's result, with no "positions
            # instead" choice and no default.
            score = self.fields["score_a"]
            score.label = "Result"
            score.choices = [choice for choice in SIDE_SCORE_CHOICES if choice[0] != ""]
        if not self.is_bound:
            self.initial.setdefault("played_on", league_today(league))
            self.initial.setdefault("idempotency_key", new_key())

    def side_rows(self) -> list[dict[str, Any]]:
        """For the template: each side's letter, slot fields and position field."""
        return [
            {
                "letter": side_label(x),
                "slots": [self[f"side_{x}_{j}"] for j in range(self.slots)],
                "place": self[f"place_{x}"] if self.n_sides > 2 else None,
            }
            for x in range(self.n_sides)
        ]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        sides: list[list[Any]] = []
        for x in range(self.n_sides):
            side = []
            for j in range(self.slots):
                name = (cleaned.get(f"side_{x}_{j}") or "").strip()
                if not name:
                    continue
                player = find_player(self.league, name)
                if player is None:
                    self.add_error(f"side_{x}_{j}", unknown_players_message(self.league, [name]))
                else:
                    side.append(player)
            sides.append(side)
        while sides and not sides[-1]:
            sides.pop()
        places = [cleaned.get(f"place_{x}") for x in range(len(sides))] if self.n_sides > 2 else []
        cleaned["sides"] = sides
        cleaned["places"] = places if len(sides) > 2 else None
        return cleaned

    def service_arguments(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "sides": data["sides"],
            "score_a": data.get("score_a") if len(data["sides"]) <= 2 else None,
            "places": data["places"],
            "played_at": data["played_on"],
            "points": data["points"],
            "note": data["note"],
            "idempotency_key": data.get("idempotency_key") or None,
        }


class SideCorrectionForm(SideMatchForm):
    """The corrected result of a match with sides, prefilled with the recorded one."""

    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), help_text="Shown in the event log."
    )

    def __init__(self, *args: Any, league: League, match: Event, **kwargs: Any) -> None:
        self.match = match
        sides, places = services.sides_of_match(match)
        initial: dict[str, Any] = {
            "played_on": league_day(league, match.played_at),
            "points": match.points,
            "note": match.note,
        }
        if len(sides) == 2:
            initial["score_a"] = str(match.score_a.normalize()) if match.score_a is not None else ""
        positions = [1 + sum(1 for other in places if other < place) for place in places]
        for x, side in enumerate(sides):
            for j, player in enumerate(side):
                initial[f"side_{x}_{j}"] = player.display_name
            initial[f"place_{x}"] = positions[x]
        kwargs.setdefault("initial", initial)
        super().__init__(*args, league=league, **kwargs)
        self.fields.pop("idempotency_key")

    def service_arguments(self) -> dict[str, Any]:
        arguments = super().service_arguments()
        arguments.pop("idempotency_key")
        if arguments["places"] is None:
            arguments.pop("places")
        else:
            arguments.pop("score_a")
        if arguments["played_at"] == league_day(self.league, self.match.played_at):
            arguments["played_at"] = self.match.played_at
        return arguments


class SideRoundRowForm(SideMatchForm):
    """One match of a round of team matches; a row left empty is ignored."""

    def __init__(self, *args: Any, league: League, **kwargs: Any) -> None:
        super().__init__(*args, league=league, **kwargs)
        for name in ("played_on", "note", "idempotency_key"):
            self.fields.pop(name)
        self.fields["score_a"].widget = forms.Select(
            choices=SIDE_SCORE_CHOICES, attrs={"aria-label": "Result (two sides)"}
        )
        self.fields["points"].widget = forms.TextInput(
            attrs={"aria-label": "Points or games", "size": 8}
        )
        self.fields["points"].help_text = ""

    def has_changed(self) -> bool:
        return any(
            (self.data.get(self.add_prefix(name)) or "").strip()
            for name in self.fields
            if name.startswith("side_")
        )

    def result_arguments(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "sides": data["sides"],
            "score_a": data.get("score_a") if len(data["sides"]) <= 2 else None,
            "places": data["places"],
            "points": data["points"],
        }


SideRoundFormSet = forms.formset_factory(
    SideRoundRowForm, formset=BaseRoundFormSet, extra=6, min_num=1, validate_min=True, max_num=50
)
