import { badRequest } from "../api-error";
import { chatMemberJson, requireBotInGroup } from "../groups";
import { botUserJson, userJson } from "../message-json";
import type { MethodHandler } from "../method-context";
import { readInteger, requireChatId } from "../param-readers";

/**
 * getChatMember: a member's status in a group the bot is in (anyone not there has "left"). In a
 * private chat, its user and the bot are members; a group the bot left or was removed from is 403.
 */
export const getChatMember: MethodHandler = (context, params) => {
  const chatId = requireChatId(params);
  const userId = readInteger(params, "user_id");
  if (userId === undefined) throw badRequest("user_id is empty");
  const chat = context.state.requireChat(chatId);
  if (chat.type === "private") {
    if (userId === context.bot.id) return chatMemberJson("member", botUserJson(context.bot));
    if (userId === chatId)
      return chatMemberJson("member", { id: userId, is_bot: false, first_name: chat.firstName ?? "Test" });
    throw badRequest("user not found");
  }
  const group = context.groups.get(chatId);
  if (!group) throw badRequest("chat not found");
  requireBotInGroup(group);
  if (userId === context.bot.id)
    return chatMemberJson(group.botStatus, botUserJson(context.bot), group.botCanSend !== false);
  const member = group.members.get(userId);
  if (!member) return chatMemberJson("left", { id: userId, is_bot: false, first_name: "User" });
  return chatMemberJson(member.status, userJson(member.user));
};
