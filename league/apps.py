from django.apps import AppConfig


class LeagueConfig(AppConfig):
    name = "league"
    verbose_name = "Leagues and results"
    default_auto_field = "django.db.models.BigAutoField"
