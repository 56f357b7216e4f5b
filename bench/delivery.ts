import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { migrateToLatest, openDatabase } from "../src/db/connection";
import { createLogger } from "../src/logger";
import { Metrics } from "../src/metrics";
import { createSenderApi, OutboxSender } from "../src/push/sender";
import { DEFAULT_GLOBAL_BUDGET } from "../src/scale/send-budget";
import { startFakeTelegram } from "../test/kit/telegram-driver";
import { figure, sleep, TELEGRAM_LIMITS, type Figure } from "./lib";

export interface DeliverySettings {
  alerts: number;
  chats: number;
  /** The fake's and the sender's clocks run this many times faster than real time. */
  timeScale: number;
  timeLimitSeconds: number;
}

const TOKEN = "123456789:AAEbenchbenchbenchbenchbenchbench00";

/** A backlog of alerts over many chats, drained by the real OutboxSender against the fake Bot API with Telegram's limits on. */
export async function benchDelivery(settings: DeliverySettings, log: (line: string) => void): Promise<Figure[]> {
  const origin = Date.now();
  const now = () => origin + (Date.now() - origin) * settings.timeScale;
  const telegram = await startFakeTelegram({
    token: TOKEN,
    rateLimits: {
      enabled: true,
      perChatPerSecond: TELEGRAM_LIMITS.chatPerSecond,
      globalPerSecond: TELEGRAM_LIMITS.overallPerSecond,
    },
    now,
    longPollMaxMs: 1_000,
  });
  const dir = mkdtempSync(join(tmpdir(), "bench-delivery-"));
  const { db } = await openDatabase(`file:${join(dir, "delivery.db")}`);
  const sender = new OutboxSender({
    db,
    logger: createLogger({ level: "warn", destination: pino.destination({ dest: 2, sync: false }) }),
    metrics: new Metrics(),
    now,
  });
  try {
    await migrateToLatest(db);
    const chats = Array.from({ length: settings.chats }, (_, i) => 7_000_000 + i);
    // Telegram only lets a bot write to a user who wrote first.
    for (const chatId of chats) telegram.fake.sendText({ id: chatId, firstName: "U", languageCode: "en" }, "hi");
    const perChat = Math.ceil(settings.alerts / settings.chats);
    const rows = [];
    const at = now();
    for (let m = 0; m < perChat; m++) {
      for (const chatId of chats) {
        if (rows.length >= settings.alerts) break;
        rows.push({
          telegram_id: chatId,
          chat_id: chatId,
          dedupe_key: `bench:${m}`,
          payload: JSON.stringify({
            method: "sendMessage",
            params: { text: `alert ${chatId} ${m}`, parse_mode: "HTML" },
          }),
          status: "queued",
          attempts: 0,
          next_attempt_at: at,
          last_error: null,
          lease_owner: null,
          lease_until: null,
          created_at: at,
          sent_at: null,
        });
      }
    }
    for (let start = 0; start < rows.length; start += 500)
      await db
        .insertInto("outbox")
        .values(rows.slice(start, start + 500))
        .execute();
    const callsBefore = telegram.fake.calls.length;
    const started = Date.now();
    const cpuBefore = process.cpuUsage();
    sender.start(createSenderApi(TOKEN, telegram.apiRoot));
    const deadline = started + settings.timeLimitSeconds * 1000;
    const sent = () =>
      telegram.fake.calls.slice(callsBefore).filter((call) => call.method === "sendMessage" && call.ok).length;
    while (sent() < rows.length && Date.now() < deadline) await sleep(100);
    await sender.stop(0);
    const cpu = process.cpuUsage(cpuBefore);
    const calls = telegram.fake.calls.slice(callsBefore).filter((call) => call.method === "sendMessage");
    const ok = calls.filter((call) => call.ok);
    const throttled = calls.filter((call) => call.throttled).length;
    const times = ok.map((call) => call.at).sort((a, b) => a - b);
    const virtualSeconds = times.length > 1 ? (times.at(-1)! - times[0]!) / 1000 : Number.NaN;
    const rate = (ok.length - 1) / virtualSeconds;
    const byChat = new Map<number, Array<{ at: number; m: number }>>();
    for (const call of ok) {
      const [, chat, m] = String(call.params.text).split(" ");
      const list = byChat.get(Number(chat)) ?? [];
      list.push({ at: call.at, m: Number(m) });
      byChat.set(Number(chat), list);
    }
    let outOfOrder = 0;
    let maxChatRate = 0;
    let minGapMs = Number.POSITIVE_INFINITY;
    for (const list of byChat.values()) {
      for (let i = 1; i < list.length; i++) {
        if (list[i]!.m < list[i - 1]!.m) outOfOrder += 1;
        minGapMs = Math.min(minGapMs, list[i]!.at - list[i - 1]!.at);
      }
      if (list.length > 1)
        maxChatRate = Math.max(maxChatRate, (list.length - 1) / ((list.at(-1)!.at - list[0]!.at) / 1000));
    }
    log(
      `delivery: ${ok.length}/${rows.length} sent in ${virtualSeconds.toFixed(1)} virtual s (${((Date.now() - started) / 1000).toFixed(1)} real s at ×${settings.timeScale}); ${throttled} throttled`,
    );
    const complete = ok.length === rows.length;
    return [
      figure({
        name: "delivery_messages_per_s",
        value: rate,
        unit: `msg/s (virtual clock ×${settings.timeScale}; ${ok.length}/${rows.length} alerts over ${settings.chats} chats; the sender's configured budget is ${DEFAULT_GLOBAL_BUDGET.perSecond}/s)`,
        reference: "Telegram's published overall limit, about 30 messages/s",
        referenceValue: TELEGRAM_LIMITS.overallPerSecond,
        target: { of: "ratio", op: ">=", limit: 0.9, requires: { "all delivered": complete } },
      }),
      figure({
        name: "delivery_429_responses",
        value: throttled,
        unit: "responses (the fake Bot API refuses what Telegram's published limits refuse)",
        reference: "sendMessage calls",
        referenceValue: calls.length,
        ratio: null,
        target: { of: "value", op: "=", limit: 0, requires: { "calls made": calls.length > 0 } },
      }),
      figure({
        name: "delivery_out_of_order",
        value: outOfOrder,
        unit: "messages delivered before an older alert of their chat",
        reference: "messages delivered",
        referenceValue: ok.length,
        ratio: null,
        target: { of: "value", op: "=", limit: 0, requires: { "all delivered": complete } },
      }),
      figure({
        name: "delivery_max_chat_rate",
        value: maxChatRate,
        unit: `msg/s per chat (min gap ${Number.isFinite(minGapMs) ? Math.round(minGapMs) : "n/a"} ms)`,
        reference: "Telegram's published per-chat limit, about 1 message/s",
        referenceValue: TELEGRAM_LIMITS.chatPerSecond,
        ratio: null,
        informational: `${perChat} alerts a chat spread over the whole drain; the per-chat limit is held where alerts crowd few chats (flood_most_sends_to_one_chat_in_any_second)`,
      }),
      figure({
        name: "delivery_cpu_ms_per_message",
        value: ok.length > 0 ? (cpu.user + cpu.system) / 1000 / ok.length : Number.NaN,
        unit: "ms CPU (sender + fake Bot API, one process)",
        reference: "none",
        referenceValue: null,
        informational: true,
      }),
    ];
  } finally {
    await sender.stop(0).catch(() => undefined);
    await telegram.close();
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}
