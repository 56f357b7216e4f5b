/**
 * Bench child: the bot exactly as `npm start` runs it with no BOT_TOKEN (the playground: the fake
 * Bot API with Telegram's limits on, in this process, and the embedded sandbox), on a SQLite file.
 * Commands: seed (linked chats with personal webhook tokens), record (from now on, keep every
 * sendMessage the fake answers), calls (what was kept).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pino from "pino";
import { startApp } from "../../src/app";
import type { FakeEvent } from "../../src/telegram-fake/index";
import { seedUsers, seedWebhookTokens } from "../seed";
import { serveCommands, sleep } from "../lib";

const FIRST_CHAT = 4_000_000;

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "bench-flood-"));
  const app = await startApp({
    env: {
      DATABASE_URL: `file:${join(dir, "bot.db")}`,
      SECRET_KEY: randomBytes(32).toString("base64"),
      PORT: "0",
      LOG_LEVEL: "warn",
      NOTIFICATIONS_POLL: "0 0 1 1 *",
      NODE_ENV: "production",
    },
    logDestination: pino.destination({ dest: join(dir, "app.log"), sync: false }),
  });
  const fake = app.playground!.fake;
  const kept: Array<{ at: number; chatId: number; ok: boolean; throttled: boolean }> = [];
  let recording = false;
  fake.subscribe((event: FakeEvent) => {
    const call = event.call;
    if (!recording || event.kind !== "call" || !call || call.method !== "sendMessage") return;
    kept.push({ at: call.at, chatId: Number(call.params.chat_id), ok: call.ok, throttled: call.throttled === true });
  });

  serveCommands({
    seed: async ({ chats }) => {
      const count = Number(chats);
      const now = Date.now();
      await seedUsers(app.db, FIRST_CHAT, count, now);
      const tokens = await seedWebhookTokens(app.db, FIRST_CHAT, count, now);
      // Telegram lets a bot write only to a user who wrote first; the bot's answers to these
      // are sent and out of the way before the flood.
      for (let i = 0; i < count; i++)
        fake.sendText({ id: FIRST_CHAT + i, firstName: "Flood", languageCode: "en" }, "hi");
      const deadline = Date.now() + 60_000;
      while (
        Date.now() < deadline &&
        !Array.from({ length: count }, (_, i) =>
          fake.messages(FIRST_CHAT + i).some((message) => message.from === "bot"),
        ).every(Boolean)
      )
        await sleep(100);
      await sleep(2_000);
      return { url: app.url, tokens, log: join(dir, "app.log") };
    },
    record: () => {
      kept.length = 0;
      recording = true;
      return { recording };
    },
    calls: () => ({ calls: kept }),
  });
  process.send!({ ready: true });
}

main().catch((error: unknown) => {
  console.error("flood-child failed", error);
  process.exit(1);
});
