"""The live poker table: one websocket per table and browser tab, ``/ws/poker/<id>/``.

The skeleton is the Caribbean tables' own (``casino.live.consumers.LiveTableConsumer``:
session and two-factor check, close codes 4401/4404/4429, message bounds and rate, the
play-rate budget, one step per table at a time, the snapshot on (re)connect). This class
names the poker messages, each calling one ``poker.services`` step, and the view
``poker.selectors.poker_table_view`` gives this viewer.

Hidden cards: the table's group carries public events only (``poker.services`` strips
every down card, burn and mucked hand from them; each ``poker.hand`` event carries the
hand's public state, so a page draws it without asking for a snapshot); a player's own
group carries a bare nudge (``hand.private``), answered here by reading that player's own
down cards and seat controls from the selector (``poker_private_view``, a ``private``
message). So a player's down cards reach that player's sockets alone, mucked cards reach
nobody, and the server seed is in the events and snapshots only once it is revealed to
players, ``POKER_SEED_REVEAL_DELAY`` after the hand ended (SPEC B4).

A disconnected player is not treated apart (SPEC B3): the turn's deadline and the time
bank run on the server whatever the sockets do, and the deadline sweeper applies the
time-out rule when both have run out.

Protocol: docs/websocket.md ("The poker tables").
"""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import gettext

from casino.http.errors import Translated, ValidationError
from casino.live.consumers import LiveTableConsumer, hand_id_of
from casino.money import to_cents
from poker import selectors, services
from poker.models import PokerTable
from poker.presentation import event_in_language, named_view
from wallets.selectors import wallet_live_view

GAME = "poker"


class PokerTableConsumer(LiveTableConsumer):
    game = GAME
    groups_of = services.GROUPS

    # --- hooks of the skeleton (each runs in a database thread) ---------------------------

    def table_found(self) -> bool:
        return PokerTable.objects.filter(pk=self.table_id).exists()

    def load_snapshot(self) -> dict:
        table = PokerTable.objects.get(pk=self.table_id)
        return {
            "type": "snapshot",
            "view": named_view(
                selectors.poker_table_view(table=table, user=self.user)
            ),  # shown hands in the reader's words
            "wallet": self.wallet_view(),
            "server_time": timezone.now(),
        }

    def private_hand(self, hand_id: int) -> dict:
        # This player's own change in a hand (their down cards, their seat's controls), read
        # from the selector for this user alone: what the nudge could never carry. The public
        # event of the same step brings everything else, so this is not a whole snapshot.
        return {
            "type": "private",
            "table": self.table_id,
            **selectors.poker_private_view(table_id=self.table_id, hand_id=hand_id, user=self.user),
            "server_time": timezone.now(),
        }

    def wallet_view(self, known=None) -> dict | None:
        return wallet_live_view(user=self.user, known=known) if self.is_player else None

    @classmethod
    def event_in_language(cls, event: dict) -> dict | None:
        return event_in_language(event)  # the shown hands' names in this reader's words

    # --- the messages: each calls one service ---------------------------------------------

    def _act(self, message):
        """``{"action": "act", "hand_id", "kind", "amount"?}``: ``amount`` is the street total
        for complete, bet and raise, a decimal string ("1.50")."""
        self.require_player()
        hand_id = hand_id_of(message, "act")
        kind = message.get("kind", message.get("move"))
        if not isinstance(kind, str):
            raise ValidationError(
                Translated(
                    gettext("Say what you do: 'kind' is one of %(kinds)s.")
                    % {"kinds": ", ".join(sorted(services.PLAYER_ACTIONS))}
                ),
                code="action_invalid",
            )
        amount = message.get("amount")
        cents = to_cents(amount, field="amount") if amount is not None else None
        services.poker_act(user=self.user, table_id=self.table_id, hand_id=hand_id, action=kind, amount=cents)
        return None  # the hand's events and the private nudge bring the new view

    def _preact(self, message):
        """``{"action": "preact", "hand_id", "kind", "amount"?}``: tick a box before your turn
        (``kind``: check_fold, check, call, call_any, fold) or clear it (``kind: null``);
        ``amount`` is the amount to call of ``call``, a decimal string ("0.50"). The answer is
        this player's own ``private`` message (``you.preaction``); the table hears nothing."""
        self.require_player()
        hand_id = hand_id_of(message, "preact")
        if "kind" not in message:
            raise ValidationError(
                Translated(
                    gettext("Say which box: 'kind' is one of %(kinds)s, or null to clear it.")
                    % {"kinds": ", ".join(services.PREACTION_KINDS)}
                ),
                code="kind_required",
            )
        amount = message.get("amount")
        cents = to_cents(amount, field="amount") if amount is not None else None
        services.poker_preact(
            user=self.user, table_id=self.table_id, hand_id=hand_id, kind=message["kind"], amount=cents
        )
        return None  # the private nudge brings the player's own view

    def _sit(self, message):
        """Buy in at a seat (``seat`` optional: the lowest free one)."""
        self.require_player()
        seat = message.get("seat")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
            raise ValidationError("Choose a seat by its number.", code="seat_invalid")
        client_seed = message.get("client_seed")
        if client_seed is not None and not isinstance(client_seed, str):
            raise ValidationError("A client seed is text.", code="client_seed_invalid")
        services.poker_sit(user=self.user, table_id=self.table_id, seat_number=seat, client_seed=client_seed)
        return self.load_snapshot()

    def _top_up(self, message):
        self.require_player()
        services.poker_top_up(user=self.user, table_id=self.table_id)
        return self.load_snapshot()

    def _sit_out(self, message):
        self.require_player()
        services.poker_sit_out(user=self.user, table_id=self.table_id)
        return self.load_snapshot()

    def _sit_in(self, message):
        self.require_player()
        services.poker_sit_in(user=self.user, table_id=self.table_id)
        return self.load_snapshot()

    def _leave(self, message):
        self.require_player()
        services.poker_leave(user=self.user, table_id=self.table_id)
        return self.load_snapshot()

    ACTIONS = {
        "act": _act,
        "preact": _preact,
        "sit": _sit,
        "top_up": _top_up,
        "sit_out": _sit_out,
        "sit_in": _sit_in,
        "leave": _leave,
        "snapshot": LiveTableConsumer.snapshot_action,
        "ping": LiveTableConsumer.ping_action,
    }
    TABLE_STEPS = frozenset(
        {_act, _preact, _sit, _top_up, _sit_out, _sit_in, _leave}
    )  # they lock the table: one at a time
