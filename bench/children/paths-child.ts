/**
 * Bench child for the "paths" part: pieces of an update's cost, each beside its counterpart in
 * the same-I/O reference, in one process with the Bot API answered in-process beneath the app's
 * transformers. The smallest path the bot has (a known user's plain text, answered "unknown
 * text") against a bare grammY bot replying to the same update; the bot's one read of a known
 * user (row, key, flow, key step) against the reference's plain read of the row; and one
 * sendMessage with the main menu's keyboard through the bot's API (its transformers) against a
 * bare grammY client. Each is measured over `passes` passes after a warm-up pass as long.
 */
import { Bot, InlineKeyboard } from "grammy";
import type { Update } from "grammy/types";
import { findUserWithState } from "../../src/db/repos/users";
import { percentile, serveCommands } from "../lib";
import { BENCH_TOKEN, startInstantApp } from "./bot-env";

const FIRST_USER = 700_000_000;

/**
 * User `index`'s plain text (no command, no flow): the bot answers "unknown text". Each user is
 * met once before the passes and then sends one text in one pass, so no reply waits for its
 * chat's pace (a burst of 3): the figure is the update's work, not the wait's timers.
 */
function plainText(index: number): Update {
  const userId = FIRST_USER + index;
  const from = { id: userId, is_bot: false, first_name: "Bench", language_code: "en" };
  return {
    update_id: 8_000_000 + index,
    message: {
      message_id: index + 10,
      date: Math.floor(Date.now() / 1000),
      chat: { id: userId, type: "private", first_name: "Bench" },
      from,
      text: "hello",
    },
  } as Update;
}

/** µs of this process's CPU per call of `work`, `count` calls with `concurrency` in flight; the median of `passes` passes after one warm-up pass. */
async function cpuPerCall(
  work: (index: number) => Promise<unknown>,
  count: number,
  concurrency: number,
  passes: number,
): Promise<number> {
  let offset = 0;
  const pass = async () => {
    let next = 0;
    const cpu = process.cpuUsage();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) {
          next += 1;
          await work(offset++);
        }
      }),
    );
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / count;
  };
  await pass();
  const measured: number[] = [];
  for (let index = 0; index < passes; index++) measured.push(await pass());
  return percentile(measured, 50);
}

async function main() {
  // No path measured here calls the marketplace: it is a closed port.
  const { app, instant } = await startInstantApp("bench-paths", "http://127.0.0.1:9");

  serveCommands({
    paths: async ({ count, passes }) => {
      instant.setInstant(true);
      const n = Number(count);
      const p = Number(passes);
      const bare = new Bot(BENCH_TOKEN, { botInfo: app.bot.botInfo });
      bare.use((ctx) => ctx.reply("ok"));
      // Every user of the passes (the warm-up's too) met once, so each path below is a known user's.
      const users = n * (p + 1);
      let met = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (met < users) await app.bot.handleUpdate(plainText(met++));
        }),
      );
      instant.answered(true);
      const smallest = await cpuPerCall((index) => app.bot.handleUpdate(plainText(index)), n, 16, p);
      const smallestReplies = instant.answered(true).sendMessage ?? 0;
      const bareReply = await cpuPerCall((index) => bare.handleUpdate(plainText(index)), n, 16, p);
      const userId = (index: number) => FIRST_USER + (index % users);
      const botRead = await cpuPerCall((index) => findUserWithState(app.db, userId(index), userId(index)), n, 1, p);
      const referenceRead = await cpuPerCall(
        (index) => app.db.selectFrom("users").selectAll().where("telegram_id", "=", userId(index)).executeTakeFirst(),
        n,
        1,
        p,
      );
      const menu = new InlineKeyboard()
        .text("Quote", "m:quote")
        .text("Buy", "m:buy")
        .row()
        .text("Orders", "m:orders")
        .text("Rules", "m:rules")
        .row()
        .text("Wallet", "m:wallet")
        .text("Top up", "m:topup")
        .row()
        .text("Notifications", "m:notifications")
        .text("Settings", "m:settings");
      const text = "<b>Welcome</b>, Bench!\n\nLanguage: English\nNo key linked yet. Use /connect.";
      // A chat of its own for each call (none of the users above), so no call waits for its chat's pace.
      const send = (api: Bot["api"], firstChat: number) => (index: number) =>
        api.sendMessage(firstChat + index, text, { parse_mode: "HTML", reply_markup: menu });
      const botCall = await cpuPerCall(send(app.bot.api, FIRST_USER + 10_000_000), n, 16, p);
      const bareCall = await cpuPerCall(send(bare.api, FIRST_USER + 20_000_000), n, 16, p);
      instant.setInstant(false);
      await app.stop();
      // Each plain text of the measured passes was answered (warm-up included): none failed silently.
      return {
        smallest,
        bareReply,
        smallestExpected: n * (p + 1),
        smallestReplies,
        botRead,
        referenceRead,
        botCall,
        bareCall,
      };
    },
  });
  process.send!({ ready: true });
}

main().catch((error: unknown) => {
  console.error("paths-child failed", error);
  process.exit(1);
});
