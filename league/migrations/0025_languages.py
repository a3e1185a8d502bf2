# A league's default language and the language an account picked (docs/languages.md).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0024_event_acceleration"),
    ]

    operations = [
        migrations.AddField(
            model_name="accountpreferences",
            name="language",
            field=models.CharField(
                blank=True,
                choices=[
                    ("en-gb", "English"),
                    ("de", "Deutsch"),
                    ("fr", "Français"),
                    ("es", "Español"),
                ],
                default="",
                help_text="The language last picked while signed in (empty: none picked).",
                max_length=8,
            ),
        ),
        migrations.AddField(
            model_name="league",
            name="default_language",
            field=models.CharField(
                choices=[
                    ("en-gb", "English"),
                    ("de", "Deutsch"),
                    ("fr", "Français"),
                    ("es", "Español"),
                ],
                default="en-gb",
                help_text="The language of the public pages, embeds and feeds for a visitor who chose none (the language picker, their account or their browser's language win over it).",
                max_length=8,
                verbose_name="default language",
            ),
        ),
    ]
