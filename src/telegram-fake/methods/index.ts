import type { MethodHandler } from "../method-context";
import { answerCallbackQuery } from "./callbacks";
import {
  deleteMyCommands,
  getChatMenuButton,
  getMyCommands,
  getMyDescription,
  getMyShortDescription,
  setChatMenuButton,
  setMyCommands,
  setMyDescription,
  setMyShortDescription,
} from "./commands";
import { deleteMessage, editMessageCaption, editMessageMedia, editMessageReplyMarkup, editMessageText } from "./edit";
import { getFile } from "./files";
import { getChatMember } from "./members";
import { answerInlineQuery } from "./inline";
import { sendChatAction, sendMessage, sendPhoto } from "./send";
import { acknowledge, deleteWebhook, getMe, getUpdates, getWebhookInfo, setWebhook } from "./updates";

const handlers: Record<string, MethodHandler> = {
  getMe,
  getUpdates,
  setWebhook,
  deleteWebhook,
  getWebhookInfo,
  sendMessage,
  sendPhoto,
  sendChatAction,
  editMessageText,
  editMessageCaption,
  editMessageMedia,
  editMessageReplyMarkup,
  deleteMessage,
  answerCallbackQuery,
  answerInlineQuery,
  setMyCommands,
  deleteMyCommands,
  getMyCommands,
  setChatMenuButton,
  getChatMenuButton,
  setMyDescription,
  getMyDescription,
  setMyShortDescription,
  getMyShortDescription,
  getFile,
  getChatMember,
  close: acknowledge,
  logOut: acknowledge,
};

// Telegram matches method names case-insensitively.
const byLowerCaseName = new Map(
  Object.entries(handlers).map(([name, handler]) => [name.toLowerCase(), { name, handler }]),
);

export function findMethod(name: string): { name: string; handler: MethodHandler } | undefined {
  return byLowerCaseName.get(name.toLowerCase());
}
