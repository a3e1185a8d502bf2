from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Ratings"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from league.event_store.signals import events_appended
        from ratings.receivers import on_events_appended

        events_appended.connect(
            on_events_appended, dispatch_uid="ratings.receivers.on_events_appended"
        )
