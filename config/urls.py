"""URL configuration: the admin, the REST API and its schema, the pages."""

from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView
from django.views.i18n import JavaScriptCatalog

from web.language import choose_language

# The admin is discovered here, not at start-up (config/admin.py).
admin.autodiscover()

# A database outage raised outside a view is a 503 too (config/db_outage.py).
handler500 = "config.db_outage.server_error"


class FaviconRedirect(RedirectView):
    """/favicon.ico to the site's icon, its address looked up per request (with the manifest
    storage of production settings it exists only once ``collectstatic`` has run)."""

    permanent = True

    def get_redirect_url(self, *args: object, **kwargs: object) -> str:
        return static("favicon.png")


urlpatterns = [
    path("admin/", admin.site.urls),
    # Feed readers and some browsers ask for /favicon.ico whatever the pages link.
    path("favicon.ico", FaviconRedirect.as_view()),
    path("api/", include("api.urls")),
    # The language picker (web/language.py) and the site's JavaScript strings in the active
    # language (static/js/ read them through gettext()).
    path("i18n/language/", choose_language, name="set_language"),
    path("i18n/catalog.js", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("", include("web.accounts.urls")),
    path("", include("web.mail.urls")),
    path("", include("web.workspace.urls")),
    path("", include("web.public.urls")),
]
