"""Baku acceleration as an event setting (``Competition.accelerated``, from the
``competition_created`` fact's details): a chess Swiss event's first rounds paired with the
virtual points of FIDE C.04.5.1."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0023_double_elimination"),
    ]

    operations = [
        migrations.AddField(
            model_name="competition",
            name="accelerated",
            field=models.BooleanField(
                default=False,
                help_text="A chess Swiss event paired with Baku acceleration (FIDE C.04.5.1).",
            ),
        ),
    ]
