import { describe, expect, it } from "vitest";
import { ADDRESS_A, ADDRESS_B, buttonLabels, manageWorld, type World } from "../kit/world";
import { outboxSwept, waitFor } from "../kit/push-helpers";
import { latinLeaks, textsOfCall } from "../kit/latin-leaks";
import { visibleText } from "#src/bot/edit-in-place";
import type { ChatMessage } from "#src/telegram-fake/index";

type Language = "ru" | "zh";
type User = ReturnType<World["user"]>;

/** Calls whose texts are the bot's words to people (the rest carry none). */
const READ_CALLS = new Set([
  "sendMessage",
  "editMessageText",
  "editMessageReplyMarkup",
  "sendPhoto",
  "editMessageCaption",
  "answerCallbackQuery",
  "answerInlineQuery",
  "setMyCommands",
  "setMyDescription",
  "setMyShortDescription",
  "setChatMenuButton",
]);

/** Whether a call was made for `user` in `language` (their chat, their toasts, their language's menus). */
function forReader(call: { method: string; params: Record<string, unknown> }, chatId: number, language: Language) {
  const params = call.params;
  if (params.chat_id !== undefined) return Number(params.chat_id) === chatId;
  const scope = (typeof params.scope === "string" ? JSON.parse(params.scope) : params.scope) as
    { chat_id?: number } | undefined;
  if (scope?.chat_id !== undefined) return scope.chat_id === chatId;
  if (params.language_code !== undefined) return params.language_code === language;
  // Toasts and inline answers: every one of this test's, which has one user.
  return call.method === "answerCallbackQuery" || call.method === "answerInlineQuery";
}

/**
 * Issue 57: every word a user reads is in their language. A user in Russian and one in Chinese walk
 * through every area of the bot as the end-to-end suites do (start and help, quotes guided and on
 * one line, linking, the wallet, top-up and the ledger with its filters, orders placed, filled,
 * failed and refused, the order list, cards and stats, a guided order, bad input, rules made,
 * paused, resumed, their deliveries and cancelled, a guided rule, price watches, notifications of
 * every known kind and pushed alerts, settings, the spending report, the webhook, addresses, team
 * alerts, cancel, disconnect and inline mode); every text the bot put before them (messages,
 * edits, captions, buttons, toasts, inline results, command menus) is checked for Latin words
 * outside the allow-list (test/kit/latin-leaks.ts).
 */
