// Recorded websocket sequences (tests/js/fixtures/, written by tests/poker/test_page_events.py
// and tests/tables/test_page_events.py) replayed through a page's reducer.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

/** The fixture `name`: {username, table, hand, next_hand, messages}. */
export function fixture(name) {
  return JSON.parse(readFileSync(new URL("./fixtures/" + name, import.meta.url), "utf8"));
}

/** The local time each message arrived: its own server stamp where it has one (plus
 * `skewMs`: this machine's clock behind the server's by that much), else the last one's. */
export function arrivals(messages, skewMs = 0) {
  let at = 0;
  return messages.map((message) => {
    if (message.server_time) at = Date.parse(message.server_time) - skewMs;
    return { message, at };
  });
}

/** Every state of a replay, after each message (the first is `start`), checking on the
 * way that the reducer never changes the state it is given and never reads the clock. */
export function replay(reduce, start, messages, { skewMs = 0 } = {}) {
  const states = [start];
  const realNow = Date.now;
  Date.now = () => { throw new Error("the reducer read the clock"); };
  try {
    for (const { message, at } of arrivals(messages, skewMs)) {
      const before = states[states.length - 1];
      const copy = structuredClone(before);
      const after = reduce(before, { type: "message", message, at });
      assert.deepEqual(before, copy, "the reducer changed the state it was given (" + message.type + ")");
      states.push(after);
    }
  } finally {
    Date.now = realNow;
  }
  return states;
}

/** The index of the first message that `test` accepts. */
export function indexOf(messages, test) {
  const i = messages.findIndex(test);
  assert.ok(i >= 0, "no such message in the fixture");
  return i;
}
