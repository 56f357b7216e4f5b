export { createFakeTelegram } from "./create-fake-telegram";
export { parseTelegramHtml } from "./html";
export type { HtmlParseResult } from "./html";
export type { FakeGroup, MemberStatus } from "./groups";
export type { GroupSpec } from "./group-side";
export type {
  ApiCall,
  CallbackAnswer,
  ChatMessage,
  DownMode,
  FakeEvent,
  FakeEventKind,
  FakeTelegram,
  FakeTelegramOptions,
  FakeUser,
  InlineAnswer,
  InlineButtonLike,
  InlineResult,
  InlineKeyboardMarkupLike,
  MessageEntityLike,
  PressedButton,
  SentUserMessage,
} from "./types";
