"""A league's default language: the language of its public pages, embeds and feeds for a
visitor who expressed no preference (``config.language`` says who wins over it), and the
language of a mail to an account (:func:`mail_language`)."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext as _

from league.models import AccountPreferences, League


def language_codes() -> list[str]:
    """The codes of the languages a league may default to (``settings.LANGUAGES``)."""
    return [code for code, _name in settings.LANGUAGES]


def set_default_language(league: League, code: object) -> League:
    """Make ``code`` the default language of ``league`` (``ValidationError`` naming the field
    ``default_language`` when it is not one of the site's languages; nothing changes then)."""
    if not isinstance(code, str) or code not in language_codes():
        raise ValidationError(
            {
                "default_language": _("Choose one of the languages offered: %(codes)s.")
                % {"codes": ", ".join(language_codes())}
            },
            code="invalid",
        )
    with transaction.atomic():
        League.objects.filter(pk=league.pk).update(default_language=code)
    league.default_language = code
    return league


def supported(code: str | None) -> str | None:
    """``code`` as one of ``settings.LANGUAGES`` (``en-us`` is ``en-gb``), or None."""
    if not code:
        return None
    try:
        return translation.get_supported_language_variant(code)
    except LookupError:
        return None


def mail_language(user_ids: list[int], league: League | None = None) -> str:
    """The language of a mail to the accounts ``user_ids`` (all one person's): the first
    language one of them picked (``AccountPreferences.language``), else ``league``'s
    default language, else ``settings.LANGUAGE_CODE``."""
    chosen = (
        AccountPreferences.objects.filter(user_id__in=user_ids)
        .exclude(language="")
        .order_by("user_id")
        .values_list("language", flat=True)
        if user_ids
        else []
    )
    for candidate in (*chosen, league.default_language if league is not None else None):
        found = supported(candidate)
        if found:
            return found
    return supported(settings.LANGUAGE_CODE) or settings.LANGUAGE_CODE
