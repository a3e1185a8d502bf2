from django.apps import AppConfig


class WebConfig(AppConfig):
    """The web pages' app: installed for its template tags (``web.templatetags``)."""

    name = "web"
    verbose_name = "Web pages"
