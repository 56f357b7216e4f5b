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
 * The update's handling ends with its reply; the deferred work then goes on by itself, its calls
 * already queued in the chat's lane of the throttler, so they keep their order before anything a
 * later update of the chat sends. It counts among the updates in flight until it is done, so a
 * clean stop waits for it. (Awaiting it inside the handler held each such update for the chat's
 * 250 ms spacing: concurrent updates then came apart in time, their small writes stopped sharing a
 * commit, and CPU per update rose by half; bench/README.md.)
 *
 * The work is keyed by the update object grammY hands to the context (the conversations plugin
 * builds its contexts on the same object).
 */
const deferred = new WeakMap<Update, Array<() => Promise<unknown>>>();

/** Runs `work` once the update's handler has ended; at once where no update is being handled (jobs, replays). */
export async function afterReply(ctx: { update: Update }, work: () => Promise<unknown>): Promise<void> {
  const queue = deferred.get(ctx.update);
  if (queue) queue.push(work);
  else await work();
}

/**
 * Installed inside the chat's turn (after sequentialize): once the rest of the chain has ended,
 * well or not, the update's deferred work starts, in the order it was asked for, counted in
 * `inFlight` until it ends. Each piece handles its own failures; one that throws anyway is logged
 * and the rest still run.
 */
export function runAfterReply(inFlight: { count: number }): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const queue: Array<() => Promise<unknown>> = [];
    deferred.set(ctx.update, queue);
    try {
      await next();
    } finally {
      deferred.delete(ctx.update);
      if (queue.length > 0) {
        inFlight.count += 1;
        void runInOrder(ctx, queue).finally(() => {
          inFlight.count -= 1;
        });
      }
    }
  };
}

async function runInOrder(ctx: BotContext, queue: Array<() => Promise<unknown>>): Promise<void> {
  for (const work of queue) {
    await work().catch((error: unknown) =>
      ctx.deps?.logger.warn({ err: error, userId: ctx.from?.id }, "work deferred after a reply failed"),
    );
  }
}
