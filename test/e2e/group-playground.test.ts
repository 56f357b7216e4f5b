import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { startApp, type App } from "#src/app";

interface MessageView {
  messageId: number;
  from: "bot" | "user";
  text?: string;
  caption?: string;
  photo?: unknown;
}

/**
 * Team alerts offline, through the playground's JSON interface (what its page calls): a group with
 * the simulated users in it, the chat picker of the private chat, the pick, the group as a chat.
 */
describe("the playground's team group", () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.stop();
    app = undefined;
  });

  it("creates a group with the simulated users, offers the chat picker, links the pick and shows the group as a chat", async () => {
    app = await startApp({
      env: { DATABASE_URL: ":memory:", PORT: "0", SECRET_KEY: randomBytes(32).toString("base64"), LOG_LEVEL: "silent" },
      perChatMinTimeMs: 0,
    });
    const base = `${app.url}/play/api`;
    const headers = { "content-type": "application/json", origin: new URL(app.url).origin };
    const post = async (path: string, body: object) => {
      const response = await fetch(`${base}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
      const json = (await response.json()) as Record<string, unknown>;
      if (!response.ok) throw new Error(`${path} → ${response.status} ${JSON.stringify(json)}`);
      return json;
    };
    const get = async <T>(path: string) => (await (await fetch(`${base}${path}`)).json()) as T;
    const waitFor = async <T>(read: () => Promise<T | undefined>, what: string): Promise<T> => {
      for (let i = 0; i < 200; i++) {
        const value = await read();
        if (value) return value;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`timed out waiting for ${what}`);
    };

    const { group } = (await post("/groups", {})) as {
      group: { id: number; title: string; members: Array<{ id: number; status: string }>; botStatus: string };
    };
    expect(group.id).toBeLessThan(0);
    expect(group.botStatus).toBe("member");
    expect(group.members.map((member) => member.status)).toEqual(["creator", "administrator", "administrator"]);
    expect((await get<{ groups: unknown[] }>("/groups")).groups).toHaveLength(1);

    const alice = group.members[0]!.id;
    const config = await get<{ demo: { apiKey: string } }>("/config");
    await post("/send", { userId: alice, text: `/connect ${config.demo.apiKey}`, waitMs: 3000 });
    await post("/send", { userId: alice, text: "/group", waitMs: 3000 });
    const { keyboard } = await get<{ keyboard: { buttons: Array<{ text: string; request_chat?: unknown }> } | null }>(
      `/reply-keyboard?userId=${alice}`,
    );
    expect(keyboard?.buttons.find((button) => button.request_chat)?.text).toBe("Choose a group");
    await post("/share-chat", { userId: alice, groupId: group.id });
    await waitFor(
      async () =>
        (await get<{ messages: MessageView[] }>(`/chat?userId=${alice}`)).messages.find(
          (message) => message.from === "bot" && message.text?.includes(`copied to ${group.title}`),
        ),
      "the group's card",
    );
    // The pick shows as Telegram's app shows it: a line that names the group, never an empty bubble.
    const chat = (await get<{ messages: MessageView[] }>(`/chat?userId=${alice}`)).messages;
    expect(chat.filter((message) => !message.text && !message.caption && !message.photo)).toEqual([]);
    expect(
      chat.some((message) => message.from === "user" && message.text === `Shared with the bot: ${group.title}`),
    ).toBe(true);

    await post("/send", { userId: alice, groupId: group.id, text: "/group" });
    const listed = await waitFor(
      async () =>
        (await get<{ messages: MessageView[] }>(`/group-chat?groupId=${group.id}`)).messages.find(
          (message) => message.from === "bot" && message.text?.includes("Alerts of these members come here"),
        ),
      "the group's answer",
    );
    expect(listed.text).toContain("Alice");
    expect((await fetch(`${base}/group-chat?groupId=12`)).status).toBe(400);
  });
});
