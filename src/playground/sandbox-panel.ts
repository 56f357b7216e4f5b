import type { EmbeddedSandbox } from "../embedded-sandbox";
import { SandboxError } from "../sandbox";
import type { FakeTelegram } from "../telegram-fake";

/** What the panel may nudge in the bot after a sandbox change, once the push machinery exists. */
export interface PanelHooks {
  checkOrdersNow?: () => Promise<unknown>;
  pollNotificationsNow?: () => Promise<unknown>;
}

export class PanelError extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
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

const WEBHOOK_URL_IN_CHAT = /https?:\/\/[^\s<>"]+\/webhooks\/marketplace\/[A-Za-z0-9_-]+/g;

/**
 * The sandbox side panel acts on the demo account (`sandbox.demo`): the account whose key the
 * playground user links with /connect. Every action is a thin call on the sandbox's control API,
 * followed by a nudge so the alert shows at once instead of at the next poll.
 */
export function createSandboxPanel(embedded: EmbeddedSandbox, fake: FakeTelegram, hooks: () => PanelHooks) {
  const { sandbox } = embedded;
  const accountId = sandbox.demo.accountId;
  let webhookUrl: string | null = null;

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

  /** The newest personal webhook URL the bot showed this user (from /webhook). */
  function webhookUrlFromChat(userId: number): string | null {
    const messages = fake.messages(userId).filter((m) => m.from === "bot" && !m.deleted).reverse();
    for (const message of messages) {
      const found = (message.text ?? "").match(WEBHOOK_URL_IN_CHAT);
      if (found) return found.at(-1)!;
    }
    return null;
  }

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
        const shown = Number.isSafeInteger(userId) ? webhookUrlFromChat(userId) : null;
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
        orders: sandbox.control.listOrders(accountId).slice(0, 20),
        rules: sandbox.control.listRules(accountId),
        webhookUrl,
      };
    },
    has: (action: string) => Object.hasOwn(actions, action),
    async run(action: string, body: Body, context: ActionContext = {}): Promise<unknown> {
      const handler = actions[action];
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
