import { afterEach, expect, it } from "vitest";
import type { Kysely } from "kysely";
import { migrateToLatest, openDatabase } from "#src/db/connection";
import type { Database } from "#src/db/schema";
import { claimDue, enqueueAlert, markDropped, markRetry, markSent } from "#src/db/repos/outbox";
import { createPostgresTestDatabase, type TestDatabase } from "../kit/test-database";
import { describeEachDialect } from "../kit/test-database-dialects";

const T = 1_800_000_000_000;

describeEachDialect("outbox outcomes need the lease (%s)", (dialect) => {
  let db: Kysely<Database>;
  let database: TestDatabase | null = null;
  afterEach(async () => {
    await db.destroy();
    await database?.drop();
    database = null;
  });

  /** One queued alert, claimed by replica "a" whose lease then ran out and "b" took it over. */
  async function takenOver(): Promise<number> {
    database = dialect === "PostgreSQL" ? await createPostgresTestDatabase("bot_outbox") : null;
    ({ db } = await openDatabase(database ? database.url : ":memory:", { poolMax: 2 }));
    await migrateToLatest(db);
    await enqueueAlert(db, {
      telegramId: 42,
      chatId: 42,
      dedupeKey: "order:1:Filled",
      payload: { method: "sendMessage", params: { text: "filled" } },
      now: T,
    });
    const [first] = await claimDue(db, "a", T, 10, 1_000);
    expect(first?.lease_owner).toBe("a");
    const [second] = await claimDue(db, "b", T + 2_000, 10, 1_000);
    expect(second?.lease_owner).toBe("b");
    return second!.id;
  }

  const row = (id: number) =>
    db
      .selectFrom("outbox")
      .select(["status", "lease_owner", "attempts", "next_attempt_at", "last_error"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();

  it("a replica whose lease ran out cannot put the row back for a retry or drop it", async () => {
    const id = await takenOver();
    expect(await markRetry(db, id, T + 60_000, "network error", "a")).toBe(false);
    expect(await markDropped(db, id, "Forbidden: bot was blocked by the user", "a")).toBe(false);
    expect(await row(id)).toEqual({
      status: "queued",
      lease_owner: "b",
      attempts: 0,
      next_attempt_at: T,
      last_error: null,
    });
    expect(await markRetry(db, id, T + 60_000, "network error", "b")).toBe(true);
    expect(await row(id)).toEqual({
      status: "queued",
      lease_owner: null,
      attempts: 1,
      next_attempt_at: T + 60_000,
      last_error: "network error",
    });
  });

  it("the new holder's 'sent' stands against the old holder's late retry or drop", async () => {
    const id = await takenOver();
    expect(await markSent(db, id, T + 2_100, "b")).toBe(true);
    expect(await markRetry(db, id, T + 60_000, "timed out", "a")).toBe(false);
    expect(await markDropped(db, id, "Bad Request", "a")).toBe(false);
    expect(await row(id)).toMatchObject({ status: "sent", attempts: 1, last_error: null });
  });
});
