"""Importing a CSV file on the workspace: upload, preview (a dry run), confirm, undo.

The uploaded file is stored under ``settings.VAR_DIR / "uploads"`` with a random token as its
name; the token, the league and the options live in the organiser's session, so the preview
and the confirmation read the same stored file again (``league.csv_import``) and nothing the
browser sends back is trusted but the choices to confirm, cancel or read the dates otherwise.
A file saved by a spreadsheet with semicolons or day/month dates is rewritten into the import
format first (``league.csv_dialect``), line for line.

The preview shows every bad row (with every cell of the file's own columns and the message
beside it) and the first rows that would be recorded. A confirmed import ends back on this
page with what it recorded and an "Undo this import" button, whose address carries the
import's event numbers signed, so only an import's own span of events can be undone.
"""

from __future__ import annotations

import re
import secrets
import time
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.core import signing
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_http_methods, require_POST

from league import csv_dialect
from league.chess.vocabulary import result_text
from league.csv_format import iter_results
from league.csv_import import ImportReport, import_results, undo_import
from league.models import Event, League
from league.pgn_format import in_pgn_terms, iter_pgn_results
from league.scores import parse_score
from web import locale_format
from web.workspace.access import SignInRequired, organiser_league, sign_in_redirect
from web.workspace.recorded import MAX_ECHOED

SESSION_KEY = "workspace_csv_imports"
TOKEN = re.compile(r"^[A-Za-z0-9_-]{32}$")
#: The largest file the page takes; ``manage.py import_results`` reads any size.
MAX_UPLOAD_BYTES = 2 * 2**20
#: Rows that would be recorded shown in the preview (bad rows are all shown).
PREVIEW_ROWS = 200
#: A shown cell longer than this is cut (a runaway cell would fill the page).
MAX_CELL_CHARS = 200
# Uploads never confirmed are removed after this long (checked at each new upload).
STALE_SECONDS = 24 * 3600
UNDO_SALT = "web.workspace.imports.undo"
TEXT_SUFFIXES = (".csv", ".txt", ".tsv", ".pgn")
#: A file whose name ends so is read as PGN (``league.pgn_format``), any other as CSV.
PGN_SUFFIX = ".pgn"
# What a file that is not text starts with, and what it probably is.
_NOT_TEXT = (
    (b"PK\x03\x04", gettext_lazy("a spreadsheet workbook (.xlsx or .ods)")),
    (b"\xd0\xcf\x11\xe0", gettext_lazy("an Excel workbook (.xls)")),
    (b"%PDF", gettext_lazy("a PDF document")),
    (b"\x89PNG", gettext_lazy("a PNG image")),
    (b"\xff\xd8\xff", gettext_lazy("a JPEG image")),
    (b"\xff\xfe", gettext_lazy("text saved as UTF-16")),
    (b"\xfe\xff", gettext_lazy("text saved as UTF-16")),
)
# Bytes that text never holds (a NUL in one cell is the import's to report, on its line).
_CONTROL_BYTES = frozenset(range(9)) | frozenset(range(14, 32))
# The services' names for a row's parts, as the import's messages start with them.
_SERVICE_FIELD = re.compile(
    r"(^|; )(played_at|idempotency_key|sides|places|score_a|points|player_a|player_b|note"
    r"|neutral): "
)
DATE_ORDER_CHOICES = [
    ("", gettext_lazy("Recognise them from the file")),
    (csv_dialect.DAY_FIRST, gettext_lazy("Day first: 31/12/2024")),
    (csv_dialect.MONTH_FIRST, gettext_lazy("Month first: 12/31/2024")),
]


