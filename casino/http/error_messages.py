"""Every refusal's message by its ``code``, for a reader of another language.

A service raises its error with a message in the reader's language: a fixed English
message (found in the catalog when it is read), or one with its details (an amount, a seat
number; ``extra`` carries them too) built from a msgid with named placeholders. A refusal
raised with its code alone, or with a message the catalog does not have, reads the general
message of its code below, translated. Every code the product answers is here (the guard:
tests/casino/test_error_messages.py). The ``code`` itself never changes.
``casino.http.errors.ApplicationError.message`` does this lookup.
"""

from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

CODE_MESSAGES = {
    "action_invalid": _("This action is not possible here."),
    "all_in": _("You are all in: there is nothing left to decide."),
    "already_bet": _("You have already bet on this hand."),
    "already_dealt": _("The cards are already dealt."),
    "already_decided": _("You have already decided on this hand."),
    "already_reversed": _("This transaction was already reversed."),
    "already_seated": _("You already sit at this table."),
    "amount_changed": _("The amount to call has changed."),
    "amount_invalid": _("Enter an amount with at most two decimals, nothing else."),
    "amount_not_positive": _("The amount must be more than zero."),
    "amount_required": _("Say how much."),
    "amount_too_large": _("The amount is too large."),
    "ante_out_of_range": _("The ante is outside this table's limits."),
    "application_error": _("The request could not be carried out."),
    "authentication_failed": _("Signing in failed."),
    "bet_size_invalid": _("This amount is not an allowed size here."),
    "betting_closed": _("The cards are dealt; bets are closed for this hand."),
    "binary_not_supported": _("Send JSON text messages."),
    "body_not_object": _("Send a JSON object."),
    "cache_unavailable": _("The service is briefly unavailable. Try again in a moment."),
    "cash_request_decided": _("This request is already decided."),
    "cash_request_not_found": _("No such cash request."),
    "check_not_allowed": _("You cannot check: there is a bet to call."),
    "client_seed_invalid": _("A client seed is 1 to 64 letters, digits, dashes or underscores."),
    "colour_invalid": _("This colour tag is not possible."),
    "config_invalid": _("This table's settings are not valid."),
    "confirmation_required": _("Confirm this first."),
    "conflict": _("This is not possible in the current state."),
    "csrf_failed": _("The security check of this form failed: reload the page and try again."),
    "cursor_not_found": _("This list has no such entry to page from."),
    "date_invalid": _("This is not a valid date."),
    "dates_reversed": _("The last day comes before the first."),
    "decisions_pending": _("Some players have not decided yet."),
    "deck_invalid": _("The deck is not valid."),
    "deposit_limit_reached": _("This would pass your deposit limit."),
    "deposit_request_closed": _("This deposit request is already closed."),
    "deposit_request_not_found": _("No such deposit request."),
    "deposit_request_waiting": _("This deposit already waits for a second staff member's approval in the queue."),
    "deposit_requests_open": _("You already have deposit requests open; wait for the cashier or cancel one."),
    "email_invalid": _("Enter a valid email address."),
    "error": _("The request could not be carried out."),
    "exclusion_invalid": _("This self-exclusion period is not possible."),
    "export_file_missing": _("The export's file is missing."),
    "export_format_invalid": _("The ledger exports as CSV or JSON Lines."),
    "export_not_a_file": _("This export has no file."),
    "export_not_found": _("No such export."),
    "export_not_ready": _("This export is not finished."),
    "export_not_retryable": _("Only a failed file export can be retried."),
    "field_invalid": _("A field is not valid."),
    "field_required": _("A required field is missing."),
    "fold_not_allowed": _("You cannot fold now."),
    "folded": _("You folded this hand."),
    "forbidden": _("You may not do this."),
    "four_eyes": _("A second staff member must approve a request above the threshold."),
    "game_invalid": _("Unknown game."),
    "game_required": _("Choose a game."),
    "hand_id_invalid": _("This is not a hand number."),
    "hand_id_required": _("Say which hand."),
    "hand_in_progress": _("A hand is being played; wait until it is over."),
    "hand_not_found": _("No such hand."),
    "hand_not_over": _("This hand is not over yet."),
    "hand_over": _("This hand is over."),
    "idempotency_key_invalid": _("The Idempotency-Key header is not valid."),
    "idempotency_key_required": _("This request needs an Idempotency-Key header."),
    "idempotency_key_reused": _("This Idempotency-Key was already used for a different request."),
    "insufficient_funds": _("The wallet does not cover this amount."),
    "invalid": _("The request is not valid."),
    "invalid_export": _("The export request is not valid."),
    "invalid_filters": _("The filters are not valid."),
    "invalid_page": _("This page is not valid."),
    "invalid_report": _("The report range is not valid."),
    "invalid_search": _("The search is not valid."),
    "jackpot_invalid": _("Say yes or no to the jackpot chip."),
    "kind_invalid": _("This kind is not possible."),
    "kind_required": _("Say which kind."),
    "limit_invalid": _("This limit is not possible."),
    "limit_too_large": _("Too many rows for one page."),
    "loss_limit_reached": _("This would pass your loss limit."),
    "malformed": _("Send a JSON object."),
    "malformed_message": _("Send a JSON object with an 'action'."),
    "malformed_request": _("The request could not be read."),
    "message_too_large": _("This message is too large."),
    "method_not_allowed": _("This method is not allowed here."),
    "money_in_play": _("You have a bet in the current hand; leave when it is settled."),
    "name_invalid": _("This name is not valid."),
    "name_taken": _("This name is taken."),
    "no_ante": _("You have no ante in this hand."),
    "no_bets": _("Nobody has bet on this hand."),
    "no_current_hand": _("No hand is being played at this table."),
    "not_acceptable": _("This answer format is not available."),
    "not_authenticated": _("Sign in first."),
    "not_dealt": _("The cards are not dealt yet."),
    "not_enough_players": _("A hand needs more players."),
    "not_found": _("Not found."),
    "not_in_hand": _("You are not in this hand."),
    "not_reversible": _("Only deposits and withdrawals are reversed at the desk."),
    "not_seated": _("You do not sit at this table."),
    "not_settleable": _("This hand cannot be settled now."),
    "not_your_turn": _("It is not your turn."),
    "nothing_to_call": _("There is nothing to call."),
    "note_invalid": _("This note is not valid."),
    "note_not_found": _("No such note."),
    "note_on_self": _("A note is on another player, not on yourself."),
    "note_too_long": _("This note is too long."),
    "nothing_to_change": _("Nothing to change."),
    "offset_invalid": _("This offset is not valid."),
    "offset_not_supported": _("This list pages by its links, not by an offset."),
    "otp_required": _("Confirm your sign-in with your authenticator app first."),
    "password_invalid": _("This password is not allowed."),
    "paytable_invalid": _("This pay table is not valid."),
    "paytable_not_found": _("No such pay table."),
    "player_invalid": _("Name the player by their user name."),
    "player_not_found": _("No such player."),
    "pool_invalid": _("This jackpot pool is not valid."),
    "pool_not_found": _("No such jackpot pool."),
    "q_invalid": _("The search is not valid."),
    "raise_cap_reached": _("No more raises in this betting round."),
    "raise_not_reopened": _("The raising is not reopened for you."),
    "rate_limited": _("Too many requests. Wait a moment and try again."),
    "reality_check_invalid": _("This reality-check interval is not possible."),
    "reason_required": _("Give a reason."),
    "record_invalid": _("The hand's record is not valid."),
    "record_mismatch": _("The hand's record does not match."),
    "required": _("This field is required."),
    "reversal_of_reversal": _("A reversal cannot itself be reversed; post a new transaction."),
    "reversal_pending": _("A reversal of this transaction already waits for approval."),
    "schedule_invalid": _("This prize schedule is not valid."),
    "seat_free": _("A seat is free: take it."),
    "seat_invalid": _("There is no such seat."),
    "seat_taken": _("This seat is taken."),
    "seats_invalid": _("This number of seats is not possible."),
    "seed_above_meter": _(
        "The seed cannot be above the meter, which never goes below its seed: top the meter up first."
    ),
    "seed_invalid": _("The seed is not valid."),
    "self_excluded": _("You excluded yourself from play; this is not possible now."),
    "shares_invalid": _("The meter and reserve shares add up to more than 100 %."),
    "stack_full": _("Your stack is at the buy-in already."),
    "stack_not_cashed_out": _("Your chips at this table are still being cashed out."),
    "stack_too_small": _("The stack is too small for this."),
    "state_invalid": _("This is not possible in the current state."),
    "status_invalid": _("This status is not possible."),
    "table_closed": _("This table is closed."),
    "table_full": _("This table is full."),
    "table_name_taken": _("A table of this name exists."),
    "table_not_found": _("No such table."),
    "throttled": _("Too many requests. Wait a moment and try again."),
    "tier_invalid": _("The minimum ante must not be above the maximum."),
    "tier_not_found": _("No such limit tier."),
    "token_expired": _("Your API token has expired: sign in again for a new one."),
    "transaction_not_found": _("No such transaction."),
    "unknown_action": _("Unknown action."),
    "unknown_field": _("The request has fields this endpoint does not know."),
    "unsupported_media_type": _("Send JSON."),
    "username_invalid": _("This user name is not possible."),
    "username_taken": _("This user name is taken."),
    "value_out_of_range": _("A value is out of range."),
    "value_too_long": _("A value is too long."),
    "verification_not_found": _("No such verification."),
    "waiting_list": _("Players on the waiting list come first."),
    "wrong_buy_in": _("The buy-in amount is not right for this table."),
    "your_turn": _("It is your turn: act now."),
}

