/**
 * At most `limit` messages in any `windowMs`, as Telegram counts them: when they arrive.
 *
 * A rate limit on the moments messages leave does not hold on arrival: a stalled event loop, a
 * busy Telegram end or the network can hold a few back and deliver them together with the next
 * ones (granted at 28/s, 31 can arrive within one second under a webhook flood). Here a message
 * counts from the moment it leaves until its answer is back (which enclose its arrival), and a
 * message may leave only while fewer than `limit` are counted within the last `windowMs`. Any
 * window of Telegram's then holds at most `limit` of this process's messages, however they bunch
 * on the way.
 *
 * One per process, shared by the bot's replies and the pushed alerts. Across replicas the shared
 * database budget keeps the pace (see send-budget.ts).
 */
export interface ArrivalWindowOptions {
  limit: number;
  windowMs: number;
  /** Milliseconds; the app clock (tests may run it faster than the wall clock). */
  now: () => number;
}

/** Telegram's about 30 messages a second overall, less a margin for clocks and rounding. */
export const DEFAULT_ARRIVAL_WINDOW = { limit: 28, windowMs: 1_000 };

/** The longest sleep between two checks: the app clock may run faster than the timers. */
const MAX_SLEEP_MS = 10;

export class ArrivalWindow {
  private inFlight = 0;
  /** Times answers came back, oldest first (only those within the window are kept). */
  private readonly answered: number[] = [];
  private head = 0;
  private readonly waiting: Array<() => void> = [];
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly options: ArrivalWindowOptions) {}

  /** Messages counted now: in flight, or answered within the last window. */
  counted(): number {
    this.forgetOld(this.options.now());
    return this.inFlight + this.answered.length - this.head;
  }

  /**
   * Waits for a message's turn (callers are served in order); resolves with the function to call
   * once Telegram has answered (or the call failed). Calling it again does nothing.
   */
  async enter(): Promise<() => void> {
    if (this.waiting.length === 0 && this.hasRoom()) {
      this.inFlight += 1;
    } else {
      // wakeWaiting counts the message in before it wakes it, so no other caller can take its place.
      await new Promise<void>((resolve) => {
        this.waiting.push(resolve);
        this.schedule();
      });
    }
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.inFlight -= 1;
      this.answered.push(this.options.now());
      this.wakeWaiting();
    };
  }

  private hasRoom(): boolean {
    return this.counted() < this.options.limit;
  }

  private wakeWaiting(): void {
    while (this.waiting.length > 0 && this.hasRoom()) {
      this.inFlight += 1;
      this.waiting.shift()!();
    }
    if (this.waiting.length > 0) this.schedule();
  }

  private schedule(): void {
    if (this.timer) return;
    const now = this.options.now();
    this.forgetOld(now);
    const room = this.hasRoom();
    // Only messages in flight fill the window: their answers wake the waiters.
    if (!room && this.answered.length === this.head) return;
    const wait = room
      ? 0
      : Math.max(1, Math.min(MAX_SLEEP_MS, Math.ceil(this.answered[this.head]! + this.options.windowMs - now)));
    this.timer = setTimeout(() => {
      this.timer = null;
      this.wakeWaiting();
    }, wait);
  }

  private forgetOld(now: number): void {
    while (this.head < this.answered.length && this.answered[this.head]! <= now - this.options.windowMs) this.head++;
    if (this.head > 1024 && this.head * 2 > this.answered.length) {
      this.answered.splice(0, this.head);
      this.head = 0;
    }
  }
}
