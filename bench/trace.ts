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
  const data = (
    instant.lastParams("sendMessage")?.reply_markup as { inline_keyboard: Array<Array<{ callback_data: string }>> }
  ).inline_keyboard[0]![0]!.callback_data;
  const mix = new UpdateMix(app.bot.botInfo.id, data);
  await mix.drivePaced((update) => app.bot.handleUpdate(update), count, 200, 0);

  const kinds = ["/start", "/quote", "button"];
  const slow: string[] = [];
  const closed = await mix.driveApp(app, count, 16, 0, undefined, 850_000_000);
  console.log(
    `closed loop, 16 in flight: ${closed.perSecond.toFixed(0)} updates/s, ${closed.cpuMs.toFixed(3)} ms CPU an update`,
  );
  // Each kind alone, from users met for the first time, then from the same users again.
  for (const kind of [0, 1, 2]) {
    const base = 860_000_000 + kind * 1_000_000;
    const first = await mix.driveApp(app, 1000, 16, 0, kind, base);
    const again = await mix.driveApp(app, 1000, 16, 0, kind, base);
    console.log(
      `${kinds[kind]} alone: ${first.cpuMs.toFixed(3)} ms CPU an update for a user met for the first time, ${again.cpuMs.toFixed(3)} ms the next time`,
    );
  }
  if (process.env.TRACE_PROFILE) await profileMix(mix, app, process.env.TRACE_PROFILE);

  const sequences = new Map<string, number>();
  const latencies: number[] = [];
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
        const sequence = `${kinds[(count + index) % 3]}: ${mine.map((call) => call.method).join(", ")}`;
        sequences.set(sequence, (sequences.get(sequence) ?? 0) + 1);
        const reply = mine.find((call) => call.method.startsWith("send") && call.method !== "sendChatAction");
        const ms = (reply?.answered ?? performance.now()) - due;
        latencies.push(ms);
        if (ms <= slowMs) return;
        const steps = mine.map(
          (call) =>
            `${call.method} asked ${(call.asked - due).toFixed(1)}, answered ${call.answered === undefined ? "-" : (call.answered - due).toFixed(1)}`,
        );
        slow.push(`${kinds[(count + index) % 3]} (chat ${chat}): ${ms.toFixed(1)} ms\n    ${steps.join("\n    ")}`);
      }),
    );
  }
  await Promise.all(inFlight);
  console.log(
    `${count} updates at 200/s: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, ${slow.length} over ${slowMs} ms`,
  );
  console.log(
    `the calls each kind made, and how often:\n${[...sequences]
      .sort((a, b) => b[1] - a[1])
      .map(([sequence, n]) => `  ${n} × ${sequence}`)
      .join("\n")}`,
  );
  for (const line of slow.slice(0, Number(process.env.TRACE_SHOW ?? 20))) console.log(line);
  await app.stop();
  server.close();
  process.exit(0);
}

/**
 * TRACE_PROFILE=<file>: a V8 CPU profile of the mix driven closed-loop (16 in flight, TRACE_UPDATES
 * updates, users met for the first time), then the functions and files with the most self time.
 */
async function profileMix(
  mix: UpdateMix,
  app: Awaited<ReturnType<typeof startInstantApp>>["app"],
  file: string,
): Promise<void> {
  const { Session } = await import("node:inspector/promises");
  const { writeFileSync } = await import("node:fs");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
  await session.post("Profiler.start");
  // TRACE_PROFILE_KIND (0 /start, 1 /quote, 2 the button): that kind alone, from users it met once already.
  const kind = process.env.TRACE_PROFILE_KIND === undefined ? undefined : Number(process.env.TRACE_PROFILE_KIND);
  if (kind !== undefined) await mix.driveApp(app, count, 16, 0, kind, 800_000_000);
  const driven = await mix.driveApp(app, count, 16, 0, kind, 800_000_000);
  const { profile } = await session.post("Profiler.stop");
  writeFileSync(file, JSON.stringify(profile));
  console.log(`profile of ${driven.handled} updates (${driven.cpuMs.toFixed(3)} ms CPU each) written to ${file}`);
  const byNode = new Map<number, { name: string; url: string; line: number }>();
  for (const node of profile.nodes)
    byNode.set(node.id, {
      name: node.callFrame.functionName || "(anonymous)",
      url: node.callFrame.url,
      line: node.callFrame.lineNumber,
    });
  const selfByFunction = new Map<string, number>();
  const selfByFile = new Map<string, number>();
  const samples = profile.samples ?? [];
  for (const id of samples) {
    const node = byNode.get(id)!;
    const where = node.url.replace(/^.*\/(node_modules\/|src\/)/, "$1");
    const fn = `${node.name} ${where}:${node.line + 1}`;
    selfByFunction.set(fn, (selfByFunction.get(fn) ?? 0) + 1);
    const fileKey = where.startsWith("node_modules/")
      ? where
          .split("/")
          .slice(0, where.startsWith("node_modules/@") ? 3 : 2)
          .join("/")
      : where || node.name;
    selfByFile.set(fileKey, (selfByFile.get(fileKey) ?? 0) + 1);
  }
  const top = (map: Map<string, number>, n: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([key, hits]) => `  ${((hits / samples.length) * 100).toFixed(1)}% ${key}`);
  console.log(
    `self time by file or package:\n${top(selfByFile, 25).join("\n")}\nself time by function:\n${top(selfByFunction, 30).join("\n")}`,
  );
}

void main();
