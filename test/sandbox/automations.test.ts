import { describe, expect, it } from "vitest";
import { ADDRESS, createSandboxWorld, newCustomer } from "./sandbox-world";
import type { SandboxWorld } from "./sandbox-world";

const SMART_FIRING = "9.3665"; // 131,000 × 65 sun = 8.515 TRX, + 10%
const RENEWAL_65K = "6.0775"; // 65,000 × 85 sun = 5.525 TRX, + 10%
const REFILL_65K_1H = "4.6475";

function refill(world: SandboxWorld, key: string, overrides: Record<string, unknown> = {}) {
  return world.call("POST", "/api/v1/automations", {
    key,
    body: { targetAddress: ADDRESS, minimal: 30000, volume: 65000, duration: "1h", ...overrides },
  });
}

describe("automation state table", () => {
  it("(none) → active: refill, renewal and smart rules are created active", async () => {
    const world = createSandboxWorld();
    const { apiKey } = newCustomer(world, { trx: "100" });
    const created = await refill(world, apiKey, { autoResume: true });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      type: "auto-refill",
      resource: "energy",
      targetAddress: ADDRESS,
      minimal: 30000,
      volume: 65000,
      duration: "1h",
      spentTrx: "0",
      status: "active",
      pauseReason: null,
      autoResume: true,
    });
    expect(created.body.createdAt).toBe("2025-03-10T12:00:00.000Z");
    const renewal = await world.call("POST", "/api/v1/automations/renewal", {
      key: apiKey,
      body: { targetAddress: ADDRESS, volume: 65000 },
    });
    expect(renewal.body).toMatchObject({
      type: "auto-renewal",
      minimal: null,
      volume: 65000,
      duration: "1d",
      status: "active",
      autoResume: false,
    });
    const smart = await world.call("POST", "/api/v1/automations/smart", {
      key: apiKey,
      body: { targetAddress: ADDRESS },
    });
    expect(smart.body).toMatchObject({ type: "smart", minimal: null, volume: null, duration: null, status: "active" });
    const list = await world.call("GET", "/api/v1/automations", { key: apiKey });
    expect(list.body.map((rule: { type: string }) => rule.type)).toEqual(["smart", "auto-renewal", "auto-refill"]);
  });

  it("(none) → refused: renewal and smart need balance for one firing (402); refill does not", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey } = newCustomer(world, { trx: "6" });
    const renewal = await world.call("POST", "/api/v1/automations/renewal", {
      key: apiKey,
      body: { targetAddress: ADDRESS, volume: 65000 },
    });
    expect(renewal.status).toBe(402);
    expect(renewal.body.type).toContain("wallet.insufficient_balance");
    const smart = await world.call("POST", "/api/v1/automations/smart", {
      key: apiKey,
      body: { targetAddress: ADDRESS },
    });
    expect(smart.status).toBe(402);
    world.control.setBalance({ accountId, trx: "0" });
    expect((await refill(world, apiKey)).status).toBe(200);
    world.control.setBalance({ accountId, trx: RENEWAL_65K });
    expect(
      (
        await world.call("POST", "/api/v1/automations/renewal", {
          key: apiKey,
          body: { targetAddress: ADDRESS, volume: 65000 },
        })
      ).status,
    ).toBe(200);
  });

  it("active → paused (User) by pause; auto-resume never revives it; the owner resumes it", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey } = newCustomer(world);
    const rule = (await refill(world, apiKey, { autoResume: true })).body;
    world.advance(60_000);
    const paused = await world.call("POST", `/api/v1/automations/${rule.id}/pause`, { key: apiKey });
    expect(paused.body).toMatchObject({ status: "paused", pauseReason: "User", updatedAt: "2025-03-10T12:01:00.000Z" });
    world.control.creditDeposit({ accountId, currency: "TRX", amount: "500" });
    expect(world.control.listRules(accountId)[0]).toMatchObject({ status: "paused", pauseReason: "User" });
    const resumed = await world.call("POST", `/api/v1/automations/${rule.id}/resume`, { key: apiKey });
    expect(resumed.body).toMatchObject({ status: "active", pauseReason: null });
  });

  it("active → paused (System) when a firing cannot be paid, with a notification", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey } = newCustomer(world, { trx: "10" });
    const rule = (await refill(world, apiKey)).body;
    const first = world.control.fireRule({ ruleId: rule.id });
    expect(first).toMatchObject({
      fired: true,
      firing: { volume: 65000, duration: "1h", priceTrx: REFILL_65K_1H },
      rule: { spentTrx: REFILL_65K_1H },
    });
    world.control.fireRule({ ruleId: rule.id });
    expect(world.control.getBalance(accountId).trx).toBe("0.705");
    const third = world.control.fireRule({ ruleId: rule.id });
    expect(third).toMatchObject({
      fired: false,
      reason: "insufficient_balance",
      rule: { status: "paused", pauseReason: "System", spentTrx: "9.295" },
    });
    expect(world.control.listNotifications(accountId)[0]).toMatchObject({
      type: "automation.paused",
      level: "warning",
    });
    expect(
      world.control
        .ledger(accountId)
        .filter((entry) => entry.type === "AutomationCharge")
        .map((entry) => entry.amount),
    ).toEqual(["-4.6475", "-4.6475"]);
    // Firing a paused rule is refused by the control surface.
    expect(() => world.control.fireRule({ ruleId: rule.id })).toThrow(/paused/);
  });

  it("paused (System) → active by itself on a top-up when autoResume is true and the balance covers a firing", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey } = newCustomer(world, { trx: "10" });
    const auto = (
      await world.call("POST", "/api/v1/automations/smart", {
        key: apiKey,
        body: { targetAddress: ADDRESS, autoResume: true },
      })
    ).body;
    const manual = (
      await world.call("POST", "/api/v1/automations/smart", {
        key: apiKey,
        body: { targetAddress: ADDRESS, autoResume: false },
      })
    ).body;
    world.control.systemPauseRule({ ruleId: auto.id });
    world.control.systemPauseRule({ ruleId: manual.id });
    world.control.setBalance({ accountId, trx: "0" });
    world.control.creditDeposit({ accountId, currency: "TRX", amount: "5" }); // not enough for 9.3665
    expect(world.control.listRules(accountId).map((rule) => rule.status)).toEqual(["paused", "paused"]);
    world.control.creditDeposit({ accountId, currency: "TRX", amount: "5" });
    const rules = world.control.listRules(accountId);
    expect(rules.find((rule) => rule.id === auto.id)).toMatchObject({ status: "active", pauseReason: null });
    expect(rules.find((rule) => rule.id === manual.id)).toMatchObject({ status: "paused", pauseReason: "System" });
    expect(world.control.listNotifications(accountId).map((n) => n.type)).toContain("automation.resumed");
  });

  it("paused → active by resume only when the balance covers one more firing (else 402)", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey } = newCustomer(world, { trx: "20" });
    const rule = (
      await world.call("POST", "/api/v1/automations/smart", { key: apiKey, body: { targetAddress: ADDRESS } })
    ).body;
    world.control.systemPauseRule({ ruleId: rule.id });
    world.control.setBalance({ accountId, trx: "9.3664" });
    const refused = await world.call("POST", `/api/v1/automations/${rule.id}/resume`, { key: apiKey });
    expect(refused.status).toBe(402);
    expect(refused.body.type).toContain("wallet.insufficient_balance");
    world.control.setBalance({ accountId, trx: SMART_FIRING });
    const resumed = await world.call("POST", `/api/v1/automations/${rule.id}/resume`, { key: apiKey });
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).toBe("active");
  });

  it("active or paused → cancelled by cancel; cancelled is final", async () => {
    const world = createSandboxWorld();
    const { apiKey } = newCustomer(world);
    const active = (await refill(world, apiKey)).body;
    const paused = (await refill(world, apiKey)).body;
    await world.call("POST", `/api/v1/automations/${paused.id}/pause`, { key: apiKey });
    for (const rule of [active, paused]) {
      const res = await world.call("POST", `/api/v1/automations/${rule.id}/cancel`, { key: apiKey });
      expect(res.body).toMatchObject({ status: "cancelled", pauseReason: null });
    }
    for (const action of ["resume", "pause", "cancel"]) {
      const res = await world.call("POST", `/api/v1/automations/${active.id}/${action}`, { key: apiKey });
      expect(res.status, action).toBe(409);
      expect(res.body.type).toContain("automation.invalid_state");
    }
    const list = await world.call("GET", "/api/v1/automations", { key: apiKey });
    expect(list.body.map((rule: { status: string }) => rule.status)).toEqual(["cancelled", "cancelled"]);
  });

  it("answers 409 for pause from paused and resume from active; control cancelRule acts as the dashboard", async () => {
    const world = createSandboxWorld();
    const { apiKey } = newCustomer(world);
    const rule = (await refill(world, apiKey)).body;
    expect((await world.call("POST", `/api/v1/automations/${rule.id}/resume`, { key: apiKey })).status).toBe(409);
    await world.call("POST", `/api/v1/automations/${rule.id}/pause`, { key: apiKey });
    expect((await world.call("POST", `/api/v1/automations/${rule.id}/pause`, { key: apiKey })).status).toBe(409);
    expect(world.control.cancelRule({ ruleId: rule.id }).status).toBe("cancelled");
    expect((await world.call("POST", `/api/v1/automations/${rule.id}/resume`, { key: apiKey })).status).toBe(409);
  });
});

