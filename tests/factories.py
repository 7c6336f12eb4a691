"""factory-boy factories for the tests: people with roles and money, tiers, pay tables,
pools, Caribbean Stud tables and poker tables.

Each factory makes its object the way the product does (``create_user``, ``pool_create``,
``paytable_save``, ``table_create``, ``poker_table_create``, a cashier's deposit), so an object from a factory
has its accounts, its seed and its audit trail like one a person made. The fixtures in
``tests/conftest.py`` are built on them; a test that needs one more variation calls the
factory with keywords: ``PlayerFactory(balance=0, username="alice")``,
``TableFactory(paytable__name="classic")``.
"""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from factory.django import DjangoModelFactory

from casino.access.policy import roles_install
from casino.access.roles import ADMINISTRATOR, CASHIER, PLAYER, ROLES
from casino.game.paytables import PAYTABLES
from jackpot.models import JackpotPool
from jackpot.services import pool_create
from poker.models import PokerTable
from poker.services import poker_table_create
from tables.models import PayTable, Table
from tables.services.config import paytable_save, table_create
from wallets.models import LimitTier
from wallets.services import cashier_deposit

PASSWORD = "pw-test-123"  # every factory-made person's password


class RoleFactory(DjangoModelFactory):
    """A role's group (``casino.access.roles``), one per name. A missing role group is installed
    with its grants (``casino.access.policy.roles_install``, as the migration does), so a person
    made after a flush may still do what the role may."""

    class Meta:
        model = Group

    name = PLAYER

    @classmethod
    def _create(cls, model_class, *, name: str):
        group = model_class._default_manager.filter(name=name).first()
        if group is None and name in ROLES:
            return roles_install()[name]
        return group or model_class._default_manager.create(name=name)


class UserFactory(DjangoModelFactory):
    """A person of one role (``role=``), named after it unless named: ``cashier7``."""

    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    role = PLAYER
    username = factory.LazyAttributeSequence(lambda user, n: f"{user.role}{n}")
    password = PASSWORD

    @classmethod
    def _create(cls, model_class, *args, role: str, password: str, **kwargs):
        user = model_class._default_manager.create_user(*args, password=password, **kwargs)
        user.groups.add(RoleFactory(name=role))
        return user


class CashierFactory(UserFactory):
    role = CASHIER


class AdministratorFactory(UserFactory):
    """An administrator: the group, ``is_staff`` and ``is_superuser`` (as ``grant_role`` makes one)."""

    role = ADMINISTRATOR
    username = factory.Sequence(lambda n: f"admin{n}")
    is_staff = True
    is_superuser = True


class PlayerFactory(UserFactory):
    """A player with ``balance`` cents in the wallet, deposited at the desk by
    ``deposited_by`` (a new cashier when not given)."""

    role = PLAYER
    balance = 100_000
    deposited_by = None

    @classmethod
    def _create(cls, model_class, *args, balance: int, deposited_by, **kwargs):
        player = super()._create(model_class, *args, **kwargs)
        if balance:
            cashier = deposited_by or CashierFactory()
            cashier_deposit(cashier=cashier, player=player, amount=balance, idempotency_key=f"fixture-{player.pk}")
        return player


class TierFactory(DjangoModelFactory):
    """A limit tier (antes in cents)."""

    class Meta:
        model = LimitTier

    name = factory.Sequence(lambda n: f"Tier {n}")
    min_ante = 50
    max_ante = 1000


class PayTableFactory(DjangoModelFactory):
    """One of the pay tables of ``casino.game.paytables`` by name, stored as a manager saves it."""

    class Meta:
        model = PayTable

    name = "24h"
    table = factory.LazyAttribute(lambda paytable: PAYTABLES[paytable.name])

    @classmethod
    def _create(cls, model_class, *, name: str, table):
        return paytable_save(name=name, table=table)


class PoolFactory(DjangoModelFactory):
    """A jackpot pool, its meter seeded from the house bankroll (``pool_create``)."""

    class Meta:
        model = JackpotPool

    name = factory.Sequence(lambda n: f"Pool {n}")
    seed_amount = 1_000_000

    @classmethod
    def _create(cls, model_class, **kwargs):
        return pool_create(**kwargs)


class TableFactory(DjangoModelFactory):
    """A Caribbean Stud table with its house account (``table_create``)."""

    class Meta:
        model = Table

    name = factory.Sequence(lambda n: f"Table {n}")
    tier = factory.SubFactory(TierFactory)
    paytable = factory.SubFactory(PayTableFactory)
    pool = factory.SubFactory(PoolFactory)

    @classmethod
    def _create(cls, model_class, **kwargs):
        return table_create(**kwargs)


class PokerTableFactory(DjangoModelFactory):
    """A poker table of one game from a SPEC B1 preset (``poker_table_create``):
    ``PokerTableFactory(game="razz", preset="2-4")``."""

    class Meta:
        model = PokerTable

    game = "seven_stud"
    preset = "2-4"
    name = factory.LazyAttributeSequence(lambda table, n: f"{table.game} {table.preset} #{n}")

    @classmethod
    def _create(cls, model_class, **kwargs):
        return poker_table_create(**{"actor": None, **kwargs})
