import { afterEach, beforeEach, expect, it } from "vitest";
import type { Kysely } from "kysely";
import { randomBytes } from "node:crypto";
import { findCredential, markKeyBroken, openApiKey, saveApiKey } from "#src/db/repos/credentials";
import { findConversation, saveConversation } from "#src/db/repos/conversations";
import { findFlow, FLOW_VERSION, setFlow } from "#src/db/repos/flows";
import { countedReadStatements, findUser, findUserWithState, upsertUser } from "#src/db/repos/users";
import { countUpdateInWindow } from "#src/db/repos/update-windows";
import type { Database } from "#src/db/schema";
import { SecretBox } from "#src/security/secret-box";
import { openMigratedTestDatabase } from "../kit/test-database";
import { describeEachDialect } from "../kit/test-database-dialects";
import { expectSharedStatements } from "../kit/batching";

const T0 = 1_900_000_000_000;

/** The one read of an update (the user with their key, flow and key step) against the reads it replaces. */
describeEachDialect("the user's row with what an update reads next (%s)", (dialect) => {
  let db: Kysely<Database>;
  let close: () => Promise<void>;
  const box = new SecretBox(randomBytes(32).toString("base64"));
  beforeEach(async () => {
    ({ db, close } = await openMigratedTestDatabase(dialect, "bot_user_state"));
  });
  afterEach(() => close());

  it("has no user, key or key step for a user not stored, and the upsert returns the row it stored", async () => {
    expect(await findUserWithState(db, 51, 51)).toEqual({
      user: undefined,
      credential: null,
      conversation: null,
      step: null,
      windowPlace: null,
    });
    const created = await upsertUser(db, 51, 51, T0);
    expect(created).toEqual(await findUser(db, 51));
    expect(created).toMatchObject({ telegram_id: 51, chat_id: 51, active: 1, created_at: T0 });
    const moved = await upsertUser(db, 51, 52, T0 + 5);
    expect(moved).toMatchObject({ chat_id: 52, created_at: T0, updated_at: T0 + 5 });
  });

  it("gives nulls and no key step for a user with nothing linked or open", async () => {
    await upsertUser(db, 52, 52, T0);
    const state = (await findUserWithState(db, 52, 52))!;
    expect(state.user).toEqual(await findUser(db, 52));
    expect(state).toMatchObject({ credential: null, conversation: null, step: null });
  });

  it("gives the same key, flow and key step as the reads it replaces, and only the asked chat's flow", async () => {
    await upsertUser(db, 53, 53, T0);
    await upsertUser(db, 54, 54, T0);
    await saveApiKey(db, box, 53, "sk_live_user_state_key_0001", T0 + 1);
    await markKeyBroken(db, 53, T0 + 2);
    await saveConversation(db, 53, { flow: "quote", step: "volume", state: '{"version":[0,1]}' }, T0 + 3);
    await saveConversation(db, 54, { flow: "buy", step: "address", state: "{}" }, T0 + 4);
    await setFlow(db, 53, { flow: "connect", step: "key", data: { askedAt: T0 } }, T0 + 5);
    const state = (await findUserWithState(db, 53, 53))!;
    expect(state.user).toEqual(await findUser(db, 53));
    expect(state.credential).toEqual(await findCredential(db, 53));
    expect(state.credential!.broken_at).toBe(T0 + 2);
    expect(openApiKey(box, state.credential!)).toBe("sk_live_user_state_key_0001");
    expect(state.conversation).toEqual(await findConversation(db, 53));
    expect(state.step).toEqual(await findFlow(db, 53));
    expect(state.step).toMatchObject({ flow: "connect", step: "key", version: FLOW_VERSION });
    expect(JSON.parse(state.step!.data)).toEqual({ askedAt: T0 });
    // Another user's flow and key are never joined in.
    const other = (await findUserWithState(db, 54, 54))!;
    expect(other).toMatchObject({ credential: null, step: null, conversation: { flow: "buy", step: "address" } });
  });

  it("gives the chat's flow to a user not stored yet (the flow's row is the chat's, and may outlive the user's)", async () => {
    await saveConversation(db, 55, { flow: "quote", step: "volume", state: "{}" }, T0);
    const state = await findUserWithState(db, 55, 55);
    expect(state.user).toBeUndefined();
    expect(state.conversation).toEqual(await findConversation(db, 55));
    expect(state.conversation).toMatchObject({ flow: "quote", step: "volume" });
  });

  it("counts the update in the user's flood-limit window when asked, as countUpdateInWindow does, known user or not", async () => {
    await upsertUser(db, 56, 56, T0);
    const places = [];
    for (const at of [T0, T0 + 1, T0 + 9_999, T0 + 10_000, T0 + 20_001])
      places.push((await findUserWithState(db, 56, 56, { now: at, windowMs: 10_000 })).windowPlace);
    // A window lasts windowMs from its first update; the next update after it opens a new one.
    expect(places).toEqual([1, 2, 3, 4, 1]);
    const counted = await findUserWithState(db, 56, 56, { now: T0 + 20_002, windowMs: 10_000 });
    expect(counted).toMatchObject({ user: await findUser(db, 56), windowPlace: 2 });
    expect(await countUpdateInWindow(db, 56, T0 + 20_003, 10_000)).toBe(3);
    const stranger = await findUserWithState(db, 57, 57, { now: T0, windowMs: 10_000 });
    expect(stranger).toMatchObject({ credential: null, windowPlace: 1 });
    expect((await findUserWithState(db, 56, 56)).windowPlace).toBeNull();
  });

  it("stores a user met for the first time in the counted read, as upsertUser would, and returns the stored row", async () => {
    const first = await findUserWithState(db, 58, 580, { now: T0, windowMs: 10_000 });
    const stored = await findUser(db, 58);
    expect(stored).toMatchObject({
      telegram_id: 58,
      chat_id: 580,
      language: null,
      active: 1,
      alert_orders: 1,
      alert_rules: 1,
      alert_deposits: 1,
      alert_other: 1,
      created_at: T0,
      updated_at: T0,
    });
    expect(first.user).toEqual(stored);
    // The same row as upsertUser stores for a first contact (defaults included).
    const upserted = await upsertUser(db, 59, 580, T0);
    expect({ ...upserted, telegram_id: 58 }).toEqual(stored);
    // A stored user is read, never written: a later read (later time, another chat) returns the row as it is.
    const again = await findUserWithState(db, 58, 581, { now: T0 + 5, windowMs: 10_000 });
    expect(again).toMatchObject({ user: stored, windowPlace: 2 });
    expect(await findUser(db, 58)).toEqual(stored);
    // A user who blocked the bot stays inactive until loadAccount's upsert brings them back.
    await db.updateTable("users").set({ active: 0 }).where("telegram_id", "=", 58).execute();
    expect((await findUserWithState(db, 58, 580, { now: T0 + 6, windowMs: 10_000 })).user).toMatchObject({
      active: 0,
      updated_at: T0,
    });
    // The read without a window stores nobody.
    expect((await findUserWithState(db, 60, 60)).user).toBeUndefined();
    expect(await findUser(db, 60)).toBeUndefined();
  });

  it("answers concurrent counted reads as reads of their own would, sharing statements on PostgreSQL, each user once per statement", async () => {
    // Stored users with a key, a flow and the key step; a plain one; one who blocked the bot; a
    // chat with a flow whose user is not stored; and new users, one of them read three times at once.
    await upsertUser(db, 70, 70, T0);
    await saveApiKey(db, box, 70, "sk_live_user_state_key_0070", T0 + 1);
    await saveConversation(db, 70, { flow: "quote", step: "volume", state: "{}" }, T0 + 2);
    await setFlow(db, 70, { flow: "connect", step: "key", data: { askedAt: T0 } }, T0 + 3);
    await upsertUser(db, 71, 71, T0);
    await upsertUser(db, 72, 72, T0);
    await db.updateTable("users").set({ active: 0 }).where("telegram_id", "=", 72).execute();
    await saveConversation(db, 730, { flow: "buy", step: "address", state: "{}" }, T0 + 4);
    const before = countedReadStatements(db)?.statements ?? 0;
    const asked = [70, 71, 72, 73, ...Array.from({ length: 30 }, (_, index) => 100 + index), 71, 71, 100];
    const chatOf = (user: number) => (user === 73 ? 730 : user);
    const reads = await Promise.all(
      asked.map((user) => findUserWithState(db, user, chatOf(user), { now: T0 + 10, windowMs: 10_000 })),
    );
    for (const [index, user] of asked.entries()) {
      const read = reads[index]!;
      // Every asked user is stored now (the blocked one as it was), and each read returned its own row.
      expect(read.user).toEqual(await findUser(db, user));
      expect(read.credential).toEqual(user === 70 ? await findCredential(db, 70) : null);
      expect(read.conversation).toEqual(await findConversation(db, chatOf(user)));
      expect(read.step).toEqual(user === 70 ? await findFlow(db, 70) : null);
      expect(read.step !== null).toBe(user === 70);
    }
    expect(reads[2]!.user).toMatchObject({ active: 0 });
    expect(reads[3]!.conversation).toMatchObject({ flow: "buy", step: "address" });
    expect(openApiKey(box, reads[0]!.credential!)).toBe("sk_live_user_state_key_0070");
    // Each read took its own place in its user's window: 71 was read three times, 100 twice.
    const places = (user: number) =>
      asked.flatMap((asking, index) => (asking === user ? [reads[index]!.windowPlace] : [])).sort();
    expect(places(71)).toEqual([1, 2, 3]);
    expect(places(100)).toEqual([1, 2]);
    expect(places(129)).toEqual([1]);
    expect((await db.selectFrom("users").select("telegram_id").where("telegram_id", ">=", 100).execute()).length).toBe(
      30,
    );
    // Two ran alone, the rest queued and shared statements; the repeated users waited for later ones.
    expectSharedStatements(dialect, countedReadStatements(db), asked.length, before);
  });
});
