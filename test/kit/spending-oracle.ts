import { formatTrxForDisplay, groupThousands, sunToTrx, trxToSun } from "#src/marketplace/money";
import { burnCostSun } from "#src/sandbox/price-book";
import type { World } from "./world";

interface SandboxState {
  accounts: Array<{
    orders: Array<{
      resource: string;
      volume: number;
      status: string;
      priceTrx: string;
      totalTrx: string;
      createdAt: string;
    }>;
    rules: Array<{ firings: Array<{ volume: number; priceTrx: string; createdAt: string }> }>;
    ledger: Array<{ type: string; currency: string; amount: string; createdAt: string }>;
  }>;
}

/** The figures /stats must show, computed here from the sandbox's own records (not by the bot's code). */
export async function expectedFigures(
  world: Pick<World, "marketplaceUrl">,
  accountId: string,
  window: { from: number; to: number },
) {
  const response = await fetch(`${world.marketplaceUrl}/_sandbox/state?accountId=${accountId}`);
  const account = ((await response.json()) as SandboxState).accounts[0]!;
  const inWindow = (iso: string) => Date.parse(iso) >= window.from && Date.parse(iso) < window.to;
  let spent = 0n;
  let energy = 0n;
  let energyCost = 0n;
  let bandwidth = 0n;
  const orders = { placed: 0, filled: 0, failed: 0 };
  for (const order of account.orders.filter((candidate) => inWindow(candidate.createdAt))) {
    orders.placed += 1;
    if (order.status === "Failed") {
      orders.failed += 1;
      continue;
    }
    spent += trxToSun(order.totalTrx);
    if (order.status !== "Filled") continue;
    orders.filled += 1;
    if (order.resource === "energy") {
      energy += BigInt(order.volume);
      energyCost += trxToSun(order.priceTrx);
    } else bandwidth += BigInt(order.volume);
  }
  let firings = 0;
  for (const firing of account.rules
    .flatMap((rule) => rule.firings)
    .filter((candidate) => inWindow(candidate.createdAt))) {
    firings += 1;
    spent += trxToSun(firing.priceTrx);
    energy += BigInt(firing.volume);
    energyCost += trxToSun(firing.priceTrx);
  }
  let charged = 0n;
  let refunded = 0n;
  for (const entry of account.ledger.filter(
    (candidate) => candidate.currency === "TRX" && inWindow(candidate.createdAt),
  )) {
    const sun = trxToSun(entry.amount);
    if (sun < 0n) charged -= sun;
    else if (entry.type === "OrderRefund") refunded += sun;
  }
  // The sandbox's burn cost is linear in the volume: the bot's estimate must come out exact.
  const saving = burnCostSun("energy", Number(energy)) - energyCost;
  const trx = (sun: bigint) => `${formatTrxForDisplay(sunToTrx(sun))} TRX`;
  return {
    spent,
    charged,
    refunded,
    orders,
    firings,
    energy,
    bandwidth,
    saving,
    lines: {
      spent: `Spent: ${trx(spent)}`,
      delivered: `Delivered in this period (your orders and rule firings): ${groupThousands(energy)} energy · ${groupThousands(bandwidth)} bandwidth`,
      orders: `Orders: ${orders.placed} placed · ${orders.filled} filled · ${orders.failed} failed`,
      firings: `Rule firings: ${firings}`,
      saving: `Saved against burning TRX: ≈ ${trx(saving)}`,
      ledger: `Ledger: ${trx(charged)} charged · ${trx(refunded)} refunded`,
    },
  };
}
