"""The dealer workflow and the tables' configuration, one module per concern.

- ``steps``: the shape of every step (one transaction, its events after commit) and the
  small helpers steps share (a table's rules, a hand's public version).
- ``hands``: a hand's steps: open, bet, deal, decide, expire, settle, cancel.
- ``seats``: sitting down and standing up.
- ``config``: managers' configuration of tables and pay tables (and how a change of a
  tier's or a pool's rules reaches the tables' open hands).

Each step is one database transaction that locks the hand (or the table) first
(``tables.locks``), checks the state, changes it and posts its money through ``wallets``
and ``jackpot`` services. A step that is not legal in the current state is refused with
a stable error code and changes nothing. Events for the live tables are sent after
commit (``tables.events``).
"""
