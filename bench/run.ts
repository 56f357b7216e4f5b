/**
 * `npm run bench`: the bot's hot paths measured side by side with their references, on loopback
 * only, every loop bounded in count and time. Prints a table and writes bench/results/latest.json.
 *
 * Each figure is a target (a limit its value or its ratio to a reference measured in the same run
 * can miss; the fixed references are Telegram's published limits) or informational (printed, not
 * counted). A part that cannot run (no PostgreSQL, no git history) misses its targets (bench/parts.ts).
 * The process exits 2 when a target was missed, 1 when the bench itself failed; with `--explore`
 * (`npm run bench -- --explore`) or BENCH_EXPLORE=1 it exits 0 whatever was missed.
 *
 * Environment (defaults in brackets; BENCH_QUICK=1 shrinks everything to a few seconds):
 *   BENCH_POLL_USERS [10000]     linked users polled (each with BENCH_NOTIFICATIONS [10] notifications)
 *   BENCH_POLL_RATE [1000]       the poller's request rate R (the app's POLL_RATE; requests in flight
 *                                as the app sets them: R / 10, at least 16), requests/s
 *   BENCH_POLL_INTERVAL_S [30; 5 in quick mode]   the poll interval the cycle must stay below (NOTIFICATIONS_POLL default)
 *   BENCH_DELAY_MS [50]          latency added to every notifications call (sandbox injectFault delayMs)
 *   BENCH_DELIVERY_SCALE [2]     the fake Bot API's and the sender's clocks run this much faster
 *   BENCH_UPDATES [6000]         updates in the measured mix (each kind alone: a third of it; guided steps too)
 *   BENCH_SAME_IO_ROUNDS [5]     rounds of the mix alternating with the same-I/O reference (updates_cpu_vs_same_io:
 *                                the median of the rounds' ratios)
 *   BENCH_PACED_PASSES [3]       passes at 200 updates/s in the dialects part, each alternating with the reference's
 *                                (updates_p99_ms_at_200_per_s_*: the median of the passes' p99s, each listed)
 *   BENCH_IDLE_STARTS [3]        app starts whose idle RSS gives the median (the app part's own start is one)
 *   BENCH_IDLE_SETTLE_S [20]     seconds of idleness before the idle RSS is read (also read 1 s after ready)
 *   BENCH_INGEST_RATE [1000]     offered load for the ingest p99, events/s
 *   BENCH_ELD_POLL_RATE [N / (0.8 × interval)]  the poll rate while event-loop delay is measured
 *   BENCH_OUT [bench/results/latest.json; quick.json in quick mode; only-<parts>.json with BENCH_ONLY]
 *                                where the JSON goes (the test writes to a temporary file); `npx tsx
 *                                bench/report.ts --readme` puts latest.json's table into bench/README.md
 *   BENCH_ONLY [all]             a comma list of parts to run: chart, ingest, delivery, flood, app, paths, before, schedule,
 *                                dialects (the update mix on SQLite and on PostgreSQL), replicas, miniapp (the
 *                                dashboard's gzipped script and its first render in Chromium on loopback),
 *                                autobuys (auto-buys' quotes, previews, orders and latency on both databases)
 *   BENCH_BEFORE_REV [98fcdf0]   the "before" part: the code of this commit (the last before the guided
 *                                flows moved onto the plugins) against the current code, BENCH_UPDATES
 *                                updates each, BENCH_BEFORE_ROUNDS [3] rounds alternating; needs the
 *                                clone's history (in a shallow clone its targets are missed, with the reason)
 *   BENCH_FLOOD_EVENTS [12400]   order.filled webhooks of the flood part, to BENCH_FLOOD_CHATS [60] chats,
 *                                offered at up to BENCH_FLOOD_RATE [1600]/s; the alerts are watched for
 *                                BENCH_FLOOD_SECONDS [60] (`BENCH_ONLY=flood npm run bench` runs it alone)
 *   BENCH_SCHEDULE_USERS [100000] linked users of the poll-schedule part (5% active rule, 1% order or
 *                                deposit), polled on the schedule over BENCH_SCHEDULE_CYCLES [24] simulated
 *                                30 s cycles and once all together, at BENCH_SCHEDULE_RATE [2000]/s
 *                                (`BENCH_ONLY=schedule npm run bench` runs it alone)
 *   BENCH_REPLICA_USERS [100000] users polled by three replicas on PostgreSQL (one notification each)
 *   BENCH_REPLICA_RATE [300]     each replica's POLL_RATE, requests/s
 *   BENCH_PROFILE [unset]        a directory: the app part writes V8 CPU profiles of the measured mix
 *                                (mix.cpuprofile), of each kind alone (kind-start, kind-quote,
 *                                kind-button) and of guided steps (guided.cpuprofile, and
 *                                guided-back-to-back.cpuprofile) there
 *   BENCH_HEAP_PROFILE [unset]   a directory: the same passes' allocations, sampled, as <name>.heapprofile
 *                                (DevTools' Memory tab opens them); instead of the CPU profiles
 *   BENCH_AUTOBUYS [10000]       auto-buys of the autobuys part (five per user) over BENCH_AUTOBUY_RENTS [1000]
 *                                distinct rents, the crossing reaching its orders within BENCH_AUTOBUY_TICK_S [30]
 *                                (the cron interval) plus 2 s; on SQLite, then on PostgreSQL with three replicas
 *                                (`BENCH_ONLY=autobuys npm run bench` runs it alone)
 *   BENCH_DATABASE_URL [unset]   a PostgreSQL server for the replicas and dialects parts (a database is
 *                                created and dropped on it); unset: a throwaway cluster from Debian's packages
 */
