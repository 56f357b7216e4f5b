import type { MiddlewareFn } from "grammy";
import type { Kysely } from "kysely";
import type { BotContext } from "../context";
import type { Database } from "#src/db/schema";
import { isPostgres } from "#src/db/dialect";
import { countUpdateInWindow } from "#src/db/repos/update-windows";
import { deleteDroppedKey } from "./secret-paste";
import { takePrefetched } from "../prefetched";
import { pickLanguage, translatorFor } from "#src/chat/i18n";

export const FLOOD_WINDOW_MS = 10_000;
export const FLOOD_MAX_UPDATES = 20;

/** The callback-query id prefix of the presses the dashboard makes on a user's behalf (src/miniapp/open-cards); Telegram's ids are digits. */
export const DASHBOARD_PRESS_PREFIX = "dashboard:";

/** A press the dashboard made to redraw a rule card: not the user's own update, so it never counts against their flood limit. */
export function isDashboardPress(ctx: Pick<BotContext, "callbackQuery">): boolean {
  return ctx.callbackQuery?.id.startsWith(DASHBOARD_PRESS_PREFIX) === true;
}

/** Counts a user's updates in their current window: the place of this one (1 for the first). */
export interface UpdateCounter {
  count(userId: number, now: number): Promise<number>;
}

/** One process's count (SQLite: one process by design). A restart forgets it, which costs nothing. */
export function memoryUpdateCounter(): UpdateCounter {
  const windows = new Map<number, { start: number; count: number }>();
  return {
    async count(userId, now) {
      let window = windows.get(userId);
      if (!window || now - window.start > FLOOD_WINDOW_MS) {
        window = { start: now, count: 0 };
        windows.set(userId, window);
        if (windows.size > 50_000)
          for (const [id, w] of windows) if (now - w.start > FLOOD_WINDOW_MS) windows.delete(id);
      }
      window.count += 1;
      return window.count;
    },
  };
}

/**
 * Every replica's count in one row per user: one upsert per update (PostgreSQL, shared by replicas).
 * Updates with a chat are counted by loadAccount's read instead (see windowCountedWithRead); this
 * counts the others (inline queries).
 */
export function databaseUpdateCounter(db: Kysely<Database>): UpdateCounter {
  return { count: (userId, now) => countUpdateInWindow(db, userId, now, FLOOD_WINDOW_MS) };
}

/** The counter for this database: shared through it on PostgreSQL, in memory on SQLite. */
export function updateCounterFor(db: Kysely<Database>): UpdateCounter {
  return isPostgres(db) ? databaseUpdateCounter(db) : memoryUpdateCounter();
}

/**
 * Whether loadAccount's read of the user counts the update in the shared window (PostgreSQL: the
 * window's upsert and the read are one statement, one round trip per update fewer); rateLimit then
 * takes the place it found. Updates that reach rateLimit without that read (no chat) count here.
 */
export function windowCountedWithRead(db: Kysely<Database>): boolean {
  return isPostgres(db);
}

/**
 * Per-user flood control: more than 20 updates in 10 s gets one polite warning, then the rest of
 * the window is dropped. The count holds across replicas when they share PostgreSQL, so a load
 * balancer spreading a user's updates does not multiply the limit; only the update that crosses
 * the limit warns, whichever replica has it. There the place of an update with a chat was found by
 * loadAccount's read, in the same statement, and is taken from it.
 * Wallet secrets are deleted by the guard before this runs; a dropped message carrying an API key
 * is still deleted here.
 */
export function rateLimit(): MiddlewareFn<BotContext> {
  let counter: UpdateCounter | undefined;
  return async (ctx, next) => {
    const userId = ctx.from?.id;
    if (userId === undefined || isDashboardPress(ctx)) return next();
    let place = takePrefetched(ctx, "windowPlace");
    try {
      if (place === undefined) {
        counter ??= updateCounterFor(ctx.deps.db);
        place = await counter.count(userId, ctx.deps.now());
      }
    } catch (error) {
      // The database is what failed; the update's own handling will meet it too. Letting it
      // through keeps a brief outage from reading as a flood.
      ctx.deps.logger.warn({ err: error, userId }, "flood limit could not be counted; update let through");
      return next();
    }
    if (place <= FLOOD_MAX_UPDATES) return next();
    ctx.deps.metrics.publicWorkLimited.inc({ limit: "flood" });
    await deleteDroppedKey(ctx);
    if (ctx.callbackQuery) await ctx.answerCallbackQuery().catch(() => undefined);
    // An inline query has no chat to warn in: it is answered with no results and a "slow down" button.
    if (ctx.inlineQuery) return answerFloodedInlineQuery(ctx);
    if (place === FLOOD_MAX_UPDATES + 1) {
      ctx.deps.logger.warn({ userId }, "flood: updates dropped for the rest of the window");
      await ctx.reply(ctx.tr("flood-warning"), { parse_mode: "HTML" });
    }
  };
}

async function answerFloodedInlineQuery(ctx: BotContext): Promise<void> {
  const tr = translatorFor(ctx.deps.i18n, pickLanguage(ctx.from?.language_code));
  const options = {
    cache_time: FLOOD_WINDOW_MS / 1000,
    is_personal: true,
    button: { text: tr("inline-slow-down"), start_parameter: "quote" },
  };
  await ctx
    .answerInlineQuery([], options)
    .catch((error: unknown) => ctx.deps.logger.debug({ err: error }, "a flooded inline query could not be answered"));
}
