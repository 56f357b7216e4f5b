/**
 * Every piece of callback data the bot puts on a button, declared once: its prefix, how it is
 * written, and how it is read back. Used by the bot's features and by push (the buttons of
 * alerts), so no other file writes a prefix by hand.
 *
 * Callback data is short and opaque: at most 64 bytes, ids as short per-user references (ten
 * characters of [A-Za-z0-9_-]), never an address or an amount. A parser accepts exactly what its
 * writer makes and returns null for anything else, so crafted data never reaches a handler.
 */

/** A short per-user reference (db/repos/callback-refs) or a card id. */
const REF = "([A-Za-z0-9_-]{10})";
/** A page number. */
const PAGE = "(\\d{1,6})";

/** One kind of callback data. */
export interface CallbackKind<Values> {
  /** What every piece of data of this kind starts with. */
  readonly prefix: string;
  /** Matches the whole data of this kind and nothing else (for grammY's `callbackQuery`). */
  readonly pattern: RegExp;
  /** The values the data carries, or null when it is not well-formed data of this kind. */
  parse(data: string): Values | null;
}

function kind<Values>(
  prefix: string,
  body: string,
  read: (match: RegExpExecArray) => Values,
  flags = "",
): CallbackKind<Values> {
  const pattern = new RegExp(`^${escapeRegExp(prefix)}${body}$`, flags);
  return {
    prefix,
    pattern,
    parse(data) {
      const match = pattern.exec(data);
      return match ? read(match) : null;
    },
  };
}