import { benchIngest } from "./ingest";
import { benchDelivery } from "./delivery";
import { benchReplicas } from "./replicas";
import { benchSchedule } from "./schedule";
import { benchChart } from "./chart";
import { benchFlood } from "./flood";
import { BEFORE_PLUGINS, benchBeforeAfter } from "./before-after";
import { benchPaths } from "./paths";
import { benchDialects } from "./dialects";
import { benchMiniApp } from "./miniapp";
import { benchAutoBuys } from "./autobuys";
import { pollConcurrency as concurrencyFor } from "../src/push/index";
import { exploring, report, result, writeResults } from "./report";
import { selectedParts } from "./parts";
import { DEFAULT_GLOBAL_BUDGET } from "../src/scale/send-budget";
import {
  createAgent,
  envNumber,
  figure,
  TELEGRAM_LIMITS,
  forkChild,
  openLoop,
  orderEvent,
  percentile,
  post,
  round,
  sameIoSummary,
  sleep,
  type Figure,
} from "./lib";
import type { SameIoRound } from "./children/update-drive";

const quick = process.env.BENCH_QUICK === "1";
const log = (line: string) => console.log(`[bench] ${line}`);

const pollUsers = envNumber("BENCH_POLL_USERS", quick ? 200 : 10_000);
const pollRate = envNumber("BENCH_POLL_RATE", quick ? 400 : 1_000);
const pollInterval = envNumber("BENCH_POLL_INTERVAL_S", quick ? 5 : 30);
const notifications = envNumber("BENCH_NOTIFICATIONS", quick ? 3 : 10);
const delayMs = envNumber("BENCH_DELAY_MS", 50);
const ingestRate = envNumber("BENCH_INGEST_RATE", quick ? 200 : 1_000);
const idleStarts = envNumber("BENCH_IDLE_STARTS", quick ? 1 : 3);
const idleSettleSeconds = envNumber("BENCH_IDLE_SETTLE_S", quick ? 1 : 20);
const eldPollRate = envNumber("BENCH_ELD_POLL_RATE", Math.ceil(pollUsers / (pollInterval * 0.8)));

