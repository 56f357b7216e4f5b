import type { InlineKeyboardButton, InlineKeyboardMarkup } from "grammy/types";
import { MENU_DATA, MENU_IDS, RULE_VIEW } from "#src/chat/callback-data";
import type { OpenRuleCard } from "#src/db/repos/open-rule-cards";
import { visibleText } from "#src/bot/edit-in-place";

// Reading the bot's own Bot API calls for the chat's rule cards (see open-cards.ts): which call
// draws a card, which closes one, and the state of its rule a card shows.

/** The rules menu's other views (the list, the deliveries): a card edited into one of them is closed. */
const OTHER_RULES_VIEWS: ReadonlySet<string> = new Set([MENU_IDS.rules, MENU_IDS.ruleDeliveries]);
const CARD_VIEWS: ReadonlySet<string> = new Set([MENU_IDS.rule, MENU_IDS.ruleCancel]);

/**
 * A rule card's button, read with the menu's own data and payload readers: the card's payload
 * (without its top-up mark), rule, and the fingerprint of the rule's state the card shows (the
 * menu's "f…" mark; null when the button carries none).
 */
function cardButton(data: string): { payload: string; ref: string; fingerprint: string | null } | null {
  const button = MENU_DATA.parse(data);
  const view = button && CARD_VIEWS.has(button.menu) ? RULE_VIEW.parse(button.payload) : null;
  return view
    ? { payload: RULE_VIEW.data({ ref: view.ref, page: view.page }), ref: view.ref, fingerprint: fingerprintOf(data) }
    : null;
}

/** The state mark @grammyjs/menu puts last in a fingerprinted menu's data ("f" and a hash). */
function fingerprintOf(data: string): string | null {
  const mark = data.slice(data.lastIndexOf("/") + 1);
  return mark.startsWith("f") ? mark : null;
}

/** The state mark of a stored card's keyboard (its first card button's); null when none reads. */
export function keyboardFingerprint(json: string): string | null {
  return firstCardButton(parseKeyboard(json) ?? undefined)?.fingerprint ?? null;
}

/**
 * What a successful Bot API call did to a chat's rule cards: a card drawn (sent or edited into the
 * message), or the message no longer a card (deleted, or edited into something else). `surely`:
 * the edit was the rules menu leaving the card (its list or deliveries), or Telegram found the
 * message gone, so the message may be a card whichever process drew it; any other edit or delete
 * only closes a card this process drew.
 */
export type CardChange =
  | { kind: "drawn"; card: OpenRuleCard; fingerprint: string | null }
  | { kind: "closed"; chatId: number; messageId: number; surely: boolean };

/** What a successful call of an OBSERVED method did to the chat's rule cards; null: nothing. */
export function cardChange(method: string, params: Record<string, unknown>, result: unknown): CardChange | null {
  const chatId = Number(params.chat_id);
  const messageId =
    method === "sendMessage" ? (result as { message_id?: number }).message_id : Number(params.message_id);
  if (!Number.isSafeInteger(chatId) || typeof messageId !== "number" || !Number.isSafeInteger(messageId)) return null;
  if (method === "deleteMessage") return { kind: "closed", chatId, messageId, surely: false };
  const keyboard = (params.reply_markup as InlineKeyboardMarkup | undefined)?.inline_keyboard;
  const match = firstCardButton(keyboard);
  if (match) {
    const text = typeof params.text === "string" ? visibleText(params.text).trim() : null;
    return {
      kind: "drawn",
      card: { chatId, messageId, ruleRef: match.ref, payload: match.payload, text, keyboard: JSON.stringify(keyboard) },
      fingerprint: match.fingerprint,
    };
  }
  // A new message that is no card closes nothing.
  if (method === "sendMessage") return null;
  return {
    kind: "closed",
    chatId,
    messageId,
    surely: hasButton(keyboard, (data) => OTHER_RULES_VIEWS.has(MENU_DATA.parse(data)?.menu ?? "")),
  };
}

/** An edit refused because the message is gone (the user deleted it): whoever drew a card there, it is closed. */
export function messageGone(
  method: string,
  params: Record<string, unknown>,
  description: string | undefined,
): CardChange | null {
  if (!method.startsWith("edit") || !description?.includes("message to edit not found")) return null;
  const chatId = Number(params.chat_id);
  const messageId = Number(params.message_id);
  return Number.isSafeInteger(chatId) && Number.isSafeInteger(messageId)
    ? { kind: "closed", chatId, messageId, surely: true }
    : null;
}

function firstCardButton(
  keyboard: InlineKeyboardButton[][] | undefined,
): { payload: string; ref: string; fingerprint: string | null } | null {
  for (const row of keyboard ?? []) {
    for (const button of row) {
      const card =
        "callback_data" in button && typeof button.callback_data === "string" ? cardButton(button.callback_data) : null;
      if (card) return card;
    }
  }
  return null;
}

function hasButton(keyboard: InlineKeyboardButton[][] | undefined, matches: (data: string) => boolean): boolean {
  return (keyboard ?? []).some((row) =>
    row.some(
      (button) =>
        "callback_data" in button && typeof button.callback_data === "string" && matches(button.callback_data),
    ),
  );
}

/** A stored keyboard as rows of buttons; null when it does not read as one. */
export function parseKeyboard(json: string): InlineKeyboardButton[][] | null {
  try {
    const rows = JSON.parse(json) as unknown;
    return Array.isArray(rows) && rows.every((row) => Array.isArray(row)) ? (rows as InlineKeyboardButton[][]) : null;
  } catch {
    return null;
  }
}
