"""URL configuration: pages, the REST API and its schema, the admin.

The API's two documentation pages are routed here, ahead of ``api.urls`` (which names
them ``api:docs`` and ``api:redoc``; ``reverse`` still finds them there), so that each gets
its own Content-Security-Policy: the site-wide one (``SECURE_CSP``) allows no inline code,
and these third-party viewers need a narrow exception each.
"""

from django.contrib import admin
from django.urls import include, path
from django.views.decorators.csp import csp_override
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerView

from config.csp import REDOC_POLICY, SWAGGER_UI_POLICY

api_docs = [
    path(
        "api/docs/",
        csp_override(SWAGGER_UI_POLICY)(SpectacularSwaggerView.as_view(url_name="api:schema")),
    ),
    path(
        "api/redoc/",
        csp_override(REDOC_POLICY)(
            SpectacularRedocView.as_view(url_name="api:schema", template_name="api/redoc.html")
        ),
    ),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    *api_docs,
    path("api/", include("api.urls")),
    path("", include("ratings.urls")),
]
