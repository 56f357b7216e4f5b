import type { MiddlewareFn } from "grammy";
import type { ChatMember } from "grammy/types";
import type { BotContext } from "#src/bot/context";
import { GROUP_RULE } from "#src/chat/callback-data";
import { groupRuleButton } from "#src/chat/group-alerts";
import { escapeHtml } from "#src/chat/html";
import { pickLanguage, translatorFor, type Translate } from "#src/chat/i18n";
import { findRefOwner, resolveRef } from "#src/db/repos/callback-refs";
import { findCredential, openApiKey } from "#src/db/repos/credentials";
import { findGroupLink, linksToGroup, moveGroup } from "#src/db/repos/group-links";
import { MarketplaceError } from "#src/marketplace/index";
import { endGroupLinks } from "#src/team-alerts/group-endings";

/** "/group" or "/group@<bot>", with or without arguments. */
const GROUP_COMMAND = /^\/group(?:@([A-Za-z0-9_]{3,64}))?(?=\s|$)/;
/** What Telegram sends in a group the bot was added to through the Add to a group link (addToGroupUrl). */
const ADDED_BY_LINK = /^\/start(?:@[A-Za-z0-9_]{3,64})?\s+alerts$/;

/**
 * Team alerts in a group, before the private-only answer: the bot removed from the group (its
 * links end, owners told), the group become a supergroup (its links follow), /group (whose alerts
 * come here), and Pause or Resume under a copied alert (the owner alone). Everything else in a
 * group goes on to the private-only answer.
 */
export function groupChatsFeature(): MiddlewareFn<BotContext> {
  // When each member was last answered /group in each group: a member repeating it is not answered
  // again for a while, since every answer takes one of the group's turns, which its alerts share.
  const answered = new Map<string, number>();
  return async (ctx, next) => {
    const chat = ctx.chat;
    if (!chat || (chat.type !== "group" && chat.type !== "supergroup")) return next();
    const deps = ctx.deps;
    const ending = { db: deps.db, logger: deps.logger, translations: deps.i18n, now: deps.now };
    const member = ctx.update.my_chat_member;
    if (member) {
      if (isGone(member.new_chat_member.status)) await endGroupLinks(ending, chat.id, "removed");
      else if (!maySend(member.new_chat_member)) await endGroupLinks(ending, chat.id, "refused");
      else if (isGone(member.old_chat_member.status))
        await ctx.api.sendMessage(
          chat.id,
          translatorFor(deps.i18n, pickLanguage(member.from.language_code))("group-welcome"),
          { parse_mode: "HTML" },
        );
      return;
    }
    const message = ctx.message;
    if (message?.migrate_to_chat_id !== undefined) {
      const moved = await moveGroup(deps.db, chat.id, message.migrate_to_chat_id);
      deps.logger.info(
        { from: chat.id, to: message.migrate_to_chat_id, links: moved },
        "group became a supergroup; its links and queued alerts follow it",
      );
      return;
    }
    if (message?.migrate_from_chat_id !== undefined) return;
    // Service messages (members joining or leaving, a new title, the bot added: greeted above) get no answer.
    if (message && message.text === undefined && message.caption === undefined) return;
    const tr = translatorFor(deps.i18n, pickLanguage(ctx.from?.language_code));
    const press = ctx.callbackQuery?.data === undefined ? null : GROUP_RULE.parse(ctx.callbackQuery.data);
    if (press) return groupRulePress(ctx, tr, press);
    // The greeting above already said how team alerts are set up: no private-only answer after it.
    if (message?.text !== undefined && ADDED_BY_LINK.test(message.text)) return;
    const command = message?.text === undefined ? null : GROUP_COMMAND.exec(message.text);
    if (command && (command[1] === undefined || command[1].toLowerCase() === ctx.me.username.toLowerCase())) {
      if (!firstInWindow(answered, `${chat.id}:${ctx.from?.id ?? 0}`, deps.now())) return;
      const names = (await linksToGroup(deps.db, chat.id)).map((link) => `• ${escapeHtml(link.owner_name)}`);
      await ctx.reply(names.length > 0 ? whoseAlertsComeHere(tr, names) : tr("group-here-none"), {
        parse_mode: "HTML",
      });
      return;
    }
    return next();
  };
}

