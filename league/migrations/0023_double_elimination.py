"""Double-elimination cups: a knockout cup with a losers' bracket, and whether its grand
final is played again (a bracket reset) when the losers' bracket champion wins it."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0022_club_matches"),
    ]

    operations = [
        migrations.AddField(
            model_name="competition",
            name="double_elimination",
            field=models.BooleanField(
                default=False,
                help_text="A knockout cup with a losers' bracket: a player is out after two "
                "lost ties.",
            ),
        ),
        migrations.AddField(
            model_name="competition",
            name="bracket_reset",
            field=models.BooleanField(
                default=False,
                help_text="A double-elimination cup plays the grand final again when the "
                "losers' bracket champion wins it.",
            ),
        ),
    ]
