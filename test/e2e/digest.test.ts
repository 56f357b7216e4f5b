import { describe, expect, it } from "vitest";
import { PNG } from "pngjs";
import { linkKey, manageWorld, type World } from "../kit/world";
import { findCredential } from "#src/db/repos/credentials";
import { expectedFigures } from "../kit/spending-oracle";
import { CHART_PIXELS } from "#src/reports/report";
import type { ChatMessage } from "#src/telegram-fake/index";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The next Monday 01:00 UTC after `now`: Monday 09:00 in Asia/Shanghai (UTC+8 all year). */
function nextShanghaiMonday0900(now: number): number {
  const date = new Date(now);
  const monday = Date.UTC(
    date.getUTCFullYear(),
    date.getUTCMonth(),
    date.getUTCDate() - ((date.getUTCDay() + 6) % 7),
    1,
  );
  return monday > now ? monday : monday + 7 * DAY;
}

const labels = (message: ChatMessage) =>
  (message.replyMarkup?.inline_keyboard ?? []).flat().map((button) => button.text);

describe("weekly digest", () => {
  let world: World;
  manageWorld((started) => (world = started), { file: true });

  /** Moves the bot's clock and the sandbox's together; returns the bot's "now" after. */
  let shifted = 0;
  const botNow = () => Date.now() + shifted;
  function shiftTo(target: number): void {
    const delta = target - botNow();
    expect(delta).toBeGreaterThan(0);
    world.shiftAppClock(delta);
    world.advance(delta);
    shifted += delta;
  }

  async function linkedUser(id: number) {
    const account = world.newAccount({ trx: "2000", usdt: "0" });
    const user = world.user(id);
    await linkKey(world, user, account.apiKey);
    return { ...account, user };
  }

  /** Turns the weekly digest on from /settings (it is off by default). */
  async function turnDigestOn(user: Awaited<ReturnType<typeof linkedUser>>["user"]): Promise<void> {
    user.send("/settings");
    await user.nextMessage();
    user.press("📬 Weekly digest: off");
    await user.nextBotEvent();
  }

  /**
   * A linked user with the digest on and a week of spending before their Monday 09:00 (UTC, the
   * default zone), the clock moved just past it and the digest queued; returns the slot too.
   */
  async function queuedDigest(id: number) {
    const linked = await linkedUser(id);
    await turnDigestOn(linked.user);
    let slot = nextShanghaiMonday0900(botNow()) + 8 * HOUR;
    if (slot - 7 * DAY < botNow() + 60_000) slot += 7 * DAY;
    shiftTo(slot - 7 * DAY + 60_000);
    world.sandbox.control.fillHistory({ accountId: linked.accountId, days: 7 });
    shiftTo(slot + 30_000);
    expect(await world.app.push.queueDigests()).toBe(1);
    return { ...linked, slot };
  }

  async function photosTo(chatId: number): Promise<number> {
    return world.fake.calls.filter(
      (call) => call.method === "sendPhoto" && Number(call.params.chat_id) === chatId && call.ok,
    ).length;
  }

  it("is off by default; once on in Asia/Shanghai it goes out Monday 09:00 there (not at UTC's), with that week's chart and figures, once per week across a restart", async () => {
    shifted = 0;
    const { accountId, user } = await linkedUser(7201);
    const utc = await linkedUser(7202);

    user.send("/settings");
    const card = await user.nextMessage();
    expect(card.text).toContain("Weekly digest: off");
    expect(labels(card)).toContain("📬 Weekly digest: off");
    expect(labels(card)).not.toContain("Shanghai");
    user.press("📬 Weekly digest: off");
    const on = await user.nextBotEvent();
    expect(on.kind).toBe("edit");
    expect(on.message.text).toContain("Weekly digest: on");
    expect(on.message.text).toContain("Sent on Mondays at 09:00, UTC");
    expect(labels(on.message)).toContain("✅ UTC");
    user.press("Shanghai");
    const zone = await user.nextBotEvent();
    expect(zone.message.text).toContain("Sent on Mondays at 09:00, Asia/Shanghai");
    expect(labels(zone.message)).toContain("✅ Shanghai");

    utc.user.send("/settings");
    await utc.user.nextMessage();
    utc.user.press("📬 Weekly digest: off");
    expect((await utc.user.nextBotEvent()).message.text).toContain("Sent on Mondays at 09:00, UTC");
    // a third user never turned it on
    const off = await linkedUser(7203);

    const slot = nextShanghaiMonday0900(botNow());
    shiftTo(slot - 60_000);
    // the week before that Monday (Shanghai time) gets spending of its own
    world.sandbox.control.fillHistory({ accountId, days: 9 });
    world.sandbox.control.fillHistory({ accountId: utc.accountId, days: 9 });
    world.sandbox.control.fillHistory({ accountId: off.accountId, days: 9 });
    expect(await world.app.push.queueDigests()).toBe(0);

    shiftTo(slot + 30_000);
    // 09:00 in Shanghai is 01:00 UTC: only the Shanghai user's digest is due
    expect(await world.app.push.queueDigests()).toBe(1);
    expect(await world.app.push.queueDigests()).toBe(0);
    // spread over the hour that follows
    shiftTo(slot + HOUR + 60_000);
    const digest = await user.nextMessage({ timeoutMs: 20_000 });
    const png = PNG.sync.read(Buffer.from(digest.photo!.bytes));
    expect({ width: png.width, height: png.height }).toEqual(CHART_PIXELS);
    const caption = digest.caption ?? "";
    expect(caption).toContain("Weekly digest");
    expect(caption).toContain("(Asia/Shanghai)");
    expect(caption).toContain("Turn the digest off or change its time zone in /settings.");
    // Monday to Sunday in Shanghai: from Sunday 16:00 UTC a week earlier to Sunday 16:00 UTC
    const week = await expectedFigures(world, accountId, { from: slot - 9 * HOUR - 7 * DAY, to: slot - 9 * HOUR });
    expect(week.spent).toBeGreaterThan(0n);
    for (const line of Object.values(week.lines)) expect(caption).toContain(line);
    expect(await photosTo(utc.user.user.id)).toBe(0);
    expect(await photosTo(off.user.user.id)).toBe(0);

    // a restart queues nothing again for that week
    await world.restart();
    expect(await world.app.push.queueDigests()).toBe(0);

    // 09:00 UTC: the UTC user's turn
    shiftTo(slot + 8 * HOUR + 30_000);
    expect(await world.app.push.queueDigests()).toBe(1);
    shiftTo(slot + 9 * HOUR + 60_000);
    const utcDigest = await utc.user.nextMessage({ timeoutMs: 20_000 });
    expect(utcDigest.caption).toContain("(UTC)");
    const utcWeek = await expectedFigures(world, utc.accountId, { from: slot - HOUR - 7 * DAY, to: slot - HOUR });
    for (const line of Object.values(utcWeek.lines)) expect(utcDigest.caption).toContain(line);

    await world.restart();
    expect(await world.app.push.queueDigests()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await photosTo(user.user.id)).toBe(1);
    expect(await photosTo(utc.user.user.id)).toBe(1);
    expect(await photosTo(off.user.user.id)).toBe(0);

    // the next Monday: once again, for the week after, which gets spending of its own
    shiftTo(slot + 7 * DAY - 60_000);
    world.sandbox.control.fillHistory({ accountId, days: 6 });
    shiftTo(slot + 7 * DAY + 30_000);
    expect(await world.app.push.queueDigests()).toBe(1);
    shiftTo(slot + 7 * DAY + HOUR + 60_000);
    const next = await user.nextMessage({ timeoutMs: 20_000 });
    const nextWeek = await expectedFigures(world, accountId, { from: slot - 9 * HOUR, to: slot - 9 * HOUR + 7 * DAY });
    expect(nextWeek.spent).toBeGreaterThan(0n);
    for (const line of Object.values(nextWeek.lines)) expect(next.caption).toContain(line);
    expect(await photosTo(user.user.id)).toBe(2);
  });

  it("a week with nothing spent says so instead of sending a chart", async () => {
    shifted = 0;
    const { user } = await linkedUser(7221);
    await turnDigestOn(user);
    const slot = nextShanghaiMonday0900(botNow()) + 8 * HOUR;
    shiftTo(slot + 30_000);
    expect(await world.app.push.queueDigests()).toBe(1);
    shiftTo(slot + HOUR + 60_000);
    const quiet = await user.nextMessage({ timeoutMs: 20_000 });
    expect(quiet.photo).toBeUndefined();
    expect(quiet.text).toContain("Weekly digest");
    expect(quiet.text).toContain("Nothing spent in this period.");
    expect(await photosTo(user.user.id)).toBe(0);
  });

  it("a key the marketplace refuses when the digest is built: nothing is sent and the key is marked broken", async () => {
    shifted = 0;
    const { apiKey, user, slot } = await queuedDigest(7231);
    world.sandbox.control.revokeKey({ apiKey });
    const seen = user.botMessages().length;
    shiftTo(slot + HOUR + 60_000);
    await expect
      .poll(async () => (await findCredential(world.app.db, 7231))?.broken_at ?? null, { timeout: 20_000 })
      .not.toBeNull();
    const row = await world.app.db
      .selectFrom("outbox")
      .select(["status"])
      .where("telegram_id", "=", 7231)
      .where("dedupe_key", "like", "digest:%")
      .executeTakeFirstOrThrow();
    expect(row.status).not.toBe("sent");
    expect(await photosTo(user.user.id)).toBe(0);
    expect(
      user
        .botMessages()
        .slice(seen)
        .some((message) => (message.text ?? message.caption ?? "").includes("Weekly digest")),
    ).toBe(false);
  });

  it("turned off after it was queued, it is not sent", async () => {
    shifted = 0;
    const { user, slot } = await queuedDigest(7211);
    user.send("/settings");
    await user.nextMessage();
    user.press("📬 Weekly digest: on");
    expect((await user.nextBotEvent()).message.text).toContain("Weekly digest: off");
    shiftTo(slot + HOUR + 60_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await photosTo(user.user.id)).toBe(0);
  });
});
