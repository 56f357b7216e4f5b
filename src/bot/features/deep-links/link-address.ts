import { findAddress } from "#src/db/repos/addresses";
import type { BotContext } from "#src/bot/context";

/** The address a deep link opened in an update carried, by update (gone with it). */
const linkAddresses = new WeakMap<object, string>();

/** Updates that opened a watch_ deep link. */
const watchLinks = new WeakSet<object>();

/** Records that this update opens a watch_ deep link: the watch is asked about before it is saved. */
export function rememberWatchLink(ctx: BotContext): void {
  watchLinks.add(ctx.update);
}

/** True when this update opened a watch_ deep link, so /watch asks before it saves (see watch-link). */
export function openedWatchLink(ctx: BotContext): boolean {
  return watchLinks.has(ctx.update);
}

/** Records that the deep link this update opens carries `address`. */
export function rememberLinkAddress(ctx: BotContext, address: string): void {
  linkAddresses.set(ctx.update, address);
}

/**
 * True when `address` is not one the user has used or saved here (their recent addresses):
 * someone else's address, perhaps, in a link anyone can post.
 */
export async function unfamiliarAddress(ctx: BotContext, address: string): Promise<boolean> {
  return !(await findAddress(ctx.deps.db, ctx.account.telegram_id, address));
}

/**
 * True when `address` came from the deep link this update opened and is not one of the user's
 * recent addresses: its card says so above Confirm.
 */
export async function addressFromStrangeLink(ctx: BotContext, address: string | undefined): Promise<boolean> {
  if (!address || linkAddresses.get(ctx.update) !== address) return false;
  return unfamiliarAddress(ctx, address);
}
