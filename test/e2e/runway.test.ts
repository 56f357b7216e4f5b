import { describe, expect, it } from "vitest";
import { ADDRESS_A, linkedUser, manageWorld, nextBotText, type World } from "../kit/world";
import { trxToSun } from "#src/marketplace/money";

const DAY = 86_400_000;

/**
 * The runway on /wallet and /rules: what the active rules cost a day from their deliveries of the
 * last 7 days (GET /automations/{id}/fires), and how long the balance lasts at that pace, said to be
 * an estimate; nothing when there is no history. Compared with the sandbox's own records.
 */
describe("the runway", () => {
  let world: World;
  manageWorld((started) => (world = started));

  type Who = Awaited<ReturnType<typeof linkedUser>>;
  const runwayOf = (text: string) => /📉 Rules: about (\S+) TRX a day; your balance lasts ([^(]+) \(/.exec(text);

  /** A rule created at the marketplace with the user's key (the sandbox's API). */
  async function renewalRule(who: Who, volume: number): Promise<string> {
    const response = await fetch(`${world.marketplaceUrl}/api/v1/automations/renewal`, {
      method: "POST",
      headers: { "x-api-key": who.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ targetAddress: ADDRESS_A, volume }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { id: string }).id;
  }

  /** The firings of a rule as the marketplace lists them. */
  async function firingsOf(who: Who, ruleId: string): Promise<Array<{ priceTrx: string; createdAt: string }>> {
    const response = await fetch(`${world.marketplaceUrl}/api/v1/automations/${ruleId}/fires`, {
      headers: { "x-api-key": who.apiKey },
    });
    return (await response.json()) as Array<{ priceTrx: string; createdAt: string }>;
  }

  async function wallet(who: Who): Promise<string> {
    who.user.send("/wallet");
    return (await nextBotText(who.user, (text) => text.includes("Wallet"))).text ?? "";
  }

  async function rules(who: Who): Promise<string> {
    who.user.send("/rules");
    return (await nextBotText(who.user, (text) => text.includes("Your automation rules"))).text ?? "";
  }

  it("nothing is shown without history: no rule, or an active rule that has not delivered in 7 days", async () => {
    const who = await linkedUser(world, 5641);
    expect(runwayOf(await wallet(who))).toBeNull();
    const ruleId = await renewalRule(who, 100_000);
    expect(runwayOf(await wallet(who))).toBeNull();
    expect(runwayOf(await rules(who))).toBeNull();
    // One delivery 8 days ago is outside the window.
    world.sandbox.control.fireRule({ ruleId });
    world.advance(8 * DAY);
    world.shiftAppClock(8 * DAY);
    expect(runwayOf(await wallet(who))).toBeNull();
  });

  it("a daily renewal's week of deliveries: about 9.4 TRX a day, the balance lasting about 99 days, on /wallet and /rules", async () => {
    const who = await linkedUser(world, 5642);
    const ruleId = await renewalRule(who, 100_000);
    // Seven deliveries a day apart (100,000 energy for a day: 9.35 TRX each).
    for (let day = 0; day < 7; day++) {
      if (day > 0) world.advance(DAY);
      expect(world.sandbox.control.fireRule({ ruleId }).fired).toBe(true);
    }
    world.advance(3_600_000);
    world.shiftAppClock(6 * DAY + 3_600_000);
    const firings = await firingsOf(who, ruleId);
    expect(firings.map((firing) => firing.priceTrx)).toEqual(Array(7).fill("9.35"));
    expect(world.sandbox.control.getBalance(who.accountId).trx).toBe("934.55");
    // 65.45 TRX over 7 days is 9.35 a day; 934.55 TRX lasts 99.95 days at that pace.
    const shown = runwayOf(await wallet(who));
    expect(shown?.slice(1)).toEqual(["9.4", "about 99 days"]);
    expect((await wallet(who)).includes("an estimate")).toBe(true);
    expect(runwayOf(await rules(who))?.slice(1)).toEqual(["9.4", "about 99 days"]);
    // A paused rule costs nothing until resumed: no runway.
    await fetch(`${world.marketplaceUrl}/api/v1/automations/${ruleId}/pause`, {
      method: "POST",
      headers: { "x-api-key": who.apiKey },
    });
    expect(runwayOf(await wallet(who))).toBeNull();
  });

  it("a month of the sandbox's history (three rules): the figures are those of its records of the last 7 days", async () => {
    const who = await linkedUser(world, 5643, { trx: "40", usdt: "0" });
    world.sandbox.control.fillHistory({ accountId: who.accountId, days: 30 });
    const ruleIds = world.sandbox.control
      .listRules(who.accountId)
      .filter((rule) => rule.status === "active")
      .map((rule) => rule.id);
    expect(ruleIds).toHaveLength(3);
    const records = (await Promise.all(ruleIds.map((id) => firingsOf(who, id)))).flat();
    const balanceSun = trxToSun(world.sandbox.control.getBalance(who.accountId).trx);

    /** The expected figures at `now`, worked from the records with integer sun. */
    const expected = (now: number): [string, string] => {
      const sum = records
        .filter((firing) => Date.parse(firing.createdAt) >= now - 7 * DAY && Date.parse(firing.createdAt) <= now)
        .reduce((total, firing) => total + trxToSun(firing.priceTrx), 0n);
      const perDay = sum / 7n;
      const step = perDay >= 10_000_000n ? 1_000_000n : perDay >= 1_000_000n ? 100_000n : 10_000n;
      const rough = ((perDay + step / 2n) / step) * step;
      const roughText = `${rough / 1_000_000n}${rough % 1_000_000n === 0n ? "" : `.${(rough % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "")}`}`;
      const lastsMs = (balanceSun * BigInt(DAY)) / perDay;
      const days = lastsMs / BigInt(DAY);
      const hours = lastsMs / 3_600_000n;
      const lasts =
        days >= 2n
          ? `about ${days} days`
          : hours >= 1n
            ? `about ${hours} hour${hours === 1n ? "" : "s"}`
            : "less than an hour";
      return [roughText, lasts];
    };
    const before = expected(world.app.deps.now());
    const shown = runwayOf(await wallet(who))!.slice(1);
    const after = expected(world.app.deps.now());
    expect([before, after]).toContainEqual(shown);
  });
});
