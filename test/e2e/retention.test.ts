import { describe, expect, it } from "vitest";
import { releaseNamedLease, tryLease } from "#src/db/repos/leases";
import { ADDRESS_A, callbackAnswerText, linkKey, manageWorld, type World } from "../kit/world";
import { botTexts, pause, waitFor } from "../kit/push-helpers";

const DAY = 86_400_000;

describe("retention in the running bot", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("a seen notification is forgotten once it is off the first page and 4 days old, never while on it, and nothing is alerted twice", async () => {
    const user = world.user(741);
    const account = world.newAccount();
    const notes: string[] = [];
    for (let i = 1; i <= 20; i++) {
      notes.push(
        world.sandbox.control.addNotification({
          accountId: account.accountId,
          title: `Maintenance ${i}`,
          body: "The provider restarts at 03:00 UTC",
        }).id,
      );
      world.advance(1_000);
    }
    await linkKey(world, user, account.apiKey);
    const seenIds = async () =>
      (
        await world.app.db
          .selectFrom("seen_notifications")
          .select("notification_id")
          .where("telegram_id", "=", 741)
          .execute()
      ).map((row) => row.notification_id);
    // Linking recorded the first page (all 20) as seen, without alerting any.
    await waitFor(async () => (await seenIds()).length === 20);

    // Seen long ago: the oldest 5 days, the next 3 days, the rest 5 days (still on the first page).
    const age = (id: string, ms: number) =>
      world.app.db
        .updateTable("seen_notifications")
        .set((eb) => ({ seen_at: eb("seen_at", "-", ms) }))
        .where("telegram_id", "=", 741)
        .where("notification_id", "=", id)
        .execute();
    for (const [index, id] of notes.entries()) await age(id, index === 1 ? 3 * DAY : 5 * DAY);

    // Nothing new: the page did not move, nothing is forgotten, nothing alerted.
    await world.app.push.pollNow();
    expect(await seenIds()).toHaveLength(20);

    // Two new ones push the two oldest off the first page.
    for (const i of [1, 2]) {
      world.advance(1_000);
      world.sandbox.control.addNotification({
        accountId: account.accountId,
        title: `Fresh ${i}`,
        body: "A new announcement",
      });
    }
    await world.app.push.pollNow();
    await waitFor(() => botTexts(world, 741).filter((text) => text.includes("Fresh")).length === 2);
    const left = await seenIds();
    expect(left).toHaveLength(21);
    expect(left).not.toContain(notes[0]); // off the page and 5 days old
    expect(left).toContain(notes[1]); // off the page but only 3 days old
    for (const id of notes.slice(2)) expect(left).toContain(id); // 5 days old, still on the page

    // Polling again relays none of the old ones, which are still on the first page.
    await world.app.push.pollNow();
    await pause(300);
    expect(botTexts(world, 741).filter((text) => text.includes("Maintenance"))).toEqual([]);
    expect(botTexts(world, 741).filter((text) => text.includes("Fresh"))).toHaveLength(2);
  });

  it("runs under a lease (none while another replica holds it), and a card past 30 days is gone: its Confirm is refused and charges nothing", async () => {
    const user = world.user(742);
    const account = world.newAccount();
    await linkKey(world, user, account.apiKey);
    user.send(`/buy energy 65000 1h ${ADDRESS_A}`);
    const card = await user.nextMessage();
    expect(card.text).toContain("TRX");
    const cards = () =>
      world.app.db.selectFrom("pending_actions").select(["id", "updated_at"]).where("telegram_id", "=", 742).execute();
    const [row] = await cards();
    // The card was shown 30 days and a minute ago and never pressed since.
    const shown = Date.now() - 30 * DAY - 60_000;
    await world.app.db
      .updateTable("pending_actions")
      .set({ created_at: shown, updated_at: shown })
      .where("id", "=", row!.id)
      .execute();

    // Another replica is running retention: this one does nothing.
    expect(await tryLease(world.app.db, "cron:retention", "another-replica", Date.now(), 60_000)).toBe(true);
    expect(await world.app.push.runRetention()).toBeNull();
    expect(await cards()).toHaveLength(1);

    await releaseNamedLease(world.app.db, "cron:retention", "another-replica");
    const report = await world.app.push.runRetention();
    expect(report?.pending_actions).toBe(1);
    expect(await cards()).toEqual([]);

    const press = user.press("✅ Confirm");
    expect(await callbackAnswerText(world, press.callbackQueryId)).toBe("This confirmation is no longer valid.");
    await pause(300);
    expect(world.sandbox.control.listOrders(account.accountId)).toEqual([]);
  });
});
