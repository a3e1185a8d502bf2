"""Help texts and validators of the bounds set for a new league's defaults (volatility up to 0.15, RD ceiling from 350): field metadata only."""

from django.db import migrations, models

import ratings.parameters


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0011_interval_coverage"),
    ]

    operations = [
        migrations.AlterField(
            model_name="ratingconfig",
            name="initial_volatility",
            field=models.FloatField(
                default=0.1,
                help_text="Volatility of a player before their first game: how far a skill is believed to move in one period. A new league has 0.1 for weekly periods, 0.06 for daily ones and 0.14 for monthly ones (0.06 is the paper's for any period). Allowed: from 0.0001 to 0.15.",
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
                help_text="Applied after every period: no RD grows above it. Allowed: from 350 to 500 rating points.",
                validators=[
                    ratings.parameters.ParameterMinimum("max_rd"),
                    ratings.parameters.ParameterMaximum("max_rd"),
                ],
                verbose_name="RD ceiling",
            ),
        ),
        migrations.AlterField(
            model_name="ratingconfig",
            name="volatility_ceiling",
            field=models.FloatField(
                blank=True,
                default=0.15,
                help_text="No volatility grows above it. Allowed: from 0.0001 to 0.15.",
                null=True,
                validators=[
                    ratings.parameters.ParameterMinimum("volatility_ceiling"),
                    ratings.parameters.ParameterMaximum("volatility_ceiling"),
                ],
                verbose_name="Volatility ceiling",
            ),
        ),
    ]
