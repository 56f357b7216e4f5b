import { describe, expect, it } from "vitest";
import { Api, HttpError } from "grammy";
import { countApiCalls, DEFAULT_NETWORK_RETRY, networkRetry } from "#src/bot/api-transformers";
import { pollingRunnerOptions, telegramTimeouts } from "#src/bot/create-bot";

/** A Bot API nobody answers: every request fails on the network (connection refused). */
function unreachableApi() {
  return new Api("123456789:AAEexampleexampleexampleexample0000", { apiRoot: "http://127.0.0.1:1", timeoutSeconds: 2 });
}

describe("Bot API network retries", () => {
  it("gives up after maxRetries, doubling the wait but never beyond maxDelayMs", async () => {
    const api = unreachableApi();
    const attempts: string[] = [];
    const delays: number[] = [];
    api.config.use(countApiCalls((method, outcome) => attempts.push(`${method}:${outcome}`)));
    api.config.use(
      networkRetry({
        maxRetries: 5,
        baseDelayMs: 1_000,
        maxDelayMs: 3_000,
        onRetry: ({ delayMs }) => delays.push(delayMs),
        sleep: async () => undefined,
      }),
    );
    await expect(api.sendMessage(1, "hi")).rejects.toBeInstanceOf(HttpError);
    expect(delays).toEqual([1_000, 2_000, 3_000, 3_000, 3_000]);
    expect(attempts).toEqual(Array.from({ length: 6 }, () => "sendMessage:error"));
  });

  it("by default (as the bot uses it) tries three times with at most 5 s between, and leaves getUpdates to the runner", async () => {
    const api = unreachableApi();
    const attempts: string[] = [];
    const delays: number[] = [];
    api.config.use(countApiCalls((method) => attempts.push(method)));
    api.config.use(
      networkRetry({
        ...DEFAULT_NETWORK_RETRY,
        onRetry: ({ delayMs }) => delays.push(delayMs),
        sleep: async () => undefined,
      }),
    );
    await expect(api.sendMessage(1, "hi")).rejects.toBeInstanceOf(HttpError);
    expect(attempts).toEqual(["sendMessage", "sendMessage", "sendMessage"]);
    expect(Math.max(...delays)).toBeLessThanOrEqual(5_000);
    attempts.length = 0;
    await expect(api.getUpdates({ timeout: 0 })).rejects.toBeInstanceOf(HttpError);
    expect(attempts).toEqual(["getUpdates"]);
  });

  it("returns the answer once a retry gets through, and never retries an answer Telegram gave", async () => {
    let calls = 0;
    const transformer = networkRetry({ maxRetries: 3, baseDelayMs: 1, maxDelayMs: 1, sleep: async () => undefined });
    const flaky = async () => {
      calls++;
      if (calls < 3) throw new HttpError("Network request for 'sendMessage' failed!", new Error("ECONNRESET"));
      return { ok: true as const, result: true };
    };
    expect(await transformer(flaky as never, "sendMessage", {} as never)).toEqual({ ok: true, result: true });
    expect(calls).toBe(3);
    calls = 0;
    const refused = async () => {
      calls++;
      return { ok: false as const, error_code: 400, description: "Bad Request: chat not found" };
    };
    expect(await transformer(refused as never, "sendMessage", {} as never)).toMatchObject({
      ok: false,
      error_code: 400,
    });
    expect(calls).toBe(1);
  });
});

describe("Bot API timeouts", () => {
  it("keeps the long poll below the request timeout, so an idle poll is answered, never aborted", () => {
    expect(telegramTimeouts()).toEqual({ requestSeconds: 45, longPollSeconds: 30 });
    expect(telegramTimeouts({ requestSeconds: 20 })).toEqual({ requestSeconds: 20, longPollSeconds: 10 });
    expect(telegramTimeouts({ requestSeconds: 2, longPollSeconds: 30 })).toEqual({
      requestSeconds: 2,
      longPollSeconds: 1,
    });
    const runner = pollingRunnerOptions(telegramTimeouts({ requestSeconds: 20 }), ["message"]);
    expect(runner.fetch).toEqual({ timeout: 10, allowed_updates: ["message"] });
    // A failed poll is retried at a fixed interval, never given up.
    expect(runner.retryInterval).toBe(1_000);
    expect(runner.maxRetryTime).toBeGreaterThan(365 * 86_400_000);
  });
});
