"""Demo poker tables for ``make run``: one of each game, demo players seated (``load_demo`` calls it).

The demo regulars wait for company (``PokerSeat.waits_for_company``): alone at a table they
are dealt no hands, so they do not time out hand after hand while nobody plays, and a
newcomer finds them seated, dealt in with the newcomer's first hand, their time banks full.

Safe to run again: existing tables are kept and a seated player is not bought in twice; a
regular already seated is made a regular waiting for company again, sat in, with a full
time bank (unless a hand is being played at the table).
Run after ``load_demo``'s players exist (they need money for the buy-ins).
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from casino.cents import format_cents
from casino.http.errors import ApplicationError
from poker.models import PokerHand, PokerTable
from poker.replay import table_config
from poker.services import poker_sit, poker_table_create

# name, game, SPEC B1 preset, demo players seated
TABLES = [
    ("Seven Card Stud 2-4", "seven_stud", "2-4", ["erin", "frank"]),
    ("Seven Card Stud 1-3 spread", "seven_stud", "1-3", ["grace", "heidi"]),
    ("Five Card Stud 1-2", "five_stud", "1-2", ["erin", "grace"]),
    ("SOKO 2-4", "soko", "2-4", ["frank", "heidi"]),
]


class Command(BaseCommand):
    help = (
        "Open one poker table of each game (Seven Card Stud fixed and spread, Five Card Stud, SOKO) and seat demo "
        "players."
    )

    def handle(self, *args, **options):
        users = {u.username: u for u in get_user_model().objects.filter(username__in={n for t in TABLES for n in t[3]})}
        for name, game, preset, seated in TABLES:
            table = PokerTable.objects.filter(name=name).first() or poker_table_create(
                name=name, game=game, preset=preset, actor=None
            )
            regulars = table.seats.filter(player__username__in=seated)
            regulars.update(waits_for_company=True)
            if not PokerHand.objects.filter(table=table, state=PokerHand.State.LIVE).exists():
                regulars.update(auto_ante=True, hands_sat_out=0, time_bank_ms=table.time_bank_seconds * 1000)
            for username in seated:
                user = users.get(username)
                if user is None or table.seats.filter(player=user).exists():
                    continue
                try:
                    poker_sit(user=user, table_id=table.pk, waits_for_company=True)
                except ApplicationError as exc:
                    self.stderr.write(f"  {username} could not sit at {name}: {exc.message}")
            config = table_config(table)
            players = ", ".join(table.seats.order_by("number").values_list("player__username", flat=True))
            self.stdout.write(
                f"  poker    {name:<28} buy-in €{format_cents(config.buy_in)}  seated: {players or 'nobody'}"
            )
