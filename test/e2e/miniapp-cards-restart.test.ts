import { describe, expect, it } from "vitest";
import { BOT_TOKEN, buttonLabels, linkedUser, manageWorld, nextBotText, type World } from "../kit/world";
import { signInitData } from "#src/miniapp/index";
import type { App } from "#src/app";
import { editsOf, PUBLIC_URL, ruleInChat } from "../kit/miniapp";

const shownNow = (world: World, chatId: number, messageId: number) =>
  world.fake.messages(chatId).find((message) => message.messageId === messageId)!;

/** Pause or Resume of the signer's only rule on the dashboard, served by `app`. */
async function dashboardAction(world: World, app: App, id: number, action: "pause" | "resume"): Promise<void> {
  const headers = {
    authorization: `tma ${signInitData({ id, firstName: `User${id}`, languageCode: "en" }, BOT_TOKEN, new Date(app.deps.now()))}`,
  };
  const shown = (await (await app.http.request("/app/api/dashboard", { headers })).json()) as {
    sections: { rules: { items: Array<{ id: string }> } };
  };
  const [rule] = shown.sections.rules.items;
  const response = await app.http.request(`/app/api/rules/${rule!.id}/${action}`, { method: "POST", headers });
  expect(response.status).toBe(200);
}

/**
 * The chat's open rule cards are kept in the database (SQLite file, or PostgreSQL when
 * TEST_DATABASE_URL is set): a Pause on the dashboard redraws the card after a restart, and when
 * the dashboard's request reaches another replica than the one that drew the card.
 */
describe("the chat's rule card follows the dashboard across restarts and replicas", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { PUBLIC_URL }, file: true });

  it("a card opened before a restart is redrawn by a Pause on the dashboard after it", async () => {
    const { accountId, user } = await linkedUser(world, 4701);
    const card = await ruleInChat(user);
    expect(buttonLabels(card)).toContain("⏸ Pause");

    await world.restart();
    const before = editsOf(world, 4701, card.messageId).length;
    await dashboardAction(world, world.app, 4701, "pause");
    expect(world.sandbox.control.listRules(accountId)[0]!.status).toBe("paused");
    const edits = editsOf(world, 4701, card.messageId);
    expect(edits.length).toBe(before + 1);
    expect(String(edits.at(-1)!.params.text)).toContain("paused");
    expect(buttonLabels(shownNow(world, 4701, card.messageId))).toContain("▶️ Resume");
    expect(
      world.fake.calls.filter(
        (call) =>
          call.method === "answerCallbackQuery" && String(call.params.callback_query_id).startsWith("dashboard:"),
      ),
    ).toHaveLength(0);
  });

  it("the dashboard's request on another replica redraws the card the first one drew", async () => {
    const { user } = await linkedUser(world, 4702);
    const card = await ruleInChat(user);
    const replica = await world.startReplica();

    // Nothing reaches the first replica now: the user does nothing, the request goes to the other.
    const before = editsOf(world, 4702, card.messageId).length;
    await dashboardAction(world, replica, 4702, "pause");
    expect(editsOf(world, 4702, card.messageId).length).toBe(before + 1);
    expect(buttonLabels(shownNow(world, 4702, card.messageId))).toContain("▶️ Resume");

    await dashboardAction(world, replica, 4702, "resume");
    expect(editsOf(world, 4702, card.messageId).length).toBe(before + 2);
    expect(buttonLabels(shownNow(world, 4702, card.messageId))).toContain("⏸ Pause");
  });

  it("a card turned back into the list after a restart is no longer a card: the dashboard leaves that message alone", async () => {
    const { user } = await linkedUser(world, 4703);
    const card = await ruleInChat(user);
    await world.restart();
    user.press("⬅️ Back");
    const list = await nextBotText(user, (text) => !text.includes("Rule created"));
    expect(list.messageId).toBe(card.messageId);
    await world.settled();

    const before = editsOf(world, 4703, card.messageId).length;
    await dashboardAction(world, world.app, 4703, "pause");
    expect(editsOf(world, 4703, card.messageId).length).toBe(before);
    expect(buttonLabels(shownNow(world, 4703, card.messageId))).not.toContain("▶️ Resume");
  });
});
