"""The CSV import in the admin: upload, preview (a dry run), then confirm.

The uploaded file is stored under ``settings.VAR_DIR / "uploads"`` with a random token as
its name; the token, the league and the options live in the user's session. The preview
and the confirmation both read that stored file again (``league.csv_import``), so nothing
the browser sends back is trusted but the choice to confirm. Only the league's organisers
(and superusers) get these pages; anyone else gets a 404, as for the rest of the admin.
"""

from __future__ import annotations

import re
import secrets
import time
from pathlib import Path
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse

from league.admin_scope import scoped_league
from league.csv_import import ImportReport, import_results
from league.models import League

SESSION_KEY = "league_csv_imports"
TOKEN = re.compile(r"^[A-Za-z0-9_-]{32}$")
PREVIEW_ROWS = 200
MAX_UPLOAD_BYTES = 256 * 2**20
# Uploads never confirmed are removed after this long (checked at each new upload).
STALE_SECONDS = 24 * 3600


class UploadForm(forms.Form):
    file = forms.FileField(
        label="CSV file",
        help_text=(
            "UTF-8, with a header row: date, player_a, player_b and score_a (1, 0.5, 0, "
            "1-0, ½-½, 0-1) or points_a and points_b; optional id, note and points."
        ),
    )
    create_players = forms.BooleanField(
        required=False, label="Register players the league does not know yet"
    )

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if upload.size > MAX_UPLOAD_BYTES:
            raise ValidationError(
                f"The file is larger than {MAX_UPLOAD_BYTES // 2**20} MiB; import it with "
                "`manage.py import_results` instead."
            )
        return upload


def uploads_dir() -> Path:
    return Path(settings.VAR_DIR) / "uploads"


def _pending(request: HttpRequest, league: League, token: str) -> tuple[dict[str, Any], Path]:
    """The stored upload ``token`` of this session and league; 404 if there is none."""
    entry = request.session.get(SESSION_KEY, {}).get(token) if TOKEN.match(token) else None
    stored = uploads_dir() / f"{token}.csv"
    if entry is None or entry.get("league") != league.pk or not stored.is_file():
        raise Http404("No such upload: it was confirmed, cancelled or has expired.")
    return entry, stored


def _forget(request: HttpRequest, token: str) -> None:
    pending = request.session.get(SESSION_KEY, {})
    pending.pop(token, None)
    request.session[SESSION_KEY] = pending
    (uploads_dir() / f"{token}.csv").unlink(missing_ok=True)


def _remove_stale_uploads() -> None:
    cutoff = time.time() - STALE_SECONDS
    for old in uploads_dir().glob("*.csv"):
        if old.stat().st_mtime < cutoff:
            old.unlink(missing_ok=True)


def _context(request: HttpRequest, site: admin.AdminSite, league: League, **extra: Any) -> dict:
    return {
        **site.each_context(request),
        "opts": League._meta,
        "league": league,
        "title": f"Import results into {league.name}",
        **extra,
    }


def upload_view(request: HttpRequest, league_id: int, site: admin.AdminSite) -> HttpResponse:
    league = scoped_league(request, league_id)
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        uploads_dir().mkdir(parents=True, exist_ok=True)
        _remove_stale_uploads()
        token = secrets.token_urlsafe(24)
        with (uploads_dir() / f"{token}.csv").open("wb") as stored:
            for chunk in form.cleaned_data["file"].chunks():
                stored.write(chunk)
        pending = request.session.get(SESSION_KEY, {})
        pending[token] = {
            "league": league.pk,
            "create_players": form.cleaned_data["create_players"],
            "name": form.cleaned_data["file"].name,
        }
        request.session[SESSION_KEY] = pending
        return HttpResponseRedirect(reverse("admin:league_import_preview", args=[league.pk, token]))
    return TemplateResponse(
        request, "admin/league/import_upload.html", _context(request, site, league, form=form)
    )


def preview_view(
    request: HttpRequest, league_id: int, token: str, site: admin.AdminSite
) -> HttpResponse:
    league = scoped_league(request, league_id)
    entry, stored = _pending(request, league, token)
    if request.method == "POST" and "cancel" in request.POST:
        _forget(request, token)
        messages.info(request, "Import cancelled: nothing was recorded.")
        return HttpResponseRedirect(reverse("admin:league_import", args=[league.pk]))
    confirm = request.method == "POST" and "confirm" in request.POST
    report = _run(request, league, stored, entry, dry_run=not confirm)
    if report is not None and confirm and report.committed:
        _forget(request, token)
        messages.success(request, f"{entry['name']}: {report.summary()}")
        return HttpResponseRedirect(reverse("admin:league_league_change", args=[league.pk]))
    return TemplateResponse(
        request,
        "admin/league/import_preview.html",
        _context(
            request,
            site,
            league,
            report=report,
            entry=entry,
            token=token,
            preview_limit=PREVIEW_ROWS,
            hidden_errors=0 if report is None else report.error_count - len(report.errors),
        ),
    )


def _run(
    request: HttpRequest, league: League, stored: Path, entry: dict[str, Any], *, dry_run: bool
) -> ImportReport | None:
    try:
        with stored.open("rb") as handle:
            return import_results(
                league,
                handle,
                create_players=bool(entry.get("create_players")),
                dry_run=dry_run,
                recorded_by=request.user,
                preview_limit=PREVIEW_ROWS,
            )
    except ValidationError as error:
        for message in error.messages:
            messages.error(request, message)
        return None


def import_urls(site: admin.AdminSite) -> list[URLPattern]:
    """The import pages, for ``LeagueAdmin.get_urls`` (names ``admin:league_import*``)."""

    def upload(request: HttpRequest, league_id: int) -> HttpResponse:
        return upload_view(request, league_id, site)

    def preview(request: HttpRequest, league_id: int, token: str) -> HttpResponse:
        return preview_view(request, league_id, token, site)

    return [
        path("<int:league_id>/import/", site.admin_view(upload), name="league_import"),
        path(
            "<int:league_id>/import/<str:token>/",
            site.admin_view(preview),
            name="league_import_preview",
        ),
    ]
