import { HttpError, type Transformer } from "grammy";

/** The part of grammY's abort signal (a polyfill type) a wait needs. */
type Signal = Pick<AbortSignal, "aborted" | "addEventListener" | "removeEventListener">;

export interface NetworkRetryOptions {
  /** Retries after the first attempt failed on the network (timeout, refused, reset). */
  maxRetries: number;
  /** Wait before the first retry; doubled for each further one. */
  baseDelayMs: number;
  /** No wait between attempts is ever longer than this. */
  maxDelayMs: number;
  /** Methods left alone (getUpdates: the runner retries its own polls). */
  skipMethods?: readonly string[];
  /** Called before each wait (logging); tests read the delays from it. */
  onRetry?: (info: { method: string; retry: number; delayMs: number; error: HttpError }) => void;
  /** How to wait (tests make it instant). */
  sleep?: (ms: number, signal?: Signal) => Promise<void>;
}

export const DEFAULT_NETWORK_RETRY: NetworkRetryOptions = {
  maxRetries: 2,
  baseDelayMs: 1_000,
  maxDelayMs: 5_000,
  skipMethods: ["getUpdates"],
};

function abortableSleep(ms: number, signal?: Signal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", aborted, { once: true });
    function done() {
      signal?.removeEventListener("abort", aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(new Error("request aborted while waiting to retry"));
    }
  });
}

/**
 * Bounded retries on network errors. @grammyjs/auto-retry retries those without limit and with
 * waits doubling up to an hour, so a bot that lost Telegram for a while stayed deaf long after
 * it came back; here a call fails after `maxRetries` and no wait exceeds `maxDelayMs`.
 * A retried send may reach Telegram twice when only its answer was lost: a duplicate message is
 * the lesser harm than a reply never sent.
 */
export function networkRetry(options: NetworkRetryOptions = DEFAULT_NETWORK_RETRY): Transformer {
  const sleep = options.sleep ?? abortableSleep;
  return async (prev, method, payload, signal) => {
    if (options.skipMethods?.includes(method)) return prev(method, payload, signal);
    for (let retry = 1; ; retry++) {
      try {
        return await prev(method, payload, signal);
      } catch (error) {
        if (!(error instanceof HttpError) || signal?.aborted || retry > options.maxRetries) throw error;
        const delayMs = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
        options.onRetry?.({ method, retry, delayMs, error });
        await sleep(delayMs, signal);
      }
    }
  };
}

/** One Bot API request as countApiCalls reports it. */
export interface ApiCallInfo {
  /** From sending the request to its answer (or failure). */
  seconds: number;
  /** Telegram's error_code when it answered with an error (429: too many requests). */
  errorCode?: number;
  /** The request targeted a chat (it carried a chat_id). */
  chat: boolean;
}

/** Counts every Bot API request that goes out, by method and outcome (ok, error), with its duration. */
export function countApiCalls(
  count: (method: string, outcome: "ok" | "error", call: ApiCallInfo) => void,
): Transformer {
  return async (prev, method, payload, signal) => {
    const started = performance.now();
    const chat = typeof payload === "object" && payload !== null && "chat_id" in payload;
    const seconds = () => (performance.now() - started) / 1000;
    try {
      const result = await prev(method, payload, signal);
      count(method, result.ok ? "ok" : "error", {
        seconds: seconds(),
        errorCode: result.ok ? undefined : result.error_code,
        chat,
      });
      return result;
    } catch (error) {
      count(method, "error", { seconds: seconds(), chat });
      throw error;
    }
  };
}
