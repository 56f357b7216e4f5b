import { type Composer, InlineKeyboard, type NextFunction } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import { MAIN_MENU } from "#src/chat/callback-data";
import { tryConnectAttempt } from "#src/db/repos/connect-attempts";
import { findCredential, saveApiKey } from "#src/db/repos/credentials";
import { closeOpenCards } from "#src/db/repos/pending-actions";
import { setUserAutoBuysStatus } from "#src/db/repos/auto-buys";
import { MarketplaceError } from "#src/marketplace/index";
import type { BotContext } from "#src/bot/context";
import { knownAmountText } from "#src/chat/format";
import { currentFlow, endFlow, startKeyStep } from "#src/bot/flows";
import { FLOW_COMMANDS, type FlowName } from "#src/bot/guided/steps";
import { keyStepOpen } from "./step";
import { deleteSecretMessage } from "#src/bot/middleware/secret-paste";
import type { MenuActions } from "#src/bot/context";
import { forgetPrefetched } from "#src/bot/prefetched";
import { markOnceDone } from "#src/bot/update-effects";

const ATTEMPT_CAP = { limit: 10, windowMs: 3_600_000 };
const KEY_SHAPE = /^[\x21-\x7e]{8,256}$/;

/**
 * /connect, one-line (`/connect KEY`) and guided. The message carrying the key is deleted before
 * anything else happens. The guided flow stores only "waiting for the key" (and since when: the
 * step closes after KEY_STEP_TTL_MS) — the key itself never rests in the flow table, a
 * conversation's log, a session or a log; it is checked with a read call, then encrypted. This
 * step is deliberately not a conversation (see flows.ts).
 */
export function connectFeature(menu: MenuActions): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();
  composer.command("connect", connectCommand);
  composer.on("message:text", keyStepText);
  composer.on("message:caption", keyStepCaption);
  menu.register("connect", askForKey);
  return composer;
}

// In the database, not in memory: the cap must survive a restart and bind every replica at once.
function allowAttempt(ctx: BotContext): Promise<boolean> {
  return tryConnectAttempt(ctx.deps.db, ctx.account.telegram_id, ctx.deps.now(), ATTEMPT_CAP);
}

async function deleteKeyMessage(ctx: BotContext): Promise<void> {
  await deleteSecretMessage(ctx, "the message carrying an API key");
}

async function askForKey(ctx: BotContext): Promise<void> {
  const existing = await findCredential(ctx.deps.db, ctx.account.telegram_id);
  await startKeyStep(ctx);
  const lines = [ctx.tr("connect-ask")];
  if (existing) lines.push("", ctx.tr("connect-replaces", { last4: existing.last4 }));
  await ctx.reply(lines.join("\n"), { parse_mode: "HTML" });
}

