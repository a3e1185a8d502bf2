"""Importing a TRF file on the workspace: upload, preview (a dry run), confirm.

The same pattern as the CSV import (``web.workspace.imports``, whose session and file
helpers this reuses): the upload is stored under ``settings.VAR_DIR / "uploads"`` with a
random token as its name, the token and the chosen event live in the organiser's session,
and the preview and the confirmation run ``league.chess.trf_import.import_trf`` on the same
stored file, the preview as a dry run. The preview shows every problem with its line and
column, every player of the file with the league player it is read as (by FIDE id, by name,
or new), what the league does not keep, and what the import would record.
"""

from __future__ import annotations

import secrets
from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from league.chess.trf import MAX_FILE_BYTES
from league.chess.trf_import import import_trf
from league.models import Competition, League
from web import locale_format
from web.workspace.access import SignInRequired, organiser_league, sign_in_redirect
from web.workspace.imports import (
    _NOT_TEXT,
    _forget,
    _pending,
    _remember,
    _remove_stale_uploads,
    _stored,
    uploads_dir,
)

SESSION_KEY = "workspace_trf_imports"
SUFFIX = ".trf"
TEXT_SUFFIXES = (".trf", ".trfx", ".txt")


class TrfUploadForm(forms.Form):
    """The file, and the event it goes to (a new one unless an existing one is chosen)."""

    file = forms.FileField(
        label=gettext_lazy("TRF file"),
        help_text=gettext_lazy(
            "A tournament report file (TRF-2026, TRF16 or TRF(x)), as Swiss-Manager, Vega, "
            "JaVaFo or this site write it."
        ),
    )
    event = forms.ChoiceField(
        label=gettext_lazy("Event"),
        required=False,
        help_text=gettext_lazy(
            "A new event named after the file, or an existing event to fill: its rounds "
            "must be the file's first rounds; results it lacks and further rounds are added."
        ),
    )

    def __init__(self, *args: Any, league: League, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        events = Competition.objects.filter(league=league).order_by("name")
        self.fields["event"].choices = [("", _("A new event"))] + [
            (event.slug, event.name) for event in events
        ]

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if upload.size > MAX_FILE_BYTES:
            raise ValidationError(
                _("The file is %(size)s MiB; a TRF file may have at most %(max)s MiB."),
                params={
                    "size": locale_format.number(upload.size / 2**20, 1),
                    "max": MAX_FILE_BYTES // 2**20,
                },
                code="too_large",
            )
        head = upload.read(8192)
        upload.seek(0)
        for signature, what in _NOT_TEXT:
            if head.startswith(signature):
                raise ValidationError(
                    _("This file is %(what)s, not a TRF file (text)."),
                    params={"what": what},
                    code="not_trf",
                )
        if not upload.name.lower().endswith(TEXT_SUFFIXES):
            raise ValidationError(
                _("Upload a TRF file: its name ends in .trf, .trfx or .txt, not “%(name)s”."),
                params={"name": upload.name[-60:]},
                code="not_trf",
            )
        return upload


@require_http_methods(["GET", "POST"])
def upload(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The upload form."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    form = TrfUploadForm(request.POST or None, request.FILES or None, league=league)
    if request.method == "POST" and form.is_valid():
        uploads_dir().mkdir(parents=True, exist_ok=True)
        _remove_stale_uploads(SUFFIX)
        token = secrets.token_urlsafe(24)
        with _stored(token, SUFFIX).open("wb") as stored:
            for chunk in form.cleaned_data["file"].chunks():
                stored.write(chunk)
        _remember(
            request,
            token,
            {
                "league": league.pk,
                "event": form.cleaned_data["event"],
                "name": form.cleaned_data["file"].name[-120:],
            },
            SESSION_KEY,
        )
        return HttpResponseRedirect(
            reverse("workspace:import_trf_preview", args=[league.slug, token])
        )
    return render(
        request,
        "workspace/import_trf.html",
        {"league": league, "form": form, "max_mib": MAX_FILE_BYTES // 2**20},
    )


@require_http_methods(["GET", "POST"])
def preview(request: HttpRequest, league_slug: str, token: str) -> HttpResponse:
    """The dry run of a stored upload; confirm or cancel."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    entry = _pending(request, league, token, SESSION_KEY, SUFFIX)
    if request.method == "POST" and "cancel" in request.POST:
        _forget(request, token, SESSION_KEY, SUFFIX)
        messages.info(request, _("Import cancelled: nothing was recorded."))
        return HttpResponseRedirect(reverse("workspace:import_trf", args=[league.slug]))
    stored = _stored(token, SUFFIX)
    confirm = request.method == "POST" and "confirm" in request.POST
    if confirm:
        claimed = stored.with_suffix(".importing-trf")
        try:
            # Renaming is atomic: of two confirmations of one upload, one imports.
            stored.rename(claimed)
        except FileNotFoundError:
            messages.info(request, _("This file is being imported, or was imported already."))
            return HttpResponseRedirect(reverse("workspace:import_trf", args=[league.slug]))
        try:
            report = import_trf(
                league,
                claimed.read_bytes(),
                event_slug=entry.get("event") or None,
                recorded_by=request.user,
            )
        finally:
            claimed.rename(stored)
        if report.committed:
            _forget(request, token, SESSION_KEY, SUFFIX)
            messages.success(request, report.summary())
            return HttpResponseRedirect(
                reverse(
                    "pages:competition",
                    kwargs={"league_slug": league.slug, "competition_slug": report.slug},
                )
            )
    else:
        report = import_trf(
            league,
            stored.read_bytes(),
            event_slug=entry.get("event") or None,
            recorded_by=request.user,
            dry_run=True,
        )
    return render(
        request,
        "workspace/import_trf_preview.html",
        {"league": league, "entry": entry, "report": report},
    )
