import { describe, expect, it } from "vitest";
import {
  ADDRESS_A,
  buttonLabels,
  cardOutcome,
  linkKey,
  manageWorld,
  nextBotText,
  openStep,
  type World,
} from "../kit/world";
import { FLOW_VERSION } from "#src/db/repos/flows";

type User = ReturnType<World["user"]>;

/**
 * Guided flows run on @grammyjs/conversations with their state in the bot's database (SQLite, or
 * PostgreSQL when TEST_DATABASE_URL is set): a restart or another replica resumes a flow at the
 * same step, a replay never repeats a marketplace call, and a flow stored by another version of
 * the bot expires with a clear message.
 */
describe("guided flows survive restarts, replicas and deploys", () => {
  let world: World;
  manageWorld((started) => (world = started), { file: true });

  async function linked(id: number): Promise<{ accountId: string; user: User }> {
    const { accountId, apiKey } = world.newAccount();
    const user = world.user(id);
    await linkKey(world, user, apiKey);
    return { accountId, user };
  }

  async function stepOf(chatId: number): Promise<string | null> {
    return openStep(world, chatId);
  }

  /** The answer to an expired /buy question: told so and how to start again; no open step, no order. */
  async function expectBuyExpired(user: User, id: number, accountId: string) {
    const expired = await user.nextMessage();
    expect(expired.text).toContain("This question has expired");
    expect(expired.text).toContain("/buy");
    expect(await world.app.db.selectFrom("flows").selectAll().where("telegram_id", "=", id).execute()).toEqual([]);
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(0);
    return expired;
  }

  it("a restart between two answers resumes /newrule at the same step", async () => {
    const { accountId, user } = await linked(901);
    user.send("/newrule");
    expect((await user.nextMessage()).text).toContain("Which kind of rule");
    user.press("Auto-refill");
    expect((await user.nextMessage()).text).toContain("Which address");
    user.send(ADDRESS_A);
    expect((await user.nextMessage()).text).toContain("falls below how much");
    expect(await stepOf(901)).toBe("rule/minimal");

    await world.restart();
    user.send("30k");
    expect((await user.nextMessage()).text).toContain("per delivery");
    user.press("65,000");
    expect((await user.nextMessage()).text).toContain("how long");
    user.press("1h");
    expect((await user.nextMessage()).text).toContain("resume by itself");
    user.press("No");
    const card = await user.nextMessage();
    for (const word of ["Auto-refill", ADDRESS_A, "30,000", "65,000", "1h"]) expect(card.text).toContain(word);
    user.press("✅ Confirm");
    await nextBotText(user, (text) => text.includes("Rule created"));
    expect(world.sandbox.control.listRules(accountId)).toHaveLength(1);
    expect(await stepOf(901)).toBeNull();
  });

  it("another replica takes the next answer and goes on from the same step; one order is placed", async () => {
    const { accountId, user } = await linked(902);
    user.send("/buy");
    expect((await user.nextMessage()).text).toContain("Which resource");
    user.press("Energy");
    expect((await user.nextMessage()).text).toContain("How much Energy");
    expect(await stepOf(902)).toBe("buy/volume");

    // A second replica on the same database; the first one goes away, so the second takes over
    // polling and handles the rest of the flow.
    await world.startReplica();
    await world.app.stop();
    user.send("65k");
    expect((await user.nextMessage({ timeoutMs: 20_000 })).text).toContain("For how long");
    user.press("1h");
    expect((await user.nextMessage()).text).toContain("Which address");
    user.send(ADDRESS_A);
    const card = await user.nextMessage();
    for (const word of ["65,000", "1h", ADDRESS_A]) expect(card.text).toContain(word);
    user.press("✅ Confirm");
    expect((await cardOutcome(user)).text).toContain("Order placed");
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(1);
  }, 40_000);

  it("a replay never repeats a marketplace call: a five-step /refill makes the calls of its steps and card, once each", async () => {
    // The reference: the same rule on one line, for a user of its own (the options are cached per user).
    const reference = await linked(903);
    let before = world.sandboxRequests.length;
    reference.user.send(`/refill ${ADDRESS_A} 30k 65k 1h`);
    await reference.user.nextMessage();
    const oneLine = world.sandboxRequests.slice(before);

    const { user } = await linked(904);
    before = world.sandboxRequests.length;
    user.send("/refill");
    expect((await user.nextMessage()).text).toContain("Which address");
    user.send(ADDRESS_A);
    expect((await user.nextMessage()).text).toContain("falls below how much");
    user.send("30k");
    expect((await user.nextMessage()).text).toContain("per delivery");
    user.press("65,000");
    expect((await user.nextMessage()).text).toContain("how long");
    user.press("1h");
    expect((await user.nextMessage()).text).toContain("resume by itself");
    user.press("No");
    expect((await user.nextMessage()).text).toContain("Confirm the new rule");
    const guided = world.sandboxRequests.slice(before);
    // Each answer replays the flow from its start; none of the replays reached the marketplace.
    expect([...guided].sort()).toEqual([...oneLine].sort());
    expect(guided.filter((request) => request.includes("/automations/options"))).toHaveLength(1);
  });

  it("a flow stored by another version of the bot expires: the user is told how to start again, nothing is applied", async () => {
    const { accountId, user } = await linked(905);
    user.send("/buy energy 65k");
    expect((await user.nextMessage()).text).toContain("For how long");
    user.press("1h");
    expect((await user.nextMessage()).text).toContain("Which address");
    expect(await stepOf(905)).toBe("buy/address");
    // What a deploy that changed the flow's code leaves behind: a state of the previous version.
    const row = await world.app.db
      .selectFrom("conversations")
      .select("state")
      .where("chat_id", "=", 905)
      .executeTakeFirstOrThrow();
    const state = JSON.parse(row.state) as { version: [number, number | string] };
    state.version[1] = FLOW_VERSION - 1;
    await world.app.db
      .updateTable("conversations")
      .set({ state: JSON.stringify(state) })
      .where("chat_id", "=", 905)
      .execute();
    await world.restart();

    user.send(ADDRESS_A);
    const expired = await expectBuyExpired(user, 905, accountId);
    expect(buttonLabels(expired)).toEqual([]);
    expect(await stepOf(905)).toBeNull();
    // The user starts again, on the new version.
    user.send(`/buy energy 65k 1h ${ADDRESS_A}`);
    expect((await user.nextMessage()).text).toContain(ADDRESS_A);
  });

  it("a first question stored by another version of the bot expires the same way; a restart before the answer keeps one of this version", async () => {
    const { accountId, user } = await linked(908);
    user.send("/buy energy 65k 1h");
    expect((await user.nextMessage()).text).toContain("Which address");
    // The first question waits in `flows` (the flow is entered with its answer) and survives a restart.
    expect(await stepOf(908)).toBe("buy/address");
    await world.restart();
    expect(await stepOf(908)).toBe("buy/address");
    await world.app.db
      .updateTable("flows")
      .set({ version: FLOW_VERSION - 1 })
      .where("telegram_id", "=", 908)
      .execute();
    await world.restart();

    user.send(ADDRESS_A);
    await expectBuyExpired(user, 908, accountId);
    // Later text is not an answer to anything.
    user.send(ADDRESS_A);
    expect((await user.nextMessage()).text).not.toContain("This question has expired");
    user.send("/buy energy 65k 1h");
    expect((await user.nextMessage()).text).toContain("Which address");
    await world.restart();
    user.send(ADDRESS_A);
    const card = await user.nextMessage();
    for (const word of ["65,000", "1h", ADDRESS_A]) expect(card.text).toContain(word);
    expect(await stepOf(908)).toBeNull();
  });

  it("a step of a flow stored before flows were conversations expires with the deploy: the user is told how to start again", async () => {
    const { accountId, user } = await linked(907);
    // What the step machines of the previous release left in `flows` for a user mid-/buy.
    await world.app.db
      .insertInto("flows")
      .values({
        telegram_id: 907,
        flow: "buy",
        step: "address",
        data: JSON.stringify({ resource: "energy", volume: "65000", duration: "1h" }),
        version: FLOW_VERSION,
        updated_at: Date.now(),
      })
      .execute();
    user.send(ADDRESS_A);
    await expectBuyExpired(user, 907, accountId);
  });

  it("the marketplace failing while the first question's answer is checked: the user is told, the question stays open, and the next answer goes on", async () => {
    const { accountId, user } = await linked(909);
    user.send("/buy");
    expect((await user.nextMessage()).text).toContain("Which resource");
    // Past the options' one-minute cache, so the answer's check asks the marketplace again.
    world.shiftAppClock(61_000);
    world.sandbox.control.injectFault({
      method: "GET",
      pathPrefix: "/api/v1/orders/options",
      status: 503,
      body: { title: "Service Unavailable", status: 503 },
      times: 40,
    });
    user.send("energy");
    const failed = await user.nextMessage({ timeoutMs: 40_000 });
    expect(failed.text).toContain("The marketplace is not answering right now");
    expect(failed.text).not.toContain("How much");
    expect(failed.text).not.toContain("This question has expired");
    expect(await stepOf(909)).toBe("buy/resource");
    world.sandbox.control.clearFaults();
    user.send("energy");
    expect((await user.nextMessage()).text).toContain("How much Energy");
    expect(await stepOf(909)).toBe("buy/volume");
    expect(world.sandbox.control.listOrders(accountId)).toHaveLength(0);
  }, 60_000);

  it("a question left unanswered for 10 minutes expires with a clear message; later text is not an answer", async () => {
    await linked(906);
    const user = world.user(906);
    user.send("/quote energy");
    expect((await user.nextMessage()).text).toMatch(/How much energy\?/i);
    world.shiftAppClock(10 * 60_000 + 1_000);
    user.send("65000");
    const expired = await user.nextMessage();
    expect(expired.text).toContain("This question has expired");
    expect(expired.text).toContain("/quote");
    expect(await stepOf(906)).toBeNull();
    user.send("1h");
    expect((await user.nextMessage()).text).toContain("I didn't understand that");
  });
});