async function benchApp(): Promise<Figure[]> {
  const sandbox = forkChild("sandbox-child.ts", {
    BENCH_ACCOUNTS: String(pollUsers),
    BENCH_NOTIFICATIONS: String(notifications),
    BENCH_DELAY_MS: String(delayMs),
  });
  let app: ReturnType<typeof forkChild> | null = null;
  try {
    const market = (await sandbox.ready) as { url: string; keys: string[] };
    log(
      `sandbox: ${market.keys.length} accounts × ${notifications} notifications, +${delayMs} ms per notifications call`,
    );
    const appEnv = { BENCH_MARKETPLACE_URL: market.url, BENCH_POLL_RATE: String(pollRate) };
    // Idle RSS is read twice on each of several starts: 1 s after ready (just started: the young
    // generation still as large as startup made it) and after BENCH_IDLE_SETTLE_S of idleness (V8's
    // memory reducer has run and given those pages back; a bot waiting for updates is in this state).
    // One start varies by several MB, so each figure is the median of the starts.
    const justStarted: number[] = [];
    const settled: number[] = [];
    const readIdle = async (child: ReturnType<typeof forkChild>) => {
      await child.ready;
      await sleep(1_000);
      const first = await child.call<{ rss: number }>("rss");
      justStarted.push(first.rss / 2 ** 20);
      await sleep(Math.max(0, idleSettleSeconds * 1_000 - 1_000));
      const later = await child.call<{ rss: number }>("rss");
      settled.push(later.rss / 2 ** 20);
      return later;
    };
    for (let start = 1; start < idleStarts; start++) {
      const extra = forkChild("app-child.ts", appEnv, { exposeGc: true });
      try {
        await readIdle(extra);
      } finally {
        await extra.kill();
      }
    }
    app = forkChild("app-child.ts", appEnv, { exposeGc: true });
    const idle = await readIdle(app);
    const idleMedian = percentile(settled, 50);
    const justStartedMedian = percentile(justStarted, 50);
    const mbList = (values: number[]) => values.map((mb) => mb.toFixed(1)).join(", ");
    log(
      `memory: idle RSS ${idleMedian.toFixed(1)} MB after ${idleSettleSeconds} s idle (${mbList(settled)}); ${justStartedMedian.toFixed(1)} MB 1 s after ready (${mbList(justStarted)}); medians of ${settled.length} starts`,
    );
    const seeded = await app.call<{ tokens: string[]; url: string; log: string }>("seed", {
      firstId: 500_000_000,
      keys: market.keys,
      tokens: Math.min(1000, pollUsers),
    });
    log(`app: ${pollUsers} linked users; log at ${seeded.log}`);
    const nOverR = pollUsers / pollRate;
    // Ticks of the app's own cron task, several per cycle (the cycle must outlast some of them).
    const tickMs = Math.max(50, Math.round((nOverR * 1000) / 8));
    const timeout = Math.max(120_000, nOverR * 4_000);
    type Ticked = {
      ms: number;
      users: number;
      cpuUs: number;
      ticks: number;
      skipped: number;
      opened: number;
      concurrency: number;
    };
    const priming = await app.call<Ticked>("ticks", { tickMs }, timeout);
    log(`poll: priming cycle ${priming.users} users in ${(priming.ms / 1000).toFixed(1)} s`);
    await sandbox.call("notify", { count: Math.ceil(pollUsers / 10) });
    await sandbox.call("cycles", { reset: true });
    const cycle = await app.call<Ticked>("ticks", { tickMs }, timeout);
    // The marketplace's view: the n-th listing of each key belongs to the n-th cycle.
    const seen = await sandbox.call<{ cycles: number; atOnce: number; spansMs: number[] }>("cycles", { reset: true });
    log(
      `poll: cycle ${cycle.users} users in ${(cycle.ms / 1000).toFixed(1)} s through the app's cron task ticked every ${tickMs} ms: ${cycle.ticks} ticks, ${cycle.skipped} skipped by the app (poll_ticks_skipped_total), ${cycle.opened} cycle(s) opened; the marketplace saw ${seen.cycles} cycle(s) (spans ${seen.spansMs.join(", ")} ms), at most ${seen.atOnce} at once`,
    );
    type Memory = { rss: number; heapUsed: number; heapTotal: number; external: number };
    const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
    const justAfter = await app.call<Memory>("rss");
    log(
      `memory: RSS right after polling ${pollUsers} users × ${notifications} notifications ${mb(justAfter.rss)} MB (heap used ${mb(justAfter.heapUsed)} of ${mb(justAfter.heapTotal)} MB)`,
    );
    // Measured as the idle figure is: with the bot idle again (V8 and the allocator hand back the
    // burst's working memory within seconds), so the growth is what holding these users costs.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const after = await app.call<Memory>("rss");
    log(
      `memory: RSS idle again 5 s later ${mb(after.rss)} MB (heap used ${mb(after.heapUsed)} of ${mb(after.heapTotal)} MB, external ${mb(after.external)} MB)`,
    );

    // Event-loop delay while a poll cycle and webhook ingest run together.
    const agent = createAgent(64);
    let stopIngest = false;
    let ingestSent = 0;
    let ingestOk = 0;
    const ingest = (async () => {
      let round = 0;
      while (!stopIngest && round < 1000) {
        const result = await openLoop({
          ratePerSecond: ingestRate / 2,
          durationMs: 1_000,
          send: async (index) => {
            const event = orderEvent(round * 100_000 + index, "e4e4e4e4");
            ingestSent += 1;
            const response = await post(
              agent,
              new URL(`${seeded.url}/webhooks/marketplace/${seeded.tokens[index % seeded.tokens.length]}`),
              event.body,
            );
            return response.status === 200;
          },
        });
        ingestOk += result.ok;
        round += 1;
      }
    })();
    // The cycle here runs at the rate production needs for these users: all of them within 80% of
    // the poll interval (the throughput figure above runs at R, far above that).
    const loaded = await app.call<{ ms: number; eldP99Ms: number; eldMaxMs: number }>(
      "poll",
      { rate: eldPollRate, concurrency: concurrencyFor(eldPollRate) },
      timeout,
    );
    stopIngest = true;
    await ingest;
    agent.destroy();
    log(
      `event loop: p99 ${loaded.eldP99Ms.toFixed(1)} ms (max ${loaded.eldMaxMs.toFixed(1)} ms) during a ${(loaded.ms / 1000).toFixed(1)} s poll cycle at ${eldPollRate}/s with ${ingestOk}/${ingestSent} webhook events at ${ingestRate / 2}/s`,
    );

    const updateCount = envNumber("BENCH_UPDATES", quick ? 600 : 6_000);
    const sameIoRoundCount = envNumber("BENCH_SAME_IO_ROUNDS", quick ? 1 : 5);
    type Driven = { perSecond: number; p99: number; errors: number; handled: number; seconds: number; cpuMs: number };
    // As deployed, replies are held to the shared budget (28/s): a few seconds' worth shows it.
    const deployedCount = quick ? 60 : 150;
    const updates = await app.call<{
      deployed: Driven & { messagesPerSecond: number };
      full: Driven & { statementsPerUpdate: number };
      bare: Driven;
      sameIoRounds: SameIoRound[];
      kinds: Driven[];
      kindsReference: Driven[];
      calls: { answered: number; counted: number };
      quoteCall: { perSecond: number; cpuMs: number };
      guided: { steps: number; perSecond: number; cpuMs: number; thinkMs: number; usersAtOnce: number };
      guidedBackToBack: { steps: number; perSecond: number; cpuMs: number; usersAtOnce: number };
      sameIo: Driven;
      paced: { p99: number; p99Done: number; noReply: number; offeredPerSecond: number; errors: number };
      pacedReference: { p99: number; offeredPerSecond: number; errors: number };
    }>("updates", { count: updateCount, concurrency: 16, deployedCount, sameIoRoundCount }, 240_000);
    log(
      `updates as deployed (Telegram's limits on): ${updates.deployed.perSecond.toFixed(1)}/s, ${updates.deployed.messagesPerSecond.toFixed(1)} messages/s (p99 ${updates.deployed.p99.toFixed(0)} ms, ${updates.deployed.errors} errors)`,
    );
    log(
      `updates, limits lifted: full stack ${updates.full.perSecond.toFixed(0)}/s (p99 ${updates.full.p99.toFixed(1)} ms, ${updates.full.cpuMs.toFixed(2)} ms CPU each, ${updates.full.errors} errors, ${updates.full.statementsPerUpdate.toFixed(2)} SQL statements each); bare grammY ${updates.bare.perSecond.toFixed(0)}/s (${updates.bare.cpuMs.toFixed(3)} ms CPU each); Bot API calls answered in-process ${updates.calls.answered}, counted by the app's own transformer ${updates.calls.counted}`,
    );
    log(
      `updates, guided: ${updates.guided.steps} steps of a /quote asked step by step (enter, then two answers, each ${updates.guided.thinkMs} ms after its question; ${updates.guided.usersAtOnce} users at once) at ${updates.guided.perSecond.toFixed(0)}/s, ${updates.guided.cpuMs.toFixed(3)} ms CPU each; answered back to back (${updates.guidedBackToBack.usersAtOnce} users at once) ${updates.guidedBackToBack.perSecond.toFixed(0)}/s, ${updates.guidedBackToBack.cpuMs.toFixed(3)} ms CPU each`,
    );
    const kindNames = ["/start", "/quote energy 65k 1h", "the menu's Quote button"];
    log(
      `updates, each kind alone from known users: ${updates.kinds.map((kind, i) => `${kindNames[i]} ${kind.perSecond.toFixed(0)}/s (${kind.cpuMs.toFixed(2)} ms CPU each; the same-I/O reference ${updates.kindsReference[i]!.cpuMs.toFixed(2)} ms)`).join(", ")}`,
    );
    // The mix's ceiling were the app free but for the bare bot's work and the fresh price a /quote
    // must fetch: three updates cost at least three bare updates and one quote request.
    const ceiling = 3_000 / (3 * updates.bare.cpuMs + updates.quoteCall.cpuMs);
    log(
      `updates: the price request alone ${updates.quoteCall.perSecond.toFixed(0)}/s, ${updates.quoteCall.cpuMs.toFixed(3)} ms CPU each; ceiling of the mix with nothing else to do ${ceiling.toFixed(0)}/s (${(ceiling / updates.bare.perSecond).toFixed(2)} of the bare bot)`,
    );

    const sameIoRounds = updates.sameIoRounds;
    const sameIo = sameIoSummary(sameIoRounds);
    const sameIoErrors = sameIoRounds.reduce((sum, r) => sum + r.errors, 0);
    log(
      `updates against the same-I/O reference, ${sameIoRounds.length} rounds alternating: ${sameIoRounds.map((r) => `${r.app.toFixed(3)} / ${r.sameIo.toFixed(3)} ms (${(r.app / r.sameIo).toFixed(2)})`).join(", ")}; median ratio ${sameIo.ratio.toFixed(2)}; ${sameIoErrors} errors`,
    );
    const updateErrors = updates.full.errors + updates.kinds.reduce((sum, kind) => sum + kind.errors, 0);
    const cpuMsPerUser = cycle.cpuUs / 1000 / Math.max(1, cycle.users);
    const cycleSeconds = cycle.ms / 1000;
    const growth = (after.rss - idle.rss) / 2 ** 20;
    return [
      figure({
        name: "poll_cycle_s",
        value: cycleSeconds,
        unit: `s (N=${cycle.users}, R=${pollRate}/s, concurrency ${cycle.concurrency}, +${delayMs} ms per call; started by the app's cron task)`,
        reference: "N/R",
        referenceValue: nOverR,
        target: {
          of: "ratio",
          op: "<=",
          limit: 1.1,
          requires: {
            "every user polled": cycle.users === pollUsers,
            [`under the ${pollInterval} s interval`]: cycleSeconds < pollInterval,
          },
        },
      }),
      figure({
        name: "poll_cycles_at_once",
        value: seen.atOnce,
        unit: `poll cycles running at once, as the marketplace saw them (${seen.cycles} cycle(s) while the app's cron task was ticked ${cycle.ticks} times, every ${tickMs} ms)`,
        reference: "ticks the app skipped while its cycle ran (poll_ticks_skipped_total)",
        referenceValue: cycle.skipped,
        ratio: null,
        target: {
          of: "value",
          op: "<=",
          limit: 1,
          requires: { "ticks skipped while the cycle ran": cycle.skipped > 0 },
        },
      }),
      figure({
        name: "poll_cpu_ms_per_user",
        value: cpuMsPerUser,
        unit: "ms CPU per user polled",
        reference: "cycle wall time per user",
        referenceValue: cycle.ms / Math.max(1, cycle.users),
        informational: true,
      }),
      figure({
        name: "updates_per_s",
        value: updates.full.perSecond,
        unit: "updates/s (/start, /quote energy 65k 1h, menu button in turn from 3,000 users, most first seen in the run; whole middleware stack and every Bot API transformer, Telegram's rate limits lifted)",
        reference: "bare grammY bot, one handler",
        referenceValue: updates.bare.perSecond,
        informational:
          "a bare bot reads nothing and asks nothing: the CPU is held to the same-I/O reference, updates_cpu_vs_same_io, and latency to updates_p99_ms_at_200_per_s",
      }),
      figure({
        name: "updates_calls_counted_by_app",
        value: updates.calls.counted,
        unit: "Bot API calls of the measured mix counted by the app's own transformer",
        reference: "calls answered in-process beneath the transformers",
        referenceValue: updates.calls.answered,
        ratio: null,
        target: {
          of: "value",
          op: "=",
          limit: updates.calls.answered,
          requires: { "calls made": updates.calls.answered > 0 },
        },
      }),
      figure({
        name: "updates_deployed_messages_per_s",
        value: updates.deployed.messagesPerSecond,
        unit: `messages/s the bot sent while the mix ran with Telegram's limits as deployed (${round(updates.deployed.perSecond, 1)} updates/s, p99 ${Math.round(updates.deployed.p99)} ms; the shared budget is configured at ${DEFAULT_GLOBAL_BUDGET.perSecond}/s)`,
        reference: "Telegram's published overall limit, about 30 messages/s",
        referenceValue: TELEGRAM_LIMITS.overallPerSecond,
        target: {
          of: "value",
          op: "<=",
          limit: TELEGRAM_LIMITS.overallPerSecond,
          requires: { "no errors": updates.deployed.errors === 0 },
        },
      }),
      figure({
        name: "updates_errors",
        value: updateErrors,
        unit: "updates of the measured mix and of each kind alone that failed",
        reference: "updates handled in the mix",
        referenceValue: updates.full.handled,
        ratio: null,
        target: { of: "value", op: "=", limit: 0, requires: { "updates handled": updates.full.handled > 0 } },
      }),
      ...updates.kinds.map((kind, i) =>
        figure({
          name: `updates_per_s_${["start", "quote", "menu_button"][i]}`,
          value: kind.perSecond,
          unit: `updates/s, ${kindNames[i]} alone, users already known (p99 ${kind.p99.toFixed(1)} ms, ${kind.cpuMs.toFixed(2)} ms CPU each; the same-I/O reference on the same updates ${updates.kindsReference[i]!.cpuMs.toFixed(2)} ms CPU each)`,
          reference: "bare grammY bot, one handler",
          referenceValue: updates.bare.perSecond,
          informational: true,
        }),
      ),
      figure({
        name: "updates_quote_request_cpu_ms",
        value: updates.quoteCall.cpuMs,
        unit: "ms CPU per price quote request alone (the marketplace client's side of the HTTP round trip each /quote makes)",
        reference: "bare grammY bot, ms CPU per update",
        referenceValue: updates.bare.cpuMs,
        informational: true,
      }),
      figure({
        name: "updates_per_s_ceiling_fresh_quote",
        value: ceiling,
        unit: "updates/s the mix could reach at most if the app cost nothing beyond the bare bot's work and the /quote's price request (from CPU per update: 3 / (3 bare + 1 request))",
        reference: "bare grammY bot, one handler",
        referenceValue: updates.bare.perSecond,
        informational: true,
      }),
      figure({
        name: "updates_cpu_ms",
        value: updates.full.cpuMs,
        unit: "ms CPU per update of the mix (this process: bot, database, Bot API answered in-process)",
        reference: "bare grammY bot, ms CPU per update",
        referenceValue: updates.bare.cpuMs,
        informational:
          "the mix's 1.25× limit is held against the code before the plugins, measured in the same run: updates_cpu_ms_vs_before_plugins",
      }),
      figure({
        name: "updates_cpu_vs_same_io",
        value: sameIo.app,
        unit: `ms CPU per update of the mix, the median of ${sameIoRounds.length} rounds, each from 3,000 users met for the first time and alternating with the reference every tenth of the mix; the ratio is the median of the rounds' own: ${sameIo.ratios.map((ratio) => round(ratio, 2)).join(", ")}`,
        reference:
          "reference bot on the same stack doing the same essential I/O and nothing else (reads the user's row, makes the /quote's price request, sends one reply), ms CPU per update, the median of the same rounds",
        referenceValue: sameIo.sameIo,
        ratio: sameIo.ratio,
        target: { of: "ratio", op: "<=", limit: 2.5, requires: { "no errors": sameIoErrors === 0 } },
      }),
      figure({
        name: "updates_p99_ms_at_200_per_s",
        value: updates.paced.p99,
        unit: `ms from an update's arrival to its reply sent, the mix offered open-loop at 200 updates/s (reached ${round(updates.paced.offeredPerSecond, 0)}/s, ${updates.paced.errors} errors; Telegram's limits lifted; to the handler's end, which for a flow entered also stores its state: ${round(updates.paced.p99Done, 1)} ms; ${updates.paced.noReply} updates without a reply)`,
        reference: "the same-I/O reference bot at 200 updates/s, p99 ms",
        referenceValue: updates.pacedReference.p99,
        target: {
          of: "value",
          op: "<=",
          limit: 25,
          requires: { "no errors": updates.paced.errors === 0, "every update replied to": updates.paced.noReply === 0 },
        },
      }),
      figure({
        name: "updates_guided_step_cpu_ms",
        value: updates.guided.cpuMs,
        unit: `ms CPU per guided step (${updates.guided.steps} steps: /quote entered, then two typed answers, each ${updates.guided.thinkMs} ms after its question and asking the next one, ${updates.guided.usersAtOnce} users at once; state in the database, replayed by @grammyjs/conversations)`,
        reference: "bare grammY bot, ms CPU per update",
        referenceValue: updates.bare.cpuMs,
        informational:
          "the 1.25× limit is held against the code before the plugins, measured in the same run: updates_guided_step_cpu_ms_vs_before_plugins",
      }),
      figure({
        name: "updates_guided_step_cpu_ms_back_to_back",
        value: updates.guidedBackToBack.cpuMs,
        unit: `ms CPU per guided step answered the moment its question is sent (${updates.guidedBackToBack.steps} steps, ${updates.guidedBackToBack.usersAtOnce} users at once: each reply after a user's first waits for its chat's pace)`,
        reference: "the same steps answered as a person does (updates_guided_step_cpu_ms)",
        referenceValue: updates.guided.cpuMs,
        informational: true,
      }),
      figure({
        name: "updates_sql_statements",
        value: updates.full.statementsPerUpdate,
        unit: "SQL statements per update of the mix, as the app's SQLite connection executed them (BEGIN and COMMIT included)",
        reference: "updates of the mix",
        referenceValue: updates.full.handled,
        informational: true,
      }),
      figure({
        name: "updates_p99_ms",
        value: updates.full.p99,
        unit: "ms (16 in flight)",
        reference: "bare grammY bot p99",
        referenceValue: updates.bare.p99,
        informational: "latency is held at an offered rate: updates_p99_ms_at_200_per_s",
      }),
      figure({
        name: "event_loop_delay_p99_ms",
        value: loaded.eldP99Ms,
        unit: `ms (poll cycle of ${pollUsers} users at ${eldPollRate}/s, i.e. within 80% of a ${pollInterval} s interval, + ${ingestRate / 2} webhook events/s)`,
        reference: "max delay in the same window",
        referenceValue: loaded.eldMaxMs,
        ratio: null,
        target: { of: "value", op: "<=", limit: 20 },
      }),
      figure({
        name: "memory_rss_idle_mb",
        value: idleMedian,
        unit: `MB after ${idleSettleSeconds} s idle, the median of ${settled.length} starts (lowest ${Math.min(...settled).toFixed(1)}, highest ${Math.max(...settled).toFixed(1)})`,
        reference: "RSS 1 s after ready, median of the same starts (MB)",
        referenceValue: justStartedMedian,
        ratio: null,
        target: { of: "value", op: "<=", limit: 125 },
      }),
      figure({
        name: "memory_rss_growth_mb",
        value: growth,
        unit: `MB over idle, idle again 5 s after polling ${pollUsers} users × ${notifications} notifications`,
        reference: "growth right after the poll cycles (MB, transient)",
        referenceValue: (justAfter.rss - idle.rss) / 2 ** 20,
        ratio: null,
        target: { of: "value", op: "<=", limit: 60 },
      }),
    ];
  } finally {
    await app?.kill();
    await sandbox.kill();
  }
}

