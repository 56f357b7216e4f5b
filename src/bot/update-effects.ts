import { GrammyError, type MiddlewareFn, type Transformer } from "grammy";
import type { Update } from "grammy/types";
import type { MarketplaceClient } from "#src/marketplace/index";
import type { BotContext, BotDeps } from "./context";

/**
 * What the handling of one Telegram update did that must not be done again when Telegram delivers
 * the same update a second time (webhook mode: an update answered with an error comes back).
 */
export interface UpdateEffects {
  /**
   * Something that must happen once ran: a key linked, an order or a rule placed, a rule paused,
   * resumed or cancelled. A redelivery of the update is then acknowledged without handling it.
   */
  onceDone: boolean;
  /** Messages already deleted ("chat:message"): a redelivery handles the update without deleting them again. */
  deleted: Set<string>;
}

export function newUpdateEffects(): UpdateEffects {
  return { onceDone: false, deleted: new Set() };
}

/**
 * The effects record of each update handled through the webhook, keyed by the update object
 * grammY hands to its context (ctx.update): carried with the update itself rather than through
 * AsyncLocalStorage, whose hooks would cost every promise of the process.
 */
const recorded = new WeakMap<Update, UpdateEffects>();

/** Runs the handling of one update, recording its effects into `effects`. */
export function withUpdateEffects<T>(update: Update, effects: UpdateEffects, run: () => Promise<T>): Promise<T> {
  recorded.set(update, effects);
  return run();
}

/** Records that this update did something that must happen once (no-op for an update not recorded). */
export function markOnceDone(ctx: { update: Update }): void {
  const effects = recorded.get(ctx.update);
  if (effects) effects.onceDone = true;
}

/**
 * A Bot API transformer for one update's own calls: a message the update already deleted in an
 * earlier delivery is not deleted again (Telegram would answer 400 "message to delete not
 * found"); the call is answered as done.
 */
function deleteOnceTransformer(effects: UpdateEffects): Transformer {
  return async (prev, method, payload, signal) => {
    if (method !== "deleteMessage") return prev(method, payload, signal);
    const { chat_id: chatId, message_id: messageId } = payload as { chat_id?: unknown; message_id?: unknown };
    const key = `${String(chatId)}:${String(messageId)}`;
    if (effects.deleted.has(key)) return { ok: true, result: true } as Awaited<ReturnType<typeof prev>>;
    const result = await prev(method, payload, signal);
    if (result.ok) effects.deleted.add(key);
    return result;
  };
}

/** Marketplace calls that change something: once sent, the update that sent them must not send them again. */
const ONCE_ONLY_CALLS: ReadonlySet<string> = new Set([
  "createOrder",
  "createRefill",
  "createRenewal",
  "createSmart",
  "pauseAutomation",
  "resumeAutomation",
  "cancelAutomation",
]);

/** The client, with every call in ONCE_ONLY_CALLS recorded as the update's once-only effect before it goes out. */
function trackedClient(client: MarketplaceClient, effects: UpdateEffects): MarketplaceClient {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof property !== "string" || !ONCE_ONLY_CALLS.has(property) || typeof value !== "function") return value;
      return (...args: unknown[]) => {
        effects.onceDone = true;
        return (value as (...args: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/**
 * For an update handled through the webhook: its marketplace writes are recorded as once-only
 * effects (through a view of the dependencies: everything else is read through the prototype), and
 * its own Bot API calls skip a delete done in an earlier delivery. Other updates pass untouched.
 */
export function recordUpdateEffects(): MiddlewareFn<BotContext> {
  return (ctx, next) => {
    const effects = recorded.get(ctx.update);
    if (effects) {
      const deps = ctx.deps;
      const marketplace: BotDeps["marketplace"] = (apiKey) => trackedClient(deps.marketplace(apiKey), effects);
      ctx.deps = Object.create(deps, { marketplace: { value: marketplace, enumerable: true } }) as BotDeps;
      ctx.api.config.use(deleteOnceTransformer(effects));
    }
    return next();
  };
}

/**
 * True for a Bot API error that no retry of the update can change: 403 (the user blocked the bot,
 * deleted their account, or the bot was kicked) and 400 (Telegram refuses the request as sent).
 * 429, 5xx and network errors pass with time and are left to Telegram's redelivery.
 */
export function failsOnEveryRetry(error: unknown): error is GrammyError {
  return error instanceof GrammyError && (error.error_code === 403 || error.error_code === 400);
}
