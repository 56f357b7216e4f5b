import type { ExpressionBuilder, Kysely, Transaction } from "kysely";
import type { Database } from "../schema";
import { deleteChunk } from "../chunked-delete";

/** The cards a chat keeps at most: its most recently drawn ones (a chat shows few at a time). */
export const CARDS_PER_CHAT = 20;

/** A rule card open in a chat, as the bot last drew it. */
export interface OpenRuleCard {
  chatId: number;
  messageId: number;
  /** The rule's callback reference on the card's buttons. */
  ruleRef: string;
  /** The rule menu's payload on the card's buttons. */
  payload: string;
  /** The text the card shows; null when the call did not say it (a keyboard-only edit keeps the stored one). */
  text: string | null;
  /** The card's inline keyboard, as JSON. */
  keyboard: string;
}

/**
 * Stores the card the bot just sent or edited into message `messageId` (replacing what that message
 * held), drawn at `now`; then the chat's cards beyond its CARDS_PER_CHAT most recently drawn go.
 * Two statements, no transaction needed: each leaves the table consistent.
 */
export async function recordOpenRuleCard(
  db: Kysely<Database> | Transaction<Database>,
  card: OpenRuleCard,
  now: number,
): Promise<void> {
  const drawn = { rule_ref: card.ruleRef, payload: card.payload, keyboard: card.keyboard, drawn_at: now };
  await db
    .insertInto("open_rule_cards")
    .values({ chat_id: card.chatId, message_id: card.messageId, text: card.text ?? "", ...drawn })
    .onConflict((oc) =>
      oc.columns(["chat_id", "message_id"]).doUpdateSet(card.text === null ? drawn : { ...drawn, text: card.text }),
    )
    .execute();
  await db
    .deleteFrom("open_rule_cards")
    .where("chat_id", "=", card.chatId)
    .where("message_id", "not in", (eb) =>
      eb
        .selectFrom("open_rule_cards")
        .select("message_id")
        .where("chat_id", "=", card.chatId)
        .orderBy("drawn_at", "desc")
        .orderBy("message_id", "desc")
        .limit(CARDS_PER_CHAT),
    )
    .execute();
}

/** Forgets message `messageId` of the chat as a rule card (it was deleted, or now shows something else). */
export async function forgetOpenRuleCard(
  db: Kysely<Database> | Transaction<Database>,
  chatId: number,
  messageId: number,
): Promise<void> {
  await db.deleteFrom("open_rule_cards").where("chat_id", "=", chatId).where("message_id", "=", messageId).execute();
}

/**
 * The cards open in the chat that show rule `ruleId` of user `telegramId` (found through the
 * user's own callback reference of the rule), oldest drawing first.
 */
export async function findOpenRuleCards(
  db: Kysely<Database>,
  chatId: number,
  telegramId: number,
  ruleId: string,
): Promise<Array<OpenRuleCard & { text: string }>> {
  const rows = await db
    .selectFrom("open_rule_cards")
    .innerJoin("callback_refs", "callback_refs.id", "open_rule_cards.rule_ref")
    .select([
      "open_rule_cards.message_id",
      "open_rule_cards.rule_ref",
      "open_rule_cards.payload",
      "open_rule_cards.text",
      "open_rule_cards.keyboard",
    ])
    .where("open_rule_cards.chat_id", "=", chatId)
    .where("callback_refs.telegram_id", "=", telegramId)
    .where("callback_refs.value", "=", ruleId)
    .orderBy("open_rule_cards.drawn_at")
    .orderBy("open_rule_cards.message_id")
    .execute();
  return rows.map((row) => ({
    chatId,
    messageId: Number(row.message_id),
    ruleRef: row.rule_ref,
    payload: row.payload,
    text: row.text,
    keyboard: row.keyboard,
  }));
}

/** The cards open in the chat that show the rule behind callback reference `ruleRef`, oldest drawing first. */
export async function findOpenRuleCardsByRef(
  db: Kysely<Database>,
  chatId: number,
  ruleRef: string,
): Promise<Array<OpenRuleCard & { text: string }>> {
  const rows = await db
    .selectFrom("open_rule_cards")
    .select(["message_id", "rule_ref", "payload", "text", "keyboard"])
    .where("chat_id", "=", chatId)
    .where("rule_ref", "=", ruleRef)
    .orderBy("drawn_at")
    .orderBy("message_id")
    .execute();
  return rows.map((row) => ({
    chatId,
    messageId: Number(row.message_id),
    ruleRef: row.rule_ref,
    payload: row.payload,
    text: row.text,
    keyboard: row.keyboard,
  }));
}

/** Deletes up to `limit` cards last drawn before `before` (the retention job). Returns how many went. */
export async function deleteOpenRuleCardsDrawnBefore(
  db: Kysely<Database>,
  before: number,
  limit: number,
): Promise<number> {
  const old = (eb: ExpressionBuilder<Database, "open_rule_cards">) => eb("drawn_at", "<", before);
  // Repeated outside: a card drawn again while this runs is kept.
  return deleteChunk(db, "open_rule_cards", ["chat_id", "message_id"], limit, old, old);
}