function fixed(data: string): CallbackKind<true> & { data: string } {
  return { ...kind(data, "", () => true as const), data };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function page(raw: string | undefined): number {
  return Number(raw);
}

/** The answer to the open question of a guided flow. */
export const ANSWER = { ...kind("a:", "(.{1,62})", (m) => m[1]!, "s"), data: (value: string) => `a:${value}` };
export const answerData = ANSWER.data;

/** A main-menu area ("m:topup"); also the Top up button of alerts and cards. */
export const MAIN_MENU = { ...kind("m:", "([a-z]{1,20})", (m) => m[1]!), data: (area: string) => `m:${area}` };

/** "Buy this" under a quote: resource initial, volume, duration. */
export const QUOTE_BUY = {
  ...kind("qb:", "([eb]):(\\d{1,12}):([A-Za-z0-9]{1,8})", (m) => ({
    resource: m[1] === "e" ? "energy" : "bandwidth",
    volume: m[2]!,
    duration: m[3]!,
  })),
  data: (resource: string, volume: string, duration: string) => `qb:${resource[0]}:${volume}:${duration}`,
};

/** Confirmation cards: Confirm, Cancel, Refresh (a stale card), and a rule card's auto-resume toggle. */
export const CARD_CONFIRM = { ...kind("cf:", REF, (m) => m[1]!), data: (id: string) => `cf:${id}` };
export const CARD_CANCEL = { ...kind("cx:", REF, (m) => m[1]!), data: (id: string) => `cx:${id}` };
export const CARD_REFRESH = { ...kind("rf:", REF, (m) => m[1]!), data: (id: string) => `rf:${id}` };
export const CARD_AUTO_RESUME = { ...kind("ar:", REF, (m) => m[1]!), data: (id: string) => `ar:${id}` };
/** Ask again above: the second tap on a card whose total is above the user's amount ("Yes, spend 512.5 TRX"). */
export const CARD_SURE = { ...kind("cs:", REF, (m) => m[1]!), data: (id: string) => `cs:${id}` };

/** /disconnect's question. Forget the key: names the link it asked about (its time, base 36), so a question left from an earlier key never forgets a newer one. */
export const DISCONNECT_YES = {
  ...kind("dc:y:", "([0-9a-z]{1,12})", (m) => parseInt(m[1]!, 36)),
  data: (linkedAt: number) => `dc:y:${linkedAt.toString(36)}`,
};
export const DISCONNECT_NO = fixed("dc:n");

/** /webhook's Rotate. */
export const WEBHOOK_ROTATE = fixed("wh:rot");

/** /wallet's Transactions and Refresh. */
export const WALLET_TRANSACTIONS = fixed("w:tx");
export const WALLET_REFRESH = fixed("w:r");

/** A page of /transactions under a filter: currency letter (a, t, u) and a ledger type by reference ("-": all). */
export const TRANSACTIONS_PAGE = {
  ...kind("tx:p:", `${PAGE}:([atu]):(-|[A-Za-z0-9_-]{10})`, (m) => ({
    page: page(m[1]),
    currency: m[2] as "a" | "t" | "u",
    typeRef: m[3] === "-" ? null : m[3]!,
  })),
  data: (pageNumber: number, currency: "a" | "t" | "u", typeRef: string | null) =>
    `tx:p:${pageNumber}:${currency}:${typeRef ?? "-"}`,
};

/** /orders: a page, an order card (with the page to go back to), the stats. */
export const ORDERS_PAGE = {
  ...kind("or:p:", PAGE, (m) => page(m[1])),
  data: (pageNumber: number) => `or:p:${pageNumber}`,
};
export const ORDER_OPEN = {
  ...kind("or:o:", `${REF}:${PAGE}`, (m) => ({ ref: m[1]!, page: page(m[2]) })),
  data: (ref: string, pageNumber: number) => `or:o:${ref}:${pageNumber}`,
};
export const ORDERS_STATS = fixed("or:s");

/** /notifications: a page, Mark read (one, by reference), Mark all read. */
export const NOTIFICATIONS_PAGE = {
  ...kind("n:p:", PAGE, (m) => page(m[1])),
  data: (pageNumber: number) => `n:p:${pageNumber}`,
};
export const NOTIFICATION_READ = {
  ...kind("n:r:", `${REF}:${PAGE}`, (m) => ({ ref: m[1]!, page: page(m[2]) })),
  data: (ref: string, pageNumber: number) => `n:r:${ref}:${pageNumber}`,
};
export const NOTIFICATIONS_READ_ALL = {
  ...kind("n:a:", PAGE, (m) => page(m[1])),
  data: (pageNumber: number) => `n:a:${pageNumber}`,
};

/** /addresses: remove an address, or set its label (by reference). */
export const ADDRESS_REMOVE = { ...kind("ad:x:", REF, (m) => m[1]!), data: (ref: string) => `ad:x:${ref}` };
export const ADDRESS_LABEL = { ...kind("ad:l:", REF, (m) => m[1]!), data: (ref: string) => `ad:l:${ref}` };

/**
 * Resume on a pushed "rule paused" alert (by rule reference). Alerts leave through the outbox
 * without a context, so this button is plain data, not a menu's; pressing it opens the rule's menu.
 */
export const RULE_RESUME = { ...kind("rl:r:", REF, (m) => m[1]!), data: (ref: string) => `rl:r:${ref}` };

/**
 * Buy now on a price alert, by watch id (ten characters like a reference). Alerts leave through
 * the outbox without a context, so this is plain data, not a menu's: /buy for the watch's values,
 * with a fresh preview.
 */
export const WATCH_BUY = { ...kind("wt:b:", REF, (m) => m[1]!), data: (id: string) => `wt:b:${id}` };
/** Auto-buy on a price alert, by watch id: /autobuy with the watch's rent and threshold, ending at its confirmation card. */
export const WATCH_AUTO_BUY = { ...kind("wt:a:", REF, (m) => m[1]!), data: (id: string) => `wt:a:${id}` };

/**
 * Buy again on an order filled or failed alert and on an order's card in /orders, by reference.
 * The reference names the order and the key link it was seen under (db/repos/buy-again-refs); the
 * order's values are read again from the marketplace, never carried by the button.
 */
export const BUY_AGAIN = { ...kind("ba:", REF, (m) => m[1]!), data: (ref: string) => `ba:${ref}` };

/**
 * Renew on a rental's "ends" alert, by reference: the same kind of reference as Buy again's (the
 * order and the key link it was seen under), opening the same fresh card at today's price.
 */
export const RENEW = { ...kind("rn:", REF, (m) => m[1]!), data: (ref: string) => `rn:${ref}` };

/**
 * Auto-buys, by id (ten characters like a reference). On the "Auto-bought" alert and the alerts of
 * an auto-buy that stopped by itself (they leave through the outbox, so plain data, not a menu's):
 * Pause, Stop (for good) and Resume.
 */
export const AUTO_BUY_ACTION = {
  ...kind("ab:", `([prs]):${REF}`, (m) => ({
    action: m[1] === "p" ? ("pause" as const) : m[1] === "r" ? ("resume" as const) : ("stop" as const),
    id: m[2]!,
  })),
  data: (action: "pause" | "resume" | "stop", id: string) => `ab:${action[0]}:${id}`,
};

/** An auto-buy's confirmation card: its orders a day and its length in days, each tap the next choice (by card id). */
export const CARD_AUTO_BUY_ORDERS = { ...kind("abo:", REF, (m) => m[1]!), data: (id: string) => `abo:${id}` };
export const CARD_AUTO_BUY_DAYS = { ...kind("abd:", REF, (m) => m[1]!), data: (id: string) => `abd:${id}` };

/** The question a watch_ deep link asks: Confirm saves the link's watch, Cancel drops it (the link's values by reference). */
export const WATCH_LINK_SAVE = { ...kind("wl:y:", REF, (m) => m[1]!), data: (ref: string) => `wl:y:${ref}` };
export const WATCH_LINK_DROP = { ...kind("wl:n:", REF, (m) => m[1]!), data: (ref: string) => `wl:n:${ref}` };

/** The weekly digest's buttons (laid out by stats/digest-settings, shown in the /settings menu): on/off ("d") and the time zone ("z"). */
export const DIGEST_SETTING = {
  ...kind("st:", "([dz]):([a-z]{2,10})", (m) => ({ what: m[1] as "d" | "z", value: m[2]! })),
  data: (what: "d" | "z", value: string) => `st:${what}:${value}`,
};

/** /stats: the window shown (7 or 30 days). */
export const STATS_WINDOW = {
  ...kind("ss:", "(7|30)", (m) => Number(m[1]) as 7 | 30),
  data: (days: 7 | 30) => `ss:${days}`,
};

/**
 * Identifiers of the @grammyjs/menu menus. A menu writes its own data (`<id>/<row>/<column>/<payload>/<fingerprint>`);
 * MENU_DATA reads that shape for every menu id, so malformed data is refused before a menu sees it.
 */
export const MENU_IDS = {
  /** /rules: the list. */
  rules: "rl",
  /** A rule's card. */
  rule: "ru",
  /** "Cancel this rule?" */
  ruleCancel: "rc",
  /** A rule's deliveries. */
  ruleDeliveries: "rd",
  /** /settings. */
  settings: "st",
  /** /transactions and its filters. */
  transactions: "tx",
  /** /watches: the list of price watches (payload: a watch id). */
  watches: "wl",
  /** A price watch's card (payload: its id). */
  watch: "wc",
  /** /autobuys: the list of auto-buys (payload: an auto-buy id). */
  autoBuys: "al",
  /** An auto-buy's card (payload: its id). */
  autoBuy: "ac",
} as const;

/** The data a menu writes; `payload` is one of the menu payloads below. */
export const MENU_DATA = {
  ...kind(
    "",
    `(${Object.values(MENU_IDS).join("|")})/([0-9a-f]{1,2})/([0-9a-f]{1,2})/([A-Za-z0-9_.-]{0,24})/([fh][\\s\\S]{1,12})`,
    (m) => ({
      menu: m[1]!,
      payload: m[4]!,
    }),
  ),
  /** A menu's data as the menu itself would write it for its first button (a redraw the dashboard asks for). */
  data: (menu: string, payload: string, fingerprint: string) => `${menu}/0/0/${payload}/${fingerprint}`,
};

/*
 * Menu payloads: the part of a menu button's data the menu leaves to the bot (at most 24 of
 * [A-Za-z0-9_.-]), declared here like callback data: written and read back only through these.
 */

/**
 * /settings: a tap's payload, "l.<language>", "a.<alert kind>", "d.<on|off>", "z.<zone code>",
 * "g.<guard tap>" (the spend guard and reminders: settings/guard-settings.ts), "b.<on|off>" (Automatic
 * buying: the state it turns it to).
 */
export const SETTINGS_TAP = {
  ...kind("", "([ladzgb])\\.([a-z0-9]{2,10})", (m) => ({
    what: m[1] as "l" | "a" | "d" | "z" | "g" | "b",
    value: m[2]!,
  })),
  data: (what: "l" | "a" | "d" | "z" | "g" | "b", value: string) => `${what}.${value}`,
};

/** /transactions: the page and filter shown, `<page>.<currency letter>.<ledger type reference or ->`. */
export const LEDGER_VIEW = {
  ...kind("", `${PAGE}\\.([atu])\\.(-|[A-Za-z0-9_-]{10})`, (m) => ({
    page: Math.max(1, page(m[1])),
    currency: m[2] as "a" | "t" | "u",
    typeRef: m[3] === "-" ? null : m[3]!,
  })),
  data: (page: number, currency: "a" | "t" | "u", typeRef: string) => `${page}.${currency}.${typeRef}`,
};

/** A rule's card: its reference, the list page it came from (0: opened elsewhere), ".t" when opened to top up. */
export const RULE_VIEW = {
  ...kind("", `${REF}\\.(\\d{1,4})(\\.t)?`, (m) => ({ ref: m[1]!, page: Number(m[2]), topUp: m[3] !== undefined })),
  data: (view: { ref: string; page: number; topUp?: boolean }) => `${view.ref}.${view.page}${view.topUp ? ".t" : ""}`,
};

/** A button of the rules list: a rule ("<ref>.<page>") or Prev and Next ("p.<page>", "n.<page>"). */
export const RULE_LIST_VIEW = {
  ...kind("", `(?:${REF}|([pnw]))\\.(\\d{1,4})`, (m) => ({
    ref: m[1] ?? null,
    page: Number(m[3]),
    turn: m[2] === "p" ? (-1 as const) : m[2] === "n" ? (1 as const) : (0 as const),
  })),
  /** A rule's button, Prev or Next, or New rule ("w"), on the page it was drawn on. */
  data: (at: { ref: string; page: number } | { turn: -1 | 1; page: number } | { add: true; page: number }) =>
    "ref" in at ? `${at.ref}.${at.page}` : "add" in at ? `w.${at.page}` : `${at.turn < 0 ? "p" : "n"}.${at.page}`,
};

/** A price watch's card or its line in the list: the watch's id. */
export const WATCH_VIEW = { ...kind("", REF, (m) => m[1]!), data: (id: string) => id };

/** An auto-buy's card or its line in /autobuys: the auto-buy's id. */
export const AUTO_BUY_VIEW = { ...kind("", REF, (m) => m[1]!), data: (id: string) => id };

/**
 * Team alerts. In a group, Resume and Pause under a copied "rule paused" alert (by the owner's rule
 * reference: whose it is is read from the reference, never from the button). In /group, a kind of
 * copied alert switched on or off, Choose a group, Stop group alerts.
 */
export const GROUP_RULE = {
  ...kind("gp:", `([rp]):${REF}`, (m) => ({
    action: m[1] === "r" ? ("resume" as const) : ("pause" as const),
    ref: m[2]!,
  })),
  data: (action: "resume" | "pause", ref: string) => `gp:${action === "resume" ? "r" : "p"}:${ref}`,
};
export const GROUP_COPY_TOGGLE = {
  ...kind(
    "gl:t:",
    "(filled|failed|paused|prices|other)",
    (m) => m[1] as "filled" | "failed" | "paused" | "prices" | "other",
  ),
  data: (copied: "filled" | "failed" | "paused" | "prices" | "other") => `gl:t:${copied}`,
};
export const GROUP_CHOOSE = fixed("gl:c");
export const GROUP_STOP = fixed("gl:x");
