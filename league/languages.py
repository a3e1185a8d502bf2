"""A league's default language: the language of its public pages, embeds and feeds for a
visitor who expressed no preference (``config.language`` says who wins over it)."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from league.models import League


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
