/**
 * Bench child for the before/after comparison: the bot's updates measured exactly as the app child
 * measures them (the mix, each kind alone, guided steps, against the bare bot and the same-I/O
 * reference), with nothing else running. The before/after part bundles this file twice: once
 * against the current sources and once against an earlier checkout of the bot, so it uses only
 * what every version has (startApp, the marketplace client, the fake Telegram of the test kit).
 */
import { createMarketplaceClient } from "../../src/marketplace/index";
import { median, serveCommands } from "../lib";
import { BENCH_TOKEN, startInstantApp } from "./bot-env";
import {
  comparisonBots,
  driveGuided,
  GUIDED_THINK_MS,
  GUIDED_USERS_AT_ONCE,
  guidedUsersFor,
  UpdateMix,
} from "./update-drive";

/** The callback data of the main menu's first button (Quote), as this version's /start sends it. */
function quoteButtonOf(params: Record<string, unknown> | undefined): string {
  const markup = params?.reply_markup as { inline_keyboard?: Array<Array<{ callback_data?: string }>> } | undefined;
  const data = markup?.inline_keyboard?.[0]?.[0]?.callback_data;
  if (!data) throw new Error("/start sent no main menu");
  return data;
}

/** Passes at a fixed rate: the median of their p99s (to the reply, and to the handler's end), each pass's, their errors, replies missing and the lowest rate reached. */
function pacedSummary(
  passes: Array<{ p99: number; p99Done: number; noReply: number; offeredPerSecond: number; errors: number }>,
) {
  const p99s = passes.map((pass) => pass.p99);
  const done = passes.map((pass) => pass.p99Done);
  return {
    p99: median(p99s),
    passes: p99s,
    p99Done: median(done),
    passesDone: done,
    noReply: passes.reduce((sum, pass) => sum + pass.noReply, 0),
    errors: passes.reduce((sum, pass) => sum + pass.errors, 0),
    offeredPerSecond: Math.min(...passes.map((pass) => pass.offeredPerSecond)),
  };
}

async function main() {
  // BENCH_APP_DATABASE_URL: the app on that database (PostgreSQL for the dialects part) instead of a SQLite file.
  const { app, instant } = await startInstantApp(
    "bench-compare",
    process.env.BENCH_MARKETPLACE_URL,
    process.env.BENCH_APP_DATABASE_URL || undefined,
  );

  serveCommands({
    /**
     * The mix, the bare bot and the reference, each kind alone and guided steps; with `sameIoRounds`
     * above 1, that many rounds of the mix against the reference (the first is the pass above,
     * each later one from users of its own), and with `paced` (true or a number of passes), the
     * mix and the reference offered at 200 updates/s.
     */
    updates: async ({ count, concurrency, sameIoRounds = 1, paced = false }) => {
      instant.setInstant(true);
      const n = Number(count);
      const c = Number(concurrency);
      const botId = app.bot.botInfo.id;
      const probe = new UpdateMix(botId, "");
      await app.bot.handleUpdate(probe.update(0, 0, 600_000_000));
      const updates = new UpdateMix(botId, quoteButtonOf(instant.lastParams("sendMessage")));
      const bots = comparisonBots(
        BENCH_TOKEN,
        app.bot.botInfo,
        (userId) => app.db.selectFrom("users").selectAll().where("telegram_id", "=", userId).executeTakeFirst(),
        createMarketplaceClient({ baseUrl: process.env.BENCH_MARKETPLACE_URL! }),
      );
      const { bare, reference } = bots;
      await updates.warmUp(app, bots, n, c);
      const mix = await updates.driveApp(app, n, c, 10_000);
      const bareMix = await updates.drive((update) => bare.handleUpdate(update), n, c, 10_000);
      const sameIo = await updates.drive((update) => reference.handleUpdate(update), n, c, 10_000);
      const rounds = await updates.sameIoRounds(app, reference, Number(sameIoRounds), n, c);
      const pacedCount = Math.max(200, Math.min(2_000, n));
      // `paced` passes of each, alternating, each from users of its own: a pass lasts 10 s, and one
      // stall of the machine in it (two cores shared with the database) moves its p99 alone.
      let pacedPair = null;
      if (paced) {
        const appPasses = [];
        const referencePasses = [];
        for (let pass = 0; pass < Number(paced); pass++) {
          const offset = 10_000 + pass * pacedCount;
          appPasses.push(
            await updates.drivePaced((update) => app.bot.handleUpdate(update), pacedCount, 200, offset, instant),
          );
          referencePasses.push(
            await updates.drivePaced((update) => reference.handleUpdate(update), pacedCount, 200, offset, instant),
          );
        }
        pacedPair = { app: pacedSummary(appPasses), reference: pacedSummary(referencePasses) };
      }
      const kinds = [];
      for (const kind of [0, 1, 2]) kinds.push(await updates.driveApp(app, Math.ceil(n / 3), c, 20_000, kind));
      const guidedUsers = guidedUsersFor(n);
      await driveGuided(app, guidedUsers, GUIDED_USERS_AT_ONCE, 0, GUIDED_THINK_MS);
      instant.answered(true);
      const guided = await driveGuided(app, guidedUsers, GUIDED_USERS_AT_ONCE, guidedUsers, GUIDED_THINK_MS);
      // Each step sends one message (the next question, or the price at the last step).
      const questions = instant.answered(true).sendMessage ?? 0;
      instant.setInstant(false);
      return { mix, bare: bareMix, sameIo, kinds, guided: { ...guided, questions }, rounds, paced: pacedPair };
    },
  });
  process.send!({ ready: true });
}

main().catch((error: unknown) => {
  console.error("compare-child failed", error);
  process.exit(1);
});
