import type { EmbeddedSandbox } from "#src/embedded-sandbox";
import { SandboxError } from "#src/sandbox/index";
import type { FakeTelegram } from "#src/telegram-fake/index";
import {
  messageActions,
  orderActions,
  PanelError,
  ruleAndPriceActions,
  type ActionContext,
  type PanelActions,
  type PanelHooks,
  type PanelScope,
} from "./sandbox-panel-actions";

export { PanelError, type ActionContext, type PanelHooks };

type Body = Record<string, unknown>;

/**
 * The sandbox side panel acts on the demo account (`sandbox.demo`): the account whose key the
 * playground user links with /connect. Every action is a thin call on the sandbox's control API,
 * followed by a nudge so the alert shows at once instead of at the next poll.
 */
export function createSandboxPanel(embedded: EmbeddedSandbox, fake: FakeTelegram, hooks: () => PanelHooks) {
  const { sandbox } = embedded;
  const accountId = sandbox.demo.accountId;
  const webhook = { url: null as string | null };
  // Here the panel settles orders, so "settle pending orders" has something to settle; the
  // settle-mode action lets them settle by themselves instead.
  sandbox.control.setSettleDelay({ ms: null });
  const settlement = () => {
    const { settleDelayMs } = sandbox.control.getSettleDelay();
    return settleDelayMs === null
      ? { auto: false as const, seconds: null }
      : { auto: true as const, seconds: settleDelayMs / 1000 };
  };

  const scope: PanelScope = { embedded, fake, hooks, accountId, webhook, settlement };
  const actions: PanelActions = { ...orderActions(scope), ...ruleAndPriceActions(scope), ...messageActions(scope) };

  return {
    state() {
      return {
        demo: { accountId, apiKey: sandbox.demo.apiKey },
        balance: sandbox.control.getBalance(accountId),
        settlement: settlement(),
        orders: sandbox.control.listOrders(accountId).slice(0, 20),
        rules: sandbox.control.listRules(accountId),
        prices: sandbox.control.getPrices(),
        webhookUrl: webhook.url,
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
        if (error instanceof SandboxError)
          throw new PanelError(error.status === 404 ? 404 : error.status === 409 ? 409 : 400, error.message);
        throw error;
      }
    },
  };
}

export type SandboxPanel = ReturnType<typeof createSandboxPanel>;
