import { describe, expect, it } from "vitest";
import { BOT_TOKEN, linkedUser, manageWorld, type World } from "../kit/world";
import { signInitData } from "#src/miniapp/index";
import { SIGNER_LIMIT, WATCH_LIMIT } from "#src/miniapp/bounds";
import { editsOf, PUBLIC_URL, ruleInChat } from "../kit/miniapp";

const initDataFor = (world: World, id: number) =>
  signInitData({ id, firstName: `User${id}`, languageCode: "en" }, BOT_TOKEN, new Date(world.app.deps.now()));

const request = (world: World, path: string, initData: string, method = "GET") =>
  Promise.resolve(world.app.http.request(path, { method, headers: { authorization: `tma ${initData}` } }));

/** The marketplace calls `act` made (every HTTP request the sandbox received meanwhile). */
async function callsDuring(world: World, act: () => Promise<unknown>): Promise<string[]> {
  const before = world.sandboxRequests.length;
  await act();
  return world.sandboxRequests.slice(before);
}

const ruleIdOf = async (world: World, initData: string) => {
  const body = (await (await request(world, "/app/api/dashboard", initData)).json()) as {
    sections: { rules: { items: Array<{ id: string }> } };
  };
  return body.sections.rules.items[0]!.id;
};

describe("the dashboard API's bounds", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { PUBLIC_URL } });

  it("a signer past the window gets 429 with Retry-After, before anything is read; other users are served; the window ends", async () => {
    await linkedUser(world, 4701);
    await linkedUser(world, 4702);
    const mine = initDataFor(world, 4701);
    for (let i = 0; i < SIGNER_LIMIT.limit; i++)
      expect((await request(world, "/app/api/spending?days=7", mine)).status).toBe(200);
    const calls = await callsDuring(world, async () => {
      const refused = await request(world, "/app/api/dashboard", mine);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(SIGNER_LIMIT.windowMs / 1000);
      expect((await request(world, "/app/api/rules/abc/pause", mine, "POST")).status).toBe(429);
    });
    expect(calls).toEqual([]);
    expect((await request(world, "/app/api/dashboard", initDataFor(world, 4702))).status).toBe(200);
    world.shiftAppClock(SIGNER_LIMIT.windowMs);
    expect((await request(world, "/app/api/dashboard", initDataFor(world, 4701))).status).toBe(200);
    // The page has the words to say so, in every language.
    const page = await (await world.app.http.request("/app")).text();
    expect(page).toContain("Wait a minute, then try again");
  });

  it("the rule list an open dashboard follows has a window of its own, and reads in flight are shared", async () => {
    await linkedUser(world, 4751);
    const mine = initDataFor(world, 4751);
    await ruleInChat(world.user(4751));
    const rules = async () => {
      const response = await request(world, "/app/api/rules", mine);
      return {
        status: response.status,
        body: (await response.json()) as { rules: { items: Array<{ status: string }> } },
      };
    };
    const first = await rules();
    expect(first.status).toBe(200);
    expect(first.body.rules.items.map((rule) => rule.status)).toEqual(["active"]);
    // Ten at once cost one marketplace read.
    const burst = await callsDuring(world, () => Promise.all(Array.from({ length: 10 }, () => rules())));
    expect(burst.filter((call) => call.includes("/automations"))).toHaveLength(1);
    // The dashboard's own window full: following goes on.
    for (let i = 0; i < SIGNER_LIMIT.limit; i++)
      expect((await request(world, "/app/api/spending?days=7", mine)).status).toBe(200);
    expect((await request(world, "/app/api/dashboard", mine)).status).toBe(429);
    expect((await rules()).status).toBe(200);
    // Past its own window: 429 before anything is read.
    world.shiftAppClock(SIGNER_LIMIT.windowMs);
    for (let i = 0; i < WATCH_LIMIT.limit; i++) await request(world, "/app/api/rules", mine);
    const calls = await callsDuring(world, async () => {
      const refused = await request(world, "/app/api/rules", mine);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    });
    expect(calls).toEqual([]);
    // Which leaves the dashboard's window alone.
    expect((await request(world, "/app/api/dashboard", mine)).status).toBe(200);
  });

  it("identical reads in flight are shared: 20 concurrent dashboards cost one read, 10 cold spending reads one collection", async () => {
    await linkedUser(world, 4711);
    await linkedUser(world, 4712);
    const single = await callsDuring(world, () => request(world, "/app/api/dashboard", initDataFor(world, 4712)));
    const mine = initDataFor(world, 4711);
    const burst = await callsDuring(world, () =>
      Promise.all(
        Array.from({ length: 20 }, () =>
          request(world, "/app/api/dashboard", mine).then((answer) => expect(answer.status).toBe(200)),
        ),
      ),
    );
    expect(burst.length).toBe(single.length);

    await linkedUser(world, 4713);
    await linkedUser(world, 4714);
    const cold = await callsDuring(world, () => request(world, "/app/api/spending?days=30", initDataFor(world, 4714)));
    const coldBurst = await callsDuring(world, () =>
      Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          request(world, `/app/api/spending?days=${i % 2 ? 7 : 30}`, initDataFor(world, 4713)),
        ),
      ),
    );
    expect(coldBurst.length).toBe(cold.length);
  });

  it("one action per user and rule at a time: concurrent Pause and Resume make one marketplace write and one redraw, none refused by Telegram", async () => {
    const { accountId, user } = await linkedUser(world, 4721);
    const card = await ruleInChat(user);
    const initData = initDataFor(world, 4721);
    const ruleId = await ruleIdOf(world, initData);
    const editsBefore = editsOf(world, 4721, card.messageId).length;
    let statuses: number[] = [];
    const calls = await callsDuring(world, async () => {
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          request(world, `/app/api/rules/${ruleId}/${i % 2 ? "resume" : "pause"}`, initData, "POST"),
        ),
      );
      statuses = answers.map((answer) => answer.status);
    });
    expect(calls.filter((call) => call.startsWith("POST "))).toHaveLength(1);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status !== 200).every((status) => status === 409)).toBe(true);
    expect(world.sandbox.control.listRules(accountId)[0]!.status).toBe("paused");
    expect(editsOf(world, 4721, card.messageId).length).toBe(editsBefore + 1);
    expect(world.fake.calls.filter((call) => !call.ok && call.method.startsWith("edit"))).toEqual([]);
    // Once the first is done, the next action is served.
    expect((await request(world, `/app/api/rules/${ruleId}/resume`, initData, "POST")).status).toBe(200);
  });

  it("an unknown rule id is answered from the rule list the signer already read, without reading it again", async () => {
    const { user } = await linkedUser(world, 4731);
    await ruleInChat(user);
    const initData = initDataFor(world, 4731);
    await ruleIdOf(world, initData);
    const calls = await callsDuring(world, async () => {
      for (let i = 0; i < 10; i++) {
        const answer = await request(
          world,
          `/app/api/rules/00000000-0000-4000-8000-00000000000${i}/pause`,
          initData,
          "POST",
        );
        expect(answer.status).toBe(404);
        expect(((await answer.json()) as { message: string }).message).toContain("no longer exists");
      }
    });
    expect(calls).toEqual([]);
  });
});

