import { describe, expect, it } from "vitest";
import { ADDRESS_A, manageWorld, type World } from "../kit/world";
import { botTexts, linkedUser, outboxSwept, waitFor } from "../kit/push-helpers";
import { groupLinkOf, groupTexts, linkGroup, teamGroup } from "../kit/group-helpers";

const filled = (id: string) => ({
  event: "order.filled",
  data: { id, status: "Filled", resource: "energy", volume: "65000", totalTrx: "4.6475", targetAddress: ADDRESS_A },
});

/**
 * Team alerts, ended: the bot removed from the group, the owner no longer an admin, a 403 from the
 * group end the link; nothing more is sent there (nor retried), and the owner is told once in
 * private. A group that became a supergroup is followed.
 */
describe("team alerts: when a group can no longer receive", () => {
  let world: World;
  manageWorld((started) => (world = started));

  const groupRows = (chatId: number) =>
    world.app.db.selectFrom("outbox").selectAll().where("chat_id", "=", chatId).orderBy("id").execute();
  const told = (chatId: number, part: string) => botTexts(world, chatId).filter((text) => text.includes(part));

  it("the bot removed from the group (my_chat_member): every link into it ends, each owner is told once, nothing more goes there", async () => {
    const a = await linkedUser(world, 4521);
    const b = await linkedUser(world, 4522);
    const group = teamGroup(world, [a.user, b.user], { title: "Night shift" });
    await linkGroup(world, a.user, group);
    await linkGroup(world, b.user, group);
    world.fake.removeBotFromGroup(group.id, a.user.user, "kicked");
    await waitFor(
      () =>
        told(4521, "I was removed from Night shift").length === 1 &&
        told(4522, "I was removed from Night shift").length === 1,
    );
    expect(await groupLinkOf(world, 4521)).toBeUndefined();
    expect(await groupLinkOf(world, 4522)).toBeUndefined();
    await a.post(filled("45210000-0000-4000-8000-000000000001"));
    await outboxSwept(world);
    expect(await groupRows(group.id)).toEqual([]);
    expect(told(4521, "Order 45210000")).toHaveLength(1);
    // The update again (a redelivery) tells nobody twice.
    world.fake.removeBotFromGroup(group.id, a.user.user, "left");
    await world.settled();
    await outboxSwept(world);
    expect(told(4521, "I was removed from")).toHaveLength(1);
  });

  it("the owner no longer an admin: checked before a group alert (cached for a minute), the link ends and they are told once", async () => {
    const who = await linkedUser(world, 4523);
    const group = teamGroup(world, [who.user], { title: "Ops" });
    await linkGroup(world, who.user, group);
    await who.post(filled("45230000-0000-4000-8000-000000000001"));
    await waitFor(() => groupTexts(world, group.id).some((text) => text.includes("Order 45230000")));
    world.fake.setMemberStatus(group.id, who.user.user, "member");
    world.shiftAppClock(61_000);
    await who.post(filled("45230000-0000-4000-8000-000000000002"));
    await waitFor(() => told(4523, "You are no longer an admin of Ops").length === 1);
    await outboxSwept(world);
    expect(groupTexts(world, group.id).filter((text) => text.includes("Order 45230000"))).toHaveLength(1);
    expect((await groupRows(group.id)).map((row) => row.status)).toEqual(["sent", "dropped"]);
    expect(await groupLinkOf(world, 4523)).toBeUndefined();
    // Privately, both alerts as before.
    expect(told(4523, "Order 45230000")).toHaveLength(2);
  });

  it("a 403 from the group (the bot gone before the update came): the link ends, the alert is not retried, the owner told once", async () => {
    const who = await linkedUser(world, 4524);
    const group = teamGroup(world, [who.user], { title: "Desk" });
    await linkGroup(world, who.user, group);
    await who.post(filled("45240000-0000-4000-8000-000000000001"));
    await waitFor(() => groupTexts(world, group.id).some((text) => text.includes("Order 45240000")));
    // Within the minute the owner's admin check is trusted: the send itself meets the 403.
    world.fake.group(group.id)!.botStatus = "kicked";
    await who.post(filled("45240000-0000-4000-8000-000000000002"));
    await who.post(filled("45240000-0000-4000-8000-000000000003"));
    await waitFor(() => told(4524, "Telegram no longer lets me write to Desk").length === 1);
    await outboxSwept(world);
    const sends = world.fake.calls.filter((call) => call.method === "sendMessage" && call.params.chat_id === group.id);
    expect(sends.filter((call) => !call.ok)).toHaveLength(1);
    expect((await groupRows(group.id)).map((row) => row.status).sort()).toEqual(["dropped", "dropped", "sent"]);
    expect(await groupLinkOf(world, 4524)).toBeUndefined();
    expect(told(4524, "no longer lets me")).toHaveLength(1);
  });

  it("the bot restricted from sending: told by my_chat_member, or met as a 400 'not enough rights' on a send; the link ends, the owner told once", async () => {
    const a = await linkedUser(world, 4527);
    const b = await linkedUser(world, 4528);
    const first = teamGroup(world, [a.user], { title: "Muted desk" });
    const second = teamGroup(world, [b.user], { title: "Quiet desk" });
    await linkGroup(world, a.user, first);
    await linkGroup(world, b.user, second);
    // An admin takes the bot's right to send: Telegram says so with my_chat_member.
    world.fake.restrictBot(first.id, a.user.user, false);
    await waitFor(() => told(4527, "Telegram no longer lets me write to Muted desk").length === 1);
    expect(await groupLinkOf(world, 4527)).toBeUndefined();
    // The same, unnoticed until a copy meets Telegram's 400: the copy is dropped, not retried, and the link ends.
    await b.post(filled("45280000-0000-4000-8000-000000000001"));
    await waitFor(() => groupTexts(world, second.id).some((text) => text.includes("Order 45280000")));
    Object.assign(world.fake.group(second.id)!, { botStatus: "restricted", botCanSend: false });
    await b.post(filled("45280000-0000-4000-8000-000000000002"));
    await waitFor(() => told(4528, "Telegram no longer lets me write to Quiet desk").length === 1);
    await outboxSwept(world);
    const refused = world.fake.calls.filter(
      (call) => call.method === "sendMessage" && call.params.chat_id === second.id && !call.ok,
    );
    expect(refused.map((call) => call.errorCode)).toEqual([400]);
    expect((await groupRows(second.id)).map((row) => row.status).sort()).toEqual(["dropped", "sent"]);
    expect(await groupLinkOf(world, 4528)).toBeUndefined();
    expect([told(4527, "no longer lets me"), told(4528, "no longer lets me")].map((texts) => texts.length)).toEqual([
      1, 1,
    ]);
  });

  it("a group become a supergroup is followed: by its service message, and by Telegram's 400 with migrate_to_chat_id", async () => {
    const who = await linkedUser(world, 4525);
    const group = teamGroup(world, [who.user]);
    await linkGroup(world, who.user, group);
    const supergroup = world.fake.migrateGroup(group.id, who.user.user);
    await waitFor(async () => Number((await groupLinkOf(world, 4525))?.group_chat_id) === supergroup.id);
    await who.post(filled("45250000-0000-4000-8000-000000000001"));
    await waitFor(() => groupTexts(world, supergroup.id).some((text) => text.includes("Order 45250000")));

    // Another group migrates without its service message reaching the bot: the send's 400 says where it went.
    const other = await linkedUser(world, 4526);
    const second = teamGroup(world, [other.user]);
    await linkGroup(world, other.user, second);
    const moved = world.fake.createGroup({
      type: "supergroup",
      title: "Moved",
      members: [{ user: other.user.user, status: "creator" }],
    });
    world.fake.group(second.id)!.migratedTo = moved.id;
    await other.post(filled("45260000-0000-4000-8000-000000000001"));
    await waitFor(() => groupTexts(world, moved.id).some((text) => text.includes("Order 45260000")));
    expect(Number((await groupLinkOf(world, 4526))?.group_chat_id)).toBe(moved.id);
    expect(groupTexts(world, second.id).some((text) => text.includes("Order 45260000"))).toBe(false);
  });
});
