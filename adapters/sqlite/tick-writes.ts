/**
 * The writes of one tick in one transaction. The engine does not fold calls for a `local`
 * store (there is no round trip to save), so the store folds its own writes: the first write
 * of a tick runs at once, alone (one statement when it can: the cheapest path for a lone
 * call), and writes issued after it in the same tick wait for the end of the tick and commit
 * together in one transaction (one lock, one WAL commit). A read, or any call that is not a
 * write, first runs what is waiting, so every call sees the writes issued before it. While a
 * write waits for the lock of another process (SQLITE_BUSY, retried on timers), later writes
 * queue behind it, so writes reach the file in the order they were issued.
 */

/** A write, as the store hands it over. */
export interface WriteOp<T> {
  /** Runs it by itself: its own statement or transaction. Synchronous; throws what the binding throws. */
  alone(): T;
  /** Runs it inside the tick's open transaction, at that transaction's clock reading. Absent: it must run alone (in order). */
  within?: (now: number) => T;
}

/** What one folded write produced. */
export type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** What the store lends the queue. */
export interface TickHost {
  /** Runs the writes in one transaction; an error of one write alone goes in its outcome. Throws when the transaction failed. */
  batch(runs: ReadonlyArray<(now: number) => unknown>): Outcome[];
  /** Retries `op` (which failed with `error`) while the file is busy; rejects with the store's error otherwise. */
  retry<T>(error: unknown, op: () => T): Promise<T>;
  /** True when `error` means "another connection holds the lock". */
  isBusy(error: unknown): boolean;
  /** The store's error for a failure that is not retried. */
  fail(error: unknown): unknown;
}

interface Queued {
  op: WriteOp<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

const ignore = (): void => {};

/** The write queue of one store. */
export class TickWrites {
  readonly #host: TickHost;
  #queue: Queued[] = [];
  /** A write has been issued in this tick (its end is scheduled). */
  #inTick = false;
  /** A write waiting for another process's lock; everything queued waits for it. */
  #waiting: Promise<void> | undefined;

  constructor(host: TickHost) {
    this.#host = host;
  }

  /** Issues a write; resolves once it is committed. */
  submit<T>(op: WriteOp<T>): Promise<T> {
    if (!this.mayLead()) return this.enqueue(op);
    try {
      return Promise.resolve(op.alone());
    } catch (error) {
      return this.recover(error, () => op.alone());
    }
  }

  /**
   * Starts the tick if no write did yet; true when a write issued now is its first with nothing
   * waiting, so it may run at once, alone (the caller then reports a throw to {@link recover}).
   */
  mayLead(): boolean {
    if (this.#inTick) return false;
    this.#inTick = true;
    queueMicrotask(this.#endTick);
    return this.#waiting === undefined && this.#queue.length === 0;
  }

  /** Queues a write behind the others of its tick (or behind the one that waits for a lock). */
  enqueue<T>(op: WriteOp<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => this.#queue.push({ op: op as WriteOp<unknown>, resolve: resolve as (value: unknown) => void, reject }));
  }

  /** A write that ran alone threw `error`: retried while the file is busy (the queue waits for it), rejected otherwise. */
  recover<T>(error: unknown, alone: () => T): Promise<T> {
    if (!this.#host.isBusy(error)) return Promise.reject(this.#host.fail(error));
    return this.#wait(this.#host.retry(error, alone));
  }

  /** Runs every waiting write now, unless they wait for a lock (a read calls this first). */
  drain(): void {
    while (this.#waiting === undefined && this.#queue.length > 0) {
      const first = this.#queue[0]!;
      let end = 1;
      if (first.op.within) while (end < this.#queue.length && this.#queue[end]!.op.within) end++;
      const segment = this.#queue.splice(0, end);
      if (segment.length === 1) this.#settle(first, this.#alone(first.op));
      else this.#batch(segment);
    }
  }

  readonly #endTick = (): void => {
    this.#inTick = false;
    this.drain();
  };

  #alone<T>(op: WriteOp<T>): Promise<T> {
    try {
      return Promise.resolve(op.alone());
    } catch (error) {
      return this.recover(error, () => op.alone());
    }
  }

  #batch(segment: Queued[]): void {
    const runs = segment.map((q) => q.op.within!);
    const settle = (outcomes: Outcome[]) => {
      for (let i = 0; i < outcomes.length; i++) {
        const outcome = outcomes[i]!;
        if (outcome.ok) segment[i]!.resolve(outcome.value);
        else segment[i]!.reject(outcome.error);
      }
    };
    const failAll = (error: unknown) => {
      for (const q of segment) q.reject(error);
    };
    try {
      settle(this.#host.batch(runs));
    } catch (error) {
      if (!this.#host.isBusy(error)) failAll(this.#host.fail(error));
      else this.#wait(this.#host.retry(error, () => this.#host.batch(runs))).then(settle, failAll);
    }
  }

  /** Holds the queue until `retry` settles, then runs what queued meanwhile. */
  #wait<T>(retry: Promise<T>): Promise<T> {
    this.#waiting = retry.then(ignore, ignore).then(() => {
      this.#waiting = undefined;
      this.drain();
    });
    return retry;
  }

  #settle(queued: Queued, result: Promise<unknown>): void {
    result.then(queued.resolve, queued.reject);
  }
}
