"""How often the periodic work runs, in seconds: each number once, read by the Celery
beat schedule (``casino/settings.py`` ``CELERY_BEAT_SCHEDULE``) and by the periodic loop
(``casino.live.periodic``: in the server process, or ``manage.py run_periodic``).

Plain constants (nothing imported), so that the settings can read them.
"""

# The deadline sweep. The loop is the only trigger when deadlines have no countdown
# task (``CASINO_TIMERS=local``), so it sweeps twice a second, and sooner at a deadline
# coming up (``casino.live.periodic``); under beat the countdown tasks act at each
# deadline, the sweep arms them and is the safety net, once a second.
DEADLINE_SWEEP_EVERY = 0.5
DEADLINE_SWEEP_BEAT_EVERY = 1.0
# How long before a deadline its countdown task is sent (``casino.live.deadlines``): by
# the step that set it when it is that near, else by the sweep that first runs within
# it, if the hand still waits for it then. Three beats and a half: a late or lost beat
# still arms it.
DEADLINE_ARM_AHEAD = 3.5
# One coalesced jackpot meter update a second is what "live" needs.
METERS_EVERY = 1.0
# Sealing the ledger's new transactions into the hash chain.
SEAL_EVERY = 5.0
# After a countdown task could not be sent (the broker is down), how long none is sent
# (``casino.live.deadlines``): a send to a broker that is down holds the step's (or the
# sweep's) thread for 0.6-0.7 s before it fails; the sweeper enforces those deadlines.
BROKER_RETRY_AFTER = 5.0
# Finding the exports whose worker died (``backoffice.exports``).
EXPORTS_SWEEP_EVERY = 30.0
# Rolling up the days that have closed (``backoffice.rollups``): nothing to do but two
# reads of the marks most of the time; a day is due a few minutes after its midnight.
CLOSE_DAYS_EVERY = 60.0
# The ledger's routine check from its latest checkpoint, which it moves on when all is
# well (``wallets.integrity.ledger_checkpoint``): what the integrity page reads again is at
# most this much of the ledger.
CHECKPOINT_EVERY = 300.0