describe("no English leaks into Russian or Chinese", () => {
  let world: World;
  manageWorld((started) => (world = started));

  async function walk(language: Language, id: number): Promise<void> {
    // A message's words; a variable not given reads as nothing (the checks look at a message's first words).
    // A message's words; a variable not given reads as `unknown` (a mark `says` cuts at).
    const t = (key: string, vars: Record<string, string | number> = {}, unknown = "") =>
      visibleText(
        world.app.deps.i18n.t(
          language,
          key,
          new Proxy(vars, {
            getOwnPropertyDescriptor: (target, name) =>
              Object.getOwnPropertyDescriptor(target, name) ?? { value: unknown, enumerable: true, configurable: true },
            get: (target, name) => (name in target ? target[name as string] : unknown),
          }),
        ),
      );
    const user: User = world.user(id, { languageCode: language, firstName: language === "ru" ? "Иван" : "李雷" });
    const { accountId, apiKey } = world.newAccount({ trx: "1000", usdt: "20" });
    /** Whether a text shows the message: the longest stretch of its words between the variables not given. */
    const says = (key: string, vars?: Record<string, string | number>) => {
      const words = t(key, vars, "\u0000")
        .split("\u0000")
        .map((stretch) => stretch.trim())
        .reduce((longest, stretch) => (stretch.length > longest.length ? stretch : longest), "");
      return (text: string) => text.includes(words.slice(0, 16));
    };
    // The flood limit counts 20 updates in 10 s: a person's pace, kept by moving the bot's clock on.
    let updates = 0;
    const paced = () => {
      if (++updates % 15 === 0) world.shiftAppClock(11_000);
    };
    /** The next message or edit whose text (or caption) passes `check`. */
    const next = async (check: (text: string) => boolean): Promise<ChatMessage> => {
      for (;;) {
        const event = await user.nextBotEvent({ timeoutMs: 8000 });
        if (event.kind !== "delete" && check(event.message.text ?? event.message.caption ?? "")) return event.message;
      }
    };
    const reply = async (text: string, check: (text: string) => boolean): Promise<ChatMessage> => {
      paced();
      user.send(text);
      return next(check);
    };
    const press = async (label: string, check: (text: string) => boolean): Promise<ChatMessage> => {
      paced();
      user.press(label);
      return next(check);
    };
    /** Answers each question of a guided flow with its first button, until `done` shows. */
    const firstButtons = async (from: ChatMessage, done: (text: string) => boolean): Promise<ChatMessage> => {
      let message = from;
      for (let step = 0; step < 6 && !done(message.text ?? ""); step++) {
        const label = buttonLabels(message)[0];
        if (!label) break;
        message = await press(label, () => true);
        while (!(buttonLabels(message).length > 0 || done(message.text ?? ""))) message = await next(() => true);
      }
      return message;
    };

    // Start, help and quotes, before a key is linked.
    await reply("/start", says("start-not-linked"));
    await reply("/help", says("help-title"));
    await reply("/quote energy 65k 1h", says("quote-title"));
    await reply("/quote bandwidth 5000 1d", says("quote-title"));
    const askResource = await reply("/quote", says("ask-resource"));
    await firstButtons(askResource, says("quote-title"));
    await reply("/orders", says("connect-needed"));

    // Linking, the wallet, top-up and the ledger.
    await reply(`/connect ${apiKey}`, says("connect-linked", { last4: apiKey.slice(-4) }));
    await reply("/start", says("start-linked", { last4: apiKey.slice(-4) }));
    world.sandbox.control.creditDeposit({ accountId, currency: "TRX", amount: "1090.5" });
    world.sandbox.control.creditDeposit({ accountId, currency: "USDT-TRC20", amount: "12.25" });
    await reply("/wallet", says("wallet-title"));
    const ledger = await press(t("button-transactions"), says("transactions-title", { page: 1, pages: 1, total: 2 }));
    await press(buttonLabels(ledger).at(-1)!, says("transactions-filter", { value: "" }));
    paced();
    user.send("/topup");
    await waitFor(() => world.fake.messages(id).some((message) => message.photo));

    // Orders: placed and filled, failed, refused at once; the list, a card and the stats.
    const confirmOrder = async (args: string, check: (text: string) => boolean) => {
      await reply(`/buy ${args}`, says("card-order-title"));
      return press(t("button-confirm"), check);
    };
    await confirmOrder(`energy 65000 1h ${ADDRESS_A}`, says("order-placed-followup"));
    world.sandbox.control.failNextOrder({ accountId, mode: "async" });
    await confirmOrder(`bandwidth 5000 1d ${ADDRESS_B}`, says("order-placed-followup"));
    world.sandbox.control.settleNow();
    await world.app.push.checkOrdersNow(id);
    await world.app.push.pollNow();
    await outboxSwept(world, id);
    world.sandbox.control.failNextOrder({ accountId, mode: "sync" });
    await confirmOrder(`energy 65000 15m ${ADDRESS_A}`, (text) => text.startsWith("❌"));
    const orders = await reply("/orders", says("orders-title", { page: 1, pages: 1, total: 2 }));
    await press(buttonLabels(orders)[0]!, says("order-card-created", { value: "" }));
    await press(t("button-back"), says("orders-title", { page: 1, pages: 1, total: 2 }));
    await press(t("button-stats"), (text) =>
      text.includes(
        visibleText(world.app.deps.i18n.t(language, "orders-stats", { total: "", energy: "" })).slice(0, 8),
      ),
    );
    const guided = await reply("/buy", says("ask-resource"));
    const askAddress = await firstButtons(guided, says("ask-address-short"));
    await reply(ADDRESS_A, says("card-order-title"));
    await press(t("button-cancel"), says("card-cancelled"));
    expect(askAddress.text).toBeTruthy();

    // Input the bot cannot use.
    await reply("/buy energy 5x 1h", () => true);
    await reply("/frobnicate", says("unknown-command", { command: "frobnicate" }));
    await reply("hello there", says("unknown-text"));

    // Rules: made, paused, resumed, their deliveries, cancelled; a guided one; a pause pushed.
    await reply(`/refill ${ADDRESS_A} 30k 65k 1h`, says("rule-confirm-title"));
    await press(t("button-confirm"), says("rule-created"));
    await press(t("button-pause"), says("rule-card-paused-user"));
    await press(t("button-resume"), says("rule-card-status", { value: "" }));
    await press(t("button-deliveries"), says("deliveries-title", { count: 0 }));
    await press(t("button-back"), says("rule-card-status", { value: "" }));
    await press(t("button-cancel-rule"), says("rule-cancel-ask"));
    const rules = await reply("/rules", says("rules-title", { page: 1, pages: 1, total: 1 }));
    expect(buttonLabels(rules).length).toBeGreaterThan(0);
    const kind = await reply("/newrule", says("newrule-ask-kind"));
    await press(buttonLabels(kind)[0]!, says("ask-rule-address"));
    await reply("/cancel", says("cancel-done"));
    const client = world.app.deps.marketplace(() => apiKey);
    const smart = await client.createSmart({ targetAddress: ADDRESS_B });
    world.sandbox.control.setBalance({ accountId, trx: "0" });
    world.sandbox.control.fireRule({ ruleId: smart.id });
    world.sandbox.control.setBalance({ accountId, trx: "500" });

    // Price watches.
    await reply("/watch energy 65k 1h 2.5", says("watch-card-title", { id: "" }));
    await reply("/watches", says("watches-title", { count: 1, max: 10 }));

    // Notifications of every known kind, polled and pushed, and one the bot does not know.
    world.sandbox.control.addNotification({ accountId, title: "Maintenance", body: "We upgrade on Sunday." });
    await world.app.push.pollNow();
    await outboxSwept(world, id);
    await reply("/notifications", says("notifications-legend"));

    // Settings, the report, the webhook, addresses, team alerts, cancel and disconnect.
    const settings = await reply("/settings", says("settings-title"));
    await press(
      buttonLabels(settings).find((label) => label.includes(t("alerts-deposits")))!,
      () => true,
    );
    await reply("/stats", says("stats-title", { days: 7 }));
    await reply("/webhook", () => true);
    await reply("/addresses", says("addresses-title"));
    paced();
    user.send("/group");
    await next(says("group-choose"));
    await reply("/cancel", () => true);
    await reply("/disconnect", says("disconnect-ask", { last4: apiKey.slice(-4) }));
    paced();
    const inline = world.fake.sendInlineQuery(user.user, "65k 1h");
    await waitFor(() => world.fake.inlineAnswer(inline.inlineQueryId));
    await world.settled();
    await outboxSwept(world, id);
  }

  function leaksOf(chatId: number, language: Language): string[] {
    const leaks: string[] = [];
    for (const call of world.fake.calls) {
      if (!READ_CALLS.has(call.method) || !forReader(call, chatId, language)) continue;
      for (const text of textsOfCall(call)) {
        const words = latinLeaks(text);
        if (words.length > 0) leaks.push(`${call.method}: ${words.join(", ")}\n    ${text.replace(/\n/g, "\n    ")}`);
      }
    }
    return [...new Set(leaks)];
  }

  for (const [language, id] of [
    ["ru", 8801],
    ["zh", 8802],
  ] as const) {
    it(`${language}: every text of the walk is in ${language}, Latin only where the allow-list says`, async () => {
      await walk(language, id);
      const read = world.fake.calls.filter((call) => READ_CALLS.has(call.method) && forReader(call, id, language));
      // The walk reached what it means to check: many messages, edits, toasts and the pushed alerts.
      expect(read.length).toBeGreaterThan(80);
      const leaks = leaksOf(id, language);
      expect(leaks, leaks.join("\n")).toEqual([]);
    }, 120_000);
  }
});
