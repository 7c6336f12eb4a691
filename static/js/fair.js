// @ts-check
/* Provably fair check, in the browser, with WebCrypto: SPEC §0 steps 1-9.
 *
 *   commitment = SHA-256(bytes of the server seed)
 *   block_i    = HMAC-SHA256(key = bytes of the server seed, msg = "<client_seed>:<nonce>:<i>")
 *   words      = the blocks' bytes read as big-endian unsigned 32-bit integers
 *   uniform(n) = next word x; discard while x >= 2^32 - (2^32 mod n); else x mod n
 *   deck       = canonical deck 2c 2d 2h 2s 3c … As; for i = 51 … 1: swap(deck[i], deck[uniform(i + 1)])
 *   deal       = round r = 1 … 5: one card to each seat with an ante (seat order), then the dealer
 *
 * An ES module: the same file runs in Node, so the tests compare it with
 * casino/game/fair.py without a browser.
 */

var RANKS = "23456789TJQKA";
var SUITS = "cdhs";
var TWO_32 = 4294967296;
var CANONICAL_DECK = [];
for (var r = 0; r < RANKS.length; r++) for (var s = 0; s < SUITS.length; s++) CANONICAL_DECK.push(RANKS[r] + SUITS[s]);

function subtle() {
  var c = globalThis.crypto;
  if (!c || !c.subtle) throw new Error("This browser cannot verify here: WebCrypto needs a secure (https) page.");
  return c.subtle;
}

function hexToBytes(hex) {
  if (typeof hex !== "string" || !/^[0-9a-f]{64}$/.test(hex)) throw new Error("The server seed must be 64 lowercase hex characters.");
  var bytes = new Uint8Array(hex.length / 2);
  for (var i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.substr(i * 2, 2), 16);
  return bytes;
}

function bytesToHex(buffer) {
  return Array.prototype.map.call(new Uint8Array(buffer), function (b) { return b.toString(16).padStart(2, "0"); }).join("");
}

function commitmentOf(serverSeed) {
  return subtle().digest("SHA-256", hexToBytes(serverSeed)).then(bytesToHex);
}

/* An async reader of big-endian u32 words from the HMAC block stream. */
function wordReader(serverSeed, clientSeed, nonce) {
  var encoder = new TextEncoder();
  var keyPromise = subtle().importKey("raw", hexToBytes(serverSeed), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  var block = null;
  var offset = 32;
  var index = 0;
  return async function next() {
    if (offset >= 32) {
      var key = await keyPromise;
      var msg = encoder.encode(clientSeed + ":" + nonce + ":" + index);
      block = new DataView(await subtle().sign("HMAC", key, msg));
      index += 1;
      offset = 0;
    }
    var word = block.getUint32(offset, false);
    offset += 4;
    return word;
  };
}

async function uniformBelow(next, n) {
  var limit = TWO_32 - (TWO_32 % n);
  for (;;) {
    var x = await next();
    if (x < limit) return x % n;
  }
}

async function shuffledDeck(serverSeed, clientSeed, nonce) {
  var next = wordReader(serverSeed, String(clientSeed), String(nonce));
  var deck = CANONICAL_DECK.slice();
  for (var i = deck.length - 1; i > 0; i--) {
    var j = await uniformBelow(next, i + 1);
    var tmp = deck[i];
    deck[i] = deck[j];
    deck[j] = tmp;
  }
  return deck;
}

/* Deal order of SPEC A3: players (seat order) then dealer, five rounds. */
function deal(deck, players) {
  var hands = [];
  for (var seat = 0; seat <= players; seat++) {
    var cards = [];
    for (var round = 0; round < 5; round++) cards.push(deck[round * (players + 1) + seat]);
    hands.push(cards);
  }
  return { players: hands.slice(0, players), dealer: hands[players] };
}

/* Check a settled hand: {commitment, serverSeed, clientSeed, nonce, seats: [{seat, cards}], dealer: [cards]}. */
async function verifyHand(hand) {
  var result = { commitmentOk: false, dealOk: null, expected: null, seats: [], dealer: null, computedCommitment: null };
  result.computedCommitment = await commitmentOf(hand.serverSeed);
  result.commitmentOk = result.computedCommitment === String(hand.commitment).toLowerCase();
  var seats = (hand.seats || []).slice().sort(function (a, b) { return a.seat - b.seat; });
  var dealt = seats.length > 0 && seats.every(function (s) { return s.cards && s.cards.length === 5; }) && hand.dealer && hand.dealer.length === 5;
  if (!dealt || hand.clientSeed === null || hand.clientSeed === undefined) return result;
  var deck = await shuffledDeck(hand.serverSeed, hand.clientSeed, hand.nonce);
  var expected = deal(deck, seats.length);
  result.expected = expected;
  result.dealOk = true;
  seats.forEach(function (s, i) {
    var ok = expected.players[i].join(" ") === s.cards.join(" ");
    result.seats.push({ seat: s.seat, ok: ok, expected: expected.players[i], shown: s.cards });
    if (!ok) result.dealOk = false;
  });
  var dealerOk = expected.dealer.join(" ") === hand.dealer.join(" ");
  result.dealer = { ok: dealerOk, expected: expected.dealer, shown: hand.dealer };
  if (!dealerOk) result.dealOk = false;
  return result;
}

export { CANONICAL_DECK, commitmentOf, shuffledDeck, deal, verifyHand };