async function main(): Promise<number> {
  const started = Date.now();
  const figures: Figure[] = [];
  log(quick ? "quick mode (BENCH_QUICK=1): tiny counts, not for the README" : "full run");
  const only = new Set(selectedParts());
  // First, while this process is quiet: the chart is rendered here, so its CPU time is this process's.
  if (only.has("chart")) figures.push(...(await benchChart(quick ? 2 : 10, log)));
  if (only.has("ingest"))
    figures.push(
      ...(await benchIngest(
        quick
          ? {
              users: 50,
              throughputCount: 400,
              throughputSeconds: 3,
              concurrency: 32,
              offeredRate: ingestRate,
              offeredSeconds: 1,
              killCount: 300,
            }
          : {
              users: 1000,
              throughputCount: 30_000,
              throughputSeconds: 10,
              concurrency: 64,
              offeredRate: ingestRate,
              offeredSeconds: 5,
              killCount: 5_000,
            },
        log,
      )),
    );
  if (only.has("delivery"))
    figures.push(
      ...(await benchDelivery(
        quick
          ? { alerts: 90, chats: 30, timeScale: 5, timeLimitSeconds: 20 }
          : { alerts: 3_000, chats: 1_000, timeScale: envNumber("BENCH_DELIVERY_SCALE", 2), timeLimitSeconds: 240 },
        log,
      )),
    );
  if (only.has("flood")) {
    figures.push(
      ...(await benchFlood(
        quick
          ? { events: 1_500, chats: 20, peakRate: 800, observeSeconds: 12 }
          : {
              events: envNumber("BENCH_FLOOD_EVENTS", 12_400),
              chats: envNumber("BENCH_FLOOD_CHATS", 60),
              peakRate: envNumber("BENCH_FLOOD_RATE", 1_600),
              observeSeconds: envNumber("BENCH_FLOOD_SECONDS", 60),
            },
        log,
      )),
    );
  }
  if (only.has("app")) figures.push(...(await benchApp()));
  if (only.has("paths"))
    figures.push(...(await benchPaths({ count: quick ? 300 : 6_000, passes: quick ? 1 : 3 }, log)));
  if (only.has("before"))
    figures.push(
      ...(await benchBeforeAfter(
        {
          rev: process.env.BENCH_BEFORE_REV ?? BEFORE_PLUGINS,
          count: envNumber("BENCH_UPDATES", quick ? 600 : 6_000),
          rounds: envNumber("BENCH_BEFORE_ROUNDS", quick ? 1 : 3),
        },
        log,
      )),
    );
  if (only.has("schedule")) {
    figures.push(
      ...(await benchSchedule(
        quick
          ? { users: 2_000, rate: 1_000, notifications: 3, cycles: 24, samples: 40 }
          : {
              users: envNumber("BENCH_SCHEDULE_USERS", 100_000),
              rate: envNumber("BENCH_SCHEDULE_RATE", 2_000),
              notifications: 5,
              cycles: envNumber("BENCH_SCHEDULE_CYCLES", 24),
              samples: 300,
            },
        log,
      )),
    );
  }
  if (only.has("miniapp")) figures.push(...(await benchMiniApp(quick ? 3 : 10, log)));
  if (only.has("autobuys"))
    figures.push(
      ...(await benchAutoBuys(
        {
          autoBuys: envNumber("BENCH_AUTOBUYS", quick ? 200 : 10_000),
          rents: envNumber("BENCH_AUTOBUY_RENTS", quick ? 20 : 1_000),
          tickSeconds: envNumber("BENCH_AUTOBUY_TICK_S", quick ? 2 : 30),
        },
        log,
      )),
    );
  if (only.has("dialects"))
    figures.push(
      ...(await benchDialects(
        {
          count: envNumber("BENCH_UPDATES", quick ? 600 : 6_000),
          rounds: envNumber("BENCH_SAME_IO_ROUNDS", quick ? 1 : 5),
          pacedPasses: envNumber("BENCH_PACED_PASSES", quick ? 1 : 3),
        },
        log,
      )),
    );
  if (only.has("replicas")) {
    figures.push(
      ...(await benchReplicas(
        quick
          ? { users: 300, rate: 200, delayMs, ingestCount: 300, ingestSeconds: 3, concurrency: 16 }
          : {
              users: envNumber("BENCH_REPLICA_USERS", 100_000),
              rate: envNumber("BENCH_REPLICA_RATE", 300),
              delayMs,
              ingestCount: 20_000,
              ingestSeconds: 10,
              concurrency: 64,
            },
        log,
      )),
    );
  }

  const explore = exploring();
  const command = `${quick ? "BENCH_QUICK=1 " : ""}${process.env.BENCH_ONLY ? `BENCH_ONLY=${process.env.BENCH_ONLY} ` : ""}npm run bench${explore ? " -- --explore" : ""}`;
  const run = result({
    command,
    quick,
    explore,
    seconds: Math.round((Date.now() - started) / 1000),
    parts: [...only],
    figures,
  });
  const out = writeResults(run);
  console.log("");
  const code = report(run, explore);
  console.log(`written: ${out}`);
  return code;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error("bench failed:", error);
    process.exit(1);
  },
);
