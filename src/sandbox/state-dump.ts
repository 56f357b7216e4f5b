/** A JSON-safe snapshot of the world for GET /_sandbox/state (debugging). Keys are shown by prefix only. */
import { sunToTrx } from "#src/marketplace/money";
import type { World } from "./records";
import { balanceView, firingView, ledgerView, notificationView, orderView, ruleView } from "./views";
import { notificationsOf } from "./world";

export function dumpState(world: World, accountId?: string): unknown {
  const wanted = (id: string) => accountId === undefined || id === accountId;
  return {
    now: world.now().toISOString(),
    settings: world.settings,
    settleDelayMs: world.settleDelayMs,
    unactivatedAddresses: [...world.unactivatedAddresses],
    faults: world.faults,
    accounts: [...world.accounts.values()]
      .filter((account) => wanted(account.id))
      .map((account) => ({
        id: account.id,
        balance: balanceView(account),
        depositAddress: account.depositAddress,
        webhookUrl: account.webhookUrl,
        failNext: account.failNext,
        idempotencyKeys: account.idempotency.size,
        keys: [...world.keysByApiKey.values()]
          .filter((key) => key.accountId === account.id)
          .map((key) => ({
            id: key.id,
            apiKeyPrefix: `${key.apiKey.slice(0, 15)}…`,
            scope: key.scope,
            dailyLimitTrx: key.dailyLimitSun === null ? null : sunToTrx(key.dailyLimitSun),
            revoked: key.revoked,
          })),
        orders: world.orders
          .filter((order) => order.accountId === account.id)
          .map((order) => ({ ...orderView(order, "number"), settledAt: order.settledAt, willFail: order.willFail })),
        rules: world.rules
          .filter((rule) => rule.accountId === account.id)
          .map((rule) => ({
            ...ruleView(rule, "number"),
            nextRenewalAt: rule.nextRenewalAt,
            firings: rule.firings.map((firing) => firingView(firing, "number")),
          })),
        ledger: world.ledger.filter((entry) => entry.accountId === account.id).map(ledgerView),
        notifications: notificationsOf(world, account.id).map(notificationView),
        webhooks: world.webhooks
          .filter((delivery) => delivery.accountId === account.id)
          .map(({ eventId, url, event, attempts, state, lastError, nextAttemptAt }) => ({
            eventId,
            url,
            event,
            attempts,
            state,
            lastError,
            nextAttemptAt: new Date(nextAttemptAt).toISOString(),
          })),
      })),
  };
}
