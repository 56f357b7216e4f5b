import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { startApp } from "#src/app";
import { ADDRESS_A, buttonLabels, linkKey, manageWorld, type World } from "../kit/world";
import { linkedUser, waitFor } from "../kit/push-helpers";
import { rotateWebhookToken } from "#src/db/repos/webhook-tokens";
import { visibleText } from "#src/bot/edit-in-place";

// Intl writes Russian thousands with a no-break space, as Telegram shows it.
const NBSP = "\u00a0";

describe("the language chosen in /settings", () => {
  let world: World;
  manageWorld((started) => (world = started));

  const described = (language: string, command: string) => world.app.deps.i18n.t(language, `command-${command}`);
  const menuOf = (chatId: number, appLanguage: string) => world.fake.commandMenu(chatId, appLanguage);
  const buyEntry = (chatId: number, appLanguage: string) =>
    menuOf(chatId, appLanguage).find((entry) => entry.command === "buy")?.description;

  it("gives that chat the command menu in the chosen language, whatever the Telegram app's language; other chats keep theirs", async () => {
    const user = world.user(5101, { languageCode: "en" });
    const other = world.user(5102, { languageCode: "en" });
    other.send("/start");
    await other.nextMessage();
    // The menus per app language are registered at start.
    await waitFor(
      () => buyEntry(5101, "en") === described("en", "buy") && buyEntry(5101, "ru") === described("ru", "buy"),
    );

    user.send("/settings");
    await user.nextMessage();
    user.press(/Русский/);
    await waitFor(() => buyEntry(5101, "en") === described("ru", "buy"));
    // The chat's own menu is in Russian for every app language, with every command.
    expect(buyEntry(5101, "zh")).toBe(described("ru", "buy"));
    expect(menuOf(5101, "en").map((entry) => entry.command)).toEqual(menuOf(5102, "en").map((entry) => entry.command));
    expect(buyEntry(5102, "en")).toBe(described("en", "buy"));
    expect(buyEntry(5102, "zh")).toBe(described("zh", "buy"));

    // Choosing again moves the menu along.
    await user.nextBotEvent();
    user.press(/中文/);
    await waitFor(() => buyEntry(5101, "en") === described("zh", "buy"));
  });

  it("a user who chose a language before the menu followed it gets the chat's menu at their next message, once; a failed set is not retried on every update", async () => {
    const user = world.user(5111, { languageCode: "en" });
    user.send("/start");
    await user.nextMessage();
    // As a user who chose Russian before this version: the language stored, no chat menu recorded.
    await world.app.db
      .updateTable("users")
      .set({ language: "ru", menu_language: null })
      .where("telegram_id", "=", 5111)
      .execute();
    const setsFor = (chatId: number) =>
      world.fake.calls.filter(
        (call) =>
          call.method === "setMyCommands" &&
          (call.params.scope as { chat_id?: number } | undefined)?.chat_id === chatId,
      ).length;
    expect(setsFor(5111)).toBe(0);
    user.send("/help");
    await user.nextMessage();
    expect(buyEntry(5111, "en")).toBe(described("ru", "buy"));
    expect(buyEntry(5111, "zh")).toBe(described("ru", "buy"));
    expect(
      (
        await world.app.db
          .selectFrom("users")
          .select("menu_language")
          .where("telegram_id", "=", 5111)
          .executeTakeFirstOrThrow()
      ).menu_language,
    ).toBe("ru");
    user.send("/help");
    await user.nextMessage();
    expect(setsFor(5111)).toBe(1);

    // Telegram refuses the chat's menu: the user is answered, and the next updates do not ask again.
    const refused = world.user(5112, { languageCode: "en" });
    refused.send("/start");
    await refused.nextMessage();
    await world.app.db
      .updateTable("users")
      .set({ language: "zh", menu_language: null })
      .where("telegram_id", "=", 5112)
      .execute();
    world.telegram.failing.set("setmycommands", 400);
    refused.send("/help");
    expect((await refused.nextMessage()).text).toContain("/buy");
    refused.send("/help");
    await refused.nextMessage();
    world.telegram.failing.clear();
    expect(world.telegram.failedBodies.filter((body) => body.includes('"chat_id":5112'))).toHaveLength(1);
    expect(setsFor(5112)).toBe(0);
    expect(
      (
        await world.app.db
          .selectFrom("users")
          .select("menu_language")
          .where("telegram_id", "=", 5112)
          .executeTakeFirstOrThrow()
      ).menu_language,
    ).toBeNull();
  });

  it("writes numbers as the user's language does, exactly: ru 1 090,705 TRX, zh and en 1,090.705 TRX", async () => {
    // Russian from the Telegram app's language, no /settings.
    const ru = world.user(5201, { languageCode: "ru" });
    const ruAccount = world.newAccount({ trx: "1090.705", usdt: "1234.5" });
    const linked = await linkKey(world, ru, ruAccount.apiKey);
    expect(linked.text).toContain(`1${NBSP}090,705 TRX`);
    expect(linked.text).toContain(`1${NBSP}234,5 USDT`);
    ru.send("/wallet");
    expect((await ru.nextMessage()).text).toContain(`1${NBSP}090,705 TRX`);
    ru.send(`/buy energy 1090000 1h ${ADDRESS_A}`);
    const card = (await ru.nextMessage()).text!;
    expect(card).toContain(`1${NBSP}090${NBSP}000`);
    // Every figure of the card in Russian: decimal commas, never a decimal point.
    expect(card).toContain("77,935 TRX");
    expect(card).not.toMatch(/\d\.\d/);
    // The guided volume step's preset buttons too.
    ru.send("/buy energy");
    expect(buttonLabels(await ru.nextMessage())).toEqual(expect.arrayContaining([`65${NBSP}000`, `131${NBSP}000`]));

    // Chinese chosen in /settings while the app is in English.
    const zh = world.user(5202, { languageCode: "en" });
    const zhAccount = world.newAccount({ trx: "1090.705", usdt: "0" });
    await linkKey(world, zh, zhAccount.apiKey);
    zh.send("/settings");
    await zh.nextMessage();
    zh.press(/中文/);
    await zh.nextBotEvent();
    zh.send("/wallet");
    expect((await zh.nextMessage()).text).toContain("1,090.705 TRX");

    // A pushed alert is written in the recipient's language too.
    const pushed = await linkedUser(world, 5203);
    pushed.user.send("/settings");
    await pushed.user.nextMessage();
    pushed.user.press(/Русский/);
    await pushed.user.nextBotEvent();
    const answer = await pushed.post({
      event: "order.filled",
      data: {
        order: {
          id: "abcdef12-0000-4000-8000-000000000001",
          resource: "energy",
          volume: 1090000,
          targetAddress: ADDRESS_A,
          totalTrx: "1090.705",
          status: "Filled",
        },
      },
    });
    expect(answer.status).toBe(200);
    const alert = await pushed.user.nextMessage({ timeoutMs: 10_000 });
    expect(alert.text).toContain(`1${NBSP}090${NBSP}000`);
    expect(alert.text).toContain(`1${NBSP}090,705 TRX`);
  });
});

