import {
  createAgent,
  figure,
  TELEGRAM_LIMITS,
  forkChild,
  openLoop,
  orderEvent,
  percentile,
  post,
  sleep,
  type Figure,
  type LoadResult,
} from "./lib";

export interface FloodSettings {
  /** order.filled webhooks offered in all, each a new order (one alert each). */
  events: number;
  /** Linked chats the events are spread over. */
  chats: number;
  /** The highest offered rate, events/s (reached after a quarter and a half of it, 2 s each). */
  peakRate: number;
  /** How long the alerts are watched leaving, from the first event, seconds. */
  observeSeconds: number;
}

/** Most of `times` within any span shorter than `spanMs`, as a limiter counting one window would see them. */
function mostWithin(times: number[], spanMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= spanMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/**
 * A webhook flood against the bot as `npm start` runs it (the playground: the fake Bot API with
 * Telegram's limits, in the bot's process), the load generator on the same cores: `events`
 * order.filled webhooks to `chats` linked chats, offered at up to `peakRate`/s. Ingest must take
 * them all; the alerts must leave within Telegram's limits as the fake counts them on arrival.
 */
export async function benchFlood(settings: FloodSettings, log: (line: string) => void): Promise<Figure[]> {
  const child = forkChild("flood-child.ts", {});
  try {
    await child.ready;
    const seeded = await child.call<{ url: string; tokens: string[]; log: string }>(
      "seed",
      { chats: settings.chats },
      120_000,
    );
    log(`flood: ${settings.chats} linked chats; log at ${seeded.log}`);
    await child.call("record");
    const agent = createAgent(64);
    const started = Date.now();
    const steps = [
      { rate: Math.max(1, Math.round(settings.peakRate / 4)), seconds: 2 },
      { rate: Math.max(1, Math.round(settings.peakRate / 2)), seconds: 2 },
      { rate: settings.peakRate, seconds: Number.POSITIVE_INFINITY },
    ];
    let offered = 0;
    const results: Array<{ rate: number; result: LoadResult }> = [];
    for (const step of steps) {
      const count = Math.min(
        settings.events - offered,
        Number.isFinite(step.seconds) ? step.rate * step.seconds : settings.events,
      );
      if (count <= 0) break;
      const base = offered;
      const result = await openLoop({
        ratePerSecond: step.rate,
        durationMs: Math.ceil((count * 1000) / step.rate),
        send: async (index) => {
          const event = orderEvent(base + index, "f1f1f1f1");
          const response = await post(
            agent,
            new URL(`${seeded.url}/webhooks/marketplace/${seeded.tokens[(base + index) % seeded.tokens.length]}`),
            event.body,
          );
          return response.status === 200;
        },
      });
      offered += result.sent;
      results.push({ rate: step.rate, result });
      log(
        `flood: ${result.sent} events at ${step.rate}/s: ${result.ok} accepted, p99 ${percentile(result.latenciesMs, 99).toFixed(1)} ms`,
      );
    }
    agent.destroy();
    const floodSeconds = (Date.now() - started) / 1000;
    await sleep(Math.max(0, started + settings.observeSeconds * 1000 - Date.now()));
    const { calls } = await child.call<{
      calls: Array<{ at: number; chatId: number; ok: boolean; throttled: boolean }>;
    }>("calls");
    const accepted = results.reduce((sum, step) => sum + step.result.ok, 0);
    const peak = results.at(-1)!;
    const peakP99 = percentile(peak.result.latenciesMs, 99);
    const sent = calls.filter((call) => call.ok);
    const throttled = calls.filter((call) => call.throttled).length;
    // What Telegram counts: every call that reached it, refused or not.
    const mostInASecond = mostWithin(
      calls.map((call) => call.at),
      1_000,
    );
    const byChat = new Map<number, number[]>();
    for (const call of calls) byChat.set(call.chatId, [...(byChat.get(call.chatId) ?? []), call.at]);
    const mostToOneChat = Math.max(0, ...[...byChat.values()].map((times) => mostWithin(times, 1_000)));
    const times = sent.map((call) => call.at).sort((a, b) => a - b);
    const rate = times.length > 1 ? (times.length - 1) / ((times.at(-1)! - times[0]!) / 1000) : Number.NaN;
    log(
      `flood: ${accepted}/${offered} events accepted in ${floodSeconds.toFixed(1)} s; ${calls.length} sendMessage calls in ${settings.observeSeconds} s, ${throttled} answered 429, at most ${mostInASecond} in one second (${mostToOneChat} to one chat), ${rate.toFixed(1)} sent/s`,
    );
    return [
      figure({
        name: "flood_ingest_accepted",
        value: accepted,
        unit: `order.filled webhooks accepted (to ${settings.chats} chats, offered at up to ${settings.peakRate}/s, load generator on the same cores)`,
        reference: "webhooks offered",
        referenceValue: offered,
        target: {
          of: "value",
          op: "=",
          limit: settings.events,
          requires: { "every event offered": offered === settings.events },
        },
      }),
      figure({
        name: "flood_ingest_p99_ms_at_peak",
        value: peakP99,
        unit: `ms (p99 to the 200 at ${peak.rate}/s offered)`,
        reference: "none",
        referenceValue: null,
        informational: "every event's acceptance is flood_ingest_accepted",
      }),
      figure({
        name: "flood_429_responses",
        value: throttled,
        unit: `429 answers from the fake Telegram (playground, Telegram's limits) while the alerts drained for ${settings.observeSeconds} s`,
        reference: "sendMessage calls",
        referenceValue: calls.length,
        ratio: null,
        target: { of: "value", op: "=", limit: 0, requires: { "calls made": calls.length > 0 } },
      }),
      figure({
        name: "flood_most_sends_in_any_second",
        value: mostInASecond,
        unit: "sendMessage calls within one second, as the fake counts them on arrival",
        reference: "Telegram's published overall limit, about 30 messages/s",
        referenceValue: TELEGRAM_LIMITS.overallPerSecond,
        ratio: null,
        target: {
          of: "value",
          op: "<=",
          limit: TELEGRAM_LIMITS.overallPerSecond,
          requires: { "calls made": calls.length > 0 },
        },
      }),
      figure({
        name: "flood_most_sends_to_one_chat_in_any_second",
        value: mostToOneChat,
        unit: "sendMessage calls to one chat within one second",
        reference: "Telegram's published per-chat pace: about 1 message/s, a burst of about 3",
        referenceValue: TELEGRAM_LIMITS.chatBurst,
        ratio: null,
        target: {
          of: "value",
          op: "<=",
          limit: TELEGRAM_LIMITS.chatBurst,
          requires: { "calls made": calls.length > 0 },
        },
      }),
      figure({
        name: "flood_messages_per_s",
        value: rate,
        unit: `alerts sent per second while the backlog drained (${sent.length} sent)`,
        reference: "Telegram's published overall limit, about 30 messages/s",
        referenceValue: TELEGRAM_LIMITS.overallPerSecond,
        informational: "the budget's rate; the limit itself is held by flood_most_sends_in_any_second",
      }),
    ];
  } finally {
    await child.kill();
  }
}
