/**
 * Bench child for the before/after comparison: the bot's updates measured exactly as the app child
 * measures them (the mix, each kind alone, guided steps, against the bare bot and the same-I/O
 * reference), with nothing else running. The before/after part bundles this file twice: once
 * against the current sources and once against an earlier checkout of the bot, so it uses only
 * what every version has (startApp, the marketplace client, the fake Telegram of the test kit).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pino from "pino";
import { startApp } from "../../src/app";
import { createMarketplaceClient } from "../../src/marketplace";
import { startFakeTelegram } from "../../test/kit/telegram-driver";
import { serveCommands } from "../lib";
import { benchAppEnv, BENCH_TOKEN } from "./bot-env";
import { installInstantTelegram } from "./instant-telegram";
import { comparisonBots, driveGuided, GUIDED_THINK_MS, GUIDED_USERS_AT_ONCE, guidedUsersFor, LIFTED, UpdateMix } from "./update-drive";

/** The callback data of the main menu's first button (Quote), as this version's /start sends it. */
function quoteButtonOf(params: Record<string, unknown> | undefined): string {
  const markup = params?.reply_markup as { inline_keyboard?: Array<Array<{ callback_data?: string }>> } | undefined;
  const data = markup?.inline_keyboard?.[0]?.[0]?.callback_data;
  if (!data) throw new Error("/start sent no main menu");
  return data;
}

async function main() {
  // Before any Bot is built: grammY's clients take their fetch when they are built.
  const instant = installInstantTelegram();
  const telegram = await startFakeTelegram({ token: BENCH_TOKEN, longPollMaxMs: 5_000 });
  const dir = mkdtempSync(join(tmpdir(), "bench-compare-"));
  const app = await startApp({
    env: benchAppEnv(telegram.apiRoot, { MARKETPLACE_URL: process.env.BENCH_MARKETPLACE_URL, DATABASE_URL: `file:${join(dir, "bot.db")}`, SECRET_KEY: randomBytes(32).toString("base64") }),
    logDestination: pino.destination({ dest: join(dir, "app.log"), sync: false }),
    telegramBudget: LIFTED,
  });
  await app.push.stop();

  serveCommands({
    updates: async ({ count, concurrency }) => {
      instant.setInstant(true);
      const n = Number(count);
      const c = Number(concurrency);
      const botId = app.bot.botInfo.id;
      const probe = new UpdateMix(botId, "");
      await app.bot.handleUpdate(probe.update(0, 0, 600_000_000));
      const updates = new UpdateMix(botId, quoteButtonOf(instant.lastParams("sendMessage")));
      const bots = comparisonBots(BENCH_TOKEN, app.bot.botInfo, (userId) => app.db.selectFrom("users").selectAll().where("telegram_id", "=", userId).executeTakeFirst(), createMarketplaceClient({ baseUrl: process.env.BENCH_MARKETPLACE_URL! }));
      const { bare, reference } = bots;
      await updates.warmUp(app, bots, n, c);
      const mix = await updates.driveApp(app, n, c, 10_000);
      const bareMix = await updates.drive((update) => bare.handleUpdate(update), n, c, 10_000);
      const sameIo = await updates.drive((update) => reference.handleUpdate(update), n, c, 10_000);
      const kinds = [];
      for (const kind of [0, 1, 2]) kinds.push(await updates.driveApp(app, Math.ceil(n / 3), c, 20_000, kind));
      const guidedUsers = guidedUsersFor(n);
      await driveGuided(app, guidedUsers, GUIDED_USERS_AT_ONCE, 0, GUIDED_THINK_MS);
      instant.answered(true);
      const guided = await driveGuided(app, guidedUsers, GUIDED_USERS_AT_ONCE, guidedUsers, GUIDED_THINK_MS);
      // Each step sends one message (the next question, or the price at the last step).
      const questions = instant.answered(true).sendMessage ?? 0;
      instant.setInstant(false);
      return { mix, bare: bareMix, sameIo, kinds, guided: { ...guided, questions } };
    },
  });
  process.send!({ ready: true });
}

main().catch((error: unknown) => {
  console.error("compare-child failed", error);
  process.exit(1);
});
