import { GrammyError, type Composer } from "grammy";
import type { ChatMember } from "grammy/types";
import { z } from "zod";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import type { BotContext } from "#src/bot/context";
import { editInPlace } from "#src/bot/edit-in-place";
import { endFlow } from "#src/bot/flows";
import { GROUP_CHOOSE, GROUP_COPY_TOGGLE, GROUP_STOP } from "#src/chat/callback-data";
import { findGroupLink, saveGroupLink, stopGroupLink, toggleGroupCopy } from "#src/db/repos/group-links";
import { maySend } from "./in-group";
import { addToGroupKeyboard, GROUP_PICKER_REQUEST_ID, groupCard, groupPicker } from "./views";

export { groupChatsFeature } from "./in-group";

/** A chat_shared service message as Telegram sends it; anything else is not the picker's answer. */
const SharedChat = z.object({
  request_id: z.number().int(),
  chat_id: z.number().int().negative(),
  title: z.string().max(256).optional(),
});

const ADMIN_STATUSES = new Set(["creator", "administrator"]);
const MEMBER_STATUSES = new Set(["creator", "administrator", "member", "restricted"]);

/**
 * Team alerts in a private chat: /group shows the chat picker (nothing linked) or the linked
 * group's card; the picker's answer (chat_shared) is checked with getChatMember (the user an
 * admin there, the bot a member) before it is stored; the card's switches, Choose a group and
 * Stop group alerts.
 */
export function groupFeature(): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  composer.command("group", async (ctx) => {
    await endFlow(ctx);
    const link = await findGroupLink(ctx.deps.db, ctx.account.telegram_id);
    if (!link) {
      // Telegram's group picker lists only groups the bot is in: first a way to add it, then the picker.
      await ctx.reply(ctx.tr("group-intro"), {
        parse_mode: "HTML",
        reply_markup: addToGroupKeyboard(ctx.tr, ctx.me.username),
      });
      await ctx.reply(ctx.tr("group-choose"), { parse_mode: "HTML", reply_markup: groupPicker(ctx.tr) });
      return;
    }
    const card = groupCard(ctx.tr, link, ctx.me.username);
    await ctx.reply(card.text, { parse_mode: "HTML", reply_markup: card.keyboard });
  });

  composer.callbackQuery(GROUP_CHOOSE.pattern, async (ctx) => {
    await ctx.answerCallbackQuery();
    await ctx.reply(ctx.tr("group-choose"), { parse_mode: "HTML", reply_markup: groupPicker(ctx.tr) });
  });

  composer.callbackQuery(GROUP_COPY_TOGGLE.pattern, async (ctx) => {
    const kind = GROUP_COPY_TOGGLE.parse(ctx.callbackQuery.data)!;
    const link = await toggleGroupCopy(ctx.deps.db, ctx.account.telegram_id, kind);
    if (!link) return void (await ctx.answerCallbackQuery({ text: ctx.tr("group-none-linked") }));
    await ctx.answerCallbackQuery();
    const card = groupCard(ctx.tr, link, ctx.me.username);
    await editInPlace(ctx, card.text, card.keyboard);
  });

  composer.callbackQuery(GROUP_STOP.pattern, async (ctx) => {
    const stopped = await stopGroupLink(ctx.deps.db, ctx.account.telegram_id);
    await ctx.answerCallbackQuery();
    await ctx.editMessageText(
      stopped ? ctx.tr("group-stopped", { title: stopped.group_title }) : ctx.tr("group-none-linked"),
      { parse_mode: "HTML" },
    );
  });

  composer.on("message:chat_shared", async (ctx, next) => {
    const shared = SharedChat.safeParse(ctx.message.chat_shared);
    if (!shared.success || shared.data.request_id !== GROUP_PICKER_REQUEST_ID) return next();
    await linkGroup(ctx, shared.data.chat_id, shared.data.title);
  });

  return composer;
}

/** Checks the chosen group (the bot a member, the user an admin), then stores the link and shows its card. */
async function linkGroup(ctx: BotContext, chatId: number, title: string | undefined): Promise<void> {
  const removeKeyboard = { remove_keyboard: true as const };
  const unanswered = () =>
    ctx.reply(ctx.tr("group-check-unanswered"), { parse_mode: "HTML", reply_markup: removeKeyboard });
  const bot = await memberOf(ctx, chatId, ctx.me.id);
  if (bot === UNANSWERED) {
    await unanswered();
    return;
  }
  if (!bot || !MEMBER_STATUSES.has(bot.status)) {
    await ctx.reply(ctx.tr("group-refused-bot-missing"), { parse_mode: "HTML", reply_markup: removeKeyboard });
    return;
  }
  if (!maySend(bot)) {
    await ctx.reply(ctx.tr("group-refused-bot-muted"), { parse_mode: "HTML", reply_markup: removeKeyboard });
    return;
  }
  const user = await memberOf(ctx, chatId, ctx.account.telegram_id);
  if (user === UNANSWERED) {
    await unanswered();
    return;
  }
  if (!user || !ADMIN_STATUSES.has(user.status)) {
    await ctx.reply(ctx.tr("group-refused-not-admin"), { parse_mode: "HTML", reply_markup: removeKeyboard });
    return;
  }
  const link = await saveGroupLink(ctx.deps.db, {
    telegramId: ctx.account.telegram_id,
    groupChatId: chatId,
    title: title ?? ctx.tr("group-untitled"),
    ownerName: ctx.from?.first_name ?? "",
    now: ctx.deps.now(),
  });
  ctx.deps.logger.info({ userId: ctx.account.telegram_id, groupChatId: chatId }, "alerts linked to a group");
  await ctx.reply(ctx.tr("group-linked", { title: link.group_title }), {
    parse_mode: "HTML",
    reply_markup: removeKeyboard,
  });
  const card = groupCard(ctx.tr, link, ctx.me.username);
  await ctx.reply(card.text, { parse_mode: "HTML", reply_markup: card.keyboard });
}

/** Telegram did not answer the member check (a 5xx, a 429, the network): nothing is known about the group. */
const UNANSWERED = "unanswered" as const;

/**
 * A member's status in a chat; null when Telegram refuses to say (a 4xx: the bot is not there, the
 * chat is gone); UNANSWERED when it did not answer, which says nothing about the group.
 */
async function memberOf(
  ctx: BotContext,
  chatId: number,
  userId: number,
): Promise<ChatMember | null | typeof UNANSWERED> {
  try {
    return await ctx.api.getChatMember(chatId, userId);
  } catch (error) {
    const refused =
      error instanceof GrammyError && error.error_code >= 400 && error.error_code < 500 && error.error_code !== 429;
    const reason = error instanceof Error ? error.message : "unknown";
    if (!refused) {
      ctx.deps.logger.warn(
        { groupChatId: chatId, reason },
        "group member check unanswered by Telegram; the user is asked to try again",
      );
      return UNANSWERED;
    }
    ctx.deps.logger.info({ groupChatId: chatId, reason }, "group member check refused; the group is not linked");
    return null;
  }
}
