import { describe, expect, it } from "vitest";
import { linkKey, type World, manageWorld } from "../kit/world";
import { findCredential } from "#src/db/repos/credentials";
import type { ChatMessage } from "#src/telegram-fake/index";

function labels(message: ChatMessage): string[] {
  return message.replyMarkup?.inline_keyboard.flat().map((button) => button.text) ?? [];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** An item of a kind the bot does not know: its number and time, then the marketplace's own title (and body) in a quote. */
function quoted(marker: string, number: number, title: string): RegExp {
  return new RegExp(`${marker} ${number}\\. [^\\n]+ UTC · in the marketplace's words:\\n${title}(\\n|$)`);
}

function markReadButtons(message: ChatMessage): string[] {
  return labels(message).filter((label) => /Mark read \d+$/.test(label));
}

describe("/notifications", () => {
  let world: World;
  manageWorld((started) => (world = started));

  async function linkedUser(id: number) {
    const account = world.newAccount();
    const user = world.user(id);
    await linkKey(world, user, account.apiKey);
    return { ...account, user };
  }

  const unreadInSandbox = (accountId: string) =>
    world.sandbox.control.listNotifications(accountId).filter((n) => !n.read).length;

  it("pages by 20 newest first with the unread count; Mark read and Mark all read edit in place and reach the sandbox", async () => {
    const { accountId, user } = await linkedUser(401);
    for (let i = 1; i <= 25; i += 1)
      world.sandbox.control.addNotification({ accountId, title: `Note ${i}`, body: `Body of note ${i}` });
    expect(unreadInSandbox(accountId)).toBe(25);

    user.send("/notifications");
    const list = await user.nextMessage();
    expect(list.text).toContain("25 unread (page 1 of 2, 25 in all)");
    expect(list.text).toMatch(quoted("🔵", 1, "Note 25"));
    expect(list.text).toMatch(quoted("🔵", 20, "Note 6"));
    expect(list.text).not.toContain("Note 5 ");
    expect(markReadButtons(list).length).toBe(20);
    expect(labels(list)).toContain("Next ▶️");
    expect(labels(list).some((label) => label.includes("Mark all read"))).toBe(true);

    user.press(/Mark read 1$/);
    const afterOne = await user.nextBotEvent();
    expect(afterOne.kind).toBe("edit");
    expect(afterOne.message.messageId).toBe(list.messageId);
    expect(afterOne.message.text).toContain("24 unread");
    expect(afterOne.message.text).toMatch(quoted("⚪", 1, "Note 25"));
    expect(afterOne.message.text).toMatch(quoted("🔵", 2, "Note 24"));
    expect(markReadButtons(afterOne.message)).not.toContain("✔️ Mark read 1");
    expect(markReadButtons(afterOne.message).length).toBe(19);
    expect(unreadInSandbox(accountId)).toBe(24);
    expect(world.sandbox.control.listNotifications(accountId).find((n) => n.title === "Note 25")?.read).toBe(true);
    expect(world.fake.callbackAnswers.some((answer) => answer.text === "Marked as read")).toBe(true);

    user.press(/Next/);
    const page2 = await user.nextBotEvent();
    expect(page2.message.text).toContain("(page 2 of 2, 25 in all)");
    expect(page2.message.text).toMatch(quoted("🔵", 5, "Note 1"));
    expect(markReadButtons(page2.message).length).toBe(5);
    expect(labels(page2.message).some((label) => label.includes("Next"))).toBe(false);
    user.press(/Prev/);
    expect((await user.nextBotEvent()).message.text).toContain("(page 1 of 2");

    user.press(/Mark all read/);
    const allRead = await user.nextBotEvent();
    expect(allRead.kind).toBe("edit");
    expect(allRead.message.messageId).toBe(list.messageId);
    expect(allRead.message.text).toContain("0 unread");
    expect(allRead.message.text).not.toMatch(/^🔵 \d/m);
    expect(markReadButtons(allRead.message)).toEqual([]);
    expect(labels(allRead.message).some((label) => label.includes("Mark all read"))).toBe(false);
    expect(unreadInSandbox(accountId)).toBe(0);

    // a refresh of an unchanged page sends no edit Telegram would refuse
    await new Promise((resolve) => setTimeout(resolve, 100));
    const edits = world.fake.calls.filter((call) => call.method === "editMessageText").length;
    user.press(/Refresh/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(world.fake.calls.filter((call) => call.method === "editMessageText").length).toBe(edits);
  });

  it("renders a hostile title, a 5,000-character body and links safely, and 20 such items fit in one message", async () => {
    const { accountId, user } = await linkedUser(402);
    const hostile = "<b>&</b><script>";
    const long = "x".repeat(4990) + " & <end>";
    world.sandbox.control.addNotification({ accountId, title: hostile, body: long, link: "javascript:alert(1)" });
    world.sandbox.control.addNotification({
      accountId,
      title: "With a link",
      body: "Tap it",
      link: 'https://example.com/path?a=1&b="2"',
    });

    user.send("/notifications");
    const shown = await user.nextMessage();
    expect(shown.text).toMatch(quoted("🔵", 1, "With a link"));
    expect(shown.text).toMatch(quoted("🔵", 2, escapeRegExp(hostile)));
    expect(shown.text).toContain("…");
    expect(shown.text).not.toContain("<end>");
    expect(shown.text!.length).toBeLessThanOrEqual(4096);
    const links = (shown.entities ?? []).filter((entity) => entity.type === "text_link").map((entity) => entity.url);
    expect(links).toEqual(["https://example.com/path?a=1&b=%222%22"]);
    expect(shown.html).not.toContain("javascript:");

    // a full page of hostile, long notifications still fits and is accepted
    for (let i = 0; i < 20; i += 1) {
      world.sandbox.control.addNotification({
        accountId,
        title: `${hostile} ${"&".repeat(300)} ${i}`,
        body: `${"<&>".repeat(1700)} ${i}`,
        link: `https://example.com/${i}`,
      });
    }
    user.press(/Refresh/);
    const full = await user.nextBotEvent();
    expect(full.kind).toBe("edit");
    expect(full.message.text).toContain("22 unread (page 1 of 2, 22 in all)");
    expect(full.message.text!.length).toBeLessThanOrEqual(4096);
    expect(full.message.text).toMatch(quoted("🔵", 20, `${escapeRegExp(hostile)} &+…`));
    expect(markReadButtons(full.message).length).toBe(20);

    user.press(/Mark all read/);
    expect((await user.nextBotEvent()).message.text).toContain("0 unread");
    expect(unreadInSandbox(accountId)).toBe(0);
  });

  it("Mark read and Mark all read that the marketplace fails are explained; nothing is marked and the key is not taken for broken", async () => {
    const { accountId, user } = await linkedUser(404);
    for (let i = 1; i <= 3; i += 1)
      world.sandbox.control.addNotification({ accountId, title: `Note ${i}`, body: `Body ${i}` });
    user.send("/notifications");
    await user.nextMessage();

    world.sandbox.control.injectFault({ method: "POST", pathPrefix: "/api/v1/notifications/", status: 503, times: 10 });
    user.press(/Mark read 1$/);
    expect((await user.nextMessage()).text).toContain("The marketplace is not answering right now");
    expect(unreadInSandbox(accountId)).toBe(3);
    world.sandbox.control.clearFaults();

    // A 403 on a write is about that write (scope, limits), never a key that lost access.
    world.sandbox.control.injectFault({
      method: "POST",
      pathPrefix: "/api/v1/notifications/read-all",
      status: 403,
      body: { type: "about:blank", title: "Forbidden", status: 403, detail: "this key may not write", instance: null },
      times: 1,
    });
    user.press(/Mark all read/);
    const refused = await user.nextMessage();
    expect(refused.text).toContain("The marketplace did not allow this with your API key: this key may not write");
    expect(refused.text).not.toContain("no longer works");
    expect(unreadInSandbox(accountId)).toBe(3);
    expect((await findCredential(world.app.db, 404))?.broken_at ?? null).toBeNull();
  });

  it("an empty list says there are no notifications", async () => {
    const { user } = await linkedUser(403);
    user.send("/notifications");
    const empty = await user.nextMessage();
    expect(empty.text).toContain("0 unread");
    expect(empty.text).toContain("No notifications yet");
    expect(labels(empty).some((label) => label.includes("Mark all read"))).toBe(false);
  });

  it("the main menu's Notifications button opens the same view", async () => {
    const { accountId, user } = await linkedUser(404);
    world.sandbox.control.addNotification({ accountId, title: "Hello", body: "World" });
    user.send("/start");
    await user.nextMessage();
    user.press(/Notifications/);
    const shown = await user.nextMessage();
    expect(shown.text).toContain("1 unread");
    expect(shown.text).toContain("Hello");
  });
});