/** How long a member's /group in a group goes unanswered after an answer. */
export const GROUP_ANSWER_EVERY_MS = 30_000;

/** True when `key` was not answered within the window (and records this answer); the map stays small. */
function firstInWindow(answered: Map<string, number>, key: string, now: number): boolean {
  const last = answered.get(key);
  if (last !== undefined && now - last < GROUP_ANSWER_EVERY_MS) return false;
  if (answered.size >= 10_000)
    for (const [stale, at] of answered) if (now - at >= GROUP_ANSWER_EVERY_MS) answered.delete(stale);
  if (answered.size >= 10_000) answered.clear();
  answered.set(key, now);
  return true;
}

/** A member status that means "not in the group". */
const isGone = (status: string) => status === "left" || status === "kicked";

/** Whether a member (the bot) may send messages: a restricted one only when allowed to. */
export function maySend(member: ChatMember): boolean {
  return member.status !== "restricted" || member.can_send_messages !== false;
}

/** Room for the names in /group's answer in a group: a message holds 4,096 characters, and the title and "…and N more" take some. */
const NAMES_ROOM = 3_800;

/** "Alerts of these members come here" and the names, as many as fit in one message; the rest counted. */
function whoseAlertsComeHere(tr: Translate, names: string[]): string {
  const lines = [tr("group-here-title")];
  // Escaped names are counted as sent, longer than Telegram counts them: the message stays within its limit.
  let length = lines[0]!.length;
  let shown = 0;
  for (const name of names) {
    if (length + 1 + name.length > NAMES_ROOM) break;
    lines.push(name);
    length += 1 + name.length;
    shown += 1;
  }
  if (shown < names.length) lines.push(tr("group-here-more", { count: names.length - shown }));
  return lines.join("\n");
}

/**
 * Pause or Resume under a copied "rule paused" alert. Whose rule it is comes from the reference
 * (never from the button): anyone but its owner is told so in a toast and nothing changes. The
 * owner's key acts, and the button turns into the other one.
 */
async function groupRulePress(
  ctx: BotContext,
  tr: Translate,
  press: { action: "resume" | "pause"; ref: string },
): Promise<void> {
  const { db, box, marketplace } = ctx.deps;
  const owner = await findRefOwner(db, press.ref);
  const ruleId = owner === null ? undefined : await resolveRef(db, owner, press.ref);
  if (owner === null || ruleId === undefined)
    return void (await ctx.answerCallbackQuery({ text: tr("button-expired") }));
  if (ctx.from?.id !== owner) {
    const link = await findGroupLink(db, owner);
    // A toast is plain text: the name goes in as it is (escaped, "Tom &amp; Jerry" would show, and could pass 200 characters).
    return void (await ctx.answerCallbackQuery({
      text: link ? tr("group-not-owner", {}, { name: link.owner_name }) : tr("group-not-owner-unnamed"),
    }));
  }
  const credential = await findCredential(db, owner);
  if (!credential || credential.broken_at)
    return void (await ctx.answerCallbackQuery({ text: tr("group-owner-no-key") }));
  try {
    const apiKey = openApiKey(box, credential);
    const client = marketplace(() => apiKey);
    if (press.action === "resume") await client.resumeAutomation(ruleId);
    else await client.pauseAutomation(ruleId);
  } catch (error) {
    ctx.deps.logger.info(
      { userId: owner, kind: error instanceof MarketplaceError ? error.kind : "unexpected" },
      "a group alert's rule button failed",
    );
    return void (await ctx.answerCallbackQuery({ text: tr("group-rule-failed") }));
  }
  ctx.deps.ruleChanged?.(owner, ruleId);
  await ctx.answerCallbackQuery({ text: tr(press.action === "resume" ? "group-rule-resumed" : "group-rule-paused") });
  // An identical markup is answered as done by skipIdenticalEdits, installed before this feature.
  await ctx.editMessageReplyMarkup({ reply_markup: groupRuleButton(tr, press.ref, press.action === "resume") });
}
