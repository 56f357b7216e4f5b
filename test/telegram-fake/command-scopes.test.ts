import { describe, expect, it } from "vitest";
import { ALICE, apiError, world } from "./grammy-helpers";

const BOB = { id: 1002, firstName: "Bob", languageCode: "en" };
const list = (description: string) => [{ command: "start", description }];

describe("command menus per scope", () => {
  it("shows a private chat the first list set, as Telegram picks it: chat + language, chat, all private chats, default", async () => {
    const { fake, bot } = await world();
    fake.sendText(ALICE, "hi");
    fake.sendText(BOB, "hi");
    await bot.api.setMyCommands(list("default"));
    await bot.api.setMyCommands(list("default ru"), { language_code: "ru" });
    expect(fake.commandMenu(ALICE.id, "ru")).toEqual(list("default ru"));
    expect(fake.commandMenu(ALICE.id, "en")).toEqual(list("default"));

    await bot.api.setMyCommands(list("private chats"), { scope: { type: "all_private_chats" } });
    expect(fake.commandMenu(ALICE.id, "en")).toEqual(list("private chats"));
    expect(fake.commandMenu(ALICE.id, "ru")).toEqual(list("private chats"));

    await bot.api.setMyCommands(list("Alice's chat"), { scope: { type: "chat", chat_id: ALICE.id } });
    await bot.api.setMyCommands(list("Alice's chat, zh"), {
      scope: { type: "chat", chat_id: ALICE.id },
      language_code: "zh",
    });
    expect(fake.commandMenu(ALICE.id, "en")).toEqual(list("Alice's chat"));
    expect(fake.commandMenu(ALICE.id, "zh")).toEqual(list("Alice's chat, zh"));
    expect(fake.commandMenu(BOB.id, "en")).toEqual(list("private chats"));
    // The default list itself is untouched by the scoped ones.
    expect(fake.commands()).toEqual(list("default"));

    // A scope is one scope however its JSON is written; deleting it falls back to the next list.
    expect(await bot.api.getMyCommands({ scope: { chat_id: String(ALICE.id), type: "chat" } as never })).toEqual(
      list("Alice's chat"),
    );
    await bot.api.deleteMyCommands({ scope: { type: "chat", chat_id: ALICE.id } });
    expect(fake.commandMenu(ALICE.id, "en")).toEqual(list("private chats"));
    expect(fake.commandMenu(ALICE.id, "zh")).toEqual(list("Alice's chat, zh"));
  });

  it("refuses a chat scope for a chat the bot does not know, and a scope it cannot read", async () => {
    const { bot } = await world();
    expect(
      (await apiError(bot.api.setMyCommands(list("x"), { scope: { type: "chat", chat_id: 777 } }))).description,
    ).toBe("Bad Request: chat not found");
    expect(
      (await apiError(bot.api.setMyCommands(list("x"), { scope: { type: "everyone" } as never }))).description,
    ).toBe("Bad Request: can't parse BotCommandScope JSON object");
    expect((await apiError(bot.api.setMyCommands(list("x"), { scope: { type: "chat" } as never }))).description).toBe(
      "Bad Request: can't parse BotCommandScope JSON object",
    );
  });
});
