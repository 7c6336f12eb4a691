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

import { gettext } from "./common.js";

const RANKS = "23456789TJQKA";
const SUITS = "cdhs";
const TWO_32 = 4294967296;
/** @type {string[]} the deck before the shuffle: 2c 2d 2h 2s 3c … As */
export const CANONICAL_DECK = [];
for (const r of RANKS) for (const s of SUITS) CANONICAL_DECK.push(r + s);

function subtle() {
  const c = globalThis.crypto;
  if (!c || !c.subtle) throw new Error(gettext("This browser cannot verify here: WebCrypto needs a secure (https) page."));
  return c.subtle;
}

/** @param {string} hex */
function hexToBytes(hex) {
  if (typeof hex !== "string" || !/^[0-9a-f]{64}$/.test(hex)) throw new Error(gettext("The server seed must be 64 lowercase hex characters."));
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.substr(i * 2, 2), 16);
  return bytes;
}

/** @param {ArrayBuffer} buffer */
function bytesToHex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** SHA-256 of the server seed's bytes, in hex. @param {string} serverSeed @returns {Promise<string>} */
export function commitmentOf(serverSeed) {
  return subtle().digest("SHA-256", hexToBytes(serverSeed)).then(bytesToHex);
}

/** An async reader of big-endian u32 words from the HMAC block stream.
 * @param {string} serverSeed @param {string} clientSeed @param {string} nonce @returns {() => Promise<number>} */
function wordReader(serverSeed, clientSeed, nonce) {
  const encoder = new TextEncoder();
  const keyPromise = subtle().importKey("raw", hexToBytes(serverSeed), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  /** @type {DataView} */
  let block = new DataView(new ArrayBuffer(32));
  let offset = 32;
  let index = 0;
  return async function next() {
    if (offset >= 32) {
      const key = await keyPromise;
      const msg = encoder.encode(clientSeed + ":" + nonce + ":" + index);
      block = new DataView(await subtle().sign("HMAC", key, msg));
      index += 1;
      offset = 0;
    }
    const word = block.getUint32(offset, false);
    offset += 4;
    return word;
  };
}

/** @param {() => Promise<number>} next @param {number} n */
async function uniformBelow(next, n) {
  const limit = TWO_32 - (TWO_32 % n);
  for (;;) {
    const x = await next();
    if (x < limit) return x % n;
  }
}

/** The deck the seeds shuffle. @param {string} serverSeed @param {string} clientSeed @param {number|string} nonce */
export async function shuffledDeck(serverSeed, clientSeed, nonce) {
  const next = wordReader(serverSeed, String(clientSeed), String(nonce));
  const deck = CANONICAL_DECK.slice();
  for (let i = deck.length - 1; i > 0; i--) {
    const j = await uniformBelow(next, i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

/** Deal order of SPEC A3: players (seat order) then dealer, five rounds.
 * @param {string[]} deck @param {number} players */
export function deal(deck, players) {
  /** @type {string[][]} */
  const hands = [];
  for (let seat = 0; seat <= players; seat++) {
    const cards = [];
    for (let round = 0; round < 5; round++) cards.push(deck[round * (players + 1) + seat]);
    hands.push(cards);
  }
  return { players: hands.slice(0, players), dealer: hands[players] };
}

/**
 * @typedef {{seat: number, ok: boolean, expected: string[], shown: string[]}} SeatCheck
 * @typedef {{commitmentOk: boolean, dealOk: boolean|null, expected: {players: string[][], dealer: string[]}|null,
 *   seats: SeatCheck[], dealer: {ok: boolean, expected: string[], shown: string[]}|null, computedCommitment: string}} Verdict
 */

/** Check a settled hand: {commitment, serverSeed, clientSeed, nonce, seats: [{seat, cards}], dealer: [cards]}.
 * @param {{commitment: string, serverSeed: string, clientSeed: string|null, nonce: number,
 *   seats: {seat: number, cards: string[]}[], dealer: string[]}} hand @returns {Promise<Verdict>} */
export async function verifyHand(hand) {
  const computed = await commitmentOf(hand.serverSeed);
  /** @type {Verdict} */
  const result = {
    commitmentOk: computed === String(hand.commitment).toLowerCase(), dealOk: null, expected: null, seats: [], dealer: null,
    computedCommitment: computed
  };
  const seats = (hand.seats || []).slice().sort((a, b) => a.seat - b.seat);
  const dealt = seats.length > 0 && seats.every((s) => s.cards && s.cards.length === 5) && hand.dealer && hand.dealer.length === 5;
  if (!dealt || hand.clientSeed === null || hand.clientSeed === undefined) return result;
  const deck = await shuffledDeck(hand.serverSeed, hand.clientSeed, hand.nonce);
  const expected = deal(deck, seats.length);
  result.expected = expected;
  result.dealOk = true;
  seats.forEach((s, i) => {
    const ok = expected.players[i].join(" ") === s.cards.join(" ");
    result.seats.push({ seat: s.seat, ok, expected: expected.players[i], shown: s.cards });
    if (!ok) result.dealOk = false;
  });
  const dealerOk = expected.dealer.join(" ") === hand.dealer.join(" ");
  result.dealer = { ok: dealerOk, expected: expected.dealer, shown: hand.dealer };
  if (!dealerOk) result.dealOk = false;
  return result;
}
