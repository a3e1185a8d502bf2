"""The language picker's view: Django's ``set_language``, remembered for the account too.

The picker is on every page, cached anonymous pages included, so its form carries no CSRF
token (a token would set a cookie and make every page uncacheable). Choosing a language is
harmless, but a cross-site form must not change it: a request a browser marks as coming
from another site changes nothing and is sent back where it asked to go.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from django.views.i18n import set_language

from league.languages import supported
from league.models import AccountPreferences

#: ``Sec-Fetch-Site`` values of a request made from the site itself (or typed in).
_OWN_SITE = {"same-origin", "none"}


@csrf_exempt
@require_POST
def choose_language(request: HttpRequest) -> HttpResponse:
    """Sets the language cookie (Django's ``set_language``) and, for a signed-in account,
    its language; then redirects to ``next``."""
    fetched_from = request.headers.get("Sec-Fetch-Site")
    if fetched_from is not None and fetched_from not in _OWN_SITE:
        target = request.POST.get("next", "/")
        if not url_has_allowed_host_and_scheme(
            target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            target = "/"
        return HttpResponseRedirect(target)
    response = set_language(request)
    language = supported(request.POST.get("language"))
    if language and request.user.is_authenticated:
        AccountPreferences.objects.update_or_create(
            user=request.user, defaults={"language": language}
        )
    return response
