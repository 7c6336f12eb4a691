"""A player's hands found by (player, time the history shows, hand): their history pages
and their last results at a table read a page of rows, where the index of the player
alone made PostgreSQL read and sort every hand the player ever played (the history is
ordered by the hand's end, else its opening: a column of the hands' own, written now
on each seat as ``history_at``). The indexes of the hand alone and of the player alone
go: the unique (hand, seat number) and the new index serve every read they served, and
each was one more entry written with every bet.

The foreign keys stay as they are (Django would drop and add them again, checking every
row under the table's lock); only their indexes go."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.models import OuterRef, Subquery
from django.db.models.functions import Coalesce


def fill_history_at(apps, schema_editor):
    Hand = apps.get_model("tables", "Hand")
    HandSeat = apps.get_model("tables", "HandSeat")
    at = Hand.objects.filter(pk=OuterRef("hand_id")).values(at=Coalesce("settled_at", "opened_at"))[:1]
    HandSeat.objects.using(schema_editor.connection.alias).update(history_at=Subquery(at))


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0003_hand_jackpot_rules"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(model_name="handseat", name="history_at", field=models.DateTimeField(null=True)),
        migrations.RunPython(fill_history_at, migrations.RunPython.noop),
        migrations.AlterField(model_name="handseat", name="history_at", field=models.DateTimeField()),
        migrations.AddIndex(
            model_name="handseat",
            index=models.Index(fields=["player", "-history_at", "-hand"], name="handseat_player_newest"),
        ),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="handseat",
                    name="hand",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="hand_seats",
                        to="tables.hand",
                    ),
                ),
                migrations.AlterField(
                    model_name="handseat",
                    name="player",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="hand_seats",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    'DROP INDEX IF EXISTS "tables_handseat_hand_id_61840987"',
                    'CREATE INDEX "tables_handseat_hand_id_61840987" ON "tables_handseat" ("hand_id")',
                ),
                migrations.RunSQL(
                    'DROP INDEX IF EXISTS "tables_handseat_player_id_c074654a"',
                    'CREATE INDEX "tables_handseat_player_id_c074654a" ON "tables_handseat" ("player_id")',
                ),
            ],
        ),
    ]
