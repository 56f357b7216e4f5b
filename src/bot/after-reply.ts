import type { MiddlewareFn } from "grammy";
import type { Update } from "grammy/types";
import type { BotContext } from "./context";

/**
 * Work an update does that its user is not waiting for (removing an answered question's buttons,
 * redrawing an older card) runs after the update's handler, so the reply goes out first.
 *
 * A private chat's Bot API calls start at least 250 ms apart (bot/chat-throttle), so a button
 * removal sent before the reply held the reply back a quarter of a second: the p99 from an update
 * to its reply went from about 2 ms to about 250 ms (bench/README.md). Deferred, the removal takes
 * the chat's next turn instead, after the reply, and the chat's pace is kept.
 *
 * The work is keyed by the update object grammY hands to the context (the conversations plugin
 * builds its contexts on the same object), and still runs inside the chat's turn: the update's
 * handling ends only when it is done, so nothing is lost on a clean stop and the chat's next
 * update sees it done.
 */
const deferred = new WeakMap<Update, Array<() => Promise<unknown>>>();

/** Runs `work` once the update's handler has ended; at once where no update is being handled (jobs, replays). */
export async function afterReply(ctx: { update: Update }, work: () => Promise<unknown>): Promise<void> {
  const queue = deferred.get(ctx.update);
  if (queue) queue.push(work);
  else await work();
}

/**
 * Installed inside the chat's turn (after sequentialize): the deferred work of the update runs in
 * the order it was asked for once the rest of the chain has ended, whether it ended well or not.
 * Each piece handles its own failures; one that throws anyway is logged and the rest still run.
 */
export function runAfterReply(): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const queue: Array<() => Promise<unknown>> = [];
    deferred.set(ctx.update, queue);
    try {
      await next();
    } finally {
      deferred.delete(ctx.update);
      for (const work of queue) {
        await work().catch((error: unknown) => ctx.deps?.logger.warn({ err: error, userId: ctx.from?.id }, "work deferred after a reply failed"));
      }
    }
  };
}
