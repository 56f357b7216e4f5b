import { Bot, Composer, type Context } from "grammy";
import type { Update, UserFromGetMe } from "grammy/types";
import { describe, expect, it } from "vitest";
import { FlatComposer } from "#src/bot/middleware/flat-composer";

const botInfo: UserFromGetMe = {
  id: 1,
  is_bot: true,
  first_name: "Bot",
  username: "test_bot",
  can_join_groups: true,
  can_read_all_group_messages: false,
  supports_inline_queries: false,
  can_connect_to_business: false,
  has_main_web_app: false,
  has_topics_enabled: false,
  allows_users_to_create_topics: false,
} as UserFromGetMe;
const from = { id: 7, is_bot: false, first_name: "U" };
const chat = { id: 7, type: "private" as const, first_name: "U" };

function text(value: string): Update {
  const entities = value.startsWith("/")
    ? [{ type: "bot_command" as const, offset: 0, length: value.split(" ")[0]!.length }]
    : undefined;
  return {
    update_id: 1,
    message: { message_id: 1, date: 0, chat, from, text: value, ...(entities ? { entities } : {}) },
  };
}

function button(data: string): Update {
  return { update_id: 2, callback_query: { id: "q", from, chat_instance: "c", data } };
}

/**
 * The same chain built on a composer of each kind: logs what runs, in order, before and after
 * each `next`. Returns the log of one update.
 */
async function run(make: () => Composer<Context>, update: Update): Promise<string[]> {
  const log: string[] = [];
  const composer = make();
  composer.use(async (_ctx, next) => {
    log.push("first");
    await next();
    log.push("first after");
  });
  composer.command("start", (ctx) => {
    log.push(`start ${ctx.match}`);
  });
  const help = composer.command("help");
  help.use(async (_ctx, next) => {
    log.push("help 1");
    await next();
  });
  help.use(() => {
    log.push("help 2");
  });
  composer.callbackQuery(/^a:(\d+)$/, (ctx) => {
    log.push(`a ${ctx.match[1]}`);
  });
  composer.filter(
    async (ctx) => {
      await Promise.resolve();
      return ctx.message?.text === "async";
    },
    () => {
      log.push("async filter");
    },
  );
  composer.filter(
    (ctx) => ctx.message?.text === "pass",
    async (_ctx, next) => {
      log.push("pass filter");
      await next();
    },
  );
  composer.on("message:text", (_ctx, next) => {
    log.push("text");
    return next();
  });
  composer.use(() => {
    log.push("last");
  });
  const bot = new Bot("1:x", { botInfo });
  bot.use(async (_ctx, next) => {
    await next();
    log.push("outer after");
  });
  bot.use(composer);
  bot.use(() => {
    log.push("after the composer");
  });
  await bot.handleUpdate(update);
  return log;
}

describe("FlatComposer", () => {
  const updates = [
    ["a command with its argument", text("/start hello")],
    ["a command whose composer was extended after it was made", text("/help")],
    ["text an async predicate takes", text("async")],
    ["text a sync filter passes on", text("pass")],
    ["plain text", text("plain")],
    ["a button a pattern takes", button("a:42")],
    ["a button nothing takes", button("b:1")],
  ] as const;

  it.each(updates)("runs the same middleware in the same order as grammY's Composer: %s", async (_name, update) => {
    const flat = await run(() => new FlatComposer<Context>(), update);
    const grammy = await run(() => new Composer<Context>(), update);
    expect(flat).toEqual(grammy);
    expect(flat[0]).toBe("first");
    expect(flat.at(-1)).toBe("outer after");
  });

  it("hands an update no middleware took to the next one after it", async () => {
    const log = await run(() => new FlatComposer<Context>(), button("b:1"));
    expect(log).toEqual(["first", "last", "first after", "outer after"]);
  });

  it("rejects when a middleware throws instead of rejecting, and a caller's finally still runs", async () => {
    const composer = new FlatComposer<Context>();
    let settled = 0;
    composer.use((_ctx, next) => next().finally(() => (settled += 1)));
    composer.use(() => {
      throw new Error("boom");
    });
    const bot = new Bot("1:x", { botInfo });
    bot.use(composer);
    await expect(bot.handleUpdate(text("x"))).rejects.toThrow("boom");
    expect(settled).toBe(1);
  });

  it("gives `next` a promise even when the middleware after it returns nothing", async () => {
    const composer = new FlatComposer<Context>();
    let awaited: unknown = "unset";
    composer.use((_ctx, next) => {
      const result = next();
      awaited = result instanceof Promise;
      return result;
    });
    composer.use(() => undefined);
    const bot = new Bot("1:x", { botInfo });
    bot.use(composer);
    await bot.handleUpdate(text("x"));
    expect(awaited).toBe(true);
  });

  it("takes middleware given to its constructor first", async () => {
    const log: string[] = [];
    const composer = new FlatComposer<Context>((_ctx, next) => {
      log.push("given");
      return next();
    });
    composer.use(() => {
      log.push("used");
    });
    const bot = new Bot("1:x", { botInfo });
    bot.use(composer);
    await bot.handleUpdate(text("x"));
    expect(log).toEqual(["given", "used"]);
  });
});
