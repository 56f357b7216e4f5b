/**
 * An in-process Bot API for the update benchmark, answering BENEATH grammY's transformers: it
 * replaces the fetch grammY's client calls on Node (node-fetch's default export), so everything
 * the app installs on `bot.api.config` (the call counter, auto-retry, network retry, the shared
 * Telegram budget, the throttler) runs exactly as in production and only the round trip to
 * Telegram is gone. A transformer installed with `config.use` would instead wrap them all (grammY
 * makes the last one installed the outermost) and answer before any of them ran.
 *
 * Install it before any Bot or Api is built: a grammY client takes its fetch once, when built.
 */
import { createRequire } from "node:module";

type Fetch = (url: string, init?: { body?: unknown; signal?: AbortSignal }) => Promise<{ json(): Promise<unknown> }>;

export interface InstantTelegram {
  /** On: calls are answered in-process (getMe still goes to the real server). Off: passed through. */
  setInstant(on: boolean): void;
  /** Calls answered in-process since the last reset, by method. */
  answered(reset?: boolean): Record<string, number>;
  /** The parameters of the last call of `method` answered in-process. */
  lastParams(method: string): Record<string, unknown> | undefined;
  /** Calls `listener` with the chat of every message sent (a `send…` call answered in-process), until set to null. */
  onSend(listener: ((chatId: number) => void) | null): void;
}

export function installInstantTelegram(): InstantTelegram {
  // node-fetch as grammY itself resolves it (the same module instance its client reads).
  const fromGrammy = createRequire(createRequire(import.meta.url).resolve("grammy"));
  const nodeFetch = fromGrammy("node-fetch") as { default: Fetch };
  const real = nodeFetch.default;
  let instant = false;
  let messageId = 1000;
  let counts: Record<string, number> = {};
  const last = new Map<string, Record<string, unknown>>();
  let sendListener: ((chatId: number) => void) | null = null;

  nodeFetch.default = (url, init) => {
    const method = url.slice(url.lastIndexOf("/") + 1);
    if (!instant || method === "getMe") return real(url, init);
    counts[method] = (counts[method] ?? 0) + 1;
    if (method === "getUpdates") return idlePoll(init?.signal);
    // grammY sends JSON bodies for text-only calls (all the bench makes); parse what a server would.
    const params = (typeof init?.body === "string" ? JSON.parse(init.body) : {}) as Record<string, unknown>;
    last.set(method, params);
    const chat = { id: Number(params.chat_id ?? 1), type: "private" as const, first_name: "U" };
    const message = {
      message_id: ++messageId,
      date: Math.floor(Date.now() / 1000),
      chat,
      text: String(params.text ?? params.caption ?? ""),
    };
    const result = /^(send|edit|copy|forward)/.test(method) ? message : true;
    if (sendListener && method.startsWith("send") && method !== "sendChatAction") sendListener(chat.id);
    return Promise.resolve({ json: () => Promise.resolve({ ok: true, result }) });
  };

  return {
    setInstant: (on) => {
      instant = on;
    },
    answered: (reset = false) => {
      const out = counts;
      if (reset) counts = {};
      return out;
    },
    lastParams: (method) => last.get(method),
    onSend: (listener) => {
      sendListener = listener;
    },
  };
}

/** An empty long poll: one second of waiting (ends early when aborted, as a request would). */
function idlePoll(signal?: AbortSignal): Promise<{ json(): Promise<unknown> }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve({ json: () => Promise.resolve({ ok: true, result: [] }) }), 1_000);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(new Error("aborted"));
      },
      { once: true },
    );
  });
}
