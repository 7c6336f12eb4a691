"""The hand replayer: its page (a player's own hands, any hand for the auditor, nobody
else's) and its frames (``static/js/replayer.js``'s ``framesOf``, run by Node on the
records of hands played here): every action a step, the money adds up at every step,
and a player's replay shows another's down cards only once they are shown."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from casino.access.roles import AUDITOR
from casino.stud.engine import cents
from poker import selectors
from poker.models import PokerHand
from poker.services import poker_sit
from tests.poker.helpers import play_out, seats_of

pytestmark = pytest.mark.django_db

REPLAYER = Path(__file__).resolve().parents[2] / "static" / "js" / "replayer.js"
NODE = shutil.which("node") or shutil.which("nodejs")
RUNNER = """
import { framesOf } from "%s";
import { readFileSync } from "node:fs";
const cases = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map((c) => framesOf(c.record, { viewerSeat: c.viewerSeat }))));
"""


def frames_of(tmp_path, cases: list[dict]) -> list[list[dict]]:
    if NODE is None:
        pytest.skip("Node.js is not installed")
    (tmp_path / "run.mjs").write_text(RUNNER % REPLAYER.as_uri())  # beside common.js, which it imports
    done = subprocess.run(
        [NODE, str(tmp_path / "run.mjs")],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def played(make_player, make_poker_table):
    """A Seven Card Stud hand (dealt once two sit: Ann and Ben), called down to the showdown."""
    table = make_poker_table(game="seven_stud", preset="2-4")
    players = [make_player(balance=10_000, username=name) for name in ("ann", "ben", "cat")]
    for user in players:
        poker_sit(user=user, table_id=table.pk)
    hand = PokerHand.objects.get(table=table, state=PokerHand.State.LIVE)
    return players, play_out(hand, seats_of(hand, players), strategy="calling_station")


def test_every_action_is_a_step_and_the_money_adds_up_at_every_step(tmp_path, played):
    (ann, _, _), hand = played
    record = hand.record
    seat = selectors.poker_seat_of(hand=hand, user=ann)
    mine = selectors.poker_hand_record_for(hand=hand, user=ann)
    mine["seed_revealed_at"] = None
    auditor_frames, ann_frames = frames_of(
        tmp_path,
        [
            {"record": record, "viewerSeat": None},
            {"record": mine, "viewerSeat": seat},
        ],
    )
    start = sum(cents(s["stack"]) for s in record["seats"])
    actions = [e for e in record["events"] if e["type"] == "action" and e["action"] != "ante"]
    for frames in (auditor_frames, ann_frames):
        assert [f["caption"] for f in frames if f["kind"] == "action"] == [
            f["caption"] for f in auditor_frames if f["kind"] == "action"
        ]
        assert sum(1 for f in frames if f["kind"] == "action") == len(actions)
        titles = [f["title"] for f in frames]
        assert {"Third street", "Seventh street"} <= set(titles), titles
        for frame in frames:  # chips on the table = stacks + the pot (+ the rake once taken)
            raked = cents(record["rake"]) if any(f["kind"] == "rake" for f in frames[: frame["index"] + 1]) else 0
            assert sum(s["stack"] for s in frame["seats"]) + frame["pot"] + raked == start, frame["caption"]
        last = frames[-1]
        assert last["kind"] == "end" and last["pot"] == 0
        assert {s["seat"]: s["stack"] for s in last["seats"]} == {
            s["seat"]: cents(s["stack"]) + cents(record["net"][str(s["seat"])]) for s in record["seats"]
        }
    showdown = next(i for i, f in enumerate(ann_frames) if f["kind"] == "showdown")
    shown = {h["seat"] for h in record["showdown"] if h["shown"]}
    for i, frame in enumerate(ann_frames):
        for s in frame["seats"]:
            codes = [c["code"] for c in s["cards"] if not c["up"]]
            if s["seat"] == seat or (i >= showdown and s["seat"] in shown):
                assert None not in codes
            else:  # another's down cards: backs, until shown; a mucked hand's for ever
                assert set(codes) <= {None}, (frame["caption"], s)
    assert any(c["code"] is None for s in ann_frames[showdown - 1]["seats"] for c in s["cards"])
    # The auditor's replay shows every card from the deal on, mucked hands included.
    assert all(c["code"] for f in auditor_frames[1:] for s in f["seats"] for c in s["cards"])


def test_the_replay_page_is_for_the_hands_players_and_the_auditor(played, browser, make_player, make_user):
    (ann, _, _), hand = played
    url = f"/poker/hands/{hand.pk}/replay/"
    page = browser(ann).get(url)
    assert page.status_code == 200
    body = page.content.decode()
    assert '<script type="module" src="/static/js/replayer.js"></script>' in body
    data = json.loads(
        re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', body, re.DOTALL).group(1)
    )
    seat_of = {s["user_id"]: s["seat"] for s in hand.seats}
    assert data["viewerSeat"] == seat_of[ann.pk] and not data["auditor"]
    mucked = [h["seat"] for h in hand.record["showdown"] if not h["shown"] and h["seat"] != seat_of[ann.pk]]
    for seat in mucked:  # never in a player's page, not even in its data
        downs = [
            e["card"] for e in data["record"]["events"] if e["type"] == "deal" and e["seat"] == seat and not e["up"]
        ]
        assert downs and set(downs) == {None}
    assert "deck" not in data["record"] and data["record"]["server_seed"] is None
    assert f'href="{url}"' in browser(ann).get(f"/poker/hands/{hand.pk}/").content.decode()

    assert browser(make_player(username="stranger")).get(url).status_code == 404
    assert browser(ann).get("/poker/hands/999999/replay/").status_code == 404
    audit = browser(make_user(AUDITOR)).get(url)
    assert audit.status_code == 200
    full = json.loads(
        re.search(
            r'<script id="replay-data" type="application/json">(.*?)</script>', audit.content.decode(), re.DOTALL
        ).group(1)
    )
    assert full["auditor"] and full["record"]["server_seed"] == hand.server_seed
    assert all(e["card"] for e in full["record"]["events"] if e["type"] in ("deal", "burn"))


def test_a_live_hand_is_not_replayed_yet(make_player, make_poker_table, browser):
    table = make_poker_table()
    ann, ben = make_player(username="ann"), make_player(username="ben")
    for user in (ann, ben):
        poker_sit(user=user, table_id=table.pk)
    hand = PokerHand.objects.get(table=table, state=PokerHand.State.LIVE)
    assert browser(ann).get(f"/poker/hands/{hand.pk}/replay/").status_code == 404


def test_seventh_street_and_the_community_card_are_replayed(tmp_path):
    from casino.stud.engine import hand_record
    from tests.stud.engine_rig import deal
    from tests.stud.test_engine_deck import SEVEN, call_down

    record = hand_record(call_down(deal(SEVEN, [5000] * 8, nonce=5)))  # eight players to the river: one community card
    [frames] = frames_of(tmp_path, [{"record": record, "viewerSeat": None}])
    community = [f for f in frames if f["kind"] == "community"]
    assert len(community) == 1 and community[0]["community"] == record["community"]
    assert any(f["kind"] == "reshuffle" for f in frames)
    assert frames[-1]["community"] == record["community"] and frames[-1]["pot"] == 0
    assert {f["title"] for f in frames} >= {"Third street", "Sixth street", "Seventh street"}
    assert community[0]["title"] == "Seventh street"
    start = sum(cents(s["stack"]) for s in record["seats"])
    assert sum(s["stack"] for s in frames[-1]["seats"]) + cents(record["rake"]) == start
