import type { Bot, Transformer } from "grammy";
import type { InlineKeyboardButton, InlineKeyboardMarkup, Update } from "grammy/types";
import type { Kysely } from "kysely";
import { MENU_DATA, MENU_IDS, RULE_VIEW } from "#src/chat/callback-data";
import type { Database } from "#src/db/schema";
import type { WriteBatcher } from "#src/db/write-batcher";
import {
  findOpenRuleCards,
  forgetOpenRuleCard,
  recordOpenRuleCard,
  type OpenRuleCard,
} from "#src/db/repos/open-rule-cards";
import type { Logger } from "#src/logger";
import type { BotContext } from "#src/bot/context";
import { visibleText } from "#src/bot/edit-in-place";
import { DASHBOARD_PRESS_PREFIX } from "#src/bot/middleware/rate-limit";

/** The rules menu's other views (the list, the deliveries): a card edited into one of them is closed. */
const OTHER_RULES_VIEWS: ReadonlySet<string> = new Set([MENU_IDS.rules, MENU_IDS.ruleDeliveries]);
const CARD_VIEWS: ReadonlySet<string> = new Set([MENU_IDS.rule, MENU_IDS.ruleCancel]);

/** A rule card's button, read with the menu's own data and payload readers: the card's payload (without its top-up mark) and rule. */
function cardButton(data: string): { payload: string; ref: string } | null {
  const button = MENU_DATA.parse(data);
  const view = button && CARD_VIEWS.has(button.menu) ? RULE_VIEW.parse(button.payload) : null;
  return view ? { payload: RULE_VIEW.data({ ref: view.ref, page: view.page }), ref: view.ref } : null;
}
/** Messages this process remembers drawing as cards, so an edit or delete of one is noticed without a read. */
const KNOWN_KEPT = 50_000;
const OBSERVED = new Set(["sendMessage", "editMessageText", "editMessageReplyMarkup", "deleteMessage"]);

interface OpenCardsDeps {
  db: Kysely<Database>;
  /** The bot's group commit: a card's row shares the commit of the other writes of its moment. */
  writes: WriteBatcher;
  now: () => number;
  logger: Logger;
}

/** Whom a redraw is for: the rule's owner and their chat. */
interface CardOwner {
  telegramId: number;
  chatId: number;
  firstName: string;
  languageCode: string | null;
}

/**
 * What a successful Bot API call did to a chat's rule cards: a card drawn (sent or edited into the
 * message), or the message no longer a card (deleted, or edited into something else). `surely`:
 * the edit was the rules menu leaving the card (its list or deliveries), or Telegram found the
 * message gone, so the message may be a card whichever process drew it; any other edit or delete
 * only closes a card this process drew.
 */
type CardChange =
  { kind: "drawn"; card: OpenRuleCard } | { kind: "closed"; chatId: number; messageId: number; surely: boolean };

/**
 * The rule cards open in each chat, read from the Bot API calls themselves (an API transformer on
 * the bot, so no feature has to report them) and kept in the database: a call that draws a card
 * stores it once Telegram accepted it, so every replica, and the bot after a restart, knows it.
 * After the dashboard paused or resumed a rule, each open card of that rule is redrawn by the
 * chat's own code: a press on the card made on the user's behalf, marked outdated, which the rule
 * menu answers by drawing the card as the rule is now (the same path as a tap on an old card).
 */
export class OpenRuleCards {
  /** "chat:message" of the cards this process drew, oldest first. */
  private readonly known = new Set<string>();
  private updateId = 0;

  constructor(private readonly deps: OpenCardsDeps) {}

  /**
   * Records what goes out; swallows the answers to the dashboard's own presses. A call that
   * concerns a card resolves once its row is written (in the next group commit), so the update
   * that drew the card ends with it stored; a failed write is logged and the call still succeeds.
   */
  transformer(): Transformer {
    return async (prev, method, payload, signal) => {
      const params = payload as Record<string, unknown>;
      if (method === "answerCallbackQuery" && String(params.callback_query_id).startsWith(DASHBOARD_PRESS_PREFIX)) {
        return { ok: true, result: true } as Awaited<ReturnType<typeof prev>>;
      }
      const result = await prev(method, payload, signal);
      // An edit Telegram calls "not modified" left the message showing exactly what was sent: done.
      const shown =
        result.ok || (method.startsWith("edit") && result.description?.includes("message is not modified") === true);
      const change = !OBSERVED.has(method)
        ? null
        : shown
          ? cardChange(method, params, result.ok ? result.result : true)
          : messageGone(method, params, result.description);
      if (change) await this.store(change);
      return result;
    };
  }

