import { findCredential } from "#src/db/repos/credentials";
import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import type { EmbeddedSandbox } from "#src/embedded-sandbox";
import type { FakeTelegram } from "#src/telegram-fake/index";
import { createPersonalWebhookTokens, webhookUrlFromChat } from "./personal-webhook";
import { endRentalSoon } from "#src/db/repos/rental-ends";
import { checkAllBalancesSoon } from "#src/db/repos/balance-watch";

/** What the panel may use in the bot once the app is up (see PlaygroundHandle.attach). */
export interface PanelHooks {
  checkOrdersNow?: () => Promise<unknown>;
  pollNotificationsNow?: () => Promise<unknown>;
  /** Checks every price watch now (not waiting for the cron tick). */
  checkPriceWatchesNow?: () => Promise<unknown>;
  /** Queues the "ends" alerts that are due now (not waiting for the cron tick). */
  checkRentalEndsNow?: () => Promise<unknown>;
  db?: Kysely<Database>;
  now?: () => number;
  /** This server's own URL: the sandbox posts webhooks to its receiver route there. */
  selfUrl?: string;
  publicUrl?: string | null;
}

export class PanelError extends Error {
  constructor(
    readonly status: 400 | 404 | 409 | 502,
    message: string,
  ) {
    super(message);
  }
}

type Body = Record<string, unknown>;

/** Where the request came in: the server's own origin, as the browser (or script) reached it. */
export interface ActionContext {
  origin?: string;
}

export type PanelActions = Record<string, (body: Body, context: ActionContext) => Promise<unknown>>;

/** What every action of the panel works with: the demo account of the embedded sandbox, the fake Telegram, the bot's hooks. */
export interface PanelScope {
  embedded: EmbeddedSandbox;
  fake: FakeTelegram;
  hooks: () => PanelHooks;
  accountId: string;
  /** The webhook URL the panel last set on the demo account (shown in its state). */
  webhook: { url: string | null };
  /** Whether orders settle by themselves, and after how many seconds. */
  settlement(): { auto: false; seconds: null } | { auto: true; seconds: number };
}

/** A body's string field, trimmed; the fallback when it is missing, or a 400. */
function str(body: Body, key: string, fallback?: string): string {
  const value = body[key];
  if (typeof value === "string" && value.trim() !== "") return value.trim();
  if (fallback !== undefined) return fallback;
  throw new PanelError(400, `${key} is required`);
}

/** Lets the bot see a change at once: the sandbox's tick, then the bot's check of open orders. */
async function nudgeOrders({ embedded, hooks }: PanelScope): Promise<void> {
  await embedded.sandbox.tick();
  await hooks().checkOrdersNow?.();
}

/** Lets the bot see a new notification at once instead of at the next poll. */
async function nudgeNotifications({ hooks }: PanelScope): Promise<void> {
  await hooks().pollNotificationsNow?.();
}

