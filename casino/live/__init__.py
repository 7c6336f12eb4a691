"""Game-neutral live-table machinery, shared by every game that plays at a table.

- ``outbox``: events sent to the channel layer only after the step's transaction commits,
  group names per game (``Groups``), the private nudge that never carries hidden cards;
- ``deadlines``: a registry where each game names how to find its passed deadlines and how
  to enforce one hand's; the countdown task (``casino.live.tasks``) and the sweeper serve
  every registered game;
- ``periodic``: the one schedule of the periodic work, run by Celery beat's twin loop
  (``manage.py run_periodic``) or inside the web server;
- ``consumers``: ``LiveTableConsumer``, the websocket skeleton (auth, two-factor check,
  close codes, message bounds and rate, the play-rate budget, a per-table turn, the
  snapshot on (re)connect, the open-tab count) that each game's consumer subclasses.

Nothing here imports a game: the games import this package and register with it.
The commit/reveal shuffle is already game-neutral (``casino.game.fair``).
"""
