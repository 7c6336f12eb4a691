from django.db import migrations, models


def copy_pool_rules(apps, schema_editor):
    """Hands in play take their pool's rules as they stand: those are the rules their
    jackpot bets were placed under, since a pool's rules could not change under a bet."""
    Hand = apps.get_model("tables", "Hand")
    for hand in Hand.objects.filter(state__in=["betting", "decisions"]).select_related("table__pool"):
        pool = hand.table.pool
        hand.jackpot_rules = {
            "meter_share_bp": pool.meter_share_bp,
            "reserve_share_bp": pool.reserve_share_bp,
            "schedule": pool.schedule,
        }
        hand.save(update_fields=["jackpot_rules"])


class Migration(migrations.Migration):
    dependencies = [
        ("jackpot", "0001_initial"),
        ("tables", "0002_table_time_bank"),
    ]

    operations = [
        migrations.AddField(
            model_name="hand",
            name="jackpot_rules",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.RunPython(copy_pool_rules, migrations.RunPython.noop),
    ]
