/** /api/v1/wallet: balance, deposit address and the ledger. */
import type { Hono } from "hono";
import { newTronAddress } from "../ids";
import { validationError } from "../problem";
import type { World } from "../records";
import { balanceView, ledgerView } from "../views";
import { newestFirst } from "../world";
import { requireScope } from "./auth";
import type { ApiEnv } from "./env";
import { pageOf, paging } from "./request-parsing";

const CURRENCIES = ["USDT-TRC20", "TRX"];

export function registerWalletRoutes(app: Hono<ApiEnv>, world: World): void {
  app.get("/api/v1/wallet/balance", requireScope("read"), (c) => c.json(balanceView(c.get("account"))));

  app.get("/api/v1/wallet/deposit-address", requireScope("read"), (c) => {
    const account = c.get("account");
    account.depositAddress ??= newTronAddress(world.random);
    return c.json({
      network: "TRC20",
      address: account.depositAddress,
      minimums: [
        { currency: "USDT-TRC20", amount: "1" },
        { currency: "TRX", amount: "10" },
      ],
    });
  });

  app.get("/api/v1/wallet/transactions", requireScope("read"), (c) => {
    const { page, pageSize } = paging(c);
    const type = c.req.query("type") || undefined;
    const currency = c.req.query("currency") || undefined;
    if (currency !== undefined && !CURRENCIES.includes(currency)) {
      throw validationError(400, `currency must be USDT-TRC20 or TRX, got ${JSON.stringify(currency)}`);
    }
    const accountId = c.get("account").id;
    const entries = newestFirst(
      world.ledger.filter(
        (entry) =>
          entry.accountId === accountId &&
          (type === undefined || entry.type.toLowerCase() === type.toLowerCase()) &&
          (currency === undefined || entry.currency === currency),
      ),
    );
    return c.json({ items: pageOf(entries, page, pageSize).map(ledgerView), page, pageSize, total: entries.length });
  });
}
