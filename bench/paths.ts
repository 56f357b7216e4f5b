/**
 * Where an update's CPU goes beside the same-I/O reference (informational): the smallest path the
 * bot has against a bare grammY bot's reply, the bot's one read of a known user against the
 * reference's read of the row, and a Bot API call through the bot's transformers against a bare
 * client. One fresh process (paths-child), medians of `passes` passes; `BENCH_NODE_ARGS` runs it
 * under other Node flags.
 */
import { figure, forkChild, round, type Figure } from "./lib";

export interface PathsSettings {
  /** Calls per pass of each path. */
  count: number;
  passes: number;
}

interface Measured {
  smallest: number;
  bareReply: number;
  smallestExpected: number;
  smallestReplies: number;
  botRead: number;
  referenceRead: number;
  botCall: number;
  bareCall: number;
}

export async function benchPaths(settings: PathsSettings, log: (line: string) => void): Promise<Figure[]> {
  const child = forkChild("paths-child.ts", {});
  try {
    await child.ready;
    const m = await child.call<Measured>("paths", { count: settings.count, passes: settings.passes }, 600_000);
    log(
      `paths: smallest path ${round(m.smallest, 1)} µs CPU (a bare bot's reply ${round(m.bareReply, 1)}); a known user's read ${round(m.botRead, 1)} µs (the reference's ${round(m.referenceRead, 1)}); sendMessage with a keyboard ${round(m.botCall, 1)} µs through the bot's transformers (bare client ${round(m.bareCall, 1)})`,
    );
    const passes = `median of ${settings.passes} passes of ${settings.count}`;
    return [
      figure({
        name: "paths_smallest_update_cpu_us",
        value: m.smallest,
        unit: `µs CPU per update: a known user's plain text answered "unknown text", the whole middleware chain and every Bot API transformer, 16 in flight (${passes})`,
        reference: "a bare grammY bot replying to the same updates, µs CPU",
        referenceValue: m.bareReply,
        informational: true,
      }),
      figure({
        name: "paths_smallest_update_unanswered",
        value: m.smallestExpected - m.smallestReplies,
        unit: `plain texts of the measured passes (warm-up included) without exactly one reply (${m.smallestReplies} replies)`,
        reference: "plain texts sent",
        referenceValue: m.smallestExpected,
        ratio: null,
        target: { of: "value", op: "=", limit: 0 },
      }),
      figure({
        name: "paths_user_read_cpu_us",
        value: m.botRead,
        unit: `µs CPU per read of a known user's row with key, guided flow and key step (the bot's one read an update; compiled once by Kysely, run at once on SQLite's free connection; ${passes})`,
        reference: "the same-I/O reference's read of the user's row (Kysely's query builder), µs CPU",
        referenceValue: m.referenceRead,
        informational: true,
      }),
      figure({
        name: "paths_bot_api_call_cpu_us",
        value: m.botCall,
        unit: `µs CPU per sendMessage with the main menu's keyboard through the bot's API (call counter, retries, shared send budget, throttler; answered in-process beneath them; ${passes})`,
        reference: "the same call through a bare grammY client, µs CPU",
        referenceValue: m.bareCall,
        informational: true,
      }),
    ];
  } finally {
    await child.kill();
  }
}
