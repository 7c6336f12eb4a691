// "My tables": which tables wait for the player, in what order, and which one gets the
// keyboard (static/js/poker_tiles_state.js). `node --test tests/js/`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { focusTarget, isTyping, turnChange, turnMark, waitingLine, waitingOrder } from "../../static/js/poker_tiles_state.js";

const TILES = [11, 12, 13, 14];

/** The tiles' messages in turn: [table, turn (its key, or null once over), at]. */
function replay(messages) {
  return messages.reduce((w, [table, turn, at]) => turnChange(w, table, turn, at), {});
}

test("the table waiting longest comes first; one whose turn is over leaves the line", () => {
  const waiting = replay([[13, "7:4", 100], [11, "3:2", 250], [12, null, 260], [14, "9:1", 300]]);
  assert.deepEqual(waitingOrder(waiting, TILES), ["13", "11", "14"]);
  const after = turnChange(waiting, 13, null, 400);
  assert.deepEqual(waitingOrder(after, TILES), ["11", "14"]);
  /* its turn again later: at the end of the line, not where it stood */
  assert.deepEqual(waitingOrder(turnChange(after, 13, "7:6", 500), TILES), ["11", "14", "13"]);
});

test("a table keeps its moment while it waits on the same turn; a new turn at once goes to the end", () => {
  const waiting = replay([[12, "5:3", 100], [11, "2:8", 200], [12, "5:3", 300]]);
  assert.deepEqual(waitingOrder(waiting, TILES), ["12", "11"]);
  assert.equal(turnChange(waiting, 12, "5:3", 400), waiting);
  assert.equal(turnChange(waiting, 14, null, 400), waiting);
  /* the player called and is first on the next street: the same table, a new turn */
  assert.deepEqual(waitingOrder(turnChange(waiting, 12, "5:4", 500), TILES), ["11", "12"]);
});

test("tables that began waiting at the same moment come in the tiles' order", () => {
  const waiting = replay([[14, "1:1", 100], [12, "2:1", 100], [13, "3:1", 100]]);
  assert.deepEqual(waitingOrder(waiting, TILES), ["12", "13", "14"]);
});

test("the keyboard goes to the first waiting table, unless the player is at a waiting one or typing", () => {
  assert.equal(focusTarget(["13", "11"], null, false), "13");
  assert.equal(focusTarget(["13", "11"], "12", false), "13"); /* at a table that does not wait */
  assert.equal(focusTarget(["13", "11"], "11", false), null); /* the player is at a waiting table */
  assert.equal(focusTarget(["13", "11"], "13", false), null); /* already there */
  assert.equal(focusTarget(["13", "11"], "12", true), null); /* typing a note: the next letter is the note's */
  assert.equal(focusTarget([], "12", false), null);
});

test("once the player acted at their table, the keyboard goes on to the table waiting longest", () => {
  assert.equal(focusTarget(["11", "14"], "13", false, true), "11"); /* 13's turn is over */
  assert.equal(focusTarget(["11", "14", "13"], "13", false, true), "11"); /* 13 waits again, at the end */
  assert.equal(focusTarget(["13"], "13", false, true), null); /* only 13 waits: the keyboard stays */
  assert.equal(focusTarget(["11", "13"], "13", true, true), null); /* typing: never */
});

test("a field the player types in is told from a slider or a button", () => {
  assert.equal(isTyping({ tagName: "TEXTAREA" }), true);
  assert.equal(isTyping({ tagName: "SELECT" }), true);
  assert.equal(isTyping({ tagName: "INPUT", type: "number" }), true);
  assert.equal(isTyping({ tagName: "INPUT", type: "text" }), true);
  assert.equal(isTyping({ tagName: "DIV", isContentEditable: true }), true);
  assert.equal(isTyping({ tagName: "INPUT", type: "range" }), false);
  assert.equal(isTyping({ tagName: "BUTTON" }), false);
  assert.equal(isTyping({ tagName: "BODY" }), false);
  assert.equal(isTyping(null), false);
});

test("the marks and the line say who waits, the first first", () => {
  assert.equal(turnMark(0, 1), "Your turn");
  assert.equal(turnMark(0, 3), "Your turn · 1 of 3");
  assert.equal(turnMark(2, 3), "Your turn · 3 of 3");
  assert.equal(waitingLine([]), "No table is waiting for you.");
  assert.equal(waitingLine(["Alpha", "Beta"]), "Tables waiting for you: Alpha → Beta");
});
