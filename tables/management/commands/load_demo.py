"""Demo data for ``make run``: tiers, pay tables, one jackpot pool, tables, people, money.

Safe to run again: what exists is kept, nothing is paid twice (idempotency keys).
"""

from io import StringIO

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import transaction

from casino.access.policy import roles_install
from casino.access.roles import ADMINISTRATOR, AUDITOR, CASHIER, MANAGER, PLAYER
from casino.cents import format_cents
from casino.game.paytables import PAYTABLES
from jackpot.models import JackpotPool
from jackpot.services import pool_create
from tables.models import Table
from tables.services.config import paytable_save, table_create
from wallets.models import LimitTier
from wallets.selectors import wallet_balances
from wallets.services import cashier_deposit

TIERS = [("€0.50 – €10", 50, 1000), ("€10 – €100", 1000, 10000)]
TABLES = [
    ("Nassau", "€0.50 – €10", "24h"),
    ("Montego Bay", "€0.50 – €10", "24h"),
    ("Bridgetown", "€0.50 – €10", "classic"),
    ("Havana", "€10 – €100", "24h"),
]
# alice … dave play the Caribbean tables with their whole balance; erin … heidi are the poker
# room's regulars, already seated at its demo tables (load_demo_poker), so a newcomer finds company.
PLAYERS = [
    ("alice", 50000),
    ("bob", 50000),
    ("carol", 200000),
    ("dave", 25000),
    ("erin", 50000),
    ("frank", 50000),
    ("grace", 50000),
    ("heidi", 50000),
]
STAFF = [
    ("cashier", CASHIER),
    ("cashier2", CASHIER),
    ("manager", MANAGER),
    ("auditor", AUDITOR),
    ("admin", ADMINISTRATOR),
]
DEMO_PASSWORD = "stud-poker-demo"


class Command(BaseCommand):
    help = "Load demo tiers, tables, a jackpot pool, players with balances and staff."

    def handle(self, *args, **options):
        User = get_user_model()
        with transaction.atomic():
            groups = roles_install()  # the role groups with their grants, as the migration makes them
            tiers = {
                name: LimitTier.objects.get_or_create(name=name, defaults={"min_ante": lo, "max_ante": hi})[0]
                for name, lo, hi in TIERS
            }
            paytables = {name: paytable_save(name=name, table=table) for name, table in PAYTABLES.items()}
            pool = JackpotPool.objects.filter(name="Caribbean Progressive").first() or pool_create(
                name="Caribbean Progressive"
            )
            for name, tier, paytable in TABLES:
                if not Table.objects.filter(name=name).exists():
                    table_create(name=name, tier=tiers[tier], paytable=paytables[paytable], pool=pool)

            # One shared, printed demo password: hashed once for everyone (the hasher's full
            # work factor, a second each time, would be paid thirteen times over).
            demo_hash = make_password(DEMO_PASSWORD)

            def person(username: str, role: str):
                user, created = User.objects.get_or_create(username=username)
                if created:
                    user.password = demo_hash
                    user.save(update_fields=["password"])
                user.groups.add(groups[role])
                return user

            staff = {username: person(username, role) for username, role in STAFF}
            staff["admin"].is_staff = staff["admin"].is_superuser = True
            staff["admin"].save(update_fields=["is_staff", "is_superuser"])
            cashier = staff["cashier"]
            players = []
            for username, cents in PLAYERS:
                player = person(username, PLAYER)
                cashier_deposit(
                    cashier=cashier,
                    player=player,
                    amount=cents,
                    idempotency_key=f"demo-{username}",
                    memo="Demo balance",
                )
                players.append(player)

        poker = StringIO()
        call_command("load_demo_poker", stdout=poker, stderr=self.stderr)  # the poker room's tables (buy-ins first)
        self.stdout.write(self.style.SUCCESS("Demo data ready. Sign in with (password for all: %s):" % DEMO_PASSWORD))
        for player in players:
            self.stdout.write(
                f"  player   {player.username:<8} balance €{format_cents(wallet_balances(user=player).available)}"
            )
        for username, role in STAFF:
            self.stdout.write(f"  {role:<8} {username}")
        for table in Table.objects.select_related("tier", "paytable"):
            self.stdout.write(f"  table    {table.name:<12} {table.tier.name:<12} pay table {table.paytable.name}")
        self.stdout.write(poker.getvalue().rstrip("\n"))
