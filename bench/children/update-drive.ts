/**
 * Drives Telegram updates through a bot in this process and measures them: the mix (/start,
 * /quote energy 65k 1h, the menu's Quote button), each kind alone, and a guided /quote step by
 * step. Shared by the app child and the before/after child, which also bundles it against an
 * earlier checkout of the bot: it imports nothing from the bot's sources, and reaches an app only
 * through the few members every version has (its bot, its metrics).
 */
import { Bot } from "grammy";
import type { Update, UserFromGetMe } from "grammy/types";
import { percentile, sleep } from "../lib";

/** What the driver needs of an app (the running bot and its Prometheus metrics). */
export interface DrivenApp {
  bot: { handleUpdate(update: Update): Promise<void>; botInfo: { id: number } };
  deps: { metrics: { render(): string | Promise<string> } };
}

export interface Driven {
  perSecond: number;
  p99: number;
  errors: number;
  handled: number;
  seconds: number;
  cpuMs: number;
}

/** One round of the mix against the same-I/O reference: ms CPU per update of each, and the updates either failed. */
export interface SameIoRound {
  app: number;
  sameIo: number;
  errors: number;
}

/** The price a /quote of the mix asks for (/quote energy 65k 1h). */
export const MIX_QUOTE = { resource: "energy", duration: "1h", volume: 65_000 };

/** The lifted budget: far beyond any rate reached here, so replies never wait, yet every grant is taken. */
export const LIFTED = { perSecond: 1_000_000, burst: 1_000_000 };