class UploadForm(forms.Form):
    """The file, and the two choices the import cannot make alone."""

    file = forms.FileField(
        label=gettext_lazy("CSV or PGN file"),
        help_text=gettext_lazy(
            "A header row naming the columns date, player_a, player_b and score_a (1, 0.5, 0, "
            "1-0, ½-½, 0-1) or points_a and points_b; optional id, note, points and neutral. "
            "Matches with sides: side_a, side_b, … (players separated by ;) and place_a, "
            "place_b, … for three or more. Commas or semicolons between cells. Or a chess "
            "PGN file (.pgn): each game's White, Black, Result and Date tags."
        ),
    )
    create_players = forms.BooleanField(
        required=False, label=gettext_lazy("Register players the league does not know yet")
    )
    date_order = forms.ChoiceField(
        label=gettext_lazy("Dates written like 03/04/2024"),
        choices=DATE_ORDER_CHOICES,
        required=False,
        help_text=gettext_lazy("ISO dates (2024-04-03) are read as they are."),
    )

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if upload.size > MAX_UPLOAD_BYTES:
            raise ValidationError(
                _(
                    "The file is %(size)s MiB; the page takes files of up to %(max)s MiB. "
                    "Split it, or import it with `manage.py %(command)s`."
                ),
                params={
                    "size": locale_format.number(upload.size / 2**20, 1),
                    "max": MAX_UPLOAD_BYTES // 2**20,
                    "command": "import_pgn"
                    if upload.name.lower().endswith(PGN_SUFFIX)
                    else "import_results",
                },
                code="too_large",
            )
        head = upload.read(8192)
        upload.seek(0)
        for signature, what in _NOT_TEXT:
            if head.startswith(signature):
                raise ValidationError(
                    _("This file is %(what)s, not CSV: save it as CSV (UTF-8) and upload that."),
                    params={"what": what},
                    code="not_csv",
                )
        if sum(byte in _CONTROL_BYTES for byte in head) > len(head) // 4:
            raise ValidationError(
                _("This file is not text: upload a CSV file (UTF-8)."), code="not_csv"
            )
        if not upload.name.lower().endswith(TEXT_SUFFIXES):
            raise ValidationError(
                _(
                    "Upload a CSV file: its name ends in .csv (or .txt), or a PGN file "
                    "(.pgn), not “%(name)s”."
                ),
                params={"name": upload.name[-60:]},
                code="not_csv",
            )
        return upload


@dataclass
class PreviewRow:
    """One line of the file as the preview shows it."""

    line: int
    status: str  # "recorded", "skipped" or "error"
    #: (the file's column name, the cell as written), in the file's order.
    cells: list[tuple[str, str]]
    messages: list[str] = field(default_factory=list)


@dataclass
class Preview:
    """What the preview page shows of a dry run (or of a refused import)."""

    report: ImportReport
    dialect: csv_dialect.Dialect
    date_order: str
    columns: list[str]
    rows: list[PreviewRow]
    file_errors: list[str]
    hidden_good: int
    hidden_bad: int

    @property
    def order_in_use(self) -> str:
        return self.date_order or self.dialect.date_order

    @property
    def example_read(self) -> str:
        """The dialect's example date as it is read now (ISO), or why it is no date."""
        read = csv_dialect.iso_date(self.dialect.example, self.order_in_use)
        return read if read != self.dialect.example else _("no day of the calendar")

    @property
    def can_confirm(self) -> bool:
        return self.report.ok and self.report.recorded > 0


def uploads_dir() -> Path:
    return Path(settings.VAR_DIR) / "uploads"


# The session's uploads and their files are kept apart by kind (the CSV import's, and the
# TRF import's in ``web.workspace.trf_imports``): a session key and a file suffix each.


def _stored(token: str, suffix: str = ".csv") -> Path:
    return uploads_dir() / f"{token}{suffix}"


def _pending(
    request: HttpRequest,
    league: League,
    token: str,
    session_key: str = SESSION_KEY,
    suffix: str = ".csv",
) -> dict[str, Any]:
    """The stored upload ``token`` of this session and league; 404 if there is none."""
    entry = request.session.get(session_key, {}).get(token) if TOKEN.match(token) else None
    if entry is None or entry.get("league") != league.pk or not _stored(token, suffix).is_file():
        raise Http404(_("No such upload: it was imported, cancelled or has expired."))
    return entry


def _remember(
    request: HttpRequest, token: str, entry: dict[str, Any], session_key: str = SESSION_KEY
) -> None:
    pending = request.session.get(session_key, {})
    pending[token] = entry
    request.session[session_key] = pending


def _forget(
    request: HttpRequest, token: str, session_key: str = SESSION_KEY, suffix: str = ".csv"
) -> None:
    pending = request.session.get(session_key, {})
    pending.pop(token, None)
    request.session[session_key] = pending
    _stored(token, suffix).unlink(missing_ok=True)


def _remove_stale_uploads(suffix: str = ".csv") -> None:
    cutoff = time.time() - STALE_SECONDS
    for old in uploads_dir().glob(f"*{suffix}"):
        if old.stat().st_mtime < cutoff:
            old.unlink(missing_ok=True)