describe("the language of a user who chose none: their Telegram app's", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("a rule-pause alert for a Telegram-ru user who never opened /settings is in Russian, as their replies are; after choosing English in /settings, the next alert is English", async () => {
    const user = world.user(7008, { languageCode: "ru" });
    const { accountId, apiKey } = world.newAccount();
    await linkKey(world, user, apiKey);
    user.send("/help");
    expect((await user.nextMessage()).text).toMatch(/[а-яА-Я]/);
    const client = world.app.deps.marketplace(
      () => world.sandbox.control.createKey({ accountId, scope: "purchase" }).apiKey,
    );
    const pauseAlert = async (ruleId: string) => {
      world.sandbox.control.setBalance({ accountId, trx: "0" });
      world.sandbox.control.fireRule({ ruleId });
      await world.app.push.pollNow();
      return waitFor(() =>
        world.fake
          .messages(7008)
          .find((message) => message.from === "bot" && message.text?.includes(ruleId.slice(0, 8))),
      );
    };
    const first = await client.createSmart({ targetAddress: ADDRESS_A });
    expect((await pauseAlert(first.id)).text).toMatch(/[а-яА-Я]/);

    user.send("/settings");
    while (!buttonLabels(await user.nextMessage()).includes("English"));
    user.press("English");
    await user.nextBotEvent();
    world.sandbox.control.setBalance({ accountId, trx: "1000" });
    const second = await client.createSmart({ targetAddress: ADDRESS_A });
    const english = await pauseAlert(second.id);
    expect(english.text).not.toMatch(/[а-яА-Я]/);
    expect(english.text).toContain("paused");
  });
});

