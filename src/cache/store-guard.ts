import type { CacheEvents, CacheStats } from './events.ts';

/** Circuit breaker settings. */
export interface CircuitBreakerOptions {
  /** Consecutive store failures that open the circuit. Default 5. */
  threshold?: number;
  /** How long an open circuit skips the store, in ms. Default 2000. */
  cooldownMs?: number;
}

/** Raised (in strict mode) or reported when a store call exceeds the operation timeout. */
export class StoreTimeoutError extends Error {
  override readonly name = 'StoreTimeoutError';
}

/** Raised (in strict mode) or reported while the circuit breaker skips the store. */
export class CircuitOpenError extends Error {
  override readonly name = 'CircuitOpenError';
}

interface Pending {
  deadline: number;
  fail: (error: Error) => void;
}

/**
 * Runs every store call with a timeout and a circuit breaker, and turns failures into
 * fallbacks plus error events (or throws them in strict mode).
 *
 * Timeouts share one coarse timer instead of arming a timer per call: on the hot path a
 * call costs a Set insert and delete, not a setTimeout/clearTimeout pair.
 */
export class StoreGuard {
  #pending = new Set<Pending>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #failures = 0;
  #openUntil = 0;
  readonly #tick: number;

  constructor(
    readonly storeName: string,
    readonly timeoutMs: number,
    readonly strict: boolean,
    readonly breaker: Required<CircuitBreakerOptions>,
    readonly events: CacheEvents,
    readonly stats: CacheStats,
  ) {
    // A quarter of the timeout keeps the overshoot small; the floor keeps the timer cheap.
    this.#tick = Math.max(5, Math.floor(timeoutMs / 4));
  }

  /** True while the breaker is open and store calls are skipped. */
  get open(): boolean {
    return this.#failures >= this.breaker.threshold && Date.now() < this.#openUntil;
  }

  /**
   * Runs `call`. On failure, timeout or an open circuit: reports the error and resolves with
   * `fallback` — or rejects with the error when the cache is strict.
   */
  run<T, F>(operation: string, keys: readonly string[], call: () => Promise<T>, fallback: F): Promise<T | F> {
    if (this.open) return this.#fail(operation, keys, new CircuitOpenError(`store "${this.storeName}" skipped: circuit open after ${this.#failures} consecutive failures`), fallback);
    let promise: Promise<T>;
    try {
      promise = call();
    } catch (error) {
      return this.#fail(operation, keys, error, fallback);
    }
    if (!Number.isFinite(this.timeoutMs)) return promise.then(this.#succeed, (e: unknown) => this.#fail(operation, keys, e, fallback));
    return new Promise<T | F>((resolve, reject) => {
      let settled = false;
      const entry: Pending = {
        deadline: Date.now() + this.timeoutMs,
        fail: (error) => {
          if (settled) return;
          settled = true;
          this.#fail(operation, keys, error, fallback).then(resolve, reject);
        },
      };
      this.#track(entry);
      promise.then(
        (value) => {
          this.#pending.delete(entry);
          if (settled) return;
          settled = true;
          resolve(this.#succeed(value));
        },
        (error: unknown) => {
          this.#pending.delete(entry);
          entry.fail(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  /** Stops the shared timer; pending calls keep their own promises. */
  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #succeed = <T>(value: T): T => {
    this.#failures = 0;
    return value;
  };

  #fail<F>(operation: string, keys: readonly string[], error: unknown, fallback: F): Promise<F> {
    if (!(error instanceof CircuitOpenError)) {
      this.#failures++;
      if (this.#failures >= this.breaker.threshold) this.#openUntil = Date.now() + this.breaker.cooldownMs;
    }
    this.stats.storeErrors++;
    this.events.emit('error', { source: 'store', operation, keys, error });
    return this.strict ? Promise.reject(error) : Promise.resolve(fallback);
  }

  #track(entry: Pending): void {
    this.#pending.add(entry);
    if (this.#timer) return;
    this.#timer = setInterval(() => this.#sweep(), this.#tick);
    // Never keep a process alive just to time out calls that nobody is waiting on.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #sweep(): void {
    const now = Date.now();
    for (const entry of this.#pending) {
      if (entry.deadline <= now) {
        this.#pending.delete(entry);
        entry.fail(new StoreTimeoutError(`store "${this.storeName}" did not answer within ${this.timeoutMs} ms`));
      }
    }
    if (this.#pending.size === 0) this.close();
  }
}