/** Reads one of the app's Prometheus series, summed over the label sets `keep` accepts. */
export async function metric(
  app: DrivenApp,
  name: string,
  keep: (labels: string) => boolean = () => true,
): Promise<number> {
  let total = 0;
  for (const line of (await app.deps.metrics.render()).split("\n")) {
    if (
      (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) &&
      keep(line.slice(name.length, line.lastIndexOf(" ")))
    )
      total += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return total;
}

/** The updates of the mix, and the callback data of the main menu's Quote button they press. */
export class UpdateMix {
  constructor(
    readonly botId: number,
    readonly menuQuoteData: string,
  ) {}

  /** kind 0 /start, 1 /quote energy 65k 1h, 2 the menu's Quote button; by default the three in turn. Users userBase … userBase + 2,999. */
  update(index: number, only?: number, userBase = 900_000_000): Update {
    const userId = userBase + (index % 3000);
    const from = { id: userId, is_bot: false, first_name: "Bench", language_code: "en" };
    const chat = { id: userId, type: "private" as const, first_name: "Bench" };
    const date = Math.floor(Date.now() / 1000);
    const kind = only ?? index % 3;
    if (kind === 2) {
      return {
        update_id: index + 1,
        callback_query: {
          id: `cb${index}`,
          from,
          chat_instance: "bench",
          data: this.menuQuoteData,
          message: {
            message_id: 1,
            date,
            chat,
            from: { id: this.botId, is_bot: true, first_name: "Bot" },
            text: "menu",
          },
        },
      } as Update;
    }
    const text = kind === 0 ? "/start" : "/quote energy 65k 1h";
    const command = text.split(" ")[0]!;
    return {
      update_id: index + 1,
      message: {
        message_id: index + 10,
        date,
        chat,
        from,
        text,
        entities: [{ type: "bot_command", offset: 0, length: command.length }],
      },
    } as Update;
  }

  /** Closed loop: `concurrency` updates in flight; CPU per update is this process's, whatever the waits did to the rate. */
  async drive(
    handle: (update: Update) => Promise<void>,
    count: number,
    concurrency: number,
    offset: number,
    only?: number,
    userBase?: number,
  ): Promise<Driven> {
    const latencies: number[] = [];
    let next = 0;
    let errors = 0;
    const started = performance.now();
    const cpu = process.cpuUsage();
    const deadline = started + 60_000;
    const worker = async () => {
      while (next < count && performance.now() < deadline) {
        const index = next++;
        const at = performance.now();
        await handle(this.update(offset + index, only, userBase)).catch(() => {
          errors += 1;
        });
        latencies.push(performance.now() - at);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    return {
      perSecond: latencies.length / seconds,
      p99: percentile(latencies, 99),
      errors,
      handled: latencies.length,
      seconds,
      cpuMs: (used.user + used.system) / 1000 / Math.max(1, latencies.length),
    };
  }

  /**
   * Warms up the app and both comparison bots, each with a pass as long as its measured one and
   * from users of its own (met for the first time, as in the measured pass): a few hundred updates
   * left the app's code still being optimized during the measured pass, whose CPU then counted
   * compiler threads (a pass run after a warm-up of 300 cost 1.0 ms an update, the same pass run
   * again 0.67 ms).
   */
  async warmUp(app: DrivenApp, bots: { bare: Bot; reference: Bot }, count: number, concurrency: number): Promise<void> {
    await this.driveApp(app, count, concurrency, 0, undefined, 700_000_000);
    await this.drive((update) => bots.bare.handleUpdate(update), count, concurrency, 0, undefined, 700_000_000);
    await this.drive((update) => bots.reference.handleUpdate(update), count, concurrency, 0, undefined, 700_000_000);
  }

  /**
   * The mix against the same-I/O reference in rounds, each from 3,000 users met for the first
   * time. A round alternates the two in chunks (a tenth of the mix each: the app's chunk, then the
   * reference on the same updates), so both see more nearly the same state of the machine: passed
   * one after the other, a whole pass of each moved the ratio by a quarter or more from round to
   * round. The rounds of one run still differ (by a fifth in the runs the README lists), so the
   * figure is the median of the rounds' ratios.
   */
  async sameIoRounds(
    app: DrivenApp,
    reference: Bot,
    rounds: number,
    count: number,
    concurrency: number,
  ): Promise<SameIoRound[]> {
    const measured: SameIoRound[] = [];
    for (let round = 0; round < rounds; round++) {
      const userBase = 900_000_000 + (round + 1) * 10_000_000;
      const size = Math.ceil(count / 10);
      let appMs = 0;
      let appHandled = 0;
      let referenceMs = 0;
      let referenceHandled = 0;
      let errors = 0;
      for (let from = 0; from < count; from += size) {
        const chunk = Math.min(size, count - from);
        const appChunk = await this.driveApp(app, chunk, concurrency, 10_000 + from, undefined, userBase);
        const referenceChunk = await this.drive(
          (update) => reference.handleUpdate(update),
          chunk,
          concurrency,
          10_000 + from,
          undefined,
          userBase,
        );
        appMs += appChunk.cpuMs * appChunk.handled;
        appHandled += appChunk.handled;
        referenceMs += referenceChunk.cpuMs * referenceChunk.handled;
        referenceHandled += referenceChunk.handled;
        errors +=
          appChunk.errors + referenceChunk.errors + (chunk - appChunk.handled) + (chunk - referenceChunk.handled);
      }
      measured.push({
        app: appMs / Math.max(1, appHandled),
        sameIo: referenceMs / Math.max(1, referenceHandled),
        errors,
      });
    }
    return measured;
  }

  /** {@link drive} on an app; errors are the updates the app's handler failed (its bot.catch keeps them from the caller). */
  async driveApp(
    app: DrivenApp,
    count: number,
    concurrency: number,
    offset: number,
    only?: number,
    userBase?: number,
  ): Promise<Driven> {
    const failed = () => metric(app, "bot_updates_handled_total", (labels) => labels.includes('outcome="error"'));
    const before = await failed();
    const result = await this.drive(
      (update) => app.bot.handleUpdate(update),
      count,
      concurrency,
      offset,
      only,
      userBase,
    );
    return { ...result, errors: result.errors + (await failed()) - before };
  }

  /**
   * Open loop: updates offered at `rate` a second whatever the replies do (as Telegram would push
   * them). Each update is timed from when it was due to its reply: the
   * first message sent to its chat, as `sends` (the in-process Bot API) sees it; an update whose
   * handler ends without sending one counts its end instead (`noReply` says how many). `p99Done`
   * times each update to its handler's end, which for a guided flow also stores the flow's state.
   */
  async drivePaced(
    handle: (update: Update) => Promise<void>,
    count: number,
    rate: number,
    offset: number,
    sends?: { onSend(listener: ((chatId: number) => void) | null): void },
  ) {
    const toReply: number[] = [];
    const done: number[] = [];
    const waiting = new Map<number, number>();
    let errors = 0;
    let noReply = 0;
    sends?.onSend((chatId) => {
      const at = waiting.get(chatId);
      if (at === undefined) return;
      waiting.delete(chatId);
      toReply.push(performance.now() - at);
    });
    const started = performance.now();
    const inFlight: Promise<void>[] = [];
    try {
      for (let index = 0; index < count; index++) {
        const due = started + (index * 1000) / rate;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        // Timed from when it was due, so a loop that falls behind counts its lateness too.
        const at = due;
        const update = this.update(offset + index);
        const chatId = update.message?.chat.id ?? update.callback_query?.message?.chat.id ?? 0;
        if (sends) waiting.set(chatId, at);
        inFlight.push(
          handle(update)
            .catch(() => {
              errors += 1;
            })
            .then(() => {
              const ended = performance.now() - at;
              done.push(ended);
              if (!sends || waiting.get(chatId) === at) {
                waiting.delete(chatId);
                toReply.push(ended);
                if (sends) noReply += 1;
              }
            }),
        );
      }
      await Promise.all(inFlight);
    } finally {
      sends?.onSend(null);
    }
    return {
      p99: percentile(toReply, 99),
      p99Done: percentile(done, 99),
      noReply,
      offeredPerSecond: count / ((performance.now() - started) / 1000),
      errors,
    };
  }
}

/** The guided steps of a /quote: entering it, then two answers; each asks the next question. */
const GUIDED_STEPS = ["/quote", "energy", "65k"];

/**
 * How long a person takes to answer a question (read it, type "65k"): seconds, so 1 s is quick.
 * Answers sent back to back instead arrive faster than anyone types: each reply after a user's
 * first then waits for the chat's pace (a private chat's calls at least 250 ms apart), and the
 * pass runs at a third of the rate with the process mostly idle.
 */
export const GUIDED_THINK_MS = 1_000;
/** Users in the middle of a guided /quote at once when answering as a person does. */
export const GUIDED_USERS_AT_ONCE = 256;

/** Users a guided pass takes so that its steps are a third of a mix of `count` updates. */
export const guidedUsersFor = (count: number) => Math.ceil(count / 3 / GUIDED_STEPS.length);

/**
 * `users` users the bot has not seen (from `offset`) each walk a guided /quote, their steps in
 * order, `concurrency` users at a time, each answer `thinkMs` after the question came. CPU per
 * step: the flow's state read and written, the replay of its earlier steps, the answer checked and
 * the next question sent.
 */
export async function driveGuided(app: DrivenApp, users: number, concurrency: number, offset: number, thinkMs: number) {
  let next = 0;
  let steps = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const worker = async () => {
    while (next < users) {
      const index = next++;
      const userId = 950_000_000 + offset + index;
      const from = { id: userId, is_bot: false, first_name: "Bench", language_code: "en" };
      const chat = { id: userId, type: "private" as const, first_name: "Bench" };
      for (const [step, text] of GUIDED_STEPS.entries()) {
        const entities = text.startsWith("/") ? [{ type: "bot_command", offset: 0, length: text.length }] : undefined;
        const update = {
          update_id: 5_000_000 + (offset + index) * 10 + step,
          message: {
            message_id: step + 1,
            date: Math.floor(Date.now() / 1000),
            chat,
            from,
            text,
            ...(entities ? { entities } : {}),
          },
        } as Update;
        if (step > 0 && thinkMs > 0) await sleep(thinkMs);
        await app.bot.handleUpdate(update);
        steps += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  return { steps, perSecond: steps / seconds, cpuMs: (used.user + used.system) / 1000 / Math.max(1, steps) };
}

/**
 * The two bots the app is set against: a bare grammY bot (one handler that replies), and the
 * reference, the same stack doing the mix's essential I/O and nothing else: it reads the user's
 * row from the app's database, makes the marketplace request where the real handler makes one (the
 * fresh price of a /quote) and sends one reply.
 */
export function comparisonBots(
  token: string,
  botInfo: UserFromGetMe,
  readUser: (userId: number) => Promise<unknown>,
  marketplace: { quote(query: typeof MIX_QUOTE): Promise<unknown> },
): { bare: Bot; reference: Bot } {
  const bare = new Bot(token, { botInfo });
  bare.use(async (ctx) => {
    await ctx.reply("ok");
  });
  const reference = new Bot(token, { botInfo });
  reference.use(async (ctx) => {
    await readUser(ctx.from?.id ?? 0);
    if (ctx.message?.text?.startsWith("/quote")) await marketplace.quote(MIX_QUOTE);
    await ctx.reply("ok");
  });
  return { bare, reference };
}
