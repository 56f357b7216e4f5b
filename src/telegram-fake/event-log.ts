import type { FakeEvent } from "./types";

type NewEvent = Omit<FakeEvent, "id">;

/**
 * Everything that happened, numbered from 1. Kept whole so a browser reconnecting with
 * Last-Event-ID can replay what it missed; the fake lives as long as a test or a playground run.
 */
export function createEventLog() {
  const events: FakeEvent[] = [];
  const listeners = new Set<(event: FakeEvent) => void>();
  return {
    emit(event: NewEvent): FakeEvent {
      const numbered = { id: events.length + 1, ...event };
      events.push(numbered);
      for (const listener of [...listeners]) listener(numbered);
      return numbered;
    },
    subscribe(listener: (event: FakeEvent) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    since(eventId: number): FakeEvent[] {
      return events.slice(Math.max(0, eventId));
    },
  };
}

export type EventLog = ReturnType<typeof createEventLog>;
