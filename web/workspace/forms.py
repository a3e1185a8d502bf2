"""Forms of the organisers' workspace pages: they carry text; the services check it.

Every field is plain text so that whatever is typed reaches the service, whose
``ValidationError`` (field -> messages) is put back on the form field it names.
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _


class SeasonForm(forms.Form):
    name = forms.CharField(label=_("Name"), required=False, max_length=200)
    start_date = forms.CharField(
        label=_("First day"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    end_date = forms.CharField(
        label=_("Last day"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text=_("Inclusive. Seasons of one league never overlap."),
    )
    points_win = forms.CharField(label=_("Points for a win"), required=False, initial="3")
    points_draw = forms.CharField(label=_("Points for a draw"), required=False, initial="1")
    points_loss = forms.CharField(
        label=_("Points for a loss"),
        required=False,
        initial="0",
        help_text=_("Whole or half points, e.g. 3/1/0 or 1/½/0."),
    )
    tiebreaks = forms.CharField(
        label=_("Tie-breaks, in order"),
        required=False,
        max_length=200,
        help_text=_(
            "Codes separated by commas, e.g. DE, BH-C1, SB: DE direct encounter; BH Buchholz "
            "(BH-C1, BH-C2 without the lowest one or two opponents, BH-M1 without the lowest "
            "and highest); SB Sonneborn-Berger; WIN number of wins; ARO average rating of "
            "opponents (ARO-C1 without the lowest); RTG rating at the end. Empty: by rating "
            "at the end."
        ),
    )


class RederiveForm(forms.Form):
    reason = forms.CharField(
        label=_("Why re-derive the table?"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Shown on the season's public page with your name and the time."),
    )


class WebsiteForm(forms.Form):
    frame_origins = forms.CharField(
        label=_("Websites that may show the embedded standings"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("One origin a line, e.g. https://club.example.org. Empty: no site may."),
    )
    api_origins = forms.CharField(
        label=_("Websites whose pages may read the API"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("One origin a line; their pages may fetch this league's read-only API."),
    )


class LeagueLanguageForm(forms.Form):
    """The league's default language (``league.languages``)."""

    default_language = forms.ChoiceField(
        label=_("Default language of the public pages, embeds and feeds"),
        choices=settings.LANGUAGES,
        help_text=_(
            "For visitors who chose no language: the language picker, their account and "
            "their browser's language come first."
        ),
    )


def put_errors(form: forms.Form, error: ValidationError) -> None:
    """Show a service's ``ValidationError`` on the form fields it names (else on the form)."""
    for field, messages in error.message_dict.items():
        name = field if field in form.fields else None
        for message in messages:
            form.add_error(name, message)
