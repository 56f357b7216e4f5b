import { FixedWindowLimiter, type WindowLimit } from "#src/bounded/fixed-window";
import { SingleFlight } from "#src/bounded/single-flight";

/**
 * Requests one signer (Telegram user) may make to /app/api per window. Opening the dashboard
 * costs two (the dashboard and the spending); a person tapping Pause and Resume stays well
 * under it; init data replayed in a loop does not.
 */
export const SIGNER_LIMIT: WindowLimit = { limit: 30, windowMs: 60_000 };

/**
 * Rule list reads one signer may make per window (`GET /app/api/rules`, apart from the window
 * above): an open dashboard reads it every 2 s while it is visible, so two of them fit.
 */
export const WATCH_LIMIT: WindowLimit = { limit: 60, windowMs: 60_000 };

/**
 * How long the rule list a signer last read answers for their rule ids: an id not in a list read
 * this recently is answered "no such rule" without reading the marketplace again (the page only
 * offers the rules it was given).
 */
export const RULE_LIST_MS = 60_000;

/** Signers whose rule list is remembered at most; past it the oldest list goes first. */
const MAX_RULE_LISTS = 10_000;

/**
 * The dashboard API's bounds, in this process's memory (per replica; a restart forgets them): the
 * per-signer windows (one for the rule list the page follows, one for everything else), identical reads in flight shared per user, one action at a time per user and
 * rule, and the rule ids each signer last read.
 */
export class MiniAppBounds {
  readonly signers: FixedWindowLimiter;
  /** The rule list reads of open dashboards following their rules, per signer. */
  readonly watchers: FixedWindowLimiter;
  /** One dashboard read in flight per user, shared by every request for it meanwhile. */
  readonly dashboards = new SingleFlight<number, unknown>();
  /** One rule list read in flight per user, shared likewise (two open dashboards cost one). */
  readonly ruleReads = new SingleFlight<number, unknown>();
  private readonly actions = new Set<string>();
  private readonly ruleLists = new Map<number, { readAt: number; ids: ReadonlySet<string> }>();

  constructor(limit: WindowLimit = SIGNER_LIMIT, watchLimit: WindowLimit = WATCH_LIMIT) {
    this.signers = new FixedWindowLimiter(limit);
    this.watchers = new FixedWindowLimiter(watchLimit);
  }

  /**
   * Runs `work` as the only action on this user's rule; null, without running it, while another
   * is in flight, so no two marketplace writes pass the same state check.
   */
  async exclusive<T>(telegramId: number, ruleId: string, work: () => Promise<T>): Promise<T | null> {
    const key = `${telegramId}:${ruleId}`;
    if (this.actions.has(key)) return null;
    this.actions.add(key);
    try {
      return await work();
    } finally {
      this.actions.delete(key);
    }
  }

  /** Remembers the ids of the rules the marketplace listed for this user just now. */
  rememberRules(telegramId: number, ids: Iterable<string>, now: number): void {
    this.ruleLists.delete(telegramId);
    this.ruleLists.set(telegramId, { readAt: now, ids: new Set(ids) });
    while (this.ruleLists.size > MAX_RULE_LISTS) this.ruleLists.delete(this.ruleLists.keys().next().value!);
  }

  /** False when the user's rule list, read less than RULE_LIST_MS ago, has no such id; true otherwise (no fresh list: ask the marketplace). */
  mayHaveRule(telegramId: number, ruleId: string, now: number): boolean {
    const list = this.ruleLists.get(telegramId);
    if (!list || now - list.readAt >= RULE_LIST_MS || now < list.readAt) return true;
    return list.ids.has(ruleId);
  }
}
