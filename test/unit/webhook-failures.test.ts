import { describe, expect, it } from "vitest";
import { Bot, GrammyError, HttpError } from "grammy";
import type { UserFromGetMe } from "grammy/types";
import { Hono } from "hono";
import { registerTelegramWebhook } from "#src/server/routes/telegram-webhook";
import { createLogger } from "#src/logger";
import type { BotContext } from "#src/bot/context";
import type { ServerEnv } from "#src/server/create-server";

const botInfo = { id: 1, is_bot: true, first_name: "Bot", username: "test_bot" } as UserFromGetMe;

function textUpdate(updateId: number) {
  return {
    update_id: updateId,
    message: {
      message_id: 1,
      date: 0,
      chat: { id: 5, type: "private", first_name: "W" },
      from: { id: 5, is_bot: false, first_name: "W" },
      text: "hi",
    },
  };
}

/** A route whose every update fails with `error`; counts handler runs and error-handler calls. */
function failingRoute(error: () => unknown) {
  const bot = new Bot<BotContext>("1:x", { botInfo });
  const counts = { handled: 0, errorHandler: 0 };
  bot.use(() => {
    counts.handled++;
    throw error();
  });
  bot.catch(() => {
    counts.errorHandler++;
  });
  const app = new Hono<ServerEnv>();
  registerTelegramWebhook(bot, "s3cret", createLogger({ level: "silent" })).register(app);
  const post = async (updateId: number) =>
    (
      await app.request("/telegram", {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": "s3cret" },
        body: JSON.stringify(textUpdate(updateId)),
      })
    ).status;
  return { counts, post };
}

const botApiError = (code: number, description: string) =>
  new GrammyError(
    `Call to 'sendMessage' failed! (${code}: ${description})`,
    { ok: false, error_code: code, description },
    "sendMessage",
    {},
  );

describe("POST /telegram: which failures Telegram is asked to deliver again", () => {
  for (const [code, description] of [
    [403, "Forbidden: bot was blocked by the user"],
    [403, "Forbidden: user is deactivated"],
    [403, "Forbidden: bot was kicked from the group chat"],
    [400, "Bad Request: message to edit not found"],
  ] as const) {
    it(`${code} "${description}": the error handler at once, acknowledged (200)`, async () => {
      const route = failingRoute(() => botApiError(code, description));
      expect(await route.post(1)).toBe(200);
      expect(route.counts).toEqual({ handled: 1, errorHandler: 1 });
    });
  }

  for (const [name, error] of [
    ["502 Bad Gateway", () => botApiError(502, "Bad Gateway")],
    ["429 Too Many Requests", () => botApiError(429, "Too Many Requests: retry after 5")],
    ["a network error", () => new HttpError("Network request for 'sendMessage' failed!", new Error("ECONNRESET"))],
    ["a busy database", () => Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" })],
  ] as const) {
    it(`${name}: answered 500 for Telegram to deliver again, the user told only at the third delivery`, async () => {
      const route = failingRoute(error);
      expect([await route.post(2), await route.post(2), await route.post(2)]).toEqual([500, 500, 200]);
      expect(route.counts).toEqual({ handled: 3, errorHandler: 1 });
    });
  }
});
