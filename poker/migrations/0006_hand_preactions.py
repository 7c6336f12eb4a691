from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("poker", "0005_notes"),
    ]

    operations = [
        migrations.AddField(
            model_name="pokerhand",
            name="preactions",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
