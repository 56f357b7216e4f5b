import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import { startApp } from "#src/app";
import { ADDRESS_A } from "../kit/world";

interface View {
  messageId: number;
  from: "bot" | "user";
  text?: string;
  replyMarkup?: { inline_keyboard: Array<Array<{ text: string; callback_data?: string }>> };
}

/**
 * The whole story offline (issue 55): in the playground, the demo key linked, an auto-buy made and
 * confirmed, the panel's price moved under its cap: the order is placed and "Auto-bought" shows in
 * the chat; settling the orders brings the filled alert.
 */
it("the playground: an auto-buy made in the chat buys when the panel moves the price under its cap", async () => {
  const app = await startApp({
    env: { DATABASE_URL: ":memory:", PORT: "0", SECRET_KEY: randomBytes(32).toString("base64"), LOG_LEVEL: "silent" },
    perChatMinTimeMs: 0,
  });
  try {
    const userId = 525252;
    const base = `${app.url}/play/api`;
    const post = async (path: string, body: object) => {
      const response = await fetch(`${base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: new URL(app.url).origin },
        body: JSON.stringify(body),
      });
      const json = (await response.json()) as Record<string, unknown>;
      if (response.status !== 200) throw new Error(`${path} → ${response.status} ${JSON.stringify(json)}`);
      return json;
    };
    const messages = async () =>
      ((await (await fetch(`${base}/chat?userId=${userId}`)).json()) as { messages: View[] }).messages;
    const waitFor = async (test: (message: View) => boolean) => {
      for (let i = 0; i < 200; i++) {
        const found = (await messages()).find(test);
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error("the chat never showed the message waited for");
    };
    const botSays = (part: string) => (message: View) => message.from === "bot" && (message.text ?? "").includes(part);

    await post("/send", { userId, text: `/connect ${app.sandbox!.demoApiKey}` });
    await waitFor(botSays("linked"));
    await post("/send", { userId, text: `/autobuy energy 65k 1h ${ADDRESS_A} 3 10` });
    const card = await waitFor(botSays("Confirm an auto-buy"));
    const confirm = card.replyMarkup!.inline_keyboard.flat().find((button) => button.text === "✅ Confirm")!;
    await post("/press", { userId, messageId: card.messageId, callbackData: confirm.callback_data });
    await waitFor(botSays("created. Nothing was bought now"));

    const moved = (await post("/sandbox/set-price", { resource: "energy", duration: "1h", sunPerUnit: 30 })) as {
      result: { watches: { autoBuyRents: number; autoBought: number } };
    };
    expect(moved.result.watches).toMatchObject({ autoBuyRents: 1, autoBought: 1 });
    const bought = await waitFor(botSays("Auto-bought"));
    expect(bought.text).toContain("Total: 2.145 TRX");
    expect(bought.replyMarkup!.inline_keyboard.flat().map((button) => button.text)).toEqual(["⏸ Pause", "⏹ Stop"]);
    await post("/sandbox/settle", {});
    await waitFor(botSays("filled"));
  } finally {
    await app.stop();
  }
});
