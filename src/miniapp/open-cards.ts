import type { Bot, Transformer } from "grammy";
import type { InlineKeyboardButton, InlineKeyboardMarkup, Update } from "grammy/types";
import type { Kysely } from "kysely";
import { MENU_IDS } from "#src/chat/callback-data";
import type { Database } from "#src/db/schema";
import { resolveRef } from "#src/db/repos/callback-refs";
import type { BotContext } from "#src/bot/context";
import { visibleText } from "#src/bot/edit-in-place";

/** A rule card (or its "cancel this rule?") as the chat last showed it. */
interface OpenCard {
  messageId: number;
  /** The rule menu's payload: the rule's short reference and the list page. */
  payload: string;
  ref: string;
  text: string;
  keyboard: InlineKeyboardButton[][];
}

/** Callback-query ids of the presses made on the dashboard's behalf: never sent to Telegram. */
const SYNTHETIC_PREFIX = "dashboard:";
const CARD_DATA = new RegExp(`^(?:${MENU_IDS.rule}|${MENU_IDS.ruleCancel})/[0-9a-f]{1,2}/[0-9a-f]{1,2}/(([A-Za-z0-9_-]{10})\\.\\d{1,4})(?:\\.t)?/`);
const CHATS_KEPT = 10_000;
const CARDS_PER_CHAT = 20;

/**
 * The rule cards open in each chat, as this process sent or edited them: read from the Bot API
 * calls themselves (an API transformer on the bot), so no feature has to report them. After the
 * dashboard paused or resumed a rule, each open card of that rule is redrawn by the chat's own
 * code: a press on the card made on the user's behalf, marked outdated, which the rule menu
 * answers by drawing the card as the rule is now (the same path as a tap on an old card).
 * Kept in memory: after a restart, or on another replica, a card is brought up to date at its
 * next tap instead, as any outdated card is.
 */
export class OpenRuleCards {
  private readonly chats = new Map<number, Map<number, OpenCard>>();
  private updateId = 0;

  /** Records what goes out; swallows the answers to the dashboard's own presses. */
  transformer(): Transformer {
    return async (prev, method, payload, signal) => {
      const params = payload as Record<string, unknown>;
      if (method === "answerCallbackQuery" && String(params.callback_query_id).startsWith(SYNTHETIC_PREFIX)) {
        return { ok: true, result: true } as Awaited<ReturnType<typeof prev>>;
      }
      const result = await prev(method, payload, signal);
      if (result.ok) this.observe(method, params, result.result);
      return result;
    };
  }

  private observe(method: string, params: Record<string, unknown>, result: unknown): void {
    if (method !== "sendMessage" && method !== "editMessageText" && method !== "editMessageReplyMarkup" && method !== "deleteMessage") return;
    const chatId = Number(params.chat_id);
    const messageId = method === "sendMessage" ? (result as { message_id?: number }).message_id : Number(params.message_id);
    if (!Number.isSafeInteger(chatId) || typeof messageId !== "number") return;
    const cards = this.chats.get(chatId);
    const keyboard = (params.reply_markup as InlineKeyboardMarkup | undefined)?.inline_keyboard;
    const match = method === "deleteMessage" ? null : firstCardButton(keyboard);
    if (!match) {
      cards?.delete(messageId);
      return;
    }
    const previous = cards?.get(messageId);
    const text = typeof params.text === "string" ? visibleText(params.text).trim() : (previous?.text ?? "");
    this.remember(chatId, { messageId, payload: match.payload, ref: match.ref, text, keyboard: keyboard! });
  }

  private remember(chatId: number, card: OpenCard): void {
    let cards = this.chats.get(chatId);
    if (cards) this.chats.delete(chatId);
    else cards = new Map();
    // Re-inserted: the map's order is the order of last use, so the oldest chat goes first.
    this.chats.set(chatId, cards);
    cards.delete(card.messageId);
    cards.set(card.messageId, card);
    if (cards.size > CARDS_PER_CHAT) cards.delete(cards.keys().next().value!);
    if (this.chats.size > CHATS_KEPT) this.chats.delete(this.chats.keys().next().value!);
  }

  /**
   * Redraws every open card of `ruleId` in the user's chat as the rule is now, through the bot's
   * own handling of a press. Resolves once the bot has handled it; a failure is the bot's to log.
   */
  async redraw(bot: Bot<BotContext>, db: Kysely<Database>, user: { telegramId: number; chatId: number; firstName: string; languageCode: string | null }, ruleId: string, nowMs: number): Promise<number> {
    const cards = [...(this.chats.get(user.chatId)?.values() ?? [])];
    let redrawn = 0;
    for (const card of cards) {
      if ((await resolveRef(db, user.telegramId, card.ref)) !== ruleId) continue;
      await bot.handleUpdate(this.outdatedPress(bot, user, card, nowMs));
      redrawn += 1;
    }
    return redrawn;
  }

  /**
   * A press on the card whose data says "drawn without a fingerprint": the rule menu, which
   * fingerprints every card, takes it as outdated and draws the card as the rule is now, doing
   * nothing else. The button is added to the message as the chat has it, as a press must be on it.
   */
  private outdatedPress(bot: Bot<BotContext>, user: { telegramId: number; chatId: number; firstName: string; languageCode: string | null }, card: OpenCard, nowMs: number): Update {
    this.updateId -= 1;
    // Data of its own each time: two redraws of one card in a row are two presses, never a double tap.
    const data = `${MENU_IDS.rule}/0/0/${card.payload}/h${(-this.updateId).toString(36).slice(-12)}`;
    const from = { id: user.telegramId, is_bot: false, first_name: user.firstName || String(user.telegramId), ...(user.languageCode ? { language_code: user.languageCode } : {}) };
    const message = {
      message_id: card.messageId,
      date: Math.floor(nowMs / 1000),
      chat: { id: user.chatId, type: "private" as const, first_name: from.first_name },
      from: { id: bot.botInfo.id, is_bot: true, first_name: bot.botInfo.first_name },
      text: card.text,
      reply_markup: { inline_keyboard: [...card.keyboard, [{ text: "↻", callback_data: data }]] },
    };
    return { update_id: this.updateId, callback_query: { id: `${SYNTHETIC_PREFIX}${-this.updateId}`, from, chat_instance: String(user.chatId), data, message } };
  }
}

function firstCardButton(keyboard: InlineKeyboardButton[][] | undefined): { payload: string; ref: string } | null {
  for (const row of keyboard ?? []) {
    for (const button of row) {
      const match = "callback_data" in button && typeof button.callback_data === "string" ? CARD_DATA.exec(button.callback_data) : null;
      if (match) return { payload: match[1]!, ref: match[2]! };
    }
  }
  return null;
}