async function link(ctx: BotContext, rawKey: string): Promise<void> {
  const key = rawKey.trim();
  if (!(await allowAttempt(ctx))) {
    await endFlow(ctx);
    await ctx.reply(ctx.tr("connect-too-many"), { parse_mode: "HTML" });
    return;
  }
  if (!KEY_SHAPE.test(key)) {
    await ctx.reply(ctx.tr("connect-bad-shape"), { parse_mode: "HTML", reply_markup: retryButton(ctx) });
    return;
  }
  const client = ctx.deps.marketplace(() => key);
  let balance;
  try {
    balance = await client.balance();
  } catch (error) {
    if (!(error instanceof MarketplaceError)) throw error;
    const rejected = error.kind === "unauthorized" || error.kind === "forbidden" || error.kind === "insufficient_scope";
    ctx.deps.logger.info(
      { userId: ctx.account.telegram_id, kind: error.kind },
      "a key offered to /connect was not accepted; nothing stored",
    );
    await ctx.reply(ctx.tr(rejected ? "connect-rejected" : "connect-unreachable"), {
      parse_mode: "HTML",
      reply_markup: retryButton(ctx),
    });
    return;
  }
  const previous = await findCredential(ctx.deps.db, ctx.account.telegram_id);
  forgetPrefetched(ctx, "credential");
  await saveApiKey(ctx.deps.db, ctx.deps.box, ctx.account.telegram_id, key, ctx.deps.now());
  // Linked: a redelivery of this update (its reply failed) must not link the key again.
  markOnceDone(ctx);
  // Cards shown under the replaced key can no longer be confirmed: the new key may spend on another account.
  if (previous) await closeOpenCards(ctx.deps.db, ctx.account.telegram_id, ctx.deps.now());
  // Auto-buys were authorized under the replaced key, maybe of another account: they stop, told here.
  const stoppedAutoBuys = previous
    ? await setUserAutoBuysStatus(
        ctx.deps.db,
        ctx.account.telegram_id,
        ["active", "paused", "waiting", "stopped"],
        "stopped",
        "relinked",
        ctx.deps.now(),
      )
    : [];
  await endFlow(ctx);
  ctx.deps.options.forget(ctx.account.telegram_id);
  await ctx.deps.onLinked(ctx.account.telegram_id);
  ctx.deps.logger.info({ userId: ctx.account.telegram_id, replaced: Boolean(previous) }, "API key linked");
  const lines = [
    ctx.tr(previous ? "connect-replaced" : "connect-linked", { last4: key.slice(-4) }),
    ctx.tr("balance-line", {
      trx: knownAmountText(balance.trx, ctx.lang),
      usdt: knownAmountText(balance.usdtTrc20, ctx.lang),
    }),
  ];
  if (stoppedAutoBuys.length > 0) lines.push("", ctx.tr("connect-autobuys-stopped", { count: stoppedAutoBuys.length }));
  await ctx.reply(lines.join("\n"), { parse_mode: "HTML" });
}

function retryButton(ctx: BotContext): InlineKeyboard {
  return new InlineKeyboard().text(ctx.tr("button-try-again"), MAIN_MENU.data("connect"));
}

/** `/connect KEY` links at once (the message deleted first); a bare `/connect` asks for the key. */
async function connectCommand(ctx: BotContext & { match: string }): Promise<void> {
  const key = ctx.match.trim();
  if (!key) return askForKey(ctx);
  await deleteKeyMessage(ctx);
  await endFlow(ctx);
  await link(ctx, key);
}

/** The answer to the key step: typed text only (a button press cannot carry a key), deleted at once. */
async function keyStepText(ctx: BotContext & { message: { text: string } }, next: NextFunction): Promise<void> {
  if (ctx.message.text.startsWith("/")) return next();
  const state = await currentFlow(ctx);
  if (state && Object.hasOwn(FLOW_COMMANDS, state.flow)) {
    // A step of a guided flow from before flows were conversations: it expired with that deploy.
    await endFlow(ctx);
    await ctx.reply(ctx.tr("flow-expired", { command: FLOW_COMMANDS[state.flow as FlowName] }), { parse_mode: "HTML" });
    return;
  }
  if (state?.flow !== "connect") return next();
  if (!keyStepOpen(state, ctx.deps.now())) {
    // Typed long after the question: ordinary text, never sent to the marketplace. (A wallet
    // secret was already deleted by the guard, which exempts only an open step.)
    await endFlow(ctx);
    await ctx.reply(ctx.tr("unknown-text"), { parse_mode: "HTML" });
    return;
  }
  await deleteKeyMessage(ctx);
  await link(ctx, ctx.message.text);
}

/** A key sent as a photo's or a file's caption during the open step: deleted at once all the same, and read as the answer. */
async function keyStepCaption(ctx: BotContext & { message: { caption: string } }, next: NextFunction): Promise<void> {
  const state = await currentFlow(ctx);
  if (state?.flow !== "connect" || !keyStepOpen(state, ctx.deps.now())) return next();
  await deleteKeyMessage(ctx);
  await link(ctx, ctx.message.caption);
}
