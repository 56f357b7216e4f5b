import { randomBytes } from "node:crypto";
import type { FakeEvent, FakeTelegram } from "#src/telegram-fake/index";
import { callChatId, isRejection, type RejectionView } from "./views";

export interface PlayUser {
  id: number;
  firstName: string;
  languageCode: string;
}

export const LANGUAGES = ["en", "ru", "zh"] as const;

export const DEFAULT_USERS: readonly PlayUser[] = [
  { id: 1001, firstName: "Alice", languageCode: "en" },
  { id: 1002, firstName: "Борис", languageCode: "ru" },
  { id: 1003, firstName: "李雷", languageCode: "zh" },
];

/**
 * What the playground remembers beside the fake: the simulated users and, for each chat, the calls
 * Telegram refused (placed after the message that was newest then), so a reloaded page shows them.
 */
export function createPlaygroundState(fake: FakeTelegram) {
  const users = new Map<number, PlayUser>(DEFAULT_USERS.map((user) => [user.id, { ...user }]));
  const rejectionsByChat = new Map<number, RejectionView[]>();
  const rejectionsByEvent = new Map<number, RejectionView>();
  let lastEventId = fake.eventsSince(0).at(-1)?.id ?? 0;

  const unsubscribe = fake.subscribe((event: FakeEvent) => {
    lastEventId = event.id;
    const call = event.call;
    if (event.kind !== "call" || !call || !isRejection(call)) return;
    const chatId = callChatId(call);
    if (chatId === undefined) return;
    const rejection: RejectionView = {
      seq: call.seq,
      chatId,
      afterMessageId: fake.messages(chatId).at(-1)?.messageId ?? 0,
      method: call.method,
      ...(call.errorCode !== undefined ? { errorCode: call.errorCode } : {}),
      description: call.description ?? "rejected",
      at: call.at,
    };
    let list = rejectionsByChat.get(chatId);
    if (!list) rejectionsByChat.set(chatId, (list = []));
    list.push(rejection);
    rejectionsByEvent.set(event.id, rejection);
  });

  return {
    /**
     * This process's playground, told apart from the one before a restart: the new one numbers its
     * events, messages and calls from 1 again, so an open page that sees another instance draws
     * everything again instead of waiting for ids past the ones it knew.
     */
    instance: randomBytes(8).toString("hex"),
    lastEventId: () => lastEventId,
    users: () => [...users.values()],
    /** The user with this id, created (or updated) on first sight. */
    user(id: number, changes: { firstName?: string; languageCode?: string } = {}): PlayUser {
      const existing = users.get(id) ?? { id, firstName: `User ${id}`, languageCode: "en" };
      const next: PlayUser = {
        ...existing,
        ...(changes.firstName ? { firstName: changes.firstName } : {}),
        ...(changes.languageCode ? { languageCode: changes.languageCode } : {}),
      };
      users.set(id, next);
      return next;
    },
    knownUser: (id: number) => users.get(id),
    rejections: (chatId: number) => [...(rejectionsByChat.get(chatId) ?? [])],
    rejectionForEvent: (eventId: number) => rejectionsByEvent.get(eventId),
    close: unsubscribe,
  };
}

export type PlaygroundState = ReturnType<typeof createPlaygroundState>;
