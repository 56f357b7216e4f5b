import { Bot, GrammyError, HttpError } from "grammy";
import { afterEach } from "vitest";
import { startFakeTelegram, type StartedFakeTelegram } from "../kit/telegram-driver";
import type { FakeTelegramOptions, FakeUser } from "#src/telegram-fake/index";

export const ALICE: FakeUser = { id: 1001, firstName: "Alice", username: "alice", languageCode: "en" };

const started: StartedFakeTelegram[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((world) => world.close()));
});

/** A fake Telegram and a real grammY bot pointed at it; closed after the test. */
export async function world(options: Partial<FakeTelegramOptions> = {}) {
  const telegram = await startFakeTelegram(options);
  started.push(telegram);
  const bot = new Bot(telegram.token, { client: { apiRoot: telegram.apiRoot } });
  await bot.init();
  return { ...telegram, bot };
}

/** The GrammyError a Bot API call fails with (fails the test if it succeeds). */
export async function apiError(promise: Promise<unknown>): Promise<GrammyError> {
  const error = await promise.then(
    () => new Error("expected the Bot API call to fail, but it succeeded"),
    (caught: unknown) => caught,
  );
  if (!(error instanceof GrammyError)) throw error;
  return error;
}

export async function networkError(promise: Promise<unknown>): Promise<HttpError> {
  const error = await promise.then(
    () => new Error("expected a network error, but the call succeeded"),
    (caught: unknown) => caught,
  );
  if (!(error instanceof HttpError)) throw error;
  return error;
}
