import type { MiddlewareFn } from "grammy";
import type { Message } from "grammy/types";
import type { BotContext } from "../context";
import { currentFlow } from "../flows";
import { keyStepOpen } from "../features/connect/step";

const PRIVATE_KEY = /(?:^|[^0-9a-fA-F])(?:0x)?[0-9a-fA-F]{64}(?:$|[^0-9a-fA-F])/;
const CONNECT_WITH_KEY = /^\/connect(?:@\w+)?\s+\S/;
const CONNECT_COMMAND = /^\/connect(?:@\w+)?(?:\s|$)/;

/** True when the text looks like a TRON private key (64 hex) or a 12/24-word seed phrase. */
export function looksLikeWalletSecret(text: string): boolean {
  if (PRIVATE_KEY.test(text)) return true;
  const words = text.trim().toLowerCase().split(/\s+/);
  return (words.length === 12 || words.length === 24) && words.every((word) => /^[a-z]{3,8}$/.test(word));
}

/** True for `/connect KEY`: the message itself carries an API key. */
export function carriesConnectKey(text: string): boolean {
  return CONNECT_WITH_KEY.test(text);
}

function messageText(message: Message | undefined): string | undefined {
  return message?.text ?? message?.caption;
}

/** Deleted messages, by update: the key step and the guard may both want the same one gone. */
const deleted = new WeakSet<object>();

/** Deletes the message (new or edited) of this update once; a failure is logged without the content. */
export async function deleteSecretMessage(ctx: BotContext, why: string): Promise<void> {
  if (deleted.has(ctx.update)) return;
  deleted.add(ctx.update);
  await ctx
    .deleteMessage()
    .catch((error: unknown) => ctx.deps.logger.warn({ err: error, userId: ctx.from?.id }, `could not delete ${why}`));
}

/**
 * Groups: a `/connect KEY` is deleted (best effort: the bot may not be an admin there) before the
 * private-chats-only answer. Runs before anything that could stop the update.
 */
export function groupKeyGuard(): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const chat = ctx.chat;
    const text = messageText(ctx.message ?? ctx.editedMessage);
    if (chat && chat.type !== "private" && text && carriesConnectKey(text))
      await deleteSecretMessage(ctx, "a /connect key sent in a group");
    return next();
  };
}

/**
 * A private key or seed phrase pasted by mistake is deleted at once and never logged or stored.
 * Runs before the rate limit, so a flood never keeps a secret on screen. The open /connect key step
 * is exempt (API keys may look alike); that step deletes its message itself. Edits are never read as
 * answers, so an edit carrying a secret, a `/connect KEY` or text during the key step is deleted.
 */
export function secretPasteGuard(): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    if (ctx.editedMessage) return guardEdit(ctx, next);
    const text = messageText(ctx.message);
    if (!text || !looksLikeWalletSecret(text)) return next();
    if (CONNECT_COMMAND.test(text)) return next();
    if (keyStepOpen(await currentFlow(ctx), ctx.deps.now())) return next();
    await warnWalletSecret(ctx);
  };
}

async function warnWalletSecret(ctx: BotContext): Promise<void> {
  await deleteSecretMessage(ctx, "a pasted wallet secret");
  ctx.deps.logger.warn(
    { userId: ctx.from?.id },
    "a message that looked like a wallet secret was deleted (content not logged)",
  );
  await ctx.reply(ctx.tr("secret-pasted"), { parse_mode: "HTML" });
}

async function guardEdit(ctx: BotContext, next: () => Promise<void>): Promise<void> {
  const text = messageText(ctx.editedMessage);
  if (!text || ctx.chat?.type !== "private") return next();
  if (looksLikeWalletSecret(text) && !CONNECT_COMMAND.test(text)) return warnWalletSecret(ctx);
  if (carriesConnectKey(text) || (!text.startsWith("/") && keyStepOpen(await currentFlow(ctx), ctx.deps.now()))) {
    await deleteSecretMessage(ctx, "an edited message carrying an API key");
    await ctx.reply(ctx.tr("connect-edited"), { parse_mode: "HTML" });
    return;
  }
  return next();
}

/**
 * For updates the rate limit drops: a `/connect KEY` or the answer to an open key step still
 * carries an API key, so it is deleted even though nothing else is done with it.
 */
export async function deleteDroppedKey(ctx: BotContext): Promise<void> {
  const text = messageText(ctx.message ?? ctx.editedMessage);
  if (!text || ctx.chat?.type !== "private") return;
  if (carriesConnectKey(text)) return deleteSecretMessage(ctx, "a /connect key dropped by the rate limit");
  if (text.startsWith("/")) return;
  if (keyStepOpen(await currentFlow(ctx), ctx.deps.now()))
    await deleteSecretMessage(ctx, "a key-step answer dropped by the rate limit");
}
