import { describe, expect, it } from "vitest";
import { manageWorld, type World } from "../kit/world";
import { findCredential } from "#src/db/repos/credentials";
import { pruneWebhookEvents } from "#src/db/repos/webhook-events";
import { botTexts, linkedUser, pause, waitFor } from "../kit/push-helpers";

const DAY = 86_400_000;

describe("the /connect attempt cap outlives a restart", () => {
  let world: World;
  // A file database (or the world's own PostgreSQL database), so the restart keeps what was stored.
  manageWorld((started) => (world = started), { file: true });

  it("after 10 attempts and a restart on the same database, the 11th is refused before the marketplace is asked", async () => {
    const user = world.user(701);
    for (let i = 0; i < 10; i++) {
      user.send(`/connect bad${i}`);
      expect((await user.nextMessage()).text).toContain("does not look like an API key");
      // Stay under the per-user message rate limit, as a person retrying would.
      await pause(550);
    }
    await world.restart();

    const { apiKey } = world.newAccount();
    const requestsBefore = world.sandboxRequests.length;
    const sent = user.send(`/connect ${apiKey}`);
    expect((await user.nextMessage()).text).toContain("Too many attempts");
    // Even a good key is neither checked nor stored, and the message carrying it is still deleted.
    expect(world.sandboxRequests.slice(requestsBefore)).toEqual([]);
    expect(await findCredential(world.app.db, 701)).toBeUndefined();
    expect(world.fake.messages(701).find((m) => m.messageId === sent.messageId)?.deleted).toBe(true);
    expect(world.logs()).not.toContain(apiKey);
    // Another user is not affected by this user's attempts.
    const other = world.user(702);
    other.send(`/connect ${world.newAccount().apiKey}`);
    expect((await other.nextMessage()).text).toMatch(/linked/i);
  }, 30_000);
});

describe("webhook dedupe keys are kept 4 days (senders retry for up to 3)", () => {
  let world: World;
  manageWorld((started) => (world = started));

  const ORDER = {
    id: "7d3e1a52-8f0e-4d7b-9c1a-3e2f4a5b6c7d",
    resource: "energy",
    targetAddress: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL",
    volume: "65000",
    duration: "1h",
    priceTrx: "4.6475",
    activationTrx: "0",
    totalTrx: "4.6475",
    status: "Filled",
    txId: "b".repeat(64),
    createdAt: "2026-11-22T05:00:00Z",
  };
  const alertsFor = (chatId: number) => botTexts(world, chatId).filter((text) => text.includes("7d3e1a52"));

  it("drops a duplicate after a prune at 3.9 days, keeps the key at exactly 4 days, and forgets it only after", async () => {
    const who = await linkedUser(world, 711);
    const body = { event: "order.filled", data: ORDER };
    const deliver = async () => {
      const response = await who.post(body);
      expect(response.status).toBe(200);
      return (await response.json()) as { ok: boolean; duplicate?: boolean };
    };
    expect(await deliver()).toEqual({ ok: true, duplicate: false });
    await waitFor(() => alertsFor(711).length === 1);
    const [stored] = await world.app.db.selectFrom("webhook_events").select(["dedupe_key", "received_at"]).execute();
    expect(stored?.dedupe_key).toContain(ORDER.id);
    const receivedAt = Number(stored!.received_at);
    const keyKept = async () =>
      (await world.app.db.selectFrom("webhook_events").select("dedupe_key").execute()).length === 1;

    // The cron prune runs with the app's clock; here the same function runs at chosen moments.
    await pruneWebhookEvents(world.app.db, receivedAt + 3.9 * DAY);
    expect(await keyKept()).toBe(true);
    expect(await deliver()).toEqual({ ok: true, duplicate: true });
    await pruneWebhookEvents(world.app.db, receivedAt + 4 * DAY);
    expect(await keyKept()).toBe(true);
    expect(await deliver()).toEqual({ ok: true, duplicate: true });
    await pause(300);
    expect(alertsFor(711)).toHaveLength(1);

    await pruneWebhookEvents(world.app.db, receivedAt + 4 * DAY + 1);
    expect(await keyKept()).toBe(false);
    // Proof the key was what stopped the duplicates: once pruned, the same event is new again.
    expect(await deliver()).toEqual({ ok: true, duplicate: false });
  });
});
