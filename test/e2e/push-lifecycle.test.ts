import { describe, expect, it } from "vitest";
import { manageWorld, type World } from "../kit/world";
import { botTexts, linkedUser, waitFor } from "../kit/push-helpers";

const metric = async (world: World, name: string) =>
  Number(new RegExp(`^${name} (\\d+)`, "m").exec(await (await fetch(`${world.app.url}/metrics`)).text())?.[1] ?? NaN);

describe("notification poll cycles on cron", () => {
  let world: World;
  // A tick every second; one user per second, so a cycle over three users outlasts a tick. Idle
  // users are due again a second after each poll, so every cycle covers all three.
  manageWorld((started) => (world = started), {
    env: { NOTIFICATIONS_POLL: "* * * * * *", POLL_RATE: "1", POLL_IDLE_INTERVAL: "1s" },
  });

  it("skips ticks while this replica's cycle runs; when every user left in the open cycle is held by another replica, the next tick opens the next cycle instead of waiting", async () => {
    for (const id of [701, 702, 703]) await linkedUser(world, id);
    await waitFor(async () => (await metric(world, "poll_ticks_skipped_total")) >= 1, 8000);
    await waitFor(async () => {
      const rows = await world.app.db.selectFrom("poll_state").select("last_cycle").execute();
      return rows.every((row) => row.last_cycle > 0);
    }, 10_000);
    // Another replica holds user 702 (not done in the open cycle) for ten minutes: the others are
    // still polled, in the cycles the next ticks open, and 702 stays with its holder.
    const open = Math.max(
      ...(await world.app.db.selectFrom("poll_cycles").select("id").execute()).map((row) => Number(row.id)),
    );
    await world.app.db
      .updateTable("poll_state")
      .set({ last_cycle: 0, lease_owner: "replica-b", lease_until: Date.now() + 600_000 })
      .where("telegram_id", "=", 702)
      .execute();
    const lastCycleOf = async (id: number) =>
      Number(
        (
          await world.app.db
            .selectFrom("poll_state")
            .select("last_cycle")
            .where("telegram_id", "=", id)
            .executeTakeFirstOrThrow()
        ).last_cycle,
      );
    await waitFor(async () => (await lastCycleOf(701)) > open && (await lastCycleOf(703)) > open, 8000);
    expect(
      await world.app.db
        .selectFrom("poll_state")
        .select(["lease_owner", "last_cycle"])
        .where("telegram_id", "=", 702)
        .executeTakeFirstOrThrow(),
    ).toEqual({ lease_owner: "replica-b", last_cycle: 0 });
    // The other replica lets it go: a later cycle polls it here.
    await world.app.db
      .updateTable("poll_state")
      .set({ lease_owner: null, lease_until: null })
      .where("telegram_id", "=", 702)
      .execute();
    await waitFor(async () => (await lastCycleOf(702)) > open, 8000);
  }, 30_000);
});

describe("stopping while a long poll cycle runs", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { POLL_RATE: "1" } });

  it("returns within a few seconds, after sending the alert that was due", async () => {
    const users = [711, 712, 713, 714, 715, 716, 717, 718];
    const last = await Promise.all(users.map((id) => linkedUser(world, id))).then((all) => all.at(-1)!);
    const cycle = world.app.push.pollNow(); // about 8 s at one user per second
    // The cycle is under way: its first user has been polled.
    await waitFor(async () => {
      const open = await world.app.db
        .selectFrom("poll_cycles")
        .select((eb) => eb.fn.max("id").as("id"))
        .executeTakeFirst();
      return (
        open?.id !== null &&
        open?.id !== undefined &&
        (
          await world.app.db
            .selectFrom("poll_state")
            .select("telegram_id")
            .where("last_cycle", ">=", Number(open.id))
            .execute()
        ).length >= 1
      );
    }, 8000);
    expect(
      (
        await last.post({
          event: "order.filled",
          data: { id: "71800000-0000-4000-8000-000000000001", status: "Filled" },
        })
      ).status,
    ).toBe(200);
    const started = Date.now();
    await world.app.stop();
    // Within the 10 s the process gives its shutdown (src/main.ts), and without waiting for the cycle to end.
    expect(Date.now() - started).toBeLessThan(10_000);
    const polled = await cycle.catch(() => null);
    expect(polled?.users ?? 0).toBeLessThan(users.length);
    expect(botTexts(world, 718).filter((t) => t.includes("Order 71800000"))).toHaveLength(1);
  }, 30_000);
});
