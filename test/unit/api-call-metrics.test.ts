import { describe, expect, it } from "vitest";
import { Api, GrammyError, type Transformer } from "grammy";
import { countApiCalls } from "#src/bot/api-transformers";
import { Metrics } from "#src/metrics";

/** A Bot API whose every answer comes from `answer` instead of the network. */
function apiAnswering(answer: (method: string) => unknown): Api {
  const api = new Api("123456789:AAEexampleexampleexampleexample0000", { apiRoot: "http://127.0.0.1:1" });
  const wire: Transformer = async (_prev, method) => answer(method) as Awaited<ReturnType<Transformer>>;
  // Installed first, so it is the innermost: what countApiCalls sees is what "Telegram" answered.
  api.config.use(wire);
  return api;
}

describe("Bot API calls in /metrics", () => {
  it("counts each call's duration, and a 429 by whether the call targeted a chat", async () => {
    const metrics = new Metrics();
    const api = apiAnswering((method) =>
      method === "getMe"
        ? { ok: true, result: { id: 1, is_bot: true, first_name: "Bot" } }
        : {
            ok: false,
            error_code: 429,
            description: "Too Many Requests: retry after 3",
            parameters: { retry_after: 3 },
          },
    );
    api.config.use(countApiCalls((method, outcome, call) => metrics.telegramCall(method, outcome, call)));
    await api.getMe();
    await expect(api.sendMessage(7, "hi")).rejects.toBeInstanceOf(GrammyError);
    await expect(api.getUpdates({ timeout: 0 })).rejects.toBeInstanceOf(GrammyError);
    expect(metrics.telegramCalls.get({ method: "getMe", outcome: "ok" })).toBe(1);
    expect(metrics.telegramCallSeconds.count({ method: "getMe", outcome: "ok" })).toBe(1);
    expect(metrics.telegramCallSeconds.count({ method: "sendMessage", outcome: "error" })).toBe(1);
    expect(metrics.telegram429.get({ scope: "chat" })).toBe(1);
    expect(metrics.telegram429.get({ scope: "bot" })).toBe(1);
  });
});
