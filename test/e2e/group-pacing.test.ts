import { describe, expect, it } from "vitest";
import { ADDRESS_A, manageWorld, type World } from "../kit/world";
import { linkedUser, outboxSwept, waitFor } from "../kit/push-helpers";
import { linkGroup, teamGroup } from "../kit/group-helpers";

const filled = (id: string) => ({
  event: "order.filled",
  data: { id, status: "Filled", resource: "energy", volume: "65000", totalTrx: "4.6475", targetAddress: ADDRESS_A },
});
const orderId = (owner: number, n: number) =>
  `${String(owner).padStart(8, "0")}-0000-4000-8000-${String(n).padStart(12, "0")}`;

/**
 * Team alerts, paced: a burst of 100 order.filled webhooks whose copies go to 5 groups (20 each,
 * from two members per group) is delivered with no 429, each group within Telegram's 20 a minute,
 * and a private chat's alert in the middle of it is not held back. Time runs 3× faster on the
 * app's and the fake Telegram's clock (which counts every limit on arrival); the figures below are
 * on that clock.
 */
describe("team alerts: groups paced at 20 messages a minute", () => {
  let world: World;
  manageWorld((started) => (world = started), { rateLimits: true, timeScale: 3 });

  it("100 alerts to 5 groups: no 429, at most 20 in any minute per group, each within its pace; another chat is not delayed", async () => {
    const groups = [];
    const owners = [];
    for (let g = 0; g < 5; g++) {
      const a = await linkedUser(world, 4600 + g * 2);
      const b = await linkedUser(world, 4601 + g * 2);
      const group = teamGroup(world, [a.user, b.user], { title: `Team ${g}` });
      await linkGroup(world, a.user, group);
      await linkGroup(world, b.user, group);
      groups.push(group);
      owners.push(a, b);
    }
    const bystander = await linkedUser(world, 4690);
    // The set-up's replies spent the private chats' bursts: the burst comes a few seconds later, as it would.
    await world.settled();
    world.shiftAppClock(5_000);
    const now = () => world.app.deps.now();
    // Counted from the burst on: the set-up's replies are no part of what is measured.
    const firstSeq = (world.fake.calls.at(-1)?.seq ?? 0) + 1;
    const postedAt: number[] = [];
    // The burst: ten orders of each of the ten members, interleaved as a busy marketplace sends them.
    for (let n = 1; n <= 10; n++) {
      for (const owner of owners) {
        const id = orderId(owner.user.user.id, n);
        postedAt.push(now());
        expect((await owner.post(filled(id))).status).toBe(200);
      }
      if (n === 5) {
        const id = orderId(4690, 1);
        const sent = now();
        await bystander.post(filled(id));
        const arrived = await waitFor(() =>
          world.fake.calls.find(
            (call) =>
              call.method === "sendMessage" &&
              call.ok &&
              call.params.chat_id === 4690 &&
              String(call.params.text).includes(id.slice(0, 8)),
          ),
        );
        // Behind 100 group copies and their own pace, one private alert still leaves at once.
        expect(arrived.at - sent).toBeLessThan(2_000);
      }
    }
    await outboxSwept(world, undefined, 60_000);

    const sends = world.fake.calls.filter((call) => call.method === "sendMessage" && call.seq >= firstSeq);
    expect(sends.filter((call) => call.throttled || call.errorCode === 429)).toEqual([]);
    const latencies: number[] = [];
    for (const group of groups) {
      const arrivals = sends.filter(
        (call) => call.ok && call.params.chat_id === group.id && String(call.params.text).includes("filled"),
      );
      expect(arrivals).toHaveLength(20);
      const times = arrivals.map((call) => call.at);
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(3_000);
      // Never 20 in one minute: any 20 in a row span a minute or more (19 turns of 3.3 s).
      for (let i = 19; i < times.length; i++) expect(times[i]! - times[i - 19]!).toBeGreaterThanOrEqual(60_000);
      for (const [index, call] of arrivals.entries()) {
        // The k-th message of a group leaves within its pace: k turns of 3.3 s after the burst began, and a margin.
        const latency = call.at - postedAt[0]!;
        latencies.push(latency);
        expect(latency).toBeLessThan((index + 1) * 3_300 + 5_000);
      }
    }
    latencies.sort((x, y) => x - y);
    console.info(
      `group alerts after the burst's first webhook (app clock): median ${Math.round(latencies[50]! / 100) / 10} s, max ${Math.round(latencies.at(-1)! / 100) / 10} s over ${latencies.length} alerts in 5 groups`,
    );
  }, 120_000);
});
