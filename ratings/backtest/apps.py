from django.apps import AppConfig


class BacktestConfig(AppConfig):
    """Backtesting: score rating configurations on a league's history and sweep τ."""

    name = "ratings.backtest"
    label = "backtest"
    verbose_name = "Backtesting"
    default_auto_field = "django.db.models.BigAutoField"
