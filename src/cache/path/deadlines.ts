import type { Clock } from '../clock.ts';

/** A call watched for its deadline. */
export interface Deadline {
  /** When the call times out, in the clock's milliseconds. */
  readonly at: number;
  /** True once the call settled by itself; the sweep then just drops it. */
  readonly settled: boolean;
  /** Fails the call because its deadline passed. */
  expire(): void;
}

/**
 * Timeouts for many calls on one coarse timer instead of a timer per call. Every call gets
 * the same timeout, so deadlines arrive in the order the calls were made and the queue stays
 * sorted: a sweep only ever looks at its head. A call costs one array push; the timer runs only
 * while calls are pending and never keeps a process alive.
 */
export class Deadlines {
  #queue: Deadline[] = [];
  #head = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #everyMs: number;

  constructor(
    readonly timeoutMs: number,
    private readonly clock: Clock,
  ) {
    // A quarter of the timeout keeps the overshoot small; the floor keeps the timer cheap.
    this.#everyMs = Math.max(5, Math.floor(timeoutMs / 4));
  }

  /** The deadline of a call starting now. */
  next(): number {
    return this.clock.now() + this.timeoutMs;
  }

  /** Watches `call` until it settles or its deadline passes. */
  watch(call: Deadline): void {
    // Calls mostly settle in order: dropping the settled ones at the head here keeps the queue
    // as short as the calls in flight, even when a busy loop keeps the timer from running.
    this.#trim();
    this.#queue.push(call);
    if (this.#timer === undefined) {
      this.#timer = setInterval(this.sweep, this.#everyMs);
      (this.#timer as { unref?: () => void }).unref?.();
    }
  }

  /** Expires every call whose deadline passed; drops settled ones at the head. */
  readonly sweep = (): void => {
    const now = this.clock.now();
    const queue = this.#queue;
    let head = this.#head;
    while (head < queue.length) {
      const call = queue[head]!;
      if (!call.settled) {
        if (call.at > now) break;
        call.expire();
      }
      head++;
    }
    this.#head = head;
    this.#trim();
    if (this.#queue.length === 0) this.stop();
  };

  /** Drops settled calls at the head, and the dead part of the array once it is most of it. */
  #trim(): void {
    const queue = this.#queue;
    let head = this.#head;
    while (head < queue.length && queue[head]!.settled) head++;
    if (head === queue.length) {
      if (head > 0) this.#queue = [];
      this.#head = 0;
    } else if (head > 1024 && head * 2 > queue.length) {
      this.#queue = queue.slice(head);
      this.#head = 0;
    } else {
      this.#head = head;
    }
  }

  /** Stops the timer; calls still pending keep their own promises. */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
