import { describe, expect, it } from "vitest";
import { manageWorld, type World } from "../kit/world";
import { botTexts, linkedUser, pause, waitFor } from "../kit/push-helpers";

const cycles = async (world: World) => (await world.app.db.selectFrom("poll_cycles").select("id").execute()).length;
const metric = async (world: World, name: string) => Number(new RegExp(`^${name} (\\d+)`, "m").exec(await (await fetch(`${world.app.url}/metrics`)).text())?.[1] ?? NaN);

describe("notification poll cycles on cron", () => {
  let world: World;
  // A tick every second; one user per second, so a cycle over three users outlasts a tick.
  manageWorld((started) => (world = started), { env: { NOTIFICATIONS_POLL: "* * * * * *", POLL_RATE: "1" } });

  it("skips ticks while this replica's cycle runs, and opens none while the open cycle has users left", async () => {
    for (const id of [701, 702, 703]) await linkedUser(world, id);
    await waitFor(async () => (await metric(world, "poll_ticks_skipped")) >= 1, 8000);
    await waitFor(async () => {
      const rows = await world.app.db.selectFrom("poll_state").select("last_cycle").execute();
      return rows.every((row) => row.last_cycle > 0);
    }, 10_000);
    // Another replica holds user 702 in the open cycle: it is not done, so no new cycle opens.
    const open = Math.max(...(await world.app.db.selectFrom("poll_cycles").select("id").execute()).map((row) => Number(row.id)));
    await world.app.db.updateTable("poll_state").set({ last_cycle: 0, lease_owner: "replica-b", lease_until: Date.now() + 600_000 }).where("telegram_id", "=", 702).execute();
    await pause(500);
    const held = await cycles(world);
    await pause(3000);
    expect(await cycles(world)).toBe(held);
    expect((await world.app.db.selectFrom("poll_state").select("lease_owner").where("telegram_id", "=", 702).executeTakeFirstOrThrow()).lease_owner).toBe("replica-b");
    // The other replica finishes it: the next tick opens the next cycle.
    await world.app.db.updateTable("poll_state").set({ last_cycle: open, lease_owner: null, lease_until: null }).where("telegram_id", "=", 702).execute();
    await waitFor(async () => (await cycles(world)) > held, 4000);
  }, 30_000);
});

describe("stopping while a long poll cycle runs", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { POLL_RATE: "1" } });

  it("returns within a few seconds, after sending the alert that was due", async () => {
    const users = [711, 712, 713, 714, 715, 716, 717, 718];
    const last = await Promise.all(users.map((id) => linkedUser(world, id))).then((all) => all.at(-1)!);
    const cycle = world.app.push.pollNow(); // about 8 s at one user per second
    await pause(1200);
    expect((await last.post({ event: "order.filled", data: { id: "71800000-0000-4000-8000-000000000001", status: "Filled" } })).status).toBe(200);
    const started = Date.now();
    await world.app.stop();
    expect(Date.now() - started).toBeLessThan(6000);
    await cycle.catch(() => undefined);
    expect(botTexts(world, 718).filter((t) => t.includes("Order 71800000"))).toHaveLength(1);
  }, 30_000);
});
