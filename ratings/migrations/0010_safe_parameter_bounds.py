"""Safe parameter bounds (issue 27): new labels, help and bounds for τ, the initial RD and
volatility, the RD ceiling, the volatility ceiling (now required, default 0.1) and the
advantage.

Only field metadata changes: no column, no database constraint and no stored row. A version
saved before these bounds (τ up to 10, no volatility ceiling, ...) stays readable and replays
exactly as stored, since versions are immutable; the configuration page names its values
outside today's bounds (``ratings.parameters.stored_problems``) and a new version must change
them. The volatility ceiling column stays nullable for those versions.
"""

from django.db import migrations, models

import ratings.parameters


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0009_config_update_mode"),
    ]

    operations = [
        migrations.AlterField(
            model_name="ratingconfig",
            name="advantage",
            field=models.FloatField(
                default=0.0,
                help_text="Rating points added to the first-named side (home team, white, first player) in the expected score of every match not marked neutral; 0 for none. Allowed: from -200 to 200 rating points.",
                validators=[
                    ratings.parameters.ParameterMinimum("advantage"),
                    ratings.parameters.ParameterMaximum("advantage"),
                ],
                verbose_name="First-named side's advantage",
            ),
        ),
        migrations.AlterField(
            model_name="ratingconfig",
            name="initial_rd",
            field=models.FloatField(
                default=350.0,
                help_text="Rating deviation of a player before their first game. Allowed: from 1 to 500 rating points.",
                validators=[
                    ratings.parameters.ParameterMinimum("initial_rd"),
                    ratings.parameters.ParameterMaximum("initial_rd"),
                ],
                verbose_name="Initial RD",
            ),
        ),
        migrations.AlterField(
            model_name="ratingconfig",
            name="initial_volatility",
            field=models.FloatField(
                default=0.06,
                help_text="Volatility of a player before their first game; 0.06 is usual. Allowed: from 0.0001 to 0.1.",
                validators=[
                    ratings.parameters.ParameterMinimum("initial_volatility"),
                    ratings.parameters.ParameterMaximum("initial_volatility"),
                ],
                verbose_name="Initial volatility σ",
            ),
        ),
        migrations.AlterField(
            model_name="ratingconfig",
            name="max_rd",
            field=models.FloatField(
                default=350.0,
                help_text="Applied after every period: no RD grows above it. Allowed: from 300 to 500 rating points.",
                validators=[
                    ratings.parameters.ParameterMinimum("max_rd"),
                    ratings.parameters.ParameterMaximum("max_rd"),
                ],
                verbose_name="RD ceiling",
            ),
        ),
        migrations.AlterField(
            model_name="ratingconfig",
            name="tau",
            field=models.FloatField(
                default=0.5,
                help_text="How much a player's volatility may change; 0.3–1.2 is usual. Allowed: from 0.01 to 2.",
                validators=[
                    ratings.parameters.ParameterMinimum("tau"),
                    ratings.parameters.ParameterMaximum("tau"),
                ],
                verbose_name="System constant τ",
            ),
        ),
        migrations.AlterField(
            model_name="ratingconfig",
            name="volatility_ceiling",
            field=models.FloatField(
                blank=True,
                default=0.1,
                help_text="No volatility grows above it. Allowed: from 0.0001 to 0.1.",
                null=True,
                validators=[
                    ratings.parameters.ParameterMinimum("volatility_ceiling"),
                    ratings.parameters.ParameterMaximum("volatility_ceiling"),
                ],
                verbose_name="Volatility ceiling",
            ),
        ),
    ]