/** Money and orders: a deposit, settling, how orders settle, a failing next order, a backdated history. */
export function orderActions(scope: PanelScope): PanelActions {
  const { sandbox } = scope.embedded;
  const { accountId, settlement } = scope;
  return {
    async deposit(body) {
      const currency = str(body, "currency", "TRX");
      const entry = sandbox.control.creditDeposit({
        accountId,
        currency: currency as "TRX",
        amount: str(body, "amount", "100"),
      });
      await nudgeNotifications(scope);
      return { entry, balance: sandbox.control.getBalance(accountId) };
    },
    async settle() {
      const settled = sandbox.control.settleNow({ accountId });
      await nudgeOrders(scope);
      return { settled };
    },
    /** `{ seconds: N }`: orders settle by themselves N s after they are placed; `{ seconds: null }`: they wait for settle. */
    async "settle-mode"(body) {
      const seconds = body.seconds;
      if (
        seconds !== null &&
        (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0 || seconds > 3600)
      ) {
        throw new PanelError(
          400,
          "seconds must be a number from 0 to 3600, or null (orders wait for the panel's settle)",
        );
      }
      sandbox.control.setSettleDelay({ ms: seconds === null ? null : Math.round(seconds * 1000) });
      return { settlement: settlement() };
    },
    async "fail-next"(body) {
      const mode = str(body, "mode", "async");
      sandbox.control.failNextOrder({ accountId, mode: mode as "sync" });
      return { armed: mode };
    },
    /**
     * `{ userId, orderId? }`: the user's newest filled rental (or that order's) is moved forward on
     * the bot's clock, so it ends in its alert's lead time (10 minutes for an hour or longer): the
     * "ends" alert, with Renew, comes at once.
     */
    async "rental-ends"(body) {
      const { db, now } = scope.hooks();
      if (!db || !now) throw new PanelError(409, "the bot is still starting; try again in a moment");
      const userId = Number(body.userId);
      if (!Number.isSafeInteger(userId) || userId < 1) throw new PanelError(400, "userId is required");
      const orderId = typeof body.orderId === "string" && body.orderId !== "" ? body.orderId : null;
      const rental = await endRentalSoon(db, userId, orderId, now());
      if (!rental)
        throw new PanelError(
          409,
          "No filled order of this user is waiting for its end: buy with /buy, settle it, then try again.",
        );
      await scope.hooks().checkRentalEndsNow?.();
      return { orderId: rental.order_id, endsAt: new Date(Number(rental.ends_at)).toISOString() };
    },
    /** `{ days: N }` (default 30): backdated orders, rule firings and ledger entries for /stats to chart. */
    async "fill-history"(body) {
      const days = body.days === undefined ? 30 : body.days;
      if (typeof days !== "number" || !Number.isInteger(days) || days < 1 || days > 90)
        throw new PanelError(400, "days must be a whole number from 1 to 90");
      return sandbox.control.fillHistory({ accountId, days });
    },
  };
}

/** The rule id when the rule is the demo account's, or a 404. */
function ownRule({ embedded, accountId }: PanelScope, ruleId: string): string {
  if (!embedded.sandbox.control.listRules(accountId).some((rule) => rule.id === ruleId))
    throw new PanelError(404, "no such rule on the demo account");
  return ruleId;
}

/** Rules and prices: firing and pausing a rule, setting a price, checking price watches and auto-buys. */
export function ruleAndPriceActions(scope: PanelScope): PanelActions {
  const { sandbox } = scope.embedded;
  const { hooks } = scope;
  return {
    /** One delivery now; the users' balance checks come forward, so a low balance (or a delivery, when asked for) is told at once. */
    async "fire-rule"(body) {
      const result = sandbox.control.fireRule({ ruleId: ownRule(scope, str(body, "ruleId")) });
      const { db, now } = hooks();
      if (db && now) await checkAllBalancesSoon(db, now());
      await nudgeNotifications(scope);
      return result;
    },
    async "pause-rule"(body) {
      const rule = sandbox.control.systemPauseRule({ ruleId: ownRule(scope, str(body, "ruleId")) });
      await nudgeNotifications(scope);
      return { rule };
    },
    /**
     * `{ resource, duration, sunPerUnit }`: the rate quotes, previews and orders use (sunPerUnit
     * null restores the price book's); price watches and auto-buys are checked at once, so a watch
     * the new price reaches alerts the chat now, and an auto-buy under its cap buys now.
     */
    async "set-price"(body) {
      const sunPerUnit = body.sunPerUnit === null ? null : body.sunPerUnit;
      const rate = sandbox.control.setPrice({
        resource: str(body, "resource", "energy") as "energy",
        duration: str(body, "duration", "1h") as "1h",
        sunPerUnit: sunPerUnit as number | null,
      });
      const watches = await hooks().checkPriceWatchesNow?.();
      return { rate, watches: watches ?? null };
    },
    async "check-watches"() {
      return { watches: (await hooks().checkPriceWatchesNow?.()) ?? null };
    },
  };
}

