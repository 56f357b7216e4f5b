import { TelegramApiError } from "./api-error";

export interface RateLimitSettings {
  enabled: boolean;
  perChatPerSecond?: number;
  perChatBurst?: number;
  globalPerSecond?: number;
  /** Messages a group (chat id below zero) may get in any minute (Telegram: 20). */
  perGroupPerMinute?: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * Telegram's flood control as token buckets: per private chat a burst of `perChatBurst` refilled at
 * `perChatPerSecond`, per group at most `perGroupPerMinute` in any sliding minute, and overall
 * `globalPerSecond`. Runs on the fake's clock, so tests move time instead of sleeping.
 */
export function createRateLimiter(settings: RateLimitSettings | undefined, now: () => number) {
  const perChatRate = settings?.perChatPerSecond ?? 1;
  const perChatBurst = settings?.perChatBurst ?? 3;
  const globalRate = settings?.globalPerSecond ?? 30;
  const perGroupPerMinute = settings?.perGroupPerMinute ?? 20;
  const chats = new Map<number, Bucket>();
  /** Per group, the times of its messages in the last minute, oldest first. */
  const groups = new Map<number, number[]>();
  const global: Bucket = { tokens: globalRate, updatedAt: now() };

  function refill(bucket: Bucket, rate: number, capacity: number): void {
    const at = now();
    bucket.tokens = Math.min(capacity, bucket.tokens + ((at - bucket.updatedAt) / 1000) * rate);
    bucket.updatedAt = at;
  }

  /** Seconds until one token is back, rounded up as Telegram's retry_after is. */
  function retryAfter(bucket: Bucket, rate: number): number {
    return Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
  }

  /** A group's minute: the 21st message within 60 s is 429, retry_after until the oldest leaves the minute. */
  function takeGroup(chatId: number): void {
    const at = now();
    const times = (groups.get(chatId) ?? []).filter((time) => time > at - 60_000);
    groups.set(chatId, times);
    refill(global, globalRate, globalRate);
    const wait =
      times.length >= perGroupPerMinute
        ? Math.max(1, Math.ceil((times[times.length - perGroupPerMinute]! + 60_000 - at) / 1000))
        : global.tokens < 1
          ? retryAfter(global, globalRate)
          : 0;
    if (wait > 0)
      throw new TelegramApiError(429, `Too Many Requests: retry after ${wait}`, "throttled", { retry_after: wait });
    times.push(at);
    global.tokens -= 1;
  }

  return {
    /** Takes one send from the chat's and the global budget, or throws 429. */
    take(chatId: number): void {
      if (!settings?.enabled) return;
      if (chatId < 0) return takeGroup(chatId);
      const chat = chats.get(chatId) ?? { tokens: perChatBurst, updatedAt: now() };
      chats.set(chatId, chat);
      refill(chat, perChatRate, perChatBurst);
      refill(global, globalRate, globalRate);
      const wait =
        chat.tokens < 1 ? retryAfter(chat, perChatRate) : global.tokens < 1 ? retryAfter(global, globalRate) : 0;
      if (wait > 0) {
        throw new TelegramApiError(429, `Too Many Requests: retry after ${wait}`, "throttled", { retry_after: wait });
      }
      chat.tokens -= 1;
      global.tokens -= 1;
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
