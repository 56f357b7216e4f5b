import { describe, expect, it } from "vitest";
import { manageWorld, type World } from "../kit/world";
import { botTexts, linkedUser, outboxOf, waitFor } from "../kit/push-helpers";
import { MAX_POLL_PAGES } from "#src/push/poller-deps";

/**
 * More notifications than one page (20) between two polls: the poller reads further pages until
 * one holds a notification it has already seen, so none is lost, and none is relayed twice.
 */

const noteNumbers = (texts: string[]) =>
  texts.flatMap((text) => [...text.matchAll(/Note (\d+)\b/g)].map((match) => Number(match[1])));

async function counter(world: World, name: string): Promise<number> {
  const text = await (await fetch(`${world.app.url}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\d+)$`, "m").exec(text)?.[1] ?? 0);
}

describe("notifications past the newest page", () => {
  let world: World;
  // Alerts to one chat leave at most one a second: a faster clock lets 45 of them out in seconds.
  manageWorld((started) => (world = started), { timeScale: 10 });

  /** Raises `count` notifications numbered from `first`, one second apart on the marketplace's clock. */
  function raise(accountId: string, first: number, count: number) {
    for (let n = first; n < first + count; n++) {
      world.advance(1000);
      world.sandbox.control.addNotification({ accountId, title: `Note ${n}`, body: `Body of note ${n}` });
    }
  }

  it("45 notifications raised between two polls are each relayed once, in order; one older than the newest seen is never relayed again", async () => {
    const { accountId } = await linkedUser(world, 5401);
    raise(accountId, 1, 3);
    await world.app.push.pollNow();
    await waitFor(() => noteNumbers(botTexts(world, 5401)).length === 3);

    raise(accountId, 4, 45);
    const pagesBefore = await counter(world, "notification_poll_extra_pages_total");
    await world.app.push.pollNow();
    expect(await counter(world, "notification_poll_extra_pages_total")).toBe(pagesBefore + 2);
    await waitFor(() => noteNumbers(botTexts(world, 5401)).length >= 48, 20_000);
    await world.app.push.pollNow();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(noteNumbers(botTexts(world, 5401))).toEqual(Array.from({ length: 48 }, (_, i) => i + 1));

    // Remembered or not, a notification older than the newest seen one is never new: with only
    // that one left in the seen list (and no sent alert left to dedupe against), 25 more arrive;
    // the second page then holds the last 5 new ones, the newest seen one and 14 older ones.
    const newest = world.sandbox.control.listNotifications(accountId)[0] as { id: string; title: string };
    expect(newest.title).toBe("Note 48");
    await world.app.db
      .deleteFrom("seen_notifications")
      .where("telegram_id", "=", 5401)
      .where("notification_id", "!=", newest.id)
      .execute();
    await world.app.db.deleteFrom("outbox").where("telegram_id", "=", 5401).execute();
    raise(accountId, 49, 25);
    await world.app.push.pollNow();
    await waitFor(() => noteNumbers(botTexts(world, 5401)).length >= 73, 20_000);
    await world.app.push.pollNow();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(noteNumbers(botTexts(world, 5401))).toEqual(Array.from({ length: 73 }, (_, i) => i + 1));
  }, 60_000);

  it(`stops after ${MAX_POLL_PAGES} pages without a seen one, and says so in the log and /metrics`, async () => {
    const { accountId } = await linkedUser(world, 5402);
    raise(accountId, 1, 230);
    await world.app.push.pollNow();
    const queued = (await outboxOf(world, 5402)).filter((row) => row.dedupe_key.startsWith("notification:"));
    expect(queued).toHaveLength(MAX_POLL_PAGES * 20);
    // The newest 200, oldest first.
    expect(queued.sort((a, b) => a.id - b.id).map((row) => noteNumbers([row.payload])[0])).toEqual(
      Array.from({ length: 200 }, (_, i) => i + 31),
    );
    expect(await counter(world, "notification_poll_page_limit_total")).toBe(1);
    expect(world.logs()).toContain(`no notification already seen in the newest ${MAX_POLL_PAGES} pages`);
    // The next poll finds the newest page seen: nothing more is read or queued.
    await world.app.push.pollNow();
    expect((await outboxOf(world, 5402)).filter((row) => row.dedupe_key.startsWith("notification:"))).toHaveLength(200);
    expect(await counter(world, "notification_poll_page_limit_total")).toBe(1);
  }, 60_000);
});
