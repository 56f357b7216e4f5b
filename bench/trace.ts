/**
 * `npx tsx bench/trace.ts`: where an update's time goes. Drives the bench's update mix through the
 * app (the Bot API answered in-process, Telegram's limits lifted, a SQLite file or the database
 * BENCH_APP_DATABASE_URL names) at 200 updates/s, and prints every update slower than
 * TRACE_SLOW_MS [25] from its arrival to its reply: the Bot API calls it made, in order, each with
 * when it was asked for and when it was answered (ms from arrival).
 * TRACE_UPDATES [2000] updates, after a warm-up of the same size from the same users.
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createSandbox } from "../src/sandbox/index";
import { startInstantApp } from "./children/bot-env";
import { UpdateMix } from "./children/update-drive";
import { percentile } from "./lib";

const slowMs = Number(process.env.TRACE_SLOW_MS ?? 25);
const count = Number(process.env.TRACE_UPDATES ?? 2000);

interface Call {
  method: string;
  asked: number;
  answered?: number;
}

async function main() {
  const sandbox = createSandbox({ settleDelayMs: 0 });
  const server = serve({ fetch: sandbox.app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise((resolve) => server.once("listening", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { app, instant } = await startInstantApp("bench-trace", url, process.env.BENCH_APP_DATABASE_URL || undefined);
  instant.setInstant(true);

  // Per chat, the calls of the update in hand: when each was asked for (the outermost transformer,
  // before any limit) and answered (the Bot API answers in-process: the gap is the limits' wait).
  const calls = new Map<number, Call[]>();
  app.bot.api.config.use(async (prev, method, payload, signal) => {
    const call: Call = { method, asked: performance.now() };
    calls.get(Number((payload as { chat_id?: unknown } | undefined)?.chat_id ?? 0))?.push(call);
    try {
      return await prev(method, payload, signal);
    } finally {
      call.answered = performance.now();
    }
  });

  const probe = new UpdateMix(app.bot.botInfo.id, "");
  await app.bot.handleUpdate(probe.update(0, 0, 600_000_000));
  const data = (instant.lastParams("sendMessage")?.reply_markup as { inline_keyboard: Array<Array<{ callback_data: string }>> }).inline_keyboard[0]![0]!.callback_data;
  const mix = new UpdateMix(app.bot.botInfo.id, data);
  await mix.drivePaced((update) => app.bot.handleUpdate(update), count, 200, 0);

  const slow: string[] = [];
  const latencies: number[] = [];
  const kinds = ["/start", "/quote", "button"];
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let index = 0; index < count; index++) {
    const due = started + (index * 1000) / 200;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const update = mix.update(count + index);
    const chat = update.message?.chat.id ?? update.callback_query!.message!.chat.id;
    const mine: Call[] = [];
    calls.set(chat, mine);
    inFlight.push(
      app.bot.handleUpdate(update).then(() => {
        calls.delete(chat);
        const reply = mine.find((call) => call.method.startsWith("send") && call.method !== "sendChatAction");
        const ms = (reply?.answered ?? performance.now()) - due;
        latencies.push(ms);
        if (ms <= slowMs) return;
        const steps = mine.map((call) => `${call.method} asked ${(call.asked - due).toFixed(1)}, answered ${call.answered === undefined ? "-" : (call.answered - due).toFixed(1)}`);
        slow.push(`${kinds[(count + index) % 3]} (chat ${chat}): ${ms.toFixed(1)} ms\n    ${steps.join("\n    ")}`);
      }),
    );
  }
  await Promise.all(inFlight);
  console.log(`${count} updates at 200/s: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, ${slow.length} over ${slowMs} ms`);
  for (const line of slow.slice(0, Number(process.env.TRACE_SHOW ?? 20))) console.log(line);
  await app.stop();
  server.close();
  process.exit(0);
}

void main();
