from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Ratings"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from league.event_store.signals import events_appended
        from ratings.models import RatingConfig
        from ratings.receivers import (
            on_config_created,
            on_config_deleted,
            on_events_appended,
        )

        events_appended.connect(
            on_events_appended, dispatch_uid="ratings.receivers.on_events_appended"
        )
        post_save.connect(
            on_config_created,
            sender=RatingConfig,
            dispatch_uid="ratings.receivers.on_config_created",
        )
        post_delete.connect(
            on_config_deleted,
            sender=RatingConfig,
            dispatch_uid="ratings.receivers.on_config_deleted",
        )
