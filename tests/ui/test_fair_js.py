"""The browser's verifier (static/js/fair.js) against the server's shuffle (casino/game/fair.py).

Node runs the very file the hand page loads (an ES module; Node has the same WebCrypto
API as the browser). The browser test (tests/e2e) runs it in Chromium too.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from casino.game import fair
from casino.game.cards import cards_to_str
from casino.game.rules import deal

FAIR_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "fair.js"
NODE = shutil.which("node") or shutil.which("nodejs")

# Node is part of the suite's tools (the pages' unit tests need it too): CI fails without it.
pytestmark = pytest.mark.skipif(
    NODE is None and not os.environ.get("CI"), reason="Node.js is not installed (the browser test covers this too)"
)

RUNNER = """
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const fair = await import(pathToFileURL(process.argv[1]).href);
const cases = JSON.parse(readFileSync(0, "utf8"));
await (async () => {
  const out = [];
  for (const c of cases) {
    const deck = await fair.shuffledDeck(c.server_seed, c.client_seed, c.nonce);
    const commitment = await fair.commitmentOf(c.server_seed);
    const verdict = c.hand ? await fair.verifyHand(c.hand) : null;
    out.push({deck, commitment, verdict: verdict && {commitmentOk: verdict.commitmentOk, dealOk: verdict.dealOk}});
  }
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
"""


def _run(cases: list[dict]) -> list[dict]:
    result = subprocess.run(
        [NODE, "--input-type=module", "-e", RUNNER, str(FAIR_JS)],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(result.stdout)


def _hand(server_seed: str, client_seed: str, nonce: int, seat_numbers: list[int]) -> dict:
    """A hand as the page lists it: seats in the deal order (seat order), with their cards."""
    deck = fair.shuffled_deck(server_seed, client_seed, nonce)
    hands, dealer = deal(deck, len(seat_numbers))
    return {
        "commitment": fair.commitment_of(server_seed),
        "serverSeed": server_seed,
        "clientSeed": client_seed,
        "nonce": nonce,
        "seats": [{"seat": n, "cards": cards_to_str(h)} for n, h in zip(sorted(seat_numbers), hands)],
        "dealer": cards_to_str(dealer),
    }


def test_the_browser_shuffle_is_the_servers_shuffle():
    cases = [
        {"server_seed": "00" * 32, "client_seed": "", "nonce": 0},
        {"server_seed": "ff" * 32, "client_seed": "a:b:c", "nonce": 2**40},
    ]
    cases += [
        {
            "server_seed": fair.new_server_seed(),
            "client_seed": ":".join(fair.new_client_seed() for _ in range(n % 4 + 1)),
            "nonce": n,
        }
        for n in range(1, 25)
    ]
    cases.append({"server_seed": fair.new_server_seed(), "client_seed": "joueur_é-ünïcode", "nonce": 7})
    for case, got in zip(cases, _run(cases)):
        expected = cards_to_str(fair.shuffled_deck(case["server_seed"], case["client_seed"], case["nonce"]))
        assert got["deck"] == expected, case
        assert got["commitment"] == fair.commitment_of(case["server_seed"])


def test_the_browser_verifies_a_dealt_hand_and_catches_a_forgery():
    seed = fair.new_server_seed()
    honest = _hand(seed, "1111aaaa2222bbbb:cafe", 12, [2, 4])
    swapped = json.loads(json.dumps(honest))
    swapped["seats"][0]["cards"][0], swapped["dealer"][0] = swapped["dealer"][0], swapped["seats"][0]["cards"][0]
    other_seed = json.loads(json.dumps(honest)) | {"serverSeed": fair.new_server_seed()}
    wrong_nonce = json.loads(json.dumps(honest)) | {"nonce": 13}
    four = _hand(fair.new_server_seed(), "a:b:c:d", 99, [1, 2, 3, 4])
    four["seats"].reverse()  # listed in any order, verified in seat order
    cases = [
        {"server_seed": seed, "client_seed": "", "nonce": 0, "hand": h}
        for h in (honest, swapped, other_seed, wrong_nonce, four)
    ]
    verdicts = [r["verdict"] for r in _run(cases)]
    assert verdicts[0] == {"commitmentOk": True, "dealOk": True}
    assert verdicts[1] == {"commitmentOk": True, "dealOk": False}
    assert verdicts[2]["commitmentOk"] is False
    assert verdicts[3] == {"commitmentOk": True, "dealOk": False}
    assert verdicts[4] == {"commitmentOk": True, "dealOk": True}
