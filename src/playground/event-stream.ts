import type { Hono } from "hono";
import { streamSSE, type SSEStreamingApi } from "hono/streaming";
import type { ServerEnv } from "#src/server/create-server";
import type { FakeEvent, FakeTelegram } from "#src/telegram-fake/index";
import type { PlaygroundState } from "./state";
import { eventView } from "./views";

const HEARTBEAT_MS = 15_000;

interface EventStreamDeps {
  fake: FakeTelegram;
  state: PlaygroundState;
  /** Streams to end when the playground stops. */
  streams: Set<() => void>;
}

/**
 * GET /play/api/events: the chat's events as Server-Sent Events, from Last-Event-ID (or ?since) on.
 * Each connection opens with a `hello` event naming this playground's instance and its newest event
 * id (a page reconnecting to a restarted server learns it must draw everything again), and a `ping`
 * event every 15 s tells the page the connection still carries (a comment would not reach its script).
 */
export function registerEventStream(app: Hono<ServerEnv>, deps: EventStreamDeps): void {
  app.get("/play/api/events", (c) => {
    const header = c.req.header("last-event-id") ?? c.req.query("since");
    const since = header !== undefined && /^\d+$/.test(header) ? Number(header) : deps.state.lastEventId();
    const filter = c.req.query("userId") ? Number(c.req.query("userId")) : undefined;
    c.header("cache-control", "no-cache");
    c.header("x-accel-buffering", "no");
    return streamSSE(c, (stream) => streamEvents(stream, deps, since, filter));
  });
}

/** Writes the events after `since` (of one chat when filtered), then each new one, until the client or the playground goes. */
async function streamEvents(
  stream: SSEStreamingApi,
  { fake, state, streams }: EventStreamDeps,
  since: number,
  filter: number | undefined,
): Promise<void> {
  const queue: FakeEvent[] = [];
  let wake: (() => void) | null = null;
  let closed = false;
  const close = () => {
    closed = true;
    wake?.();
  };
  streams.add(close);
  const unsubscribe = fake.subscribe((event) => {
    queue.push(event);
    wake?.();
  });
  stream.onAbort(close);
  let sent = since;
  const send = async (event: FakeEvent) => {
    if (event.id <= sent) return;
    sent = event.id;
    const view = eventView(event, state.rejectionForEvent(event.id));
    if (!view || (filter !== undefined && view.chatId !== filter) || closed || stream.aborted) return;
    await stream.writeSSE({ id: String(event.id), data: JSON.stringify(view) }).catch(close);
  };
  try {
    await stream.write("retry: 1000\n\n");
    const hello = { instance: state.instance, lastEventId: state.lastEventId() };
    await stream.writeSSE({ event: "hello", data: JSON.stringify(hello) }).catch(close);
    for (const event of fake.eventsSince(since)) await send(event);
    while (!closed) {
      while (queue.length && !closed) await send(queue.shift()!);
      if (closed) break;
      const timedOut = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(true), HEARTBEAT_MS);
        wake = () => {
          clearTimeout(timer);
          resolve(false);
        };
      });
      wake = null;
      if (timedOut && !closed) await stream.writeSSE({ event: "ping", data: state.instance }).catch(close);
    }
  } finally {
    unsubscribe();
    streams.delete(close);
  }
}