describe("automation details", () => {
  it("renews once a day from one day after creation, and pauses when the renewal cannot be paid", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey } = newCustomer(world, { trx: "13" });
    const rule = (
      await world.call("POST", "/api/v1/automations/renewal", {
        key: apiKey,
        body: { targetAddress: ADDRESS, volume: 65000 },
      })
    ).body;
    world.advance(86_400_000 - 1);
    await world.sandbox.tick();
    expect((await world.call("GET", `/api/v1/automations/${rule.id}/fires`, { key: apiKey })).body).toEqual([]);
    world.advance(1);
    await world.sandbox.tick();
    await world.sandbox.tick();
    const fires = (await world.call("GET", `/api/v1/automations/${rule.id}/fires`, { key: apiKey })).body;
    expect(fires).toEqual([
      { volume: 65000, duration: "1d", priceTrx: RENEWAL_65K, createdAt: "2025-03-11T12:00:00.000Z" },
    ]);
    world.advance(86_400_000);
    await world.sandbox.tick();
    expect(world.control.getBalance(accountId).trx).toBe("0.845");
    world.advance(86_400_000);
    await world.sandbox.tick();
    expect(world.control.listRules(accountId)[0]).toMatchObject({
      status: "paused",
      pauseReason: "System",
      spentTrx: "12.155",
    });
  });

  it("lists up to 50 firings newest first and previews one firing's cost", async () => {
    const world = createSandboxWorld();
    const { apiKey } = newCustomer(world, { trx: "1000" });
    const rule = (await refill(world, apiKey, { volume: 100000 })).body;
    for (let i = 0; i < 55; i++) {
      world.advance(1000);
      world.control.fireRule({ ruleId: rule.id });
    }
    const fires = (await world.call("GET", `/api/v1/automations/${rule.id}/fires`, { key: apiKey })).body;
    expect(fires).toHaveLength(50);
    expect(fires[0].createdAt > fires[49].createdAt).toBe(true);
    const current = (await world.call("GET", "/api/v1/automations", { key: apiKey })).body[0];
    expect(current.spentTrx).toBe("393.25"); // 55 × 7.15

    expect(
      (await world.call("GET", "/api/v1/automations/preview?volume=65000&duration=1h", { key: apiKey })).body,
    ).toEqual({ priceTrx: REFILL_65K_1H, baseCostTrx: "4.225", commissionTrx: "0.4225" });
    expect((await world.call("GET", "/api/v1/automations/preview?type=smart", { key: apiKey })).body.priceTrx).toBe(
      SMART_FIRING,
    );
    expect(
      (await world.call("GET", "/api/v1/automations/preview?type=renewal&volume=65000", { key: apiKey })).body.priceTrx,
    ).toBe(RENEWAL_65K);
    expect(
      (await world.call("GET", "/api/v1/automations/preview?type=refill&volume=65000", { key: apiKey })).status,
    ).toBe(400);
    expect(
      (await world.call("GET", "/api/v1/automations/preview?type=weekly&volume=65000", { key: apiKey })).status,
    ).toBe(400);
    expect((await world.call("GET", "/api/v1/automations/options", { key: apiKey })).body).toEqual({
      durations: ["15m", "1h", "1d"],
      energyUnit: 65000,
      minVolume: 65000,
      maxVolume: 2000000,
      renewalMinVolume: 65000,
      renewalMaxVolume: 5000000,
    });
  });

  it("setAutomationOptions changes what the options endpoint serves, and creation and previews follow it", async () => {
    const world = createSandboxWorld();
    const { accountId, apiKey } = newCustomer(world, { trx: "1000" });
    const options = world.control.setAutomationOptions({
      minVolume: 100_000,
      maxVolume: 300_000,
      renewalMaxVolume: 400_000,
      durations: ["1h", "1d"],
    });
    expect(options).toEqual({
      durations: ["1h", "1d"],
      energyUnit: 65000,
      minVolume: 100000,
      maxVolume: 300000,
      renewalMinVolume: 65000,
      renewalMaxVolume: 400000,
    });
    expect((await world.call("GET", "/api/v1/automations/options", { key: apiKey })).body).toEqual(options);

    const small = await refill(world, apiKey, { volume: 65000 });
    expect(small.status).toBe(422);
    expect(small.body.detail).toContain("between 100000 and 300000");
    const dropped = await refill(world, apiKey, { volume: 100000, duration: "15m" });
    expect(dropped.status).toBe(422);
    expect(dropped.body.detail).toContain("1h, 1d");
    expect(
      (
        await world.call("POST", "/api/v1/automations/renewal", {
          key: apiKey,
          body: { targetAddress: ADDRESS, volume: 500_000 },
        })
      ).status,
    ).toBe(422);
    expect(
      (await world.call("GET", "/api/v1/automations/preview?volume=65000&duration=1h", { key: apiKey })).status,
    ).toBe(400);
    expect(
      (await world.call("GET", "/api/v1/automations/preview?volume=100000&duration=15m", { key: apiKey })).status,
    ).toBe(400);
    expect((await refill(world, apiKey, { volume: 100000, duration: "1d" })).status).toBe(200);
    expect(world.control.listRules(accountId)).toHaveLength(1);

    // Incoherent options are refused whole: nothing changes.
    expect(() => world.control.setAutomationOptions({ minVolume: 500_000 })).toThrow(/above maxVolume/);
    expect(() => world.control.setAutomationOptions({ durations: [] })).toThrow(/durations/);
    expect(() => world.control.setAutomationOptions({ maxVolume: -1 })).toThrow(/positive/);
    expect((await world.call("GET", "/api/v1/automations/options", { key: apiKey })).body).toEqual(options);
  });

  it("validates creation bodies with 422 and hides foreign rules behind 404", async () => {
    const world = createSandboxWorld();
    const mine = newCustomer(world);
    const other = newCustomer(world);
    const bad = await refill(world, mine.apiKey, { volume: 3_000_000 });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toContain("between 65000 and 2000000");
    expect((await refill(world, mine.apiKey, { minimal: "x" })).status).toBe(422);
    expect((await refill(world, mine.apiKey, { autoResume: "yes" })).body.detail).toContain("autoResume");
    const renewal = await world.call("POST", "/api/v1/automations/renewal", {
      key: mine.apiKey,
      body: { targetAddress: ADDRESS, volume: 6_000_000 },
    });
    expect(renewal.status).toBe(422);
    expect(
      (await world.call("POST", "/api/v1/automations/smart", { key: mine.apiKey, body: {} })).body.detail,
    ).toContain("targetAddress is required");

    const rule = (await refill(world, mine.apiKey)).body;
    expect((await world.call("POST", `/api/v1/automations/${rule.id}/pause`, { key: other.apiKey })).status).toBe(404);
    expect((await world.call("GET", `/api/v1/automations/${rule.id}/fires`, { key: other.apiKey })).status).toBe(404);
    expect((await world.call("POST", "/api/v1/automations/not-a-uuid/cancel", { key: mine.apiKey })).status).toBe(404);
    expect((await world.call("GET", "/api/v1/automations", { key: other.apiKey })).body).toEqual([]);
  });
});
