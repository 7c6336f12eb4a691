"""One play-rate policy for REST and the websocket, which never asks an honest player for a
wait longer than the time to act; no cache, a clear 503."""

from __future__ import annotations

import pytest
import redis
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from casino.access import security
from casino.access.security import RateLimited, play_rate_take
from casino.game.rules import MIN_TIME_TO_ACT_SECONDS
from tables.routing import websocket_urlpatterns


class Clock:
    def __init__(self, start: float = 1_000_000.0):
        self.now = start

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch, settings, tmp_path):
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": str(tmp_path)}
    }
    fake = Clock()
    monkeypatch.setattr(security, "_clock", fake)
    return fake


@pytest.mark.django_db
@pytest.mark.parametrize("rate", ["1/min", "3/min", "30/min", "120/min", "1/hour", "10/day", "5/s"])
def test_a_refusal_never_asks_for_a_wait_longer_than_the_time_to_act(settings, clock, make_player, rate):
    settings.CASINO_PLAY_RATE = rate
    player = make_player()
    waits = []
    for _ in range(400):
        try:
            play_rate_take(user=player)
        except RateLimited as refused:
            waits.append(refused.extra["retry_after_seconds"])
            assert refused.retry_after < MIN_TIME_TO_ACT_SECONDS
            clock.now += refused.extra["retry_after_seconds"]
            play_rate_take(user=player)  # after the wait it names, the action goes through
        clock.now += 0.01
    assert all(0 < wait < MIN_TIME_TO_ACT_SECONDS for wait in waits)


@pytest.mark.django_db
def test_four_tables_at_the_fastest_settings_are_never_slowed_at_the_default_rate(clock, make_player):
    """3 s windows: at each of four tables a bet and a decision every 6 s, for an hour."""
    player = make_player()
    for cycle in range(600):
        for table in range(4):
            clock.now = 1_000_000.0 + cycle * 6 + table * 0.05
            play_rate_take(user=player)  # the ante
            clock.now += 3
            play_rate_take(user=player)  # the decision


@pytest.mark.django_db
def test_the_rest_api_answers_429_with_a_short_retry_after(settings, clock, make_player, table, api):
    settings.CASINO_PLAY_RATE = "1/hour"
    client = api(make_player())
    assert client.post(f"/api/tables/{table.pk}/sit/", {}, format="json").status_code == 201
    refused = client.post(f"/api/tables/{table.pk}/leave/", {}, format="json")
    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
    assert 0 < int(refused["Retry-After"]) < MIN_TIME_TO_ACT_SECONDS
    clock.now += int(refused["Retry-After"])
    assert client.post(f"/api/tables/{table.pk}/leave/", {}, format="json").status_code == 200


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_rest_and_the_websocket_share_one_budget(settings, clock, make_player, table, api):
    settings.CASINO_PLAY_RATE = "2/hour"
    player = await database_sync_to_async(make_player)()
    client = api(player)
    assert (
        await database_sync_to_async(client.post)(f"/api/tables/{table.pk}/sit/", {}, format="json")
    ).status_code == 201
    comm = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/tables/{table.pk}/")
    comm.scope["user"] = player
    connected, _ = await comm.connect()
    assert connected
    assert (await comm.receive_json_from())["type"] == "snapshot"
    await comm.send_json_to({"action": "bet", "ante": "1.00", "id": "b1"})  # the second action: allowed
    replies = []
    while not await comm.receive_nothing(timeout=0.3):
        replies.append(await comm.receive_json_from())
    assert any(r["type"] == "ack" and r["id"] == "b1" for r in replies), replies
    await comm.send_json_to({"action": "leave", "id": "l1"})  # the third: over the budget
    refused = await comm.receive_json_from()
    assert refused["type"] == "error" and refused["code"] == "rate_limited", refused
    assert 0 < refused["extra"]["retry_after_seconds"] < MIN_TIME_TO_ACT_SECONDS
    rest = await database_sync_to_async(client.post)(f"/api/tables/{table.pk}/leave/", {}, format="json")
    assert rest.status_code == 429  # REST sees the same spent budget
    await comm.disconnect()


@pytest.mark.django_db
def test_without_the_cache_a_play_request_is_a_clear_503(settings, make_player, table, api):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens there
            "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
        }
    }
    client = api(make_player())
    response = client.post(f"/api/tables/{table.pk}/sit/", {}, format="json")
    assert response.status_code == 503, response.content
    body = response.json()
    assert body["code"] == "cache_unavailable" and set(body) == {"code", "message", "extra"}
    assert response["Retry-After"]
    assert not table.seats.exists()  # nothing was done


@pytest.mark.django_db
def test_any_api_request_that_meets_a_redis_outage_is_a_503(make_player, api, monkeypatch):
    from redis.exceptions import ConnectionError as RedisConnectionError

    from wallets import api as wallets_api

    def down(**kwargs):
        raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(wallets_api.selectors, "wallet_balances", down)
    response = api(make_player()).get("/api/wallet/")
    assert response.status_code == 503 and response.json()["code"] == "cache_unavailable"
    assert response["Retry-After"] == "5"


@pytest.fixture
def redis_cache(settings):
    from tests.conftest import require_redis

    require_redis()
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": settings.REDIS_URL}
    }
    from django.core.cache import cache

    cache.clear()
    yield cache
    cache.clear()