# The refusals raised with a fixed English message, wherever they are raised (services, engines,
# APIs): marked here for the catalogs, so that ``ApplicationError.message`` finds each one's
# translation. A message with details is a msgid with named placeholders where it is raised
# (``Translated(gettext("... %(amount)s ...") % {...})``, or ``Detailed`` in the stud engine).
# tests/casino/test_error_messages.py holds every code and message of the product to this.
RAISED_MESSAGES = (
    gettext_noop("No player with this username or id."),  # backoffice/auditor/api.py
    gettext_noop("No such verification."),  # backoffice/auditor/api.py
    gettext_noop(
        "The ledger pages by cursor: follow the page's next and previous links (before=, after=), not an offset."
    ),  # backoffice/auditor/forms.py
    gettext_noop("A page is read before one transaction or after one, not both."),  # backoffice/auditor/forms.py
    gettext_noop("A page is read before one entry or after one, not both."),  # casino/keyset.py
    gettext_noop("Cash movements need an Idempotency-Key header."),  # backoffice/cashier/api.py
    gettext_noop("Unknown status."),  # backoffice/cashier/api.py
    gettext_noop("A streamed export has no file to download; take a new one."),  # backoffice/exports.py
    gettext_noop("The export's file name is not valid."),  # backoffice/exports.py
    gettext_noop("The export's file is no longer on the server."),  # backoffice/exports.py
    gettext_noop("This export is not finished: it has no manifest yet."),  # backoffice/exports.py
    gettext_noop("Poker hands export as JSON Lines or PokerStars text."),  # backoffice/exports.py
    gettext_noop("A top-up needs an Idempotency-Key header."),  # backoffice/manager/api.py
    gettext_noop("Only players can play."),  # casino/live/consumers.py
    gettext_noop("A client seed is 1 to 64 letters, digits, '-' or '_'."),  # casino/live/seating.py
    gettext_noop("A hand starts with at least 2 players."),  # casino/stud/engine.py
    gettext_noop("Two players share a seat."),  # casino/stud/engine.py
    gettext_noop("The hand is over."),  # casino/stud/engine.py
    gettext_noop("Not an action."),  # casino/stud/engine.py
    gettext_noop("No more raises are allowed this round."),  # casino/stud/engine.py
    gettext_noop("A short all-in does not reopen the raising for a player who already acted."),  # casino/stud/engine.py
    gettext_noop("The seats' client seeds do not give the record's client seed."),  # casino/stud/engine.py
    gettext_noop("The commitment is not the hash of the server seed."),  # casino/stud/engine.py
    gettext_noop("Each seat needs a player name and a client seed."),  # casino/stud/engine.py
    gettext_noop("A fixed deck must be the 52 cards, each once."),  # casino/stud/engine.py
    gettext_noop("The record's seats lack their client seeds."),  # casino/stud/engine.py
    gettext_noop("The request body is a JSON object."),  # casino/http/validation.py
    gettext_noop("The changes must be an object of fields."),  # casino/http/validation.py
    gettext_noop("Nothing to change: name at least one field."),  # casino/http/validation.py
    gettext_noop("Seed and bet must be positive amounts."),  # jackpot/services.py
    gettext_noop("Meter and reserve shares must be between 0 and 100 % together."),  # jackpot/services.py
    gettext_noop("A top-up must be a positive amount."),  # jackpot/services.py
    gettext_noop("schedule must be an object."),  # jackpot/services.py
    gettext_noop("The meter and reserve shares add up to more than 100 % (10000 basis points)."),  # jackpot/services.py
    gettext_noop("No such poker hand."),  # poker/audit.py
    gettext_noop("The hand history is ready once the hand is over."),  # poker/api.py
    gettext_noop("A note is text."),  # poker/notes.py
    gettext_noop("A note may not contain NUL characters."),  # poker/notes.py
    gettext_noop("A note is on another player, not on yourself."),  # poker/notes.py
    gettext_noop("No player of that name has played with you."),  # poker/notes.py
    gettext_noop("You have no note on this player."),  # poker/notes.py
    gettext_noop("A client seed is text."),  # poker/consumers.py
    gettext_noop("No such poker table."),  # poker/services.py
    gettext_noop("A table needs a name of 1 to 80 characters."),  # poker/services.py
    gettext_noop("Give either a preset or a config."),  # poker/services.py
    gettext_noop("Say yes or no."),  # poker/services.py
    gettext_noop("A hand is being played at this table."),  # poker/services.py
    gettext_noop("A hand starts with at least 2 players with chips."),  # poker/services.py
    gettext_noop("An amount is a whole number of cents."),  # poker/services.py
    gettext_noop("A config is an object."),  # poker/services.py
    gettext_noop("A poker table of this name exists."),  # poker/services.py
    gettext_noop("Players are waiting for a seat here; join the waiting list."),  # poker/services.py
    gettext_noop("Top up between hands."),  # poker/services.py
    gettext_noop("You are not dealt into this hand."),  # poker/services.py
    gettext_noop("Say which amount you call."),  # poker/services.py
    gettext_noop("Only a call names an amount."),  # poker/services.py
    gettext_noop("There is a bet to call; you cannot check."),  # poker/services.py
    gettext_noop("You may fold only when facing a bet; tick check/fold to fold if one comes."),  # poker/services.py
    gettext_noop("This hand is over; it was settled."),  # poker/services.py
    gettext_noop("A percent from 0 to 100."),  # poker/staff.py
    gettext_noop("A percent such as 5 or 4.5."),  # poker/staff.py
    gettext_noop("Open or close."),  # poker/staff.py
    gettext_noop("Name the hand: hand_id."),  # poker/views.py
    gettext_noop("Say which box: kind (null clears it)."),  # poker/views.py
    gettext_noop("No hand is open at this table."),  # tables/api.py
    gettext_noop("Seats are numbered 1 to 4."),  # tables/consumers.py
    gettext_noop("'jackpot' is true or false."),  # tables/consumers.py
    gettext_noop("pair_timeout_action is 'fold' or 'raise'."),  # tables/services/config.py
    gettext_noop(
        "A hand is in play at this table: its tier, pay table, pool and timeout rule can change when the hand is over."
    ),  # tables/services/config.py
    gettext_noop("The ante must be a positive amount."),  # tables/services/hands.py
    gettext_noop("This hand is already dealt."),  # tables/services/hands.py
    gettext_noop("The action is 'fold' or 'raise'."),  # tables/services/hands.py
    gettext_noop("Only a dealt hand can be settled."),  # tables/services/hands.py
    gettext_noop("Take a seat at this table before you bet."),  # tables/services/hands.py
    gettext_noop("Confirm the self-exclusion; it cannot be undone."),  # wallets/api.py
    gettext_noop("Enter a whole number in digits."),  # wallets/forms.py
    gettext_noop("Unknown kind or period of limit."),  # wallets/responsible.py
    gettext_noop("A limit is an amount of zero or more."),  # wallets/responsible.py
    gettext_noop("The player of this export no longer exists."),  # wallets/selectors.py
    gettext_noop("A reason is required to reverse a transaction."),  # wallets/services.py
    gettext_noop("A cash movement is a deposit, a withdrawal or a reversal."),  # wallets/services.py
    gettext_noop("A reversal, and only a reversal, names the transaction it undoes."),  # wallets/services.py
    gettext_noop("The amount must be positive."),  # wallets/services.py
    gettext_noop("Say why the request is rejected."),  # wallets/services.py
    gettext_noop("Only a player's deposits and withdrawals are reversed at the desk."),  # wallets/services.py
    gettext_noop("This deposit waits for approval in the queue; decide it there."),  # wallets/services.py
    gettext_noop("You have no such deposit request."),  # wallets/services.py
    gettext_noop(
        "The cashier has taken this deposit; it waits for a second approval and cannot be cancelled."
    ),  # wallets/services.py
    gettext_noop("This idempotency key was already used for a different request."),  # wallets/services.py
)
