import type { Transformer } from "grammy";

/**
 * Telegram's per-process limits on outgoing calls, as a grammY API transformer:
 *
 * - per chat: calls of one chat run one at a time, in the order they were made, their starts at
 *   least `minTimeMs` apart (and, for groups, at most `perWindow.count` starts in any `windowMs`);
 * - overall: at most `perSecond` starts in any sliding second and `maxConcurrent` calls in flight.
 *
 * Calls without a `chat_id` (answerCallbackQuery, getUpdates, setMyCommands) pass straight through,
 * as they did under @grammyjs/transformer-throttler, which this replaces: its Bottleneck limiters
 * yielded to a timer (at least 1 ms) several times per call and took every submission through one
 * lock, so a bot with free capacity still waited about 8 ms per reply and handled a few hundred
 * updates a second at most. Here a call that may start starts in the same tick; a timer is set
 * only when a limit really makes it wait.
 *
 * A chat whose queue already holds `highWater` calls refuses the next one with
 * {@link ThrottleQueueFullError} (older calls keep their order; the newest is the one refused), and
 * so does the process when `globalHighWater` calls are waiting in all.
 */
export interface ChatThrottleOptions {
  overall: { perSecond: number; maxConcurrent: number; highWater: number };
  /** Private chats (chat_id > 0, or a username). */
  private: LaneLimits;
  /** Groups and channels (chat_id < 0). */
  group: LaneLimits;
  /** Milliseconds, monotonic (tests may pass their own). */
  now?: () => number;
}

export interface LaneLimits {
  minTimeMs: number;
  perWindow?: { count: number; windowMs: number };
  highWater: number;
}

export class ThrottleQueueFullError extends Error {
  constructor(what: string) {
    super(`too many Telegram calls waiting ${what}; this one was not sent`);
    this.name = "ThrottleQueueFullError";
  }
}

/** At most `limit` events in any `windowMs`: the times of the last events, oldest first. */
class SlidingWindow {
  private readonly times: number[] = [];
  private head = 0;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** 0 when an event may happen at `now`, else the time it may. */
  nextFree(now: number): number {
    while (this.head < this.times.length && this.times[this.head]! <= now - this.windowMs) this.head++;
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times.splice(0, this.head);
      this.head = 0;
    }
    if (this.times.length - this.head < this.limit) return 0;
    return this.times[this.times.length - this.limit]! + this.windowMs;
  }

  record(now: number): void {
    this.times.push(now);
  }

  idleAt(now: number): boolean {
    return (
      this.nextFree(now) === 0 &&
      (this.times.length === this.head || this.times[this.times.length - 1]! <= now - this.windowMs)
    );
  }
}

interface Job {
  start(): void;
  /** Whether the next call must keep `minTimeMs` from this one (a chat action need not). */
  spaced: boolean;
}

interface Lane {
  readonly limits: LaneLimits;
  readonly window: SlidingWindow | null;
  readonly queue: Job[];
  busy: boolean;
  /** Earliest start of the next call (the last start + minTimeMs). */
  nextAt: number;
  timer: ReturnType<typeof setTimeout> | null;
  waitingOverall: boolean;
}

export function chatThrottler(options: ChatThrottleOptions): Transformer {
  const throttle = new ChatThrottle(options);
  return (prev, method, payload, signal) => throttle.call(prev, method, payload, signal);
}

/** The lanes of every chat and the overall limits, shared by every call of one bot. */
class ChatThrottle {
  private readonly now: () => number;
  private readonly lanes = new Map<string, Lane>();
  private readonly overallWindow: SlidingWindow;
  private readonly waitingLanes: Lane[] = [];
  private running = 0;
  private queued = 0;
  private overallTimer: ReturnType<typeof setTimeout> | null = null;
  private lastSweep: number;

  constructor(private readonly options: ChatThrottleOptions) {
    this.now = options.now ?? (() => performance.now());
    this.overallWindow = new SlidingWindow(options.overall.perSecond, 1_000);
    this.lastSweep = this.now();
  }