describe("the language of a user who chose none, in alerts from a webhook", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("a zh-app user who never opened /settings gets the order.filled alert from their webhook in Chinese", async () => {
    const user = world.user(7702, { languageCode: "zh" });
    await linkKey(world, user, world.newAccount().apiKey);
    const token = await rotateWebhookToken(world.app.db, 7702, Date.now());
    const response = await fetch(`${world.app.url}/webhooks/marketplace/${token}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        event: "order.filled",
        data: {
          id: "abcdef12-0000-4000-8000-000000000001",
          resource: "energy",
          volume: "65000",
          targetAddress: ADDRESS_A,
          totalTrx: "4.5",
          status: "Filled",
        },
      }),
    });
    expect(response.status).toBe(200);
    const alert = await waitFor(() =>
      world.fake.messages(7702).find((message) => message.from === "bot" && message.text?.includes("abcdef12")),
    );
    expect(alert.text).toContain(visibleText(world.app.deps.i18n.t("zh", "alert-filled-hint")).slice(0, 10));
    expect(alert.text).not.toContain(visibleText(world.app.deps.i18n.t("en", "alert-filled-hint")).slice(0, 10));
  });
});

describe("the playground's command menu", () => {
  it("is the one Telegram would show the chat: the /settings language over the top bar's app language", async () => {
    const app = await startApp({
      env: { DATABASE_URL: ":memory:", PORT: "0", SECRET_KEY: randomBytes(32).toString("base64"), LOG_LEVEL: "silent" },
      perChatMinTimeMs: 0,
    });
    try {
      const base = `${app.url}/play/api`;
      const headers = { "content-type": "application/json", origin: new URL(app.url).origin };
      const post = (path: string, body: object) =>
        fetch(`${base}${path}`, { method: "POST", headers, body: JSON.stringify(body) }).then(
          (response) => response.json() as Promise<Record<string, unknown>>,
        );
      const menu = async (userId: number, lang: string) =>
        (
          (await (await fetch(`${base}/commands?userId=${userId}&lang=${lang}`)).json()) as {
            commands: Array<{ command: string; description: string }>;
          }
        ).commands;
      const buyIn = (language: string) => app.deps.i18n.t(language, "command-buy");
      const buyOf = async (userId: number, lang: string) =>
        (await menu(userId, lang)).find((entry) => entry.command === "buy")?.description;
      // Alice (1001) has an English app: the English menu until she chooses otherwise.
      await post("/send", { userId: 1001, text: "/settings", waitMs: 5000 });
      await waitFor(async () => (await buyOf(1001, "en")) === buyIn("en"));
      expect(await buyOf(1001, "ru")).toBe(buyIn("ru"));
      await post("/press", { userId: 1001, label: "Русский", waitMs: 5000 });
      await waitFor(async () => (await buyOf(1001, "en")) === buyIn("ru"));
      // Another chat with the same app language keeps the English menu.
      expect(await buyOf(1003, "en")).toBe(buyIn("en"));
    } finally {
      await app.stop();
    }
  });
});
