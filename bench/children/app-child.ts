/**
 * Bench child: the whole bot (startApp, SQLite file, synchronous=FULL) with a fake Bot API in this
 * process and the marketplace at BENCH_MARKETPLACE_URL (the sandbox child). Commands: rss, seed,
 * poll (one notification poll cycle under a cron-like tick, optionally measuring event-loop
 * delay), updates (the full middleware stack vs a bare grammY bot).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { monitorEventLoopDelay } from "node:perf_hooks";
import pino from "pino";
import { Bot, type Transformer } from "grammy";
import type { Update, UserFromGetMe } from "grammy/types";
import { startApp } from "../../src/app";
import { nextPollCycleId, openPollCycle, pollCycle, type PollerDeps } from "../../src/push/notification-poller";
import { startFakeTelegram } from "../../test/kit/telegram-driver";
import { seedCredentials, seedUsers, seedWebhookTokens } from "../seed";
import { percentile, serveCommands } from "../lib";

const TOKEN = "123456789:AAEbenchbenchbenchbenchbenchbench00";

function gcNow(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
}

/** Answers every Bot API call at once (no network), except getUpdates, which the runner long-polls. */
function instantApi(): Transformer {
  let messageId = 1000;
  return async (prev, method, payload) => {
    if (method === "getUpdates" || method === "getMe") return prev(method, payload);
    const params = (payload ?? {}) as Record<string, unknown>;
    const chat = { id: Number(params.chat_id ?? 1), type: "private" as const, first_name: "U" };
    const message = { message_id: ++messageId, date: Math.floor(Date.now() / 1000), chat, text: String(params.text ?? params.caption ?? "") };
    const result = /^(send|edit|copy|forward)/.test(method) ? message : true;
    return { ok: true, result } as never;
  };
}

/** kind 0 /start, 1 /quote energy 65k 1h, 2 the menu's Quote button; by default the three in turn. */
function updatesFor(index: number, botId: number, only?: number): Update {
  const userId = 900_000_000 + (index % 3000);
  const from = { id: userId, is_bot: false, first_name: "Bench", language_code: "en" };
  const chat = { id: userId, type: "private" as const, first_name: "Bench" };
  const date = Math.floor(Date.now() / 1000);
  const kind = only ?? index % 3;
  if (kind === 2) {
    return { update_id: index + 1, callback_query: { id: `cb${index}`, from, chat_instance: "bench", data: "m:quote", message: { message_id: 1, date, chat, from: { id: botId, is_bot: true, first_name: "Bot" }, text: "menu" } } } as Update;
  }
  const text = kind === 0 ? "/start" : "/quote energy 65k 1h";
  const command = text.split(" ")[0]!;
  return { update_id: index + 1, message: { message_id: index + 10, date, chat, from, text, entities: [{ type: "bot_command", offset: 0, length: command.length }] } } as Update;
}

