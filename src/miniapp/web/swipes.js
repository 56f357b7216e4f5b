import { allowVerticalSwipes } from "./telegram.js";

// Telegram closes or minimises a Mini App when it is swiped down: on a phone that fights a list
// being scrolled back up. While anything on the page scrolls, or is scrolled away from its top,
// vertical swipes are Telegram's no more (web_app_setup_swipe_behavior, what
// WebApp.disableVerticalSwipes sends); once the page rests at its top again, they are given back,
// so a swipe down there still closes it as everywhere in Telegram.

/** Scrolling has stopped once no scroll event came for this long. */
const SETTLED_MS = 300;

let allowed = true;
let settled = null;
/** The element scrolled last (a list with its own scrolling), or the page. */
let scroller = null;

function allow(value) {
  if (value === allowed) return;
  allowed = value;
  allowVerticalSwipes(value);
}

function atTop() {
  const page = document.scrollingElement || document.documentElement;
  const own = scroller && scroller !== document && scroller !== page ? scroller.scrollTop : 0;
  return page.scrollTop <= 0 && own <= 0;
}

function scrolled(event) {
  scroller = event.target;
  allow(false);
  clearTimeout(settled);
  settled = setTimeout(() => {
    if (atTop()) allow(true);
  }, SETTLED_MS);
}

/** Watches every scroll on the page (a list's own too: scroll events are caught on their way down). */
export function guardSwipes() {
  document.addEventListener("scroll", scrolled, { capture: true, passive: true });
  // A finger put down on a page that is not at its top: the swipe to come is the page's.
  document.addEventListener("touchstart", () => (atTop() ? undefined : allow(false)), { passive: true });
}