  private async store(change: CardChange): Promise<void> {
    const chatId = change.kind === "drawn" ? change.card.chatId : change.chatId;
    const messageId = change.kind === "drawn" ? change.card.messageId : change.messageId;
    const key = `${chatId}:${messageId}`;
    const wasKnown = this.known.delete(key);
    if (change.kind === "drawn") this.remember(key);
    else if (!wasKnown && !change.surely) return;
    try {
      await this.deps.writes.run((db) =>
        change.kind === "drawn"
          ? recordOpenRuleCard(db, change.card, this.deps.now())
          : forgetOpenRuleCard(db, chatId, messageId),
      );
    } catch (error) {
      this.deps.logger.warn(
        { err: error, chatId, messageId },
        "the chat's open rule card could not be recorded; a Pause or Resume on the dashboard leaves it as it is until its next tap",
      );
    }
  }

  private remember(key: string): void {
    this.known.add(key);
    if (this.known.size > KNOWN_KEPT) this.known.delete(this.known.values().next().value!);
  }

  /**
   * Redraws every open card of `ruleId` in the owner's chat as the rule is now, through the bot's
   * own handling of a press. Resolves once the bot has handled them; a failure is the bot's to log.
   */
  async redraw(bot: Bot<BotContext>, owner: CardOwner, ruleId: string, nowMs: number): Promise<number> {
    const cards = await findOpenRuleCards(this.deps.db, owner.chatId, owner.telegramId, ruleId);
    let redrawn = 0;
    for (const card of cards) {
      const keyboard = parseKeyboard(card.keyboard);
      if (!keyboard) continue;
      await bot.handleUpdate(this.outdatedPress(bot, owner, { ...card, keyboard }, nowMs));
      redrawn += 1;
    }
    return redrawn;
  }

  /**
   * A press on the card whose data says "drawn without a fingerprint": the rule menu, which
   * fingerprints every card, takes it as outdated and draws the card as the rule is now, doing
   * nothing else. The button is added to the message as the chat has it, as a press must be on it.
   */
  private outdatedPress(
    bot: Bot<BotContext>,
    owner: CardOwner,
    card: { messageId: number; payload: string; text: string; keyboard: InlineKeyboardButton[][] },
    nowMs: number,
  ): Update {
    this.updateId -= 1;
    // Data of its own each time: two redraws of one card in a row are two presses, never a double tap.
    const data = MENU_DATA.data(MENU_IDS.rule, card.payload, `h${(-this.updateId).toString(36).slice(-12)}`);
    const from = {
      id: owner.telegramId,
      is_bot: false,
      first_name: owner.firstName || String(owner.telegramId),
      ...(owner.languageCode ? { language_code: owner.languageCode } : {}),
    };
    const message = {
      message_id: card.messageId,
      date: Math.floor(nowMs / 1000),
      chat: { id: owner.chatId, type: "private" as const, first_name: from.first_name },
      from: { id: bot.botInfo.id, is_bot: true, first_name: bot.botInfo.first_name },
      text: card.text,
      reply_markup: { inline_keyboard: [...card.keyboard, [{ text: "↻", callback_data: data }]] },
    };
    return {
      update_id: this.updateId,
      callback_query: {
        id: `${DASHBOARD_PRESS_PREFIX}${-this.updateId}`,
        from,
        chat_instance: String(owner.chatId),
        data,
        message,
      },
    };
  }
}

/** What a successful call of an OBSERVED method did to the chat's rule cards; null: nothing. */
function cardChange(method: string, params: Record<string, unknown>, result: unknown): CardChange | null {
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
function messageGone(
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

function firstCardButton(keyboard: InlineKeyboardButton[][] | undefined): { payload: string; ref: string } | null {
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
function parseKeyboard(json: string): InlineKeyboardButton[][] | null {
  try {
    const rows = JSON.parse(json) as unknown;
    return Array.isArray(rows) && rows.every((row) => Array.isArray(row)) ? (rows as InlineKeyboardButton[][]) : null;
  } catch {
    return null;
  }
}