async function drive(handle: (update: Update) => Promise<void>, count: number, concurrency: number, botId: number, offset: number, only?: number) {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + 60_000;
  const worker = async () => {
    while (next < count && performance.now() < deadline) {
      const index = next++;
      const at = performance.now();
      await handle(updatesFor(offset + index, botId, only)).catch(() => {
        errors += 1;
      });
      latencies.push(performance.now() - at);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: latencies.length / seconds, p99: percentile(latencies, 99), errors, handled: latencies.length };
}

async function main() {
  const telegram = await startFakeTelegram({ token: TOKEN, longPollMaxMs: 5_000 });
  const dir = mkdtempSync(join(tmpdir(), "bench-app-"));
  const app = await startApp({
    env: {
      BOT_TOKEN: TOKEN,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      MARKETPLACE_URL: process.env.BENCH_MARKETPLACE_URL,
      DATABASE_URL: `file:${join(dir, "bot.db")}`,
      SECRET_KEY: randomBytes(32).toString("base64"),
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "info",
      NOTIFICATIONS_POLL: "0 0 1 1 *",
      MARKETPLACE_TIMEOUT_MS: "10000",
      NODE_ENV: "production",
    },
    logDestination: pino.destination({ dest: join(dir, "app.log"), sync: false }),
  });
  // Alerts stay queued here: delivery is measured on its own against a rate-limited fake. The
  // background jobs stop too: they would join the measured cycle as a second, slower poller.
  await app.push.stop();
  const botId = app.bot.botInfo.id;

  serveCommands({
    rss: () => {
      gcNow();
      const memory = process.memoryUsage();
      return { rss: memory.rss, heapUsed: memory.heapUsed, heapTotal: memory.heapTotal, external: memory.external };
    },
    seed: async ({ firstId, keys, tokens }) => {
      const apiKeys = keys as string[];
      const now = Date.now();
      await seedUsers(app.db, Number(firstId), apiKeys.length, now);
      await seedCredentials(app.db, app.deps.box, Number(firstId), apiKeys, now);
      const raw = await seedWebhookTokens(app.db, Number(firstId), Number(tokens), now);
      return { tokens: raw, url: app.url, log: join(dir, "app.log") };
    },
    /**
     * Cron-like: a tick every `tickMs` starts a cycle unless one is running (the guard pollNow
     * uses); returns after the first cycle has finished and one more tick has passed.
     */
    poll: async ({ rate, concurrency, tickMs, eld }) => {
      const deps: PollerDeps = { db: app.db, logger: app.logger, box: app.deps.box, translations: app.deps.i18n, now: Date.now, marketplace: app.deps.marketplace, onQueued: () => undefined, ratePerSecond: Number(rate), concurrency: Number(concurrency) };
      const monitor = monitorEventLoopDelay({ resolution: 5 });
      const cycles: Array<{ id: number; start: number; end: number; users: number; queued: number; cpuUs: number }> = [];
      let running: Promise<void> | null = null;
      let skipped = 0;
      const tick = () => {
        if (running) {
          skipped += 1;
          return;
        }
        const start = performance.now();
        const cpu = process.cpuUsage();
        running = (async () => {
          const id = await openPollCycle(app.db, "bench", await nextPollCycleId(app.db, Date.now()), Date.now());
          const result = await pollCycle(deps, "bench", id);
          const used = process.cpuUsage(cpu);
          cycles.push({ id, start, end: performance.now(), users: result.users, queued: result.queued, cpuUs: used.user + used.system });
          running = null;
        })();
      };
      if (eld) monitor.enable();
      tick();
      const timer = setInterval(tick, Number(tickMs));
      while (cycles.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      clearInterval(timer);
      if (eld) monitor.disable();
      const pending = running as Promise<void> | null;
      if (pending) await pending;
      let overlaps = 0;
      for (let i = 1; i < cycles.length; i++) if (cycles[i]!.start < cycles[i - 1]!.end) overlaps += 1;
      const first = cycles[0]!;
      // Every user the cycle covered, counted in the database (not by the poller that covered them).
      const covered = await app.db.selectFrom("poll_state").select((eb) => eb.fn.countAll<number>().as("n")).where("last_cycle", ">=", first.id).executeTakeFirstOrThrow();
      return { ms: first.end - first.start, users: Number(covered.n), queued: first.queued, cpuUs: first.cpuUs, overlaps, skipped, cycles: cycles.length, eldP99Ms: eld ? monitor.percentile(99) / 1e6 : null, eldMaxMs: eld ? monitor.max / 1e6 : null };
    },
    updates: async ({ count, concurrency }) => {
      app.bot.api.config.use(instantApi());
      const botInfo: UserFromGetMe = app.bot.botInfo;
      const bare = new Bot(TOKEN, { botInfo });
      bare.api.config.use(instantApi());
      bare.use(async (ctx) => {
        await ctx.reply("ok");
      });
      const n = Number(count);
      const c = Number(concurrency);
      // warm-up both, then measure each
      await drive((update) => app.bot.handleUpdate(update), Math.min(300, n), c, botId, 0);
      await drive((update) => bare.handleUpdate(update), Math.min(300, n), c, botId, 0);
      const full = await drive((update) => app.bot.handleUpdate(update), n, c, botId, 10_000);
      const reference = await drive((update) => bare.handleUpdate(update), n, c, botId, 10_000);
      // Each kind on its own, from users the bot already knows (the mix above met most of them first).
      const kinds = [];
      for (const kind of [0, 1, 2]) kinds.push(await drive((update) => app.bot.handleUpdate(update), Math.ceil(n / 3), c, botId, 20_000, kind));
      return { full, bare: reference, kinds };
    },
  });
  process.send!({ ready: true });
}

main().catch((error: unknown) => {
  console.error("app-child failed", error);
  process.exit(1);
});