  /** The transformer's work: a call with a chat waits for its lane's turn and the overall limits. */
  call(...[prev, method, payload, signal]: Parameters<Transformer>): ReturnType<Transformer> {
    if (!payload || typeof payload !== "object" || !("chat_id" in payload)) return prev(method, payload, signal);
    const lane = this.laneFor((payload as { chat_id: unknown }).chat_id);
    if (lane.queue.length >= lane.limits.highWater) return Promise.reject(new ThrottleQueueFullError("for this chat"));
    if (this.queued >= this.options.overall.highWater) return Promise.reject(new ThrottleQueueFullError("in all"));
    return new Promise((resolve, reject) => {
      lane.queue.push({
        // "typing…" keeps its place in the chat's order but does not hold back the reply after it.
        spaced: method !== "sendChatAction",
        start: () => {
          let call;
          try {
            call = signal?.aborted
              ? Promise.reject(new Error("the call was aborted while it waited for its turn"))
              : prev(method, payload, signal);
          } catch (error) {
            call = Promise.reject(error);
          }
          call.then(resolve, reject).finally(() => this.finish(lane));
        },
      });
      this.queued += 1;
      this.pump(lane);
    });
  }

  /** 0 when a call may start overall now, else when (Infinity: when a call in flight ends). */
  private overallFreeAt(at: number): number {
    return this.running >= this.options.overall.maxConcurrent ? Infinity : this.overallWindow.nextFree(at);
  }

  private pump(lane: Lane): void {
    if (lane.busy || lane.queue.length === 0 || lane.timer || lane.waitingOverall) return;
    const at = this.now();
    const laneFreeAt = Math.max(lane.nextAt, lane.window?.nextFree(at) ?? 0);
    if (laneFreeAt > at) {
      lane.timer = setTimeout(
        () => {
          lane.timer = null;
          this.pump(lane);
        },
        Math.ceil(laneFreeAt - at),
      );
      return;
    }
    if (this.overallFreeAt(at) !== 0) {
      lane.waitingOverall = true;
      this.waitingLanes.push(lane);
      this.armOverallTimer(at);
      return;
    }
    const job = lane.queue.shift()!;
    this.queued -= 1;
    lane.busy = true;
    if (job.spaced) lane.nextAt = at + lane.limits.minTimeMs;
    lane.window?.record(at);
    this.overallWindow.record(at);
    this.running += 1;
    job.start();
  }

  private wakeWaiting(): void {
    while (this.waitingLanes.length > 0 && this.overallFreeAt(this.now()) === 0) {
      const lane = this.waitingLanes.shift()!;
      lane.waitingOverall = false;
      this.pump(lane);
    }
    if (this.waitingLanes.length > 0) this.armOverallTimer(this.now());
  }

  private armOverallTimer(at: number): void {
    const freeAt = this.overallFreeAt(at);
    // Waiting for a call in flight to end: its end wakes the waiting lanes.
    if (this.overallTimer || freeAt === Infinity) return;
    this.overallTimer = setTimeout(
      () => {
        this.overallTimer = null;
        this.wakeWaiting();
      },
      Math.max(1, Math.ceil(freeAt - at)),
    );
  }

  private finish(lane: Lane): void {
    lane.busy = false;
    this.running -= 1;
    this.pump(lane);
    this.wakeWaiting();
  }

  private laneFor(chatId: unknown): Lane {
    const key = String(chatId);
    let lane = this.lanes.get(key);
    if (lane) return lane;
    this.sweep();
    const limits = Number(chatId) < 0 ? this.options.group : this.options.private;
    lane = {
      limits,
      window: limits.perWindow ? new SlidingWindow(limits.perWindow.count, limits.perWindow.windowMs) : null,
      queue: [],
      busy: false,
      nextAt: 0,
      timer: null,
      waitingOverall: false,
    };
    this.lanes.set(key, lane);
    return lane;
  }

  /** Forgets chats with nothing queued whose limits no longer hold anything back (once a minute at most). */
  private sweep(): void {
    const at = this.now();
    if (at - this.lastSweep < 60_000) return;
    this.lastSweep = at;
    for (const [key, lane] of this.lanes) {
      if (
        !lane.busy &&
        lane.queue.length === 0 &&
        !lane.timer &&
        !lane.waitingOverall &&
        lane.nextAt <= at &&
        (lane.window?.idleAt(at) ?? true)
      )
        this.lanes.delete(key);
    }
  }
}
