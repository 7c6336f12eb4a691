"""The live Caribbean table: one websocket per table and browser tab, ``/ws/tables/<id>/``.

The skeleton (auth, close codes, message bounds and rate, the turn per table, the
snapshot on (re)connect, the open tabs) is ``casino.live.consumers.LiveTableConsumer``;
this class names the Caribbean messages, each calling one service, and the views the
selectors give. Protocol: docs/websocket.md.
"""

from __future__ import annotations

from django.utils import timezone, translation

from casino.http.errors import ValidationError
from casino.live.consumers import LiveTableConsumer, hand_id_of
from casino.live.outbox import pool_group
from casino.money import to_cents
from tables import events, selectors
from tables.models import Table
from tables.presentation import event_in_language, hand_in_language, hand_view_in_language
from tables.services.hands import hand_bet, hand_decide, hand_seat_disconnected
from tables.services.seats import table_leave, table_sit
from wallets.selectors import wallet_live_view, wallets_balances


class TableConsumer(LiveTableConsumer):
    game = events.GAME
    groups_of = events.GROUPS

    # --- hooks of the skeleton (each runs in a database thread) ---------------------------

    def table_found(self) -> bool:
        self.pool_id = Table.objects.filter(pk=self.table_id).values_list("pool_id", flat=True).first()
        return self.pool_id is not None

    def fanout_groups(self) -> list[str]:
        return [pool_group(self.pool_id)]  # the jackpot meter, the same for every socket

    def load_snapshot(self) -> dict:
        table = selectors.table_get(table_id=self.table_id)
        view = selectors.table_view(table=table, viewer=self.user)
        view["hand"] = hand_view_in_language(view["hand"])  # the hands' names in this reader's words
        return {
            "type": "snapshot",
            "table": view,
            "wallet": self.wallet_view(),
            "server_time": timezone.now(),
        }

    def private_hand(self, hand_id: int) -> dict:
        return {
            "type": "hand",
            "hand": hand_view_in_language(selectors.hand_live_view(hand_id=hand_id, viewer=self.user)),
        }

    def private_hand_from(self, view) -> dict:
        return {"type": "hand", "hand": hand_in_language(view)}

    def wallet_view(self, known=None) -> dict | None:
        return wallet_live_view(user=self.user, known=known) if self.is_player else None

    @classmethod
    def event_in_language(cls, event: dict) -> dict | None:
        return event_in_language(event)  # hands' names and labels in this reader's words

    @classmethod
    def private_replies_of(cls, requests) -> list[list[dict]]:
        """One read of each nudged hand for all its viewers here, one of all their wallets."""
        viewers: dict[int, list] = {}
        for consumer, hand_ids, _ in requests:
            for hand_id in hand_ids:
                viewers.setdefault(hand_id, []).append(consumer)
        views = {}
        for hand_id, consumers in viewers.items():
            seen = selectors.hand_live_views(hand_id=hand_id, viewers=[c.user for c in consumers])
            views.update({(id(c), hand_id): view for c, view in zip(consumers, seen)})
        paying = [c.user.pk for c, _, wallet in requests if wallet and c.is_player]
        balances = wallets_balances(user_ids=paying) if paying else {}
        for c, hand_ids, _ in requests:  # each reader's hand names in their own words
            with translation.override(getattr(c, "language", None)):
                for hand_id in hand_ids:
                    hand_view_in_language(views[(id(c), hand_id)])
        return [
            [{"type": "hand", "hand": views[(id(c), hand_id)]} for hand_id in hand_ids]
            + ([{"type": "wallet", "wallet": balances[c.user.pk].as_json() if c.is_player else None}] if wallet else [])
            for c, hand_ids, wallet in requests
        ]

    def player_disconnected(self) -> None:
        hand_seat_disconnected(user=self.user, table_id=self.table_id)

    # --- the messages: each calls one service ---------------------------------------------

    def _sit(self, message):
        self.require_player()
        seat = message.get("seat")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
            raise ValidationError("Seats are numbered 1 to 4.", code="seat_invalid")
        client_seed = message.get("client_seed")
        if client_seed is not None and not isinstance(client_seed, str):
            raise ValidationError("A client seed is text.", code="client_seed_invalid")
        table_sit(user=self.user, table_id=self.table_id, seat_number=seat, client_seed=client_seed)
        return self.load_snapshot()

    def _leave(self, message):
        self.require_player()
        table_leave(user=self.user, table_id=self.table_id)
        return self.load_snapshot()

    def _bet(self, message):
        self.require_player()
        jackpot = message.get("jackpot", False)
        if not isinstance(jackpot, bool):
            raise ValidationError("'jackpot' is true or false.", code="jackpot_invalid")
        hand_bet(
            user=self.user, table_id=self.table_id, ante=to_cents(message.get("ante"), field="ante"), jackpot=jackpot
        )
        return None  # the private nudge brings the new view

    def _decide(self, message, action: str):
        """A decision names its hand: a late duplicate of the last hand's click is refused
        (``hand_over``) instead of landing on the next hand."""
        self.require_player()
        hand_id = hand_id_of(message, action)
        hand_decide(user=self.user, hand_id=hand_id, table_id=self.table_id, action=action)

    def _fold(self, message):
        self._decide(message, "fold")

    def _raise(self, message):
        self._decide(message, "raise")

    ACTIONS = {
        "sit": _sit,
        "leave": _leave,
        "bet": _bet,
        "fold": _fold,
        "raise": _raise,
        "snapshot": LiveTableConsumer.snapshot_action,
        "ping": LiveTableConsumer.ping_action,
    }
    TABLE_STEPS = frozenset({_sit, _leave, _bet, _fold, _raise})  # they lock the table: one at a time
