import type { Kysely } from "kysely";
import type { Database } from "../db/schema";
import { findCredential } from "../db/repos/credentials";
import type { EmbeddedSandbox } from "../embedded-sandbox";
import { SandboxError } from "../sandbox";
import type { FakeTelegram } from "../telegram-fake";
import { createPersonalWebhookTokens, webhookUrlFromChat } from "./personal-webhook";

/** What the panel may use in the bot once the app is up (see PlaygroundHandle.attach). */
export interface PanelHooks {
  checkOrdersNow?: () => Promise<unknown>;
  pollNotificationsNow?: () => Promise<unknown>;
  /** Checks every price watch now (not waiting for the cron tick). */
  checkPriceWatchesNow?: () => Promise<unknown>;
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

/**
 * The sandbox side panel acts on the demo account (`sandbox.demo`): the account whose key the
 * playground user links with /connect. Every action is a thin call on the sandbox's control API,
 * followed by a nudge so the alert shows at once instead of at the next poll.
 */
export function createSandboxPanel(embedded: EmbeddedSandbox, fake: FakeTelegram, hooks: () => PanelHooks) {
  const { sandbox } = embedded;
  const accountId = sandbox.demo.accountId;
  let webhookUrl: string | null = null;
  const tokenFor = createPersonalWebhookTokens(fake);
  // Here the panel settles orders, so "settle pending orders" has something to settle; the
  // settle-mode action lets them settle by themselves instead.
  sandbox.control.setSettleDelay({ ms: null });
  const settlement = () => {
    const { settleDelayMs } = sandbox.control.getSettleDelay();
    return settleDelayMs === null ? { auto: false as const, seconds: null } : { auto: true as const, seconds: settleDelayMs / 1000 };
  };

  const str = (body: Body, key: string, fallback?: string): string => {
    const value = body[key];
    if (typeof value === "string" && value.trim() !== "") return value.trim();
    if (fallback !== undefined) return fallback;
    throw new PanelError(400, `${key} is required`);
  };
  const nudgeOrders = async () => {
    await sandbox.tick();
    await hooks().checkOrdersNow?.();
  };
  const nudgeNotifications = async () => {
    await hooks().pollNotificationsNow?.();
  };

  const actions: Record<string, (body: Body, context: ActionContext) => Promise<unknown>> = {
    async deposit(body) {
      const currency = str(body, "currency", "TRX");
      const entry = sandbox.control.creditDeposit({ accountId, currency: currency as "TRX", amount: str(body, "amount", "100") });
      await nudgeNotifications();
      return { entry, balance: sandbox.control.getBalance(accountId) };
    },
    async settle() {
      const settled = sandbox.control.settleNow({ accountId });
      await nudgeOrders();
      return { settled };
    },
    /** `{ seconds: N }`: orders settle by themselves N s after they are placed; `{ seconds: null }`: they wait for settle. */
    async "settle-mode"(body) {
      const seconds = body.seconds;
      if (seconds !== null && (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0 || seconds > 3600)) {
        throw new PanelError(400, "seconds must be a number from 0 to 3600, or null (orders wait for the panel's settle)");
      }
      sandbox.control.setSettleDelay({ ms: seconds === null ? null : Math.round(seconds * 1000) });
      return { settlement: settlement() };
    },
    async "fail-next"(body) {
      const mode = str(body, "mode", "async");
      sandbox.control.failNextOrder({ accountId, mode: mode as "sync" });
      return { armed: mode };
    },
    async "fire-rule"(body) {
      const result = sandbox.control.fireRule({ ruleId: ownRule(str(body, "ruleId")) });
      await nudgeNotifications();
      return result;
    },
    async "pause-rule"(body) {
      const rule = sandbox.control.systemPauseRule({ ruleId: ownRule(str(body, "ruleId")) });
      await nudgeNotifications();
      return { rule };
    },
    /** `{ days: N }` (default 30): backdated orders, rule firings and ledger entries for /stats to chart. */
    async "fill-history"(body) {
      const days = body.days === undefined ? 30 : body.days;
      if (typeof days !== "number" || !Number.isInteger(days) || days < 1 || days > 90) throw new PanelError(400, "days must be a whole number from 1 to 90");
      return sandbox.control.fillHistory({ accountId, days });
    },
    /**
     * `{ resource, duration, sunPerUnit }`: the rate quotes, previews and orders use (sunPerUnit
     * null restores the price book's); price watches are checked at once, so one that the new
     * price reaches alerts the chat now.
     */
    async "set-price"(body) {
      const sunPerUnit = body.sunPerUnit === null ? null : body.sunPerUnit;
      const rate = sandbox.control.setPrice({ resource: str(body, "resource", "energy") as "energy", duration: str(body, "duration", "1h") as "1h", sunPerUnit: sunPerUnit as number | null });
      const watches = await hooks().checkPriceWatchesNow?.();
      return { rate, watches: watches ?? null };
    },
    async "check-watches"() {
      return { watches: (await hooks().checkPriceWatchesNow?.()) ?? null };
    },
    async notify(body) {
      const notification = sandbox.control.addNotification({
        accountId,
        title: str(body, "title", "Announcement"),
        body: str(body, "body"),
        level: str(body, "level", "info"),
      });
      await nudgeNotifications();
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
          throw new PanelError(
            409,
            "No personal webhook URL in this chat yet: send /webhook first (the bot shows it only when PUBLIC_URL is set, e.g. PUBLIC_URL=https://playground.invalid).",
          );
        }
        // PUBLIC_URL may name an origin this machine cannot reach offline: the sandbox posts to the
        // same path on this server's own origin instead.
        url = typeof context.origin === "string" ? `${context.origin}${new URL(shown).pathname}` : shown;
      }
      sandbox.control.setWebhookUrl({ accountId, url });
      webhookUrl = url;
      return { webhookUrl };
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
      const order = body.orderId === undefined || body.orderId === "" ? orders[0] : orders.find((candidate) => candidate.id === body.orderId);
      if (!order) throw new PanelError(body.orderId === undefined || body.orderId === "" ? 409 : 404, orders.length ? "no such order on the demo account" : "The demo account has no orders yet: place one with /buy first.");
      if (order.status === "Created" && body.event === undefined) throw new PanelError(409, `Order ${order.id.slice(0, 8)} is still Created: settle it first.`);
      if (!(await findCredential(db, userId))) throw new PanelError(409, "This user has no linked key: press \"/connect it\" first (the alert goes to the user who owns the order).");
      const outcome = await tokenFor(db, userId, now(), !publicUrl);
      if ("unknown" in outcome) {
        throw new PanelError(409, "This user already has a personal webhook URL and only its hash is stored: send /webhook, press Rotate, then try again.");
      }
      const url = `${selfUrl}/webhooks/marketplace/${outcome.token}`;
      const sent = await embedded.postOrderWebhook({ orderId: order.id, url, ...(typeof body.event === "string" ? { event: body.event as "order.filled" } : {}) });
      if (!sent.delivered) {
        throw new PanelError(502, `The bot's receiver did not accept ${sent.event}: ${sent.error} (sandbox webhooks are unsigned, so MARKETPLACE_WEBHOOK_SECRET must be unset).`);
      }
      return { orderId: order.id, event: sent.event, eventId: sent.eventId, delivered: true, tokenIssued: outcome.issued };
    },
  };

  function ownRule(ruleId: string): string {
    if (!sandbox.control.listRules(accountId).some((rule) => rule.id === ruleId)) throw new PanelError(404, "no such rule on the demo account");
    return ruleId;
  }

  return {
    state() {
      return {
        demo: { accountId, apiKey: sandbox.demo.apiKey },
        balance: sandbox.control.getBalance(accountId),
        settlement: settlement(),
        orders: sandbox.control.listOrders(accountId).slice(0, 20),
        rules: sandbox.control.listRules(accountId),
        prices: sandbox.control.getPrices(),
        webhookUrl,
      };
    },
    has: (action: string) => Object.hasOwn(actions, action),
    async run(action: string, body: Body, context: ActionContext = {}): Promise<unknown> {
      // The action is the URL's last segment: "constructor" or "__proto__" must not find a built-in.
      const handler = Object.hasOwn(actions, action) ? actions[action] : undefined;
      if (!handler) throw new PanelError(404, `unknown sandbox action ${action}`);
      try {
        return await handler(body, context);
      } catch (error) {
        if (error instanceof SandboxError) throw new PanelError(error.status === 404 ? 404 : error.status === 409 ? 409 : 400, error.message);
        throw error;
      }
    },
  };
}

export type SandboxPanel = ReturnType<typeof createSandboxPanel>;