/** What reaches the chat from the marketplace: a notification, the webhook URL, an order's webhook. */
export function messageActions(scope: PanelScope): PanelActions {
  const { embedded, fake, hooks, accountId } = scope;
  const { sandbox } = embedded;
  const tokenFor = createPersonalWebhookTokens(fake);
  return {
    async notify(body) {
      const notification = sandbox.control.addNotification({
        accountId,
        title: str(body, "title", "Announcement"),
        body: str(body, "body"),
        level: str(body, "level", "info"),
      });
      await nudgeNotifications(scope);
      return { notification };
    },
    async webhook(body, context) {
      let url: string | null;
      if (body.url === null) url = null;
      else if (typeof body.url === "string" && body.url.trim() !== "") url = body.url.trim();
      else {
        const userId = Number(body.userId);
        const shown = Number.isSafeInteger(userId) ? webhookUrlFromChat(fake, userId) : null;
        if (!shown) {
          throw new PanelError(409, "No personal webhook URL in this chat yet: send /webhook first.");
        }
        // PUBLIC_URL may name an origin this machine cannot reach offline: the sandbox posts to the
        // same path on this server's own origin instead.
        url = typeof context.origin === "string" ? `${context.origin}${new URL(shown).pathname}` : shown;
      }
      sandbox.control.setWebhookUrl({ accountId, url });
      scope.webhook.url = url;
      return { webhookUrl: url };
    },
    /**
     * Has the sandbox POST order.filled / order.failed for one of the demo account's orders (the
     * newest by default) to this server's receiver route with the user's personal token, over
     * HTTP, whatever PUBLIC_URL says: the event takes the same path as a real marketplace's.
     */
    async "send-webhook"(body) {
      const { db, now, selfUrl, publicUrl } = hooks();
      if (!db || !now || !selfUrl) throw new PanelError(409, "the bot is still starting; try again in a moment");
      const userId = Number(body.userId);
      if (!Number.isSafeInteger(userId) || userId < 1) throw new PanelError(400, "userId is required");
      const orders = sandbox.control.listOrders(accountId);
      const order =
        body.orderId === undefined || body.orderId === ""
          ? orders[0]
          : orders.find((candidate) => candidate.id === body.orderId);
      if (!order)
        throw new PanelError(
          body.orderId === undefined || body.orderId === "" ? 409 : 404,
          orders.length
            ? "no such order on the demo account"
            : "The demo account has no orders yet: place one with /buy first.",
        );
      if (order.status === "Created" && body.event === undefined)
        throw new PanelError(409, `Order ${order.id.slice(0, 8)} is still Created: settle it first.`);
      if (!(await findCredential(db, userId)))
        throw new PanelError(
          409,
          'This user has no linked key: press "/connect it" first (the alert goes to the user who owns the order).',
        );
      const outcome = await tokenFor(db, userId, now(), !publicUrl);
      if ("unknown" in outcome) {
        throw new PanelError(
          409,
          "This user already has a personal webhook URL and only its hash is stored: send /webhook, press Rotate, then try again.",
        );
      }
      const url = `${selfUrl}/webhooks/marketplace/${outcome.token}`;
      const sent = await embedded.postOrderWebhook({
        orderId: order.id,
        url,
        ...(typeof body.event === "string" ? { event: body.event as "order.filled" } : {}),
      });
      if (!sent.delivered) {
        throw new PanelError(
          502,
          `The bot's receiver did not accept ${sent.event}: ${sent.error} (sandbox webhooks are unsigned, so MARKETPLACE_WEBHOOK_SECRET must be unset).`,
        );
      }
      return {
        orderId: order.id,
        event: sent.event,
        eventId: sent.eventId,
        delivered: true,
        tokenIssued: outcome.issued,
      };
    },
  };
}
