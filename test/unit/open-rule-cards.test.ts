import { afterEach, beforeEach, expect, it } from "vitest";
import type { Kysely } from "kysely";
import { refFor } from "#src/db/repos/callback-refs";
import {
  CARDS_PER_CHAT,
  findOpenRuleCards,
  forgetOpenRuleCard,
  recordOpenRuleCard,
} from "#src/db/repos/open-rule-cards";
import { upsertUser } from "#src/db/repos/users";
import type { Database } from "#src/db/schema";
import { openMigratedTestDatabase } from "../kit/test-database";
import { describeEachDialect } from "../kit/test-database-dialects";

const T0 = 1_900_000_000_000;
const USER = 51;
const OTHER = 52;

describeEachDialect("the record of the chats' open rule cards (%s)", (dialect) => {
  let db: Kysely<Database>;
  let close: () => Promise<void>;
  beforeEach(async () => {
    ({ db, close } = await openMigratedTestDatabase(dialect, "bot_open_cards"));
    for (const id of [USER, OTHER]) await upsertUser(db, id, id, T0);
  });
  afterEach(() => close());

  const draw = (
    chatId: number,
    messageId: number,
    ref: string,
    at: number,
    text: string | null = `card ${messageId}`,
  ) =>
    recordOpenRuleCard(
      db,
      {
        chatId,
        messageId,
        ruleRef: ref,
        payload: `${ref}.1`,
        text,
        keyboard: JSON.stringify([[{ text: "⏸ Pause", callback_data: `ru/0/0/${ref}.1/abc` }]]),
      },
      at,
    );
  const shown = async (chatId: number, telegramId: number, ruleId: string) =>
    (await findOpenRuleCards(db, chatId, telegramId, ruleId)).map((card) => card.messageId);

  it("finds the cards of one rule through the user's own reference, and a keyboard-only edit keeps the card's text", async () => {
    const first = await refFor(db, USER, "rule-1", T0);
    const second = await refFor(db, USER, "rule-2", T0);
    await draw(USER, 10, first, T0);
    await draw(USER, 11, second, T0 + 1);
    await draw(USER, 12, first, T0 + 2);
    expect(await shown(USER, USER, "rule-1")).toEqual([10, 12]);
    expect(await shown(USER, USER, "rule-2")).toEqual([11]);
    // Another user's chat and reference find nothing of this user's.
    expect(await shown(OTHER, OTHER, "rule-1")).toEqual([]);
    expect(await shown(USER, OTHER, "rule-1")).toEqual([]);

    await draw(USER, 10, first, T0 + 3, null);
    const [card] = await findOpenRuleCards(db, USER, USER, "rule-1");
    expect(card).toMatchObject({ messageId: 12 });
    expect((await findOpenRuleCards(db, USER, USER, "rule-1")).find((found) => found.messageId === 10)?.text).toBe(
      "card 10",
    );

    await forgetOpenRuleCard(db, USER, 12);
    expect(await shown(USER, USER, "rule-1")).toEqual([10]);
  });

  it(`keeps a chat's ${CARDS_PER_CHAT} most recently drawn cards, and another chat's apart`, async () => {
    const ref = await refFor(db, USER, "rule-1", T0);
    const otherRef = await refFor(db, OTHER, "rule-1", T0);
    await draw(OTHER, 1, otherRef, T0);
    for (let messageId = 1; messageId <= CARDS_PER_CHAT + 5; messageId++)
      await draw(USER, messageId, ref, T0 + messageId);
    // The oldest card is drawn again (a tap on it): it is among the newest now.
    await draw(USER, 6, ref, T0 + 1_000);
    await draw(USER, CARDS_PER_CHAT + 6, ref, T0 + 1_001);
    const kept = await shown(USER, USER, "rule-1");
    expect(kept).toHaveLength(CARDS_PER_CHAT);
    expect(kept).toContain(6);
    expect(kept).not.toContain(7);
    expect(kept.at(-1)).toBe(CARDS_PER_CHAT + 6);
    expect(await shown(OTHER, OTHER, "rule-1")).toEqual([1]);
  });
});
