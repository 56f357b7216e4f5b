export { createFakeTelegram } from "./create-fake-telegram";
export { parseTelegramHtml } from "./html";
export type { HtmlParseResult } from "./html";
export type {
  ApiCall,
  CallbackAnswer,
  ChatMessage,
  DownMode,
  FakeEvent,
  FakeEventKind,
  FakeGroup,
  GroupSpec,
  MemberStatus,
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
