import { AsyncLocalStorage } from "node:async_hooks";
import { GrammyError, type Transformer } from "grammy";
import type { MarketplaceClient } from "#src/marketplace/index";
import type { BotDeps } from "./context";

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

const current = new AsyncLocalStorage<UpdateEffects>();

/** Runs the handling of one update, recording its effects into `effects`. */
export function withUpdateEffects<T>(effects: UpdateEffects, run: () => Promise<T>): Promise<T> {
  return current.run(effects, run);
}

/** Records that the update being handled did something that must happen once (no-op outside a recorded update). */
export function markOnceDone(): void {
  const effects = current.getStore();
  if (effects) effects.onceDone = true;
}

/**
 * A Bot API transformer, installed outermost so it runs in the calling update's context: a
 * message the update already deleted in an earlier delivery is not deleted again (Telegram would
 * answer 400 "message to delete not found"); the call is answered as done.
 */
export function deleteOnceTransformer(): Transformer {
  return async (prev, method, payload, signal) => {
    const effects = method === "deleteMessage" ? current.getStore() : undefined;
    if (!effects) return prev(method, payload, signal);
    const { chat_id: chatId, message_id: messageId } = payload as { chat_id?: unknown; message_id?: unknown };
    const key = `${String(chatId)}:${String(messageId)}`;
    if (effects.deleted.has(key)) return { ok: true, result: true } as Awaited<ReturnType<typeof prev>>;
    const result = await prev(method, payload, signal);
    if (result.ok) effects.deleted.add(key);
    return result;
  };
}

/** Marketplace calls that change something: once sent, the update that sent them must not send them again. */
const ONCE_ONLY_CALLS: ReadonlySet<string> = new Set(["createOrder", "createRefill", "createRenewal", "createSmart", "pauseAutomation", "resumeAutomation", "cancelAutomation"]);

const trackedClients = new WeakMap<MarketplaceClient, MarketplaceClient>();

/** The client, with every call in ONCE_ONLY_CALLS recorded as the update's once-only effect before it goes out. */
function trackedClient(client: MarketplaceClient): MarketplaceClient {
  let tracked = trackedClients.get(client);
  if (!tracked) {
    tracked = new Proxy(client, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof property !== "string" || !ONCE_ONLY_CALLS.has(property) || typeof value !== "function") return value;
        return (...args: unknown[]) => {
          markOnceDone();
          return (value as (...args: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    trackedClients.set(client, tracked);
  }
  return tracked;
}

/**
 * The bot's dependencies with marketplace writes recorded as once-only effects. A view, not a
 * copy: a dependency replaced on `deps` later is seen through it.
 */
export function depsRecordingEffects(deps: BotDeps): BotDeps {
  const marketplace: BotDeps["marketplace"] = (apiKey) => trackedClient(deps.marketplace(apiKey));
  // Everything else is read through the prototype: plain property reads, no proxy on the hot path.
  return Object.create(deps, { marketplace: { value: marketplace, enumerable: true } }) as BotDeps;
}

/**
 * True for a Bot API error that no retry of the update can change: 403 (the user blocked the bot,
 * deleted their account, or the bot was kicked) and 400 (Telegram refuses the request as sent).
 * 429, 5xx and network errors pass with time and are left to Telegram's redelivery.
 */
export function failsOnEveryRetry(error: unknown): error is GrammyError {
  return error instanceof GrammyError && (error.error_code === 403 || error.error_code === 400);
}
