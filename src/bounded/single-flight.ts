import { abortReason } from "./semaphore";

interface Flight<T> {
  promise: Promise<T>;
  controller: AbortController;
  /** Callers still waiting for the result; a caller without a signal waits for good. */
  waiting: number;
}

/**
 * Calls for the same key share one run while it is in flight: the first caller starts it, later
 * ones join it, and the key is free again once it settles (nothing is kept afterwards).
 *
 * The run gets a signal that aborts only when every caller waiting for it has given up (their
 * own signals aborted), so a caller past its deadline cancels the work unless someone else still
 * wants it.
 */
export class SingleFlight<K, T> {
  private readonly flights = new Map<K, Flight<T>>();

  /** Runs in flight now. */
  get size(): number {
    return this.flights.size;
  }

  /** `onShared` is called when this caller joins a run already in flight. */
  run(
    key: K,
    work: (signal: AbortSignal) => Promise<T>,
    options: { signal?: AbortSignal; onShared?: () => void } = {},
  ): Promise<T> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    let flight = this.flights.get(key);
    if (flight) options.onShared?.();
    else flight = this.start(key, work);
    flight.waiting += 1;
    if (!signal) return flight.promise;
    const joined = flight;
    return new Promise<T>((resolve, reject) => {
      const leave = () => {
        joined.waiting -= 1;
        if (joined.waiting === 0) {
          // Nobody wants it any more: a caller arriving now starts afresh instead of joining a cancelled run.
          if (this.flights.get(key) === joined) this.flights.delete(key);
          joined.controller.abort(abortReason(signal));
        }
        reject(abortReason(signal));
      };
      signal.addEventListener("abort", leave, { once: true });
      joined.promise.then(
        (value) => {
          signal.removeEventListener("abort", leave);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener("abort", leave);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  private start(key: K, work: (signal: AbortSignal) => Promise<T>): Flight<T> {
    const controller = new AbortController();
    const flight: Flight<T> = {
      promise: Promise.resolve().then(() => work(controller.signal)),
      controller,
      waiting: 0,
    };
    this.flights.set(key, flight);
    const forget = () => {
      if (this.flights.get(key) === flight) this.flights.delete(key);
    };
    flight.promise.then(forget, forget);
    return flight;
  }
}
