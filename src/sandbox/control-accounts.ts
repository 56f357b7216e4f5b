/** The control surface for accounts, their keys and their money. */
import { sunToTrx } from "#src/marketplace/money";
import { autoResumeRules } from "./automations";
import { newApiKey, newUuid } from "./ids";
import type { Currency, SandboxControl } from "./types";
import type { ApiKeyRecord, World } from "./records";
import { balanceView, ledgerView } from "./views";
import { createAccountRecord, depositTxId, postLedgerEntry, raiseNotification, requireAccount } from "./world";
import { amountArg, limitArg, oneOf, requireKey, SCOPES } from "./control-args";

type AccountControl = Pick<
  SandboxControl,
  | "createAccount"
  | "createKey"
  | "revokeKey"
  | "setSpendLimit"
  | "accountIdForKey"
  | "creditDeposit"
  | "setBalance"
  | "getBalance"
>;

/** Creates accounts and keys, revokes and limits keys, credits deposits and sets balances. */
export function accountControl(world: World): AccountControl {
  return {
    createAccount(args = {}) {
      const trx = amountArg(args.trx ?? "0", "trx");
      const usdt = amountArg(args.usdt ?? "0", "usdt");
      const account = createAccountRecord(world);
      if (trx > 0n)
        postLedgerEntry(world, account, { type: "Deposit", currency: "TRX", amountSun: trx, txId: depositTxId(world) });
      if (usdt > 0n)
        postLedgerEntry(world, account, {
          type: "Deposit",
          currency: "USDT-TRC20",
          amountSun: usdt,
          txId: depositTxId(world),
        });
      return { accountId: account.id };
    },

    createKey({ accountId, scope, dailyLimitTrx }) {
      const account = requireAccount(world, accountId);
      const key: ApiKeyRecord = {
        id: newUuid(world.random),
        apiKey: newApiKey(world.random),
        accountId: account.id,
        scope: oneOf(scope, SCOPES, "scope"),
        dailyLimitSun: limitArg(dailyLimitTrx),
        revoked: false,
      };
      world.keysByApiKey.set(key.apiKey, key);
      return { apiKey: key.apiKey };
    },

    revokeKey({ apiKey }) {
      requireKey(world, apiKey).revoked = true;
    },

    setSpendLimit({ apiKey, dailyLimitTrx }) {
      requireKey(world, apiKey).dailyLimitSun = limitArg(dailyLimitTrx);
    },

    accountIdForKey(apiKey) {
      return (typeof apiKey === "string" && world.keysByApiKey.get(apiKey)?.accountId) || null;
    },

    creditDeposit({ accountId, currency, amount }) {
      const account = requireAccount(world, accountId);
      const kind = oneOf<Currency>(currency, ["TRX", "USDT-TRC20"], "currency");
      const sun = amountArg(amount, "amount", { allowZero: false });
      const entry = postLedgerEntry(world, account, {
        type: "Deposit",
        currency: kind,
        amountSun: sun,
        txId: depositTxId(world),
      });
      raiseNotification(world, account.id, {
        type: "deposit.credited",
        level: "success",
        title: "Deposit credited",
        body: `${sunToTrx(sun)} ${kind} was credited to your balance.`,
      });
      autoResumeRules(world, account);
      return ledgerView(entry);
    },

    setBalance({ accountId, trx, usdt }) {
      const account = requireAccount(world, accountId);
      // Written as Adjustment entries so the ledger still sums to the balance.
      if (trx !== undefined) {
        const delta = amountArg(trx, "trx") - account.trxSun;
        if (delta !== 0n) postLedgerEntry(world, account, { type: "Adjustment", currency: "TRX", amountSun: delta });
      }
      if (usdt !== undefined) {
        const delta = amountArg(usdt, "usdt") - account.usdtSun;
        if (delta !== 0n)
          postLedgerEntry(world, account, { type: "Adjustment", currency: "USDT-TRC20", amountSun: delta });
      }
      return balanceView(account);
    },

    getBalance(accountId) {
      return balanceView(requireAccount(world, accountId));
    },
  };
}