describe("a redraw Telegram calls 'message is not modified'", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { PUBLIC_URL }, allowRejectedCalls: true });

  const storedText = async (chatId: number, messageId: number) =>
    (
      await world.app.db
        .selectFrom("open_rule_cards")
        .select("text")
        .where("chat_id", "=", chatId)
        .where("message_id", "=", messageId)
        .executeTakeFirst()
    )?.text;

  it("is counted as done: the card is recorded as showing what was sent", async () => {
    const { apiKey, user } = await linkedUser(world, 4741);
    const card = await ruleInChat(user);
    const initData = initDataFor(world, 4741);
    const ruleId = await ruleIdOf(world, initData);
    expect((await request(world, `/app/api/rules/${ruleId}/pause`, initData, "POST")).status).toBe(200);
    const pausedText = await storedText(4741, card.messageId);
    expect(pausedText).toContain("paused");
    // The record is behind the chat (another replica's write lost), and the rule is resumed elsewhere.
    await world.app.db
      .updateTable("open_rule_cards")
      .set({ text: card.text ?? "" })
      .where("chat_id", "=", 4741)
      .where("message_id", "=", card.messageId)
      .execute();
    expect(
      (
        await fetch(`${world.marketplaceUrl}/api/v1/automations/${ruleId}/resume`, {
          method: "POST",
          headers: { "x-api-key": apiKey },
        })
      ).status,
    ).toBe(200);

    expect((await request(world, `/app/api/rules/${ruleId}/pause`, initData, "POST")).status).toBe(200);
    const refused = world.fake.calls.filter(
      (call) => !call.ok && call.method === "editMessageText" && Number(call.params.message_id) === card.messageId,
    );
    expect(refused.map((call) => call.description)).toEqual([expect.stringContaining("message is not modified")]);
    expect(await storedText(4741, card.messageId)).toBe(pausedText);
  });
});
