"""The players of each settled hand, in a table of their own (``PokerHandPlayer``), filled
for the hands settled before it from their seats and records."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

# On PostgreSQL in one statement, however many hands (the records stay in the database):
# each ended hand's seats, with the seat's net from the record ("-0.25": exact as numeric).
FILL_SQL = """
INSERT INTO poker_pokerhandplayer (hand_id, player_id, seat, net, ended_at)
SELECT h.id, (s->>'user_id')::bigint, (s->>'seat')::smallint,
       COALESCE(((h.record->'net'->>(s->>'seat'))::numeric * 100)::bigint, 0), h.ended_at
  FROM poker_pokerhand h CROSS JOIN LATERAL jsonb_array_elements(h.seats) AS s
 WHERE h.state = 'ended'
"""


def fill(apps, schema_editor):
    from casino.cents import parse_cents

    connection = schema_editor.connection if schema_editor is not None else None
    if connection is not None and connection.vendor == "postgresql":
        schema_editor.execute(FILL_SQL)
        return
    PokerHand = apps.get_model("poker", "PokerHand")
    PokerHandPlayer = apps.get_model("poker", "PokerHandPlayer")
    hands = PokerHand.objects.filter(state="ended").only("pk", "seats", "record", "ended_at").order_by("pk")
    rows = []
    for hand in hands.iterator(chunk_size=500):
        net = (hand.record or {}).get("net") or {}
        rows += [
            PokerHandPlayer(
                hand_id=hand.pk,
                player_id=s["user_id"],
                seat=s["seat"],
                net=parse_cents(net.get(str(s["seat"]))),
                ended_at=hand.ended_at,
            )
            for s in hand.seats
        ]
        if len(rows) >= 2000:
            PokerHandPlayer.objects.bulk_create(rows)
            rows = []
    PokerHandPlayer.objects.bulk_create(rows)


class Migration(migrations.Migration):
    dependencies = [
        ("poker", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="PokerHandPlayer",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("seat", models.PositiveSmallIntegerField()),
                ("net", models.BigIntegerField()),
                ("ended_at", models.DateTimeField()),
                (
                    "hand",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="players",
                        to="poker.pokerhand",
                    ),
                ),
                (
                    "player",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["player", "-ended_at", "-hand"], name="poker_hand_player_newest")],
                "constraints": [
                    models.UniqueConstraint(fields=("hand", "seat"), name="poker_hand_player_seat_once"),
                    models.UniqueConstraint(fields=("hand", "player"), name="poker_hand_player_once"),
                ],
            },
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