@require_http_methods(["GET", "POST"])
def upload(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The upload form; after an import, what it recorded and its undo."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        uploads_dir().mkdir(parents=True, exist_ok=True)
        _remove_stale_uploads()
        token = secrets.token_urlsafe(24)
        with _stored(token).open("wb") as stored:
            for chunk in form.cleaned_data["file"].chunks():
                stored.write(chunk)
        _remember(
            request,
            token,
            {
                "league": league.pk,
                "create_players": form.cleaned_data["create_players"],
                "date_order": form.cleaned_data["date_order"],
                "name": form.cleaned_data["file"].name[-120:],
                "format": "pgn"
                if form.cleaned_data["file"].name.lower().endswith(PGN_SUFFIX)
                else "csv",
            },
        )
        return HttpResponseRedirect(reverse("workspace:import_preview", args=[league.slug, token]))
    return render(
        request,
        "workspace/import.html",
        {
            "league": league,
            "form": form,
            "max_mib": MAX_UPLOAD_BYTES // 2**20,
            "imported": _imported(league, request.GET.get("imported")),
        },
    )


@require_http_methods(["GET", "POST"])
def preview(request: HttpRequest, league_slug: str, token: str) -> HttpResponse:
    """The dry run of a stored upload; confirm, cancel, or read its dates in another order."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    entry = _pending(request, league, token)
    here = reverse("workspace:import_preview", args=[league.slug, token])
    if request.method == "POST" and "cancel" in request.POST:
        _forget(request, token)
        messages.info(request, _("Import cancelled: nothing was recorded."))
        return HttpResponseRedirect(reverse("workspace:import", args=[league.slug]))
    if request.method == "POST" and "date_order" in request.POST:
        order = request.POST["date_order"]
        if order in (csv_dialect.DAY_FIRST, csv_dialect.MONTH_FIRST):
            _remember(request, token, {**entry, "date_order": order})
        return HttpResponseRedirect(here)
    data = _stored(token).read_bytes()
    # A PGN file has no separator and writes its dates one way (YYYY.MM.DD).
    dialect = csv_dialect.Dialect() if _is_pgn(entry) else csv_dialect.detect(data)
    # Nothing is run until the organiser says how to read dates that fit both orders.
    must_ask = dialect.date_order == csv_dialect.ASK and not entry.get("date_order")
    shown: Preview | None = None
    if not must_ask and request.method == "POST" and "confirm" in request.POST:
        confirmed = _confirm(request, league, entry, token, dialect)
        if isinstance(confirmed, HttpResponse):
            return confirmed
        shown = confirmed
    elif not must_ask:
        shown = _run(request, league, entry, data, dialect, dry_run=True)
    return render(
        request,
        "workspace/import_preview.html",
        {
            "league": league,
            "entry": entry,
            "preview": shown,
            "ask": dialect if must_ask else None,
            "day_first": csv_dialect.DAY_FIRST,
            "month_first": csv_dialect.MONTH_FIRST,
        },
    )


def _confirm(
    request: HttpRequest,
    league: League,
    entry: dict[str, Any],
    token: str,
    dialect: csv_dialect.Dialect,
) -> HttpResponse | Preview | None:
    """Import the stored upload for real: the redirect to the import page once it is
    recorded, or the preview of why it was not."""
    stored = _stored(token)
    claimed = stored.with_suffix(".importing")
    try:
        # Renaming is atomic: of two confirmations of one upload (a double click, two
        # tabs), one imports and the other finds the file gone.
        stored.rename(claimed)
    except FileNotFoundError:
        messages.info(request, _("This file is being imported, or was imported already."))
        return HttpResponseRedirect(reverse("workspace:import", args=[league.slug]))
    try:
        done = _run(request, league, entry, claimed.read_bytes(), dialect, dry_run=False)
    finally:
        claimed.rename(stored)
    if done is not None and done.report.committed:
        _forget(request, token)
        return _imported_redirect(request, league, entry["name"], done.report)
    return done


def _run(
    request: HttpRequest,
    league: League,
    entry: dict[str, Any],
    data: bytes,
    dialect: csv_dialect.Dialect,
    *,
    dry_run: bool,
) -> Preview | None:
    """Run the import of ``data`` (a dry run, or for real) and shape its report for the page;
    None, with the reason as a message, when the import refused to start."""
    order = entry.get("date_order") or ""
    pgn = _is_pgn(entry)
    try:
        report = import_results(
            league,
            BytesIO(data if pgn else csv_dialect.normalise(data, dialect, order)),
            create_players=bool(entry.get("create_players")),
            dry_run=dry_run,
            recorded_by=request.user,
            preview_limit=PREVIEW_ROWS,
            parse=iter_pgn_results if pgn else iter_results,
        )
    except ValidationError as error:
        for message in error.messages:
            messages.error(request, message)
        return None
    return _shape_pgn(report, dialect) if pgn else _shape(report, data, dialect, order)


def _is_pgn(entry: dict[str, Any]) -> bool:
    return entry.get("format") == "pgn"


def _shape_pgn(report: ImportReport, dialect: csv_dialect.Dialect) -> Preview:
    """The preview of a PGN file: a row per game (its first line), with White, Black, the
    result, the day and the note its Event and Round tags make; every bad game and line."""
    outcome: dict[int, tuple[str, list[str]]] = {
        row.line: (row.status, [row.message] if row.message else []) for row in report.preview
    }
    for error in report.errors:
        _status, found = outcome.setdefault(error.line, ("error", []))
        if error.message not in found:
            found.append(error.message)
        outcome[error.line] = ("error", found)
    games = {row.line: row for row in report.preview}
    columns = [_("White"), _("Black"), _("Result"), _("Date"), _("Note")]
    rows = []
    for line in sorted(outcome):
        status, found = outcome[line]
        game = games.get(line)
        texts = ["", "", "", "", ""]
        if game is not None and game.player_a:
            score = parse_score(game.score_a)
            texts = [
                game.player_a,
                game.player_b,
                "" if score is None else result_text(score),
                game.played,
                game.note,
            ]
        rows.append(
            PreviewRow(
                line=line,
                status=status,
                cells=list(zip(columns, [_shown(text) for text in texts], strict=True)),
                messages=[in_pgn_terms(message) for message in found],
            )
        )
    shown_bad = sum(1 for row in rows if row.status == "error")
    return Preview(
        report=report,
        dialect=dialect,
        date_order="",
        columns=columns,
        rows=rows,
        file_errors=[],
        hidden_good=max(0, report.rows - report.error_count - (len(rows) - shown_bad)),
        hidden_bad=max(0, report.error_count - len(report.errors)),
    )


def _shape(report: ImportReport, data: bytes, dialect: csv_dialect.Dialect, order: str) -> Preview:
    """Every bad row and the first good ones, with the file's cells as written."""
    outcome: dict[int, tuple[str, list[str]]] = {
        row.line: (row.status, [row.message] if row.message else []) for row in report.preview
    }
    for error in report.errors:
        _status, found = outcome.setdefault(error.line, ("error", []))
        if error.message not in found:
            found.append(error.message)
        outcome[error.line] = ("error", found)
    header_line, header, cells = csv_dialect.rows_by_line(data, dialect.separator, outcome)
    names = [name.lower() for name in header]
    file_errors = [
        _in_file_terms(message, names, header)
        for line, (status, found) in sorted(outcome.items())
        if status == "error" and (not header_line or line <= header_line)
        for message in found
    ]
    lines = [line for line in sorted(outcome) if header_line and line > header_line]
    width = max([len(header), *(len(cells.get(line, [])) for line in lines)])
    columns = header + [_("(no column)")] * (width - len(header))
    rows = []
    for line in lines:
        status, found = outcome[line]
        texts = [_shown(cell) for cell in cells.get(line, [])]
        rows.append(
            PreviewRow(
                line=line,
                status=status,
                cells=list(zip(columns, texts + [""] * (width - len(texts)), strict=True)),
                messages=[_in_file_terms(message, names, header) for message in found],
            )
        )
    shown_bad = sum(1 for row in rows if row.status == "error")
    return Preview(
        report=report,
        dialect=dialect,
        date_order=order,
        columns=columns,
        rows=rows,
        file_errors=file_errors,
        hidden_good=max(0, report.rows - report.error_count - (len(rows) - shown_bad)),
        hidden_bad=max(0, report.error_count - len(report.errors)),
    )


def _shown(cell: str) -> str:
    return cell if len(cell) <= MAX_CELL_CHARS else cell[: MAX_CELL_CHARS - 1] + "…"


def _in_file_terms(message: str, names: list[str], header: list[str]) -> str:
    """``message`` with the services' names of a row's parts (``played_at: …``) replaced by
    the file's own column names, as its header writes them (``Date: …``)."""

    def column(name: str) -> str:
        return header[names.index(name)] if name in names else name

    def columns(prefix: str) -> str:
        found = [header[i] for i, name in enumerate(names) if name.startswith(prefix)]
        return "/".join(found) or prefix.rstrip("_")

    def points() -> str:
        return column("points") if "points" in names else columns("points_")

    words = {
        "played_at": lambda: column("date"),
        "idempotency_key": lambda: column("id"),
        "sides": lambda: columns("side_"),
        "places": lambda: columns("place_"),
        "score_a": lambda: column("score_a") if "score_a" in names else columns("points_"),
        "points": points,
        "player_a": lambda: column("player_a"),
        "player_b": lambda: column("player_b"),
        "note": lambda: column("note"),
        "neutral": lambda: column("neutral"),
    }
    return _SERVICE_FIELD.sub(lambda found: f"{found[1]}{words[found[2]]()}: ", message)


def _imported_redirect(
    request: HttpRequest, league: League, name: str, report: ImportReport
) -> HttpResponse:
    """Back to the import page, saying what was recorded, with the undo when it recorded any."""
    text = ngettext(
        "%(name)s: %(count)s result recorded",
        "%(name)s: %(count)s results recorded",
        report.recorded,
    ) % {"name": name, "count": report.recorded}
    if report.skipped:
        text += ngettext(
            ", %(count)s row already recorded (skipped)",
            ", %(count)s rows already recorded (skipped)",
            report.skipped,
        ) % {"count": report.skipped}
    if report.players_created:
        text += ngettext(
            ", %(count)s new player registered",
            ", %(count)s new players registered",
            len(report.players_created),
        ) % {"count": len(report.players_created)}
    messages.success(request, text + ".")
    url = reverse("workspace:import", args=[league.slug])
    if report.recorded and report.first_seq is not None and report.last_seq is not None:
        signed = signing.dumps(
            {"league": league.pk, "first": report.first_seq, "last": report.last_seq, "name": name},
            salt=UNDO_SALT,
        )
        url += f"?imported={signed}#imported"
    return HttpResponseRedirect(url)


@dataclass(frozen=True)
class Imported:
    """One import's span of events, as its success panel and its undo read it."""

    token: str
    name: str
    first: int
    last: int
    matches: int
    live: int

    @property
    def log_url_query(self) -> str:
        """The event log's highlight of the span, when the log can highlight that many."""
        if self.last - self.first >= MAX_ECHOED:
            return ""
        return f"?highlight={self.first}-{self.last}#event-{self.last}"


def _imported(league: League, token: str | None) -> Imported | None:
    """The import signed into ``token`` (for ``league``), or None for anything else."""
    if not token:
        return None
    try:
        value = signing.loads(token, salt=UNDO_SALT)
        first, last, name = int(value["first"]), int(value["last"]), str(value["name"])
        if value["league"] != league.pk:
            return None
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None
    matches = Event.objects.all_matches().filter(league=league, seq__gte=first, seq__lte=last)
    return Imported(
        token=token,
        name=name,
        first=first,
        last=last,
        matches=matches.count(),
        live=matches.filter(voided_by__isnull=True).count(),
    )


@require_POST
def undo(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Void every match of one import that still counts, with a reason, all or none."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    imported = _imported(league, request.POST.get("imported"))
    back = reverse("workspace:import", args=[league.slug])
    if imported is None:
        messages.error(request, _("Nothing was undone: that import is not one of this league's."))
        return HttpResponseRedirect(back)
    reason = _("Import of %(name)s undone by the organiser.") % {"name": imported.name}
    try:
        voided = undo_import(
            league, imported.first, imported.last, reason=reason, recorded_by=request.user
        )
    except ValidationError as error:
        messages.error(
            request, _("Nothing was undone: %(reasons)s") % {"reasons": " ".join(error.messages)}
        )
        return HttpResponseRedirect(f"{back}?imported={imported.token}#imported")
    if voided:
        messages.success(
            request,
            ngettext(
                "Import of %(name)s undone: %(count)s match voided; the event log keeps it, "
                "marked void.",
                "Import of %(name)s undone: %(count)s matches voided; the event log keeps "
                "them, marked void.",
                voided,
            )
            % {"name": imported.name, "count": voided},
        )
    else:
        messages.info(request, _("Nothing to undo: no match of this import still counts."))
    return HttpResponseRedirect(f"{back}?imported={imported.token}#imported")
