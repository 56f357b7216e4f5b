import { TooManyRequests, Unauthorized } from "./api.js";

// The dashboard follows what changes elsewhere while a person looks at it: a Pause or Resume in
// the chat, a rule the marketplace paused. While the page is visible it reads the rules every
// FOLLOW_MS (a cheap read: the rule list alone); hidden, it reads nothing, and it reads at once
// when it is shown again.

/** Within 3 s of a change, the page shows it: a read every 2 s, answered in well under 1 s. */
export const FOLLOW_MS = 2000;

function visible() {
  return document.visibilityState === "visible";
}

/**
 * Calls `read` every FOLLOW_MS while the page is visible, one call at a time; after a 429 it waits
 * as long as the server asks, and an answer of 401 (the init data expired: an hour after Telegram
 * signed it) ends the following. Returns the stop.
 */
export function follow(read) {
  let timer = null;
  let running = false;
  let stopped = false;

  function schedule(ms) {
    clearTimeout(timer);
    timer = null;
    if (!stopped && visible()) timer = setTimeout(tick, ms);
  }

  async function tick() {
    timer = null;
    if (stopped || running || !visible()) return;
    running = true;
    let wait = FOLLOW_MS;
    try {
      await read();
    } catch (error) {
      if (error instanceof Unauthorized) stopped = true;
      else if (error instanceof TooManyRequests) wait = Math.max(FOLLOW_MS, error.seconds * 1000);
      // Anything else passes: the next read tries again, and the page keeps what it shows.
    } finally {
      running = false;
    }
    schedule(wait);
  }

  // Shown again: a read at once (one in flight schedules the next itself). Hidden: none.
  const onVisibility = () => {
    if (!running) schedule(0);
  };
  document.addEventListener("visibilitychange", onVisibility);
  schedule(FOLLOW_MS);
  return () => {
    stopped = true;
    clearTimeout(timer);
    document.removeEventListener("visibilitychange", onVisibility);
  };
}