@pytest.mark.django_db
def test_on_redis_the_budget_is_the_same_one_script_per_action(redis_cache, monkeypatch, settings, make_player):
    settings.CASINO_PLAY_RATE = "3/min"  # 3 at once, then one a second (the longest wait)
    burst, interval = security.play_rate()
    assert (burst, interval) == (3, 1.0)
    fake = Clock()
    monkeypatch.setattr(security, "_clock", fake)
    player, other = make_player(), make_player()
    for _ in range(3):
        play_rate_take(user=player)
    with pytest.raises(RateLimited) as refused:
        play_rate_take(user=player)
    assert refused.value.extra["retry_after_seconds"] == pytest.approx(1.0)
    play_rate_take(user=other)  # every player has a budget of their own
    fake.now += 0.75
    with pytest.raises(RateLimited) as refused:
        play_rate_take(user=player)
    assert refused.value.extra["retry_after_seconds"] == pytest.approx(0.25)
    fake.now += 0.25
    play_rate_take(user=player)  # the wait it named was enough
    with pytest.raises(RateLimited):
        play_rate_take(user=player)
    client = redis.Redis.from_url(settings.REDIS_URL)
    key = redis_cache.make_key(security._play_key(player))
    assert 0 < client.ttl(key) <= 4  # the entry expires once the budget is full again


@pytest.mark.django_db(transaction=True)
def test_on_redis_two_actions_at_once_cannot_both_take_the_last_slot(redis_cache, settings, make_player):
    from tests.conftest import run_together

    settings.CASINO_PLAY_RATE = "1/hour"
    player = make_player()
    outcomes = []

    def act():
        try:
            play_rate_take(user=player)
            outcomes.append("allowed")
        except RateLimited:
            outcomes.append("refused")

    for _ in range(5):
        outcomes.clear()
        redis_cache.clear()
        _, errors = run_together(*[act] * 8)
        assert errors == [None] * 8
        assert sorted(outcomes) == ["allowed"] + ["refused"] * 7


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_on_redis_a_burst_of_hundreds_of_actions_at_once_is_counted_not_refused(
    redis_cache, settings, make_player
):
    """One server's sockets asking at the same instant: each waits for a connection of
    the loop's few, none is refused for want of one (redis-py's default pool failed the
    101st at once with cache_unavailable)."""
    import asyncio

    settings.CASINO_PLAY_RATE = "3/min"
    players = [await database_sync_to_async(make_player)() for _ in range(3)]
    outcomes = await asyncio.gather(
        *(security.play_rate_take_async(user=players[i % 3]) for i in range(300)), return_exceptions=True
    )
    refusals = [o for o in outcomes if o is not None]
    assert all(isinstance(o, RateLimited) for o in refusals)  # over the budget: 429, never 503
    assert len(refusals) == 300 - 3 * 3  # each player's burst of three went through
    pool = security._gcra_async_clients[asyncio.get_running_loop()][settings.REDIS_URL][0].connection_pool
    assert len(pool._available_connections) + len(pool._in_use_connections) <= security._ASYNC_REDIS_CONNECTIONS


async def _socket(player, table):
    comm = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/tables/{table.pk}/")
    comm.scope["user"] = player
    connected, _ = await comm.connect()
    assert connected
    assert (await comm.receive_json_from())["type"] == "snapshot"
    return comm


async def _answer(comm, ref: str) -> dict:
    while True:
        reply = await comm.receive_json_from(timeout=10)
        if reply.get("id") == ref and reply["type"] in ("ack", "error"):
            return reply


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_on_redis_the_socket_takes_its_budget_on_the_event_loop_and_shares_it_with_rest(
    redis_cache, settings, make_player, table, api, monkeypatch
):
    from casino.live.consumers import LiveTableConsumer

    jobs = []
    run_action = LiveTableConsumer._run_action
    monkeypatch.setattr(
        LiveTableConsumer, "_run_action", lambda self, h, m: jobs.append(m["id"]) or run_action(self, h, m)
    )
    settings.CASINO_PLAY_RATE = "2/hour"
    player = await database_sync_to_async(make_player)()
    comm = await _socket(player, table)
    await comm.send_json_to({"action": "sit", "id": "s1"})
    assert (await _answer(comm, "s1"))["type"] == "ack"
    rest = await database_sync_to_async(api(player).post)(f"/api/tables/{table.pk}/leave/", {}, format="json")
    assert rest.status_code == 200  # the second action of the budget, through REST
    await comm.send_json_to({"action": "sit", "id": "s2"})  # the third: over the budget
    refused = await _answer(comm, "s2")
    assert refused["code"] == "rate_limited" and 0 < refused["extra"]["retry_after_seconds"] < MIN_TIME_TO_ACT_SECONDS
    assert not await database_sync_to_async(table.seats.exists)()  # nothing was done
    assert jobs == ["s1"]  # and the refused action took no database thread
    client = redis.Redis.from_url(settings.REDIS_URL)
    assert client.get(redis_cache.make_key(security._play_key(player)))  # the one entry both counted in
    await comm.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_without_the_cache_a_socket_action_is_refused_and_changes_nothing(settings, make_player, table):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens there
            "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
        }
    }
    player = await database_sync_to_async(make_player)()
    comm = await _socket(player, table)
    await comm.send_json_to({"action": "sit", "id": "s1"})
    refused = await _answer(comm, "s1")
    assert refused["type"] == "error" and refused["code"] == "cache_unavailable"
    assert not await database_sync_to_async(table.seats.exists)()
    await comm.disconnect()
