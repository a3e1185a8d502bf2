from django.apps import AppConfig


class WebConfig(AppConfig):
    """The web pages' app: installed for its template tags (``web.templatetags``) and for
    its receivers."""

    name = "web"
    verbose_name = "Web pages"

    def ready(self) -> None:
        # A forgotten player's names must leave every rendered copy the web layer keeps.
        from league.event_store.signals import player_erased
        from web.public.page_cache import drop_cached_pages

        player_erased.connect(drop_cached_pages, dispatch_uid="web.public.drop_cached_pages")
