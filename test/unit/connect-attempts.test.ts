import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Kysely } from "kysely";
import { tryConnectAttempt } from "#src/db/repos/connect-attempts";
import type { Database } from "#src/db/schema";
import { openMigratedTestDatabase, TEST_DATABASE_URL } from "../kit/test-database";

const CAP = { limit: 10, windowMs: 3_600_000 };
const T0 = 1_800_000_000_000;

describe(`the /connect attempt cap in the database (${TEST_DATABASE_URL ? "PostgreSQL" : "SQLite"})`, () => {
  let db: Kysely<Database>;
  let close: () => Promise<void>;
  beforeEach(async () => {
    ({ db, close } = await openMigratedTestDatabase(TEST_DATABASE_URL ? "PostgreSQL" : "SQLite", "bot_test"));
  });
  afterEach(() => close());

  const rowsOf = (telegramId: number) =>
    db.selectFrom("connect_attempts").select("attempted_at").where("telegram_id", "=", telegramId).execute();

  it("allows 10 attempts an hour per user, refuses the 11th without recording it, and counts users apart", async () => {
    const results: boolean[] = [];
    for (let i = 0; i < 11; i++) results.push(await tryConnectAttempt(db, 1, T0 + i * 1000, CAP));
    expect(results).toEqual([...Array<boolean>(10).fill(true), false]);
    expect(await rowsOf(1)).toHaveLength(10);
    expect(await tryConnectAttempt(db, 2, T0 + 20_000, CAP)).toBe(true);
  });

  it("frees a slot exactly when the oldest attempt is an hour old, and prunes rows past the window", async () => {
    for (let i = 0; i < 10; i++) expect(await tryConnectAttempt(db, 1, T0 + i * 60_000, CAP)).toBe(true);
    expect(await tryConnectAttempt(db, 1, T0 + CAP.windowMs - 1, CAP)).toBe(false);
    expect(await tryConnectAttempt(db, 1, T0 + CAP.windowMs, CAP)).toBe(true);
    // The first attempt (T0) is gone; the nine after it and the new one remain.
    expect((await rowsOf(1)).map((row) => Number(row.attempted_at)).sort((a, b) => a - b)).toEqual([
      ...Array.from({ length: 9 }, (_, i) => T0 + (i + 1) * 60_000),
      T0 + CAP.windowMs,
    ]);
    // Another user's attempt much later prunes everyone's stale rows.
    expect(await tryConnectAttempt(db, 2, T0 + 3 * CAP.windowMs, CAP)).toBe(true);
    expect(await rowsOf(1)).toEqual([]);
  });

  it("never lets concurrent attempts past the cap", async () => {
    for (let i = 0; i < 8; i++) await tryConnectAttempt(db, 1, T0, CAP);
    const results = await Promise.all(Array.from({ length: 6 }, () => tryConnectAttempt(db, 1, T0 + 1, CAP)));
    expect(results.filter(Boolean).length).toBeLessThanOrEqual(2);
    expect((await rowsOf(1)).length).toBeLessThanOrEqual(10);
  });
});
