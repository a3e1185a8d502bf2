"""Forms shared by the admin and the workspace: leagues and players (the admin), matches with
sides and the rows of a round (the workspace, whose one-box entry forms are in
``web.workspace.entry_forms``), and putting the services' errors back on a form.

The forms only shape input; the services in ``league.services`` decide what is valid and
their ``ValidationError`` messages are put back on the matching fields with
``add_service_errors`` (a round's with ``show_round_errors``).
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable
from typing import Any

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from league import services
from league.models import MATCH_KINDS, Event, League, MatchFormat, Player
from league.player_names import check_name, clean_name
from league.sides import side_label
from league.sports import is_chess
from league.validation import Errors, row_errors

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


class BaseRoundFormSet(forms.BaseFormSet):
    """Rows of one league's round: each form gets the league (the workspace's round and its
    round of team matches share it)."""

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


class LeagueForm(forms.ModelForm):
    """A league; the time zone is chosen from the IANA names this system knows."""

    time_zone = forms.ChoiceField(
        choices=[(name, name) for name in sorted(zoneinfo.available_timezones())],
        help_text=_("A match belongs to the local date it was played on."),
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
            "default_language",
            "organisers",
        ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # A form sent without them (an older page, a script) keeps the league's format.
        for name in ("match_format", "side_size"):
            self.fields[name].required = False
        if "sport" in self.fields:
            self.fields["sport"].help_text = _(
                "Chess, table tennis, …: a sport naming chess makes a chess league (White and "
                "Black on every page, White's advantage)."
            )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        for name in ("match_format", "side_size"):
            if cleaned.get(name) in (None, ""):
                cleaned[name] = getattr(self.instance, name)
        self._check_chess_has_no_neutral_games(cleaned.get("sport"))
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
                        gettext(
                            "The first recorded match was played on %(day)s; "
                            "the league cannot start after it."
                        )
                        % {"day": first_day.isoformat()},
                    )
        return cleaned

    def _check_chess_has_no_neutral_games(self, sport: str | None) -> None:
        """A league turned into a chess league must hold no live game marked as played on
        neutral ground: a chess game has none (``league.validation.check_neutral_allowed``)."""
        if not self.instance.pk or not sport or not is_chess(sport) or self.instance.is_chess:
            return
        neutral = Event.objects.live_matches().filter(league=self.instance, neutral=True)
        count = neutral.count()
        if count:
            self.add_error(
                "sport",
                ngettext(
                    "%(count)d live result of this league is marked as played on neutral "
                    "ground, and a chess game has none: correct it (without neutral ground) "
                    "or void it before the league plays chess.",
                    "%(count)d live results of this league are marked as played on neutral "
                    "ground, and a chess game has none: correct them (without neutral ground) "
                    "or void them before the league plays chess.",
                    count,
                )
                % {"count": count},
            )


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
        help_text=_("Why the name or the status changes; shown in the event log."),
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
            self.add_error("reason", gettext("Give a reason (it is shown in the event log)."))
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
