import type { FakeEvent } from "./types";

type NewEvent = Omit<FakeEvent, "id">;

/**
 * Everything that happened, numbered from 1, so a browser reconnecting with Last-Event-ID can
 * replay what it missed. With a `limit` only the newest events are kept (a long-running
 * playground records every getUpdates); ids keep counting, so resuming from a recent id still
 * replays exactly what came after it, and resuming from a forgotten one replays all that is kept.
 */
export function createEventLog(limit = Number.POSITIVE_INFINITY) {
  const events: FakeEvent[] = [];
  const listeners = new Set<(event: FakeEvent) => void>();
  let lastId = 0;
  return {
    emit(event: NewEvent): FakeEvent {
      const numbered = { id: ++lastId, ...event };
      events.push(numbered);
      trimToNewest(events, limit);
      for (const listener of [...listeners]) listener(numbered);
      return numbered;
    },
    subscribe(listener: (event: FakeEvent) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** The kept events with an id above `eventId`, oldest first. */
    since(eventId: number): FakeEvent[] {
      const firstId = events[0]?.id ?? lastId + 1;
      return events.slice(Math.max(0, eventId - firstId + 1));
    },
  };
}

/**
 * Drops the oldest entries once a list is a tenth over `limit`, so trimming costs one splice per
 * limit/10 additions instead of a shift on every one.
 */
export function trimToNewest<T>(list: T[], limit: number): void {
  if (list.length > limit + Math.ceil(limit / 10)) list.splice(0, list.length - limit);
}

export type EventLog = ReturnType<typeof createEventLog>;
