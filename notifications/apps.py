from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NotificationsConfig(AppConfig):
    name = "notifications"
    verbose_name = _("Messages and webhooks")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.core.checks import register

        from league.event_store.signals import events_appended
        from notifications.checks import check_site_url
        from notifications.dispatch import on_events_appended, on_standings_published
        from ratings.signals import standings_published

        events_appended.connect(
            on_events_appended, dispatch_uid="notifications.dispatch.on_events_appended"
        )
        register(check_site_url, deploy=True)
        standings_published.connect(
            on_standings_published, dispatch_uid="notifications.dispatch.on_standings_published"
        )
